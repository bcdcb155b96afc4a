"""Query expansion for the keyword side: each query word also matches the index's words nearest it in meaning.

BM25 finds "sunset" or "canvas" for "paint" only through such an expansion (the stemmer joins "painting" and
"paints", nothing more). The vocabulary and its vectors are made by the index writer (vocabulary.py) and read here
as they grow, so a query embeds nothing: a query word the index does not hold has no vector and is not expanded,
and one it holds is one matrix product away from its neighbours (cached per word until the vocabulary grows).
Chosen on the LoCoMo tune split (search.expansionWeight; bench/RESULTS.md).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from memlens.engine.lazy import lazy_module
from memlens.engine.vector_index import single_threaded_blas
from memlens.engine.vocabulary import decode, is_word

if TYPE_CHECKING:
    import numpy as np

    from memlens.engine.catalog import Catalog
    from memlens.engine.keyword_index import KeywordIndex
else:
    np = lazy_module("numpy")

CACHED_WORDS = 4096  # query words whose neighbours are kept (search-as-you-type and hover repeat them)


class TermExpander:
    """Finds the vocabulary words nearest each query word, reading the writer's word vectors as they are added."""

    def __init__(self, catalog: Catalog, keyword: KeywordIndex) -> None:
        self.catalog = catalog
        self.keyword = keyword
        self._token = ""
        self._last = 0  # the last word row read
        self._stems: list[str] = []
        self._row_of: dict[str, int] = {}
        self._matrix: np.ndarray | None = None  # float32 [len(stems), dim], unit rows
        self._near: dict[tuple[str, float, int], list[tuple[str, float]]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._stems)

    def _refresh(self) -> None:
        """Read the word vectors stored since the last read (all of them again after a change of model)."""
        token, last = self.catalog.vocabulary_state()
        if token != self._token:
            self._token, self._last = token, 0
            self._stems, self._row_of, self._matrix = [], {}, None
            self._near.clear()
        if last <= self._last:
            return
        rows = self.catalog.word_vectors_after(self._last)
        self._last = last
        if not rows:
            return
        added = np.stack([decode(blob) for _, _, blob in rows])
        added /= np.maximum(np.linalg.norm(added, axis=1, keepdims=True), 1e-12)
        for _, stem, _ in rows:
            self._row_of[stem] = len(self._stems)
            self._stems.append(stem)
        self._matrix = added if self._matrix is None else np.concatenate([self._matrix, added])
        self._near.clear()  # a new word may be nearer than the ones found before

    def expand(self, query: str, *, min_cosine: float, per_word: int) -> list[tuple[str, float]]:
        """(stem, cosine) of the vocabulary words nearest each of the query's content words, at most `per_word` each,
        each at least `min_cosine` close, best first; the query's own stems are left out, and a stem near several
        query words counts once, at its best cosine."""
        stems = [self.keyword.tokens(w) for w in self.keyword.surface_words(query) if is_word(w)]
        own = {s for found in stems for s in found}
        firsts = list(dict.fromkeys(found[0] for found in stems if found))
        if not firsts:
            return []
        with self._lock:
            self._refresh()
            neighbours = [self._nearest(stem, min_cosine, per_word + len(own)) for stem in firsts]
        best: dict[str, float] = {}
        for found in neighbours:  # at most `per_word` for each query word, the query's own stems not counted
            for near, cosine in [(n, c) for n, c in found if n not in own][:per_word]:
                best[near] = max(cosine, best.get(near, 0.0))
        return sorted(best.items(), key=lambda pair: (-pair[1], pair[0]))

    def _nearest(self, stem: str, min_cosine: float, depth: int) -> list[tuple[str, float]]:
        """Up to `depth` (stem, cosine) pairs nearest `stem` (itself included), at least `min_cosine`, best first."""
        key = (stem, min_cosine, depth)
        found = self._near.get(key)
        if found is not None:
            return found
        row = self._row_of.get(stem)
        if row is None or self._matrix is None:
            found = []
        else:
            single_threaded_blas()  # as vector search: a query's work stays on its own thread
            cosines = self._matrix @ self._matrix[row]
            depth = min(depth, len(cosines))
            nearest = np.argpartition(-cosines, depth - 1)[:depth]
            order = nearest[np.argsort(-cosines[nearest], kind="stable")]
            found = [(self._stems[i], float(cosines[i])) for i in order.tolist() if cosines[i] >= min_cosine]
        if len(self._near) >= CACHED_WORDS:
            self._near.clear()
        self._near[key] = found
        return found
