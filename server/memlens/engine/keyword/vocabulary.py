"""The writer's half of query expansion: every content word the index holds, recorded as its units are committed,
embedded after the units' own vectors, and linked to its nearest words in meaning, so a search neither embeds nor
reads a vector: it looks its words' neighbours up (term_expansion.py).

A word is recorded once per stem (the keyword index's analysed form) and embedded as one of its surface forms: the
model embeds "painting", not "paint" cut from it. Which form is a rule over the forms the units held write
(`canonical_form`: the shortest, then the first in code-point order), never over the order they were read in, so an
index whose files changed, or whose folder left, embeds the same forms as a fresh build of what it holds: each
form's occurrences are counted as units are committed and counted out as they are deleted (the catalog keeps a
deleted unit's text until then). Words are alphabetic, 3 to 30 letters, and not stop words: shorter ones embed to
noise, longer ones are run-together identifiers. The vectors are stored as float16 (half the space; the cosines a
search compares against its threshold move by about 1e-3). Words of deleted units stay until the keyword index is
written afresh (it is once deleted documents pile up, and when a folder is removed): then the words no document
holds leave (`drop_unheld_words`), since they would still fill places in other words' nearest lists that a fresh
build of the same documents gives to words it holds."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

from memlens.engine.keyword.parsed_query import PHRASE
from memlens.engine.keyword.stop_words import STOP_WORDS
from memlens.engine.lazy import lazy_module
from memlens.engine.progress import Progress, RateMeter
from memlens.engine.sources.tool_output import scored_text
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
# bump when what counts as a word, or which form of it is embedded, changes: every unit's words are counted again
# (2: the form by `canonical_form` over the forms' counts, not the first read)
VERSION = "2"
VERSION_KEY = "vocabulary_version"
SCAN_BATCH = 2_000  # units read at a time when collecting a whole catalog's words
EMBED_BATCH = 256  # words embedded (and stored) at a time
NEAREST = 32  # neighbours kept per word: search.expansionTerms (at most 20) after the query's own words are left out
LINK_BLOCK = 256  # new words compared with the whole vocabulary at a time (one block: 256 × words float32)
NOT_FULL = -2.0  # the floor of a list shorter than NEAREST: any new word enters it (cosines are ≥ -1)
PLACES = 4  # a neighbour's cosine is stored rounded to this many decimals (catalog/words.py)


def is_word(word: str) -> bool:
    return MIN_LENGTH <= len(word) <= MAX_LENGTH and word.isalpha() and word not in STOP_WORDS


def canonical_form(forms: list[str]) -> str:
    """The surface form a stem is embedded as, of the forms the units held write: the shortest (most often the
    word's plain form: "deploy" of "deploys", "deploying"), then the first in code-point order. A rule over the set
    alone: the order the forms were read in, and how often each is written, never change it, so a form changes only
    when a shorter one comes or the last unit writing it leaves (each change costs the word's vector and the lists
    that hold it)."""
    return min(forms, key=lambda form: (len(form), form))


def _forms(keyword: KeywordIndex, texts: Iterable[str]) -> Counter[tuple[str, str]]:
    """How often `texts` write each (stem, surface form) of a content word: a text's `surface_words` (quoted phrases
    left out), but the texts analysed in one call, joined by spaces (where the analyser splits anyway): the same
    words, without a call and a list per text (bench/RESULTS.md, cold indexing). Each distinct surface form is
    stemmed once per call: most words of a batch repeat. A text of stop words alone, which `surface_words` would
    give whole, adds none: `is_word` leaves stop words out."""
    joined = " ".join(PHRASE.sub(" ", text) if '"' in text else text for text in texts)
    found: Counter[tuple[str, str]] = Counter()
    for word, uses in Counter(keyword.unstemmed_words(joined)).items():
        if is_word(word):
            for stem in keyword.tokens(word):
                found[stem, word] += uses
    return found


def collect_words(catalog: Catalog, keyword: KeywordIndex, texts: Iterable[str]) -> int:
    """Count the content words of `texts` (the units just committed) in, and those of the units deleted since the
    last call out, and record the stems not recorded yet, each under its `canonical_form` (their vectors come
    later); a stem whose form changed is embedded and linked again. Returns how many distinct stems `texts` hold."""
    uses = _forms(keyword, texts)
    added = len({stem for stem, _ in uses})
    counted = None
    while rows := catalog.leaving_texts(counted or 0, SCAN_BATCH):
        uses.subtract(_forms(keyword, (scored_text(text, kind) for _, text, kind in rows)))
        counted = rows[-1][0]
    if uses or counted is not None:
        catalog.count_word_forms(uses, choose=canonical_form, counted_leaving=counted)
    return added


def backfill_words(catalog: Catalog, keyword: KeywordIndex, cancel: threading.Event | None = None) -> bool:
    """Count the words of every unit afresh once, for a catalog from before the vocabulary (or of another VERSION);
    returns whether it ran to the end. New units' words are counted as they are committed (indexer._mirror)."""
    if catalog.get_meta(VERSION_KEY) == VERSION:
        return True
    catalog.forget_word_forms()
    after = 0
    while True:
        if cancel is not None and cancel.is_set():
            return False
        rows = catalog.unit_texts_after(after, SCAN_BATCH)
        if not rows:
            break
        collect_words(catalog, keyword, (scored_text(text, kind) for _, text, kind in rows))
        after = rows[-1][0]
    with catalog.transaction() as db:
        catalog.set_meta(db, VERSION_KEY, VERSION)
    return True


def drop_unheld_words(catalog: Catalog, keyword: KeywordIndex) -> int:
    """Forget the recorded words that no unit held writes a form of (all their units deleted), or that no document
    of the keyword index holds, and let the words that listed one of them among their nearest be linked again (by
    the next `link_words`). Returns how many words left. A fresh build records neither. Called right after the
    index is written afresh (tantivy counts a deleted document in a word's document frequency until then)."""
    stems = catalog.vocabulary_stems()
    if not stems:
        return 0
    _, freqs = keyword.document_frequencies(stems)
    gone = {stem for stem, freq in zip(stems, freqs, strict=True) if freq == 0}
    gone.update(catalog.stems_without_forms())
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
    sync ends here, and the whole vocabulary's vectors are megabytes.

    A list is ordered by cosine at the PLACES that are stored, then by stem: the cosines of a word linked again
    (those of its list read back, rounded) and of a fresh build (worked out now) compare alike, and words at the same
    cosine, which the rounding makes common, take their places, and the last places, in the same order whichever
    was embedded first."""
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
        cosines = np.round(matrix[block] @ matrix.T, PLACES)  # [block, words], as stored
        cosines[np.arange(len(block)), block] = -np.inf  # a word is not its own neighbour
        for r, i in enumerate(block.tolist()):
            if depth <= 0:
                changed[i] = []
                continue
            row = cosines[r]
            floor = row[np.argpartition(-row, depth - 1)[depth - 1]]  # the depth-th nearest's cosine
            ties = np.nonzero(row >= floor)[0].tolist()  # every word at it too: the stems decide which stay
            changed[i] = _nearest([(j, float(row[j])) for j in ties], stems)
        better = np.nonzero((cosines.max(axis=0) >= last) & ~is_fresh)[0].tolist()
        unread = [stems[j] for j in better if j not in changed]
        stored = catalog.word_neighbours(unread) if unread else {}
        for j in better:  # a word linked before: let this block's nearer words in
            base = changed.get(j)
            if base is None:
                base = [(row_of[n], c) for n, c in stored.get(stems[j], []) if n in row_of]
            column = cosines[:, j]
            entering = {int(block[r]): float(column[r]) for r in np.nonzero(column >= last[j])[0].tolist()}
            # a word linked again (its list dropped: drop_unheld_words) may be in this list already
            kept = [(n, c) for n, c in base if n not in entering]
            merged = _nearest(kept + list(entering.items()), stems)
            changed[j] = merged
            last[j] = merged[-1][1] if len(merged) >= NEAREST else NOT_FULL
    catalog.store_neighbours(
        {
            stems[i]: ([(stems[j], c) for j, c in found], found[-1][1] if len(found) >= NEAREST else NOT_FULL)
            for i, found in changed.items()
        }
    )
    return sum(1 for i in changed if is_fresh[i])


def _nearest(candidates: list[tuple[int, float]], stems: list[str]) -> list[tuple[int, float]]:
    """The NEAREST of (row, cosine) `candidates`, by cosine as stored (a float32 worked out now and a list's cosine
    read back compare alike), then by stem: an order no row number decides."""
    return sorted(candidates, key=lambda pair: (-round(pair[1], PLACES), stems[pair[0]]))[:NEAREST]
