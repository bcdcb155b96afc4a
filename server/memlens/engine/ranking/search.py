"""Hybrid retrieval: BM25 and cosine candidates fused per unit, then grouped into chunk-level results."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, get_args

from memlens.engine.answers.projects import project_session_keys
from memlens.engine.catalog import Catalog
from memlens.engine.filters import SearchFilters
from memlens.engine.keyword.keyword_index import CONTEXT_WINDOW, KeywordIndex
from memlens.engine.keyword.parsed_query import ParsedQuery
from memlens.engine.keyword.term_expansion import TermExpander
from memlens.engine.ranking.hits import Ranking, UnitHit
from memlens.engine.ranking.query_reading import read_query
from memlens.engine.ranking.rescoring import rescore
from memlens.engine.ranking.unit_facts import unit_facts
from memlens.engine.vectors.embedder import Embedder, ModelUnavailable
from memlens.engine.vectors.vector_index import VectorIndex
from memlens.errors import InvalidRequest
from memlens.settings import Fusion, Mode, SearchSettings

if TYPE_CHECKING:  # numpy is imported by the vector side, only by commands that use vectors
    import numpy as np

MODES: tuple[str, ...] = get_args(Mode)  # declared once, in settings
FUSIONS: tuple[str, ...] = get_args(Fusion)
REPLY_SHARPNESS = 4  # reply boost: (the question's fused score / the best) ^ this: only near-best questions lift
REPLY_FLOOR = 1e-4  # a question whose lift would stay under this is not looked at (its facts are not read)

log = logging.getLogger(__name__)


class SearchError(InvalidRequest):
    """A search request that cannot be answered as asked (the message says why)."""


class Retriever:
    """Ranks units for a query. Readers only: it never takes the writer's lock."""

    def __init__(
        self, catalog: Catalog, keyword: KeywordIndex, vectors: VectorIndex, embedder: Embedder | None
    ) -> None:
        self.catalog = catalog
        self.keyword = keyword
        self.vectors = vectors
        self.embedder = embedder
        self.expander: TermExpander | None = None  # made at the first search that expands its words
        self.now: float | None = None  # "today" for relative dates in queries; None = the clock (benchmarks set it)

    def read(self, text: str, settings: SearchSettings, filters: SearchFilters | None = None) -> ParsedQuery:
        """The query parsed once for a search (query_reading.py): what every step below reads of it; a project
        filter becomes the set of its sessions here, where the catalog is at hand."""
        if filters is not None and filters.project and filters.sessions is None:
            filters = replace(filters, sessions=project_session_keys(self.catalog, filters.project))
        return read_query(
            text, keyword=self.keyword, catalog=self.catalog, settings=settings, now=self.now, filters=filters
        )

    def vectors_available(self) -> bool:
        """Whether a search can read the vector side: a model loaded and vectors stored."""
        return self.embedder is not None and len(self.vectors) > 0

    def mode_used(self, asked: str) -> str:
        """The mode a search asked for `asked` runs in: hybrid without vectors is keyword search."""
        return "keyword" if asked == "hybrid" and not self.vectors_available() else asked

    def rank(
        self,
        query: ParsedQuery,
        settings: SearchSettings,
        mode: str | None = None,
        fusion: str | None = None,
        limit: int | None = None,
    ) -> Ranking:
        started = time.perf_counter()
        mode, fusion = _checked(mode or settings.mode, fusion or settings.fusion, query)
        vector_available = self.vectors_available()
        if not query.names_a_topic:
            # punctuation, or only words every message holds ("the", "to be or not", "a"): the vector side would
            # still find its nearest messages, and BM25 its commonest, which look like answers and are none
            return Ranking([], mode, fusion, vector_available, names_a_topic=False)
        if mode == "vector" and self.embedder is None:
            raise SearchError("vector search needs an embedding model, and none is loaded (try --mode keyword)")
        mode = self.mode_used(mode)  # said plainly by the caller via `vector_available`
        # each retriever hands `candidates` to fusion; vector mode's one retriever hands the union's worth (with
        # half as many, vector-only recall fell: neighbours and replies come from the candidates)
        depth = max(settings.candidates * (2 if mode == "vector" else 1), limit or 0)
        hits: dict[int, UnitHit] = {}
        state = self.catalog.search_state()  # what the caches below check, read once
        if mode in ("hybrid", "keyword"):
            self._add_keyword_candidates(hits, query, settings, depth=depth, limit=limit, vocabulary=state.vocabulary)
        if mode in ("hybrid", "vector") and self.embedder is not None:
            self._add_vector_candidates(hits, query, depth=depth, fill_cosines=mode == "hybrid")
        if mode == "hybrid" and query.literal:
            # words quoted to be found as written: a message near them in meaning that does not hold them is none
            # of the answers asked for (the vectors still order the ones that do)
            hits = {unit_id: hit for unit_id, hit in hits.items() if hit.bm25 > 0}
        fused_mode = self._set_fused_scores(hits, mode, fusion, settings)
        places = self._add_neighbors(hits, settings.neighbor_weight, settings.neighbor_window)
        if settings.reply_boost > 0:
            self._add_replies(hits, places, weight=settings.reply_boost, facts_state=state.facts)
        ranked = sorted(hits.values(), key=lambda h: (-h.score, h.unit_id))
        ranked = rescore(
            ranked,
            query,
            settings=settings,
            catalog=self.catalog,
            keyword=self.keyword,
            mode=fused_mode,
            limit=limit,
            facts_state=state.facts,
        )
        for hit in ranked:
            hit.rank_score = hit.score
        return Ranking(
            hits=ranked,
            mode=mode,
            fusion=fusion,
            calibrated=settings.calibrated,
            vector_available=vector_available,
            query_terms=list(query.tokens),
            seconds=time.perf_counter() - started,
        )

    def _add_keyword_candidates(
        self,
        hits: dict[int, UnitHit],
        query: ParsedQuery,
        settings: SearchSettings,
        *,
        depth: int,
        limit: int | None,
        vocabulary: tuple[str, str] | None,
    ) -> None:
        """BM25 candidates, normalised to the best; the context field's BM25 mixed in at search.contextWeight."""
        expansions = self._expansions(query, settings, vocabulary)
        keyword_hits = self.keyword.search(query, depth, expansions=expansions)
        top = keyword_hits[0][1] if keyword_hits else 0.0
        for rank, (unit_id, bm25) in enumerate(keyword_hits):
            hits[unit_id] = UnitHit(unit_id, bm25=bm25, keyword=bm25 / top if top else 0.0, keyword_rank=rank)
        share = settings.context_weight
        if share <= 0:
            return
        # BM25 over each message with its neighbours, mixed into the keyword signal
        context_depth = max(settings.context_candidates, limit or 0)
        within = None
        if settings.context_near_best > 0:
            within = self._near(hits, [unit_id for unit_id, _ in keyword_hits[: settings.context_near_best]])
        context_hits = self.keyword.search(query, context_depth, field="context", expansions=expansions, within=within)
        if not context_hits:
            # nothing for the context field to weigh: a query of CJK runs, which only the text field's bigrams
            # match (the context field holds each run whole); mixed in as 0, its best match's keyword score halved
            # and fell below the vectors' nearest messages
            return
        top_context = context_hits[0][1]
        for unit_id, bm25 in context_hits:
            _hit(hits, unit_id).context = bm25 / top_context if top_context else 0.0
        for hit in hits.values():
            hit.keyword = (1.0 - share) * hit.keyword + share * hit.context

    def _near(self, hits: dict[int, UnitHit], best: list[int]) -> list[int]:
        """`best` and the transcript messages within the context field's window of them: the units whose context
        field holds one of them."""
        places = self._places({unit_id: hits[unit_id] for unit_id in best})
        near = set(best)
        near.update(self.catalog.message_neighbours(places.values(), CONTEXT_WINDOW))
        return sorted(near)

    def _add_vector_candidates(
        self, hits: dict[int, UnitHit], query: ParsedQuery, *, depth: int, fill_cosines: bool
    ) -> None:
        """The nearest units by cosine; with `fill_cosines`, the exact cosine of every keyword-only candidate too."""
        query_vector = self._embed_query(query.text)
        if query_vector is None:
            return
        for rank, (unit_id, cosine) in enumerate(self.vectors.search(query_vector, depth, query.filters)):
            hit = _hit(hits, unit_id)
            hit.vector, hit.vector_rank = cosine, rank
        if fill_cosines:
            self._fill_cosines([h for h in hits.values() if h.vector is None], query_vector)
            _stand_in_cosines(hits)

    def _set_fused_scores(self, hits: dict[int, UnitHit], mode: str, fusion: str, settings: SearchSettings) -> str:
        """Sets each hit's fused score; returns the mode fused in (what calibration is fitted for)."""
        # with no keyword candidate at all, BM25 carries no information: rank by the vectors alone
        fused_mode = "vector" if mode == "hybrid" and not any(h.keyword > 0 for h in hits.values()) else mode
        if fused_mode == "keyword":  # the keyword signal as it is: no call per candidate
            for hit in hits.values():
                hit.score = hit.fused = hit.keyword
            return fused_mode
        best_cosine = max((h.vector for h in hits.values() if h.vector is not None), default=0.0)
        fuse = _fuser(fused_mode, fusion, settings, best_cosine=best_cosine)
        for hit in hits.values():
            hit.score = hit.fused = fuse(hit)
        return fused_mode

    def _expansions(
        self, query: ParsedQuery, settings: SearchSettings, state: tuple[str, str] | None = None
    ) -> list[tuple[str, float]]:
        """(word, boost) pairs the keyword query adds: the index's words nearest the query's in meaning, from the
        word vectors the writer stored (term_expansion.py; no model is needed here); none when
        search.expansionWeight is 0."""
        weight = settings.expansion_weight
        if weight <= 0:
            return []
        if self.expander is None:
            self.expander = TermExpander(self.catalog, self.keyword)
        near = self.expander.expand(
            query, min_cosine=settings.expansion_min_cosine, per_word=settings.expansion_terms, state=state
        )
        return [(word, weight) for word, _ in near]

    def typical_nearness(self, text: str) -> tuple[float, float] | None:
        """The mean and the standard deviation of `text`'s cosines with the index's messages (a spread sample:
        VectorIndex.typical_cosines); None without vectors or a usable model."""
        if self.embedder is None or not len(self.vectors):
            return None
        query_vector = self._embed_query(text)
        if query_vector is None:
            return None
        cosines = self.vectors.typical_cosines(query_vector)
        if not len(cosines):
            return None
        return float(cosines.mean()), float(cosines.std())

    def _embed_query(self, query: str) -> np.ndarray | None:
        """The query's vector; None when the model, loaded at its first use, turns out unusable."""
        assert self.embedder is not None
        try:
            return self.embedder.embed_query(query)
        except ModelUnavailable as exc:
            log.warning("no embedding model: %s; searching by keywords only", exc)
            self.embedder = None
            return None

    def _places(self, hits: dict[int, UnitHit]) -> dict[int, tuple[str, int]]:
        """(session, position) of each candidate that is a transcript message."""
        places, ids = self.vectors.places(list(hits))  # from memory; the catalog for units without a vector
        places.update(self.catalog.message_places(ids))
        return places

    def _add_neighbors(self, hits: dict[int, UnitHit], weight: float, window: int) -> dict[int, tuple[str, int]] | None:
        """Context: a message whose neighbours in the session also match is likelier to be what was asked about.

        Each transcript message's score s becomes s + weight × n × (1 − s), n being the best fused score among the
        candidates up to `window` messages either side (non-candidates count 0); scores stay within 0–1. Returns the
        candidates' places when it read them (None when off).
        """
        if weight <= 0 or window <= 0 or not hits:
            return None
        places = self._places(hits)
        score_at = {place: hits[unit_id].score for unit_id, place in places.items()}
        offsets = [d for d in range(-window, window + 1) if d]
        # most candidates are their session's only one: nothing near them to look up, and adding 0 changes no score
        shared = {session for session, count in Counter(session for session, _ in places.values()).items() if count > 1}
        for unit_id, (session, seq) in places.items():
            if session not in shared:
                continue
            best = 0.0
            for d in offsets:  # plain loops: this runs for every candidate of every query
                near = score_at.get((session, seq + d), 0.0)
                if near > best:
                    best = near
            hit = hits[unit_id]
            hit.score += weight * best * (1.0 - hit.score)
        return places

    def _add_replies(
        self,
        hits: dict[int, UnitHit],
        places: dict[int, tuple[str, int]] | None,
        *,
        weight: float,
        facts_state: tuple[int, str | None] | None = None,
    ) -> None:
        """Replies: the message right after a question that matches the query likely holds its answer.

        A transcript message whose previous message in its session is a candidate that asks (question share q > 0),
        from another speaker where the roles are known, gains weight × q × (f / f_best) ^ REPLY_SHARPNESS × (1 − s):
        f is the question's fused score, f_best the best fused score of the query, s the message's own score. The
        symmetric neighbour context lifts both sides alike; this lifts only the answer. What it adds is kept in
        `hit.lift`, which the calibrated chance leaves out."""
        if not hits:
            return
        best = max(h.fused for h in hits.values())
        if best <= 0:
            return
        if places is None:
            places = self._places(hits)
        at = {place: unit_id for unit_id, place in places.items()}
        floor = best * (REPLY_FLOOR / weight) ** (1.0 / REPLY_SHARPNESS)
        pairs = [(unit_id, at.get((session, seq - 1))) for unit_id, (session, seq) in places.items()]
        replies = [(unit_id, asked) for unit_id, asked in pairs if asked is not None and hits[asked].fused >= floor]
        if not replies:
            return
        asking = unit_facts(self.catalog, self.keyword, [asked for _, asked in replies], facts_state)
        roles = self.vectors.roles([u for pair in replies for u in pair])
        for unit_id, asked in replies:
            share = asking[asked].question
            if share <= 0:
                continue
            role, asked_role = roles.get(unit_id), roles.get(asked)
            if role is not None and role == asked_role:  # a speaker going on after asking answers nothing
                continue
            hit = hits[unit_id]
            added = weight * share * (hits[asked].fused / best) ** REPLY_SHARPNESS * (1.0 - hit.score)
            hit.score += added
            hit.lift += added

    def _fill_cosines(self, hits: list[UnitHit], query_vector: np.ndarray) -> None:
        """Exact cosines for keyword-only candidates, so fusion never treats 'not in the top N' as zero."""
        if not hits:
            return
        scores = self.vectors.cosines([h.unit_id for h in hits], query_vector)
        for hit in hits:
            hit.vector = scores.get(hit.unit_id)


def _stand_in_cosines(hits: dict[int, UnitHit]) -> None:
    """A keyword candidate whose unit has no vector yet (the writer embeds a first index's backlog batch by batch,
    for minutes on a large history) is given the cosine its kind of find has: the mean of the keyword candidates'
    that have one, else of every candidate's. Read as 0, a closeness not known yet would count as none: an exact
    match of a rare word would rank below the vectors' nearest messages, however far they are, and be marked weak or
    hidden. `cosine_stood_in` keeps the stand-in out of what is shown as the unit's own cosine."""
    missing = [h for h in hits.values() if h.vector is None]
    if not missing:
        return
    known = [h.vector for h in hits.values() if h.vector is not None and h.keyword > 0] or [
        h.vector for h in hits.values() if h.vector is not None
    ]
    if not known:
        return
    stand_in = max(0.0, sum(known) / len(known))
    for hit in missing:
        hit.vector, hit.cosine_stood_in = stand_in, True


def _hit(hits: dict[int, UnitHit], unit_id: int) -> UnitHit:
    """The unit's hit, added when it has none yet (`setdefault` would build a hit for every candidate, even the
    ones already found by the other field or ranking)."""
    hit = hits.get(unit_id)
    if hit is None:
        hit = hits[unit_id] = UnitHit(unit_id)
    return hit


def _checked(mode: str, fusion: str, query: ParsedQuery) -> tuple[str, str]:
    """The mode and fusion asked, once known to be ones there are, for a query that is not empty."""
    if mode not in MODES:
        raise SearchError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    if fusion not in FUSIONS:
        raise SearchError(f"fusion must be one of {', '.join(FUSIONS)}, not {fusion!r}")
    if not query.text.strip():
        raise SearchError("the query is empty")
    return mode, fusion


def _fuse(hit: UnitHit, mode: str, fusion: str, settings: SearchSettings, *, best_cosine: float = 1.0) -> float:
    """A hit's fused score in 0–1; `best_cosine` is the highest cosine among the query's candidates (see `_fuser`)."""
    return _fuser(mode, fusion, settings, best_cosine=best_cosine)(hit)


def _fuser(mode: str, fusion: str, settings: SearchSettings, *, best_cosine: float = 1.0) -> Callable[[UnitHit], float]:
    """The rule that gives a hit its fused score in 0–1, its settings read once (a search fuses a few hundred
    candidates); `best_cosine` is the highest cosine among the query's candidates.

    weighted: (w_v·cosine + w_t·keyword) / (w_v + w_t), keyword being BM25 over the best hit's (with the context
    field's share). rescue: the weighted score, or rescueWeight × (cosine / best_cosine) ^ rescuePower if that is
    larger: a message nearly as close in meaning as the query's closest keeps a place near the top even when many
    messages share the query's ordinary words (a vector-only find scores at most w_v × cosine under weighted).
    rrf: Σ 1/(k + 1 + rank) over the two rankings, over its maximum.
    """
    if mode == "keyword":
        return _keyword_score
    if mode == "vector":
        return _vector_score
    if fusion == "rrf":
        k = settings.rrf_k

        def reciprocal_ranks(hit: UnitHit) -> float:
            total = sum(1.0 / (k + 1 + r) for r in (hit.keyword_rank, hit.vector_rank) if r is not None)
            return total / (2.0 / (k + 1))

        return reciprocal_ranks
    vector_weight, text_weight = settings.vector_weight, settings.text_weight
    weights = vector_weight + text_weight or 1.0
    rescues = fusion == "rescue" and best_cosine > 0
    rescue_weight, rescue_power = settings.rescue_weight, settings.rescue_power

    def weighted(hit: UnitHit) -> float:
        # comparisons, not min() and max(): the same values (NaN and -0.0 too), without two calls each per hit
        cosine = hit.vector or 0.0
        cosine = cosine if cosine > 0.0 else 0.0
        score = (vector_weight * cosine + text_weight * hit.keyword) / weights
        score = score if score < 1.0 else 1.0
        if rescues:
            closeness = cosine / best_cosine
            closeness = closeness if closeness < 1.0 else 1.0
            rescued = rescue_weight * float(closeness**rescue_power)
            return rescued if rescued > score else score
        return score

    return weighted


def _keyword_score(hit: UnitHit) -> float:
    return hit.keyword


def _vector_score(hit: UnitHit) -> float:
    return min(1.0, max(0.0, hit.vector or 0.0))


fused_score = _fuse
"""A hit's fused score, as the local ranking fuses it (the team index's hits are fused by the same rule)."""
