"""The writer's half of query expansion: every content word the index holds, recorded as its units are committed
and embedded after the units' own vectors, so a search never embeds a vocabulary (term_expansion.py reads it).

A word is recorded once per stem (the keyword index's analysed form), with the first surface form seen: the model
embeds "painting", not "paint" cut from it. Words are alphabetic, 3 to 30 letters, and not stop words: shorter ones
embed to noise, longer ones are run-together identifiers. The vectors are stored as float16 (half the space; the
cosines a search compares against its threshold move by about 1e-3). Words of deleted units stay: a word no
document holds adds nothing to a BM25 query."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from memlens.engine.lazy import lazy_module
from memlens.engine.stop_words import STOP_WORDS

if TYPE_CHECKING:
    import numpy as np

    from memlens.engine.catalog import Catalog
    from memlens.engine.embedder import Embedder
    from memlens.engine.keyword_index import KeywordIndex
else:
    np = lazy_module("numpy")

MIN_LENGTH = 3
MAX_LENGTH = 30
VERSION = "1"  # bump when what counts as a word changes: every unit's words are collected again
VERSION_KEY = "vocabulary_version"
SCAN_BATCH = 2_000  # units read at a time when collecting a whole catalog's words
EMBED_BATCH = 256  # words embedded (and stored) at a time


def is_word(word: str) -> bool:
    return MIN_LENGTH <= len(word) <= MAX_LENGTH and word.isalpha() and word not in STOP_WORDS


def collect_words(catalog: Catalog, keyword: KeywordIndex, texts: Iterable[str]) -> int:
    """Record the content words of `texts` that the catalog does not hold yet (their vectors come later). Each
    distinct surface form is stemmed once per call: most words of a batch repeat."""
    found: dict[str, str] = {}  # stem → the first surface form seen
    seen: set[str] = set()
    for text in texts:
        for word in keyword.surface_words(text):
            if word in seen:
                continue
            seen.add(word)
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


def embed_words(
    catalog: Catalog,
    embedder: Embedder,
    *,
    cancel: threading.Event | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    max_batches: int | None = None,
) -> int:
    """Embed the recorded words that have no vector yet (all of them again after a change of model), at most
    `max_batches` batches; returns how many. Each batch is stored at once, so a cancelled run keeps what it made."""
    if catalog.vocabulary_model() != embedder.name:
        catalog.forget_word_vectors(embedder.name)
    total = catalog.count_words_without_vectors()
    done = batches = 0
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
            progress(done, max(total, done), f"embedded {done}/{max(total, done)} words")
    return done


def decode(blob: bytes) -> np.ndarray:
    """A stored word vector as float32."""
    return np.frombuffer(blob, dtype=np.float16).astype(np.float32)
