"""The writer's half of query expansion: every content word the index holds, recorded as its units are committed,
embedded after the units' own vectors, and linked to its nearest words in meaning, so a search neither embeds nor
reads a vector: it looks its words' neighbours up (term_expansion.py).

A word is recorded once per stem (the keyword index's analysed form), with the first surface form seen: the model
embeds "painting", not "paint" cut from it. Words are alphabetic, 3 to 30 letters, and not stop words: shorter ones
embed to noise, longer ones are run-together identifiers. The vectors are stored as float16 (half the space; the
cosines a search compares against its threshold move by about 1e-3). Words of deleted units stay until the keyword
index is written afresh (it is once deleted documents pile up, and when a folder is removed): then the words no
document holds leave (`drop_unheld_words`), since they would still fill places in other words' nearest lists that a
fresh build of the same documents gives to words it holds."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

from memlens.engine.keyword.parsed_query import PHRASE
from memlens.engine.keyword.stop_words import STOP_WORDS
from memlens.engine.lazy import lazy_module
from memlens.engine.progress import Progress, RateMeter
from memlens.engine.vectors.vector_index import single_threaded_blas

if TYPE_CHECKING:
    import numpy as np

    from memlens.engine.catalog import Catalog
    from memlens.engine.keyword.keyword_index import KeywordIndex
    from memlens.engine.vectors.embedder import Embedder
else:
    np = lazy_module("numpy")

MIN_LENGTH = 3
MAX_LENGTH = 30
VERSION = "1"  # bump when what counts as a word changes: every unit's words are collected again
VERSION_KEY = "vocabulary_version"
SCAN_BATCH = 2_000  # units read at a time when collecting a whole catalog's words
EMBED_BATCH = 256  # words embedded (and stored) at a time
NEAREST = 32  # neighbours kept per word: search.expansionTerms (at most 20) after the query's own words are left out
LINK_BLOCK = 256  # new words compared with the whole vocabulary at a time (one block: 256 × words float32)
NOT_FULL = -2.0  # the floor of a list shorter than NEAREST: any new word enters it (cosines are ≥ -1)


def is_word(word: str) -> bool:
    return MIN_LENGTH <= len(word) <= MAX_LENGTH and word.isalpha() and word not in STOP_WORDS


def collect_words(catalog: Catalog, keyword: KeywordIndex, texts: Iterable[str]) -> int:
    """Record the content words of `texts` that the catalog does not hold yet (their vectors come later). Each
    distinct surface form is stemmed once per call: most words of a batch repeat.

    The words are a text's `surface_words` (quoted phrases left out), but the texts are analysed in one call, joined
    by spaces (where the analyser splits anyway): the same words in the same order, without a call and a list per
    text (bench/RESULTS.md, cold indexing). A text of
    stop words alone, which `surface_words` would give whole, adds none: `is_word` leaves stop words out."""
    found: dict[str, str] = {}  # stem → the first surface form seen
    joined = " ".join(PHRASE.sub(" ", text) if '"' in text else text for text in texts)
    for word in dict.fromkeys(keyword.unstemmed_words(joined)):
        if is_word(word):
            for stem in keyword.tokens(word):
                found.setdefault(stem, word)
    if found:
        catalog.add_words(found.items())
    return len(found)


def backfill_words(catalog: Catalog, keyword: KeywordIndex, cancel: threading.Event | None = None) -> bool:
    """Collect the words of every unit once, for a catalog from before the vocabulary (or of another VERSION);
    returns whether it ran to the end. New units' words are collected as they are committed (indexer._mirror)."""
    if catalog.get_meta(VERSION_KEY) == VERSION:
        return True
    after = 0
    while True:
        if cancel is not None and cancel.is_set():
            return False
        rows = catalog.unit_texts_after(after, SCAN_BATCH)
        if not rows:
            break
        collect_words(catalog, keyword, (text for _, text in rows))
        after = rows[-1][0]
    with catalog.transaction() as db:
        catalog.set_meta(db, VERSION_KEY, VERSION)
    return True


def drop_unheld_words(catalog: Catalog, keyword: KeywordIndex) -> int:
    """Forget the recorded words that no document of the keyword index holds, and let the words that listed one of
    them among their nearest be linked again (by the next `link_words`). Returns how many words left. Only exact on
    an index without deleted documents (tantivy counts those in a word's document frequency): it is called right
    after the index is written afresh. A fresh build records no word that its documents do not hold."""
    stems = catalog.vocabulary_stems()
    if not stems:
        return 0
    _, freqs = keyword.document_frequencies(stems)
    gone = [stem for stem, freq in zip(stems, freqs, strict=True) if freq == 0]
    catalog.drop_words(gone)
    return len(gone)


def embed_words(
    catalog: Catalog,
    embedder: Embedder,
    *,
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
    max_batches: int | None = None,
) -> int:
    """Embed the recorded words that have no vector yet (all of them again after a change of model), at most
    `max_batches` batches; returns how many. Each batch is stored at once, so a cancelled run keeps what it made."""
    if catalog.vocabulary_model() != embedder.name:
        catalog.forget_word_vectors(embedder.name)
    total = catalog.count_words_without_vectors()
    done = batches = 0
    meter = RateMeter()
    while total and not (cancel is not None and cancel.is_set()) and (max_batches is None or batches < max_batches):
        words = catalog.words_without_vectors(EMBED_BATCH)
        if not words:
            break
        matrix = embedder.embed([surface for _, surface in words])
        halves = np.asarray(matrix, dtype=np.float16)
        catalog.store_word_vectors([(s, w, v.tobytes()) for (s, w), v in zip(words, halves, strict=True)])
        done += len(words)
        batches += 1
        if progress is not None:
            progress(done, max(total, done), "embedding words " + meter.status(done, total))
    return done


def link_words(catalog: Catalog, cancel: threading.Event | None = None) -> int:
    """Work out the NEAREST words of each embedded word that has no list yet, and let those new words into the lists
    of the words linked before (a new word may be nearer than their last neighbour). Returns how many were linked.

    Each new word is compared with the whole vocabulary once (a matrix product per LINK_BLOCK new words): the first
    run over a vocabulary of n words costs n² dot products, later runs only the new words'. Only the lists a new
    word enters are read and written again (the stored floor says which). With no new word, nothing is read: every
    sync ends here, and the whole vocabulary's vectors are megabytes."""
    if not catalog.words_to_link():
        return 0
    rows = catalog.embedded_words()
    fresh = [i for i, (_, _, floor) in enumerate(rows) if floor is None]
    if not fresh:
        return 0
    single_threaded_blas()
    stems = [stem for stem, _, _ in rows]
    row_of = {stem: i for i, stem in enumerate(stems)}
    matrix = np.frombuffer(b"".join(blob for _, blob, _ in rows), dtype=np.float16).reshape(len(rows), -1)
    matrix = matrix.astype(np.float32)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    last = np.array([np.inf if floor is None else floor for _, _, floor in rows], dtype=np.float32)
    is_fresh = np.isinf(last)
    changed: dict[int, list[tuple[int, float]]] = {}
    depth = min(NEAREST, len(rows) - 1)
    for start in range(0, len(fresh), LINK_BLOCK):
        if cancel is not None and cancel.is_set():
            break
        block = np.array(fresh[start : start + LINK_BLOCK])
        cosines = matrix[block] @ matrix.T  # [block, words]
        cosines[np.arange(len(block)), block] = -np.inf  # a word is not its own neighbour
        for r, i in enumerate(block.tolist()):
            top = np.argpartition(-cosines[r], depth - 1)[:depth] if depth > 0 else np.array([], dtype=np.int64)
            top = top[np.argsort(-cosines[r][top], kind="stable")]
            changed[i] = [(int(j), float(cosines[r][j])) for j in top.tolist()]
        better = np.nonzero((cosines.max(axis=0) > last) & ~is_fresh)[0].tolist()
        unread = [stems[j] for j in better if j not in changed]
        stored = catalog.word_neighbours(unread) if unread else {}
        for j in better:  # a word linked before: let this block's nearer words in
            base = changed.get(j)
            if base is None:
                base = [(row_of[n], c) for n, c in stored.get(stems[j], []) if n in row_of]
            column = cosines[:, j]
            entering = {int(block[r]): float(column[r]) for r in np.nonzero(column > last[j])[0].tolist()}
            # a word linked again (its list dropped: drop_unheld_words) may be in this list already
            kept = [(n, c) for n, c in base if n not in entering]
            merged = sorted(kept + list(entering.items()), key=lambda pair: -pair[1])[:NEAREST]
            changed[j] = merged
            last[j] = merged[-1][1] if len(merged) >= NEAREST else NOT_FULL
    catalog.store_neighbours(
        {
            stems[i]: ([(stems[j], c) for j, c in found], found[-1][1] if len(found) >= NEAREST else NOT_FULL)
            for i, found in changed.items()
        }
    )
    return sum(1 for i in changed if is_fresh[i])
