"""Query expansion for the keyword side: each query word also matches the index's words nearest it in meaning.

BM25 finds "sunset" or "canvas" for "paint" only through such an expansion (the stemmer joins "painting" and
"paints", nothing more). The index writer embeds the vocabulary and stores each word's nearest words
(vocabulary.py), so a query embeds nothing and reads no vector: it looks its words up (a query word the index does
not hold is not expanded), in any process, with no model and without numpy. Chosen on the LoCoMo tune split
(search.expansionWeight).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from memlens.engine.keyword.vocabulary import is_word

if TYPE_CHECKING:
    from memlens.engine.catalog import Catalog
    from memlens.engine.keyword.keyword_index import KeywordIndex
    from memlens.engine.keyword.parsed_query import ParsedQuery

CACHED_WORDS = 4096  # query words whose neighbours are kept (search-as-you-type and hover repeat them)


class TermExpander:
    """Finds the vocabulary words nearest each query word, from the lists the writer stores."""

    def __init__(self, catalog: Catalog, keyword: KeywordIndex) -> None:
        self.catalog = catalog
        self.keyword = keyword
        self._state: tuple[str, str] | None = None
        self._near: dict[str, list[tuple[str, float]]] = {}
        self._lock = threading.Lock()

    def expand(
        self, query: ParsedQuery, *, min_cosine: float, per_word: int, state: tuple[str, str] | None = None
    ) -> list[tuple[str, float]]:
        """(stem, cosine) of the vocabulary words nearest each of the query's content words, at most `per_word` each,
        each at least `min_cosine` close, best first; the query's own stems are left out, and a stem near several
        query words counts once, at its best cosine. `state`: the catalog's `vocabulary_state()` when the caller
        has read it (a search reads it with the rest of its state, Catalog.search_state)."""
        stems = [self.keyword.tokens(w) for w in query.loose_surface if is_word(w)]
        own = {s for found in stems for s in found}
        firsts = list(dict.fromkeys(found[0] for found in stems if found))
        if not firsts:
            return []
        with self._lock:
            state = self.catalog.vocabulary_state() if state is None else state
            if state != self._state or len(self._near) >= CACHED_WORDS:
                self._near.clear()  # new lists stored (or another model's): what was cached may be stale
                self._state = state
            missing = [stem for stem in firsts if stem not in self._near]
            if missing:
                stored = self.catalog.word_neighbours(missing)
                self._near.update((stem, stored.get(stem, [])) for stem in missing)
            neighbours = [self._near[stem] for stem in firsts]
        best: dict[str, float] = {}
        for found in neighbours:  # at most `per_word` for each query word, the query's own stems not counted
            kept = [(n, c) for n, c in found if n not in own and c >= min_cosine][:per_word]
            for near, cosine in kept:
                best[near] = max(cosine, best.get(near, 0.0))
        return sorted(best.items(), key=lambda pair: (-pair[1], pair[0]))
