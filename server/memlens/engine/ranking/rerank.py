"""The last ranking pass over the top hits: date boost, tool-call and question penalties, merging identical texts, a
per-session cap, and the calibrated score (the chance a hit is relevant; see calibration.py)."""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memlens.engine.keyword.acronyms import Acronym, stand_ins, with_acronyms, written
from memlens.engine.keyword.identifiers import cjk_runs, looks_technical
from memlens.engine.ranking.calibration import answerable, probability
from memlens.engine.ranking.dates import message_windows, overlaps, query_windows
from memlens.engine.ranking.event_dates import event_windows
from memlens.engine.ranking.unit_facts import Words, unit_facts
from memlens.engine.ranking.unit_facts import tool_share as tool_share  # re-exported: it lived here

if TYPE_CHECKING:
    from memlens.engine.catalog import Catalog
    from memlens.engine.keyword.keyword_index import KeywordIndex
    from memlens.engine.ranking.hits import UnitHit
    from memlens.settings import SearchSettings

# hits re-scored (at least the limit): 100 ranked no better than 50 on LoCoMo tune (bench/RESULTS.md, round 8), and 40
# the same as 50 on every tune set and held-out (round 10; 30 lost 0.2 of LoCoMo tune R@10)
HEAD = 40
TAIL_SHARE = 0.6  # once a query is answered, the hits shown score at least this share of the best one
ANSWER_TOP = 10  # the hits whose best chance and score decide the answer and the tail cut (`shown`)
BM25_K1_PLUS_1 = 2.2  # tantivy's BM25: k1 = 1.2


@dataclass(slots=True)
class QueryFacts:
    words: list[str]
    idf: list[float]
    technical: bool
    windows: list[tuple[int, int]]
    absent: float = 0.0  # the idf-weighted share of the query's words that no document contains
    acronyms: tuple[Acronym, ...] = ()  # a hit holding one counts its run's words as found (acronyms.py)
    # worked out once, not for each of the hundred hits re-scored:
    total_idf: float = field(init=False)  # sum(idf)
    cjk: tuple[bool, ...] = field(init=False)  # per word: a CJK run, which the analyser leaves whole
    needles: tuple[str, ...] = field(init=False)  # per word: " word ", as a unit's stored Words are searched

    def __post_init__(self) -> None:
        self.total_idf = sum(self.idf)
        self.cjk = tuple(bool(cjk_runs(w)) for w in self.words)
        self.needles = tuple(f" {w} " for w in self.words)


def query_facts(
    query: str,
    keyword: KeywordIndex,
    settings: SearchSettings,
    now: float | None,
    catalog: Catalog | None = None,
    *,
    texts: Iterable[str] = (),  # the head's texts: an acronym counts once one of them writes it as one
) -> QueryFacts:
    words = keyword.content_words(query.replace('"', " "))  # a quoted phrase's words count too
    total, freqs = keyword.document_frequencies([w for w in words if not cjk_runs(w)])
    freq_of = dict(zip([w for w in words if not cjk_runs(w)], freqs, strict=True))
    runs = written(keyword.acronyms(query), texts)
    stand_in = stand_ins(runs, freq_of)  # a run's words in no document weigh as its acronym: (its freq, share)
    freq_of.update((w, f) for w, (f, _) in stand_in.items())
    idf = [math.log(1 + (total - freq_of.get(w, 1) + 0.5) / (freq_of.get(w, 1) + 0.5)) for w in words]
    idf = [i / stand_in[w][1] if w in stand_in else i for w, i in zip(words, idf, strict=True)]
    windows: list[tuple[int, int]] = []
    if settings.date_boost > 0:
        windows = query_windows(query, time.time() if now is None else now)
        if catalog is not None:  # "two days before the demo": the demo's day from the messages that mention it
            windows += event_windows(query, keyword, catalog, mentions=settings.event_mentions)
    total_idf = sum(idf)
    unknown = sum(i for w, i in zip(words, idf, strict=True) if not cjk_runs(w) and freq_of.get(w, 1) == 0)
    absent = unknown / total_idf if total_idf > 0 else 0.0
    return QueryFacts(words, idf, looks_technical(query), windows, absent, runs)


def shown(hits: list[UnitHit], min_score: float, *, calibrated: bool = True) -> list[UnitHit]:
    """The hits a user sees: those scoring at least `shown_floor`, in order."""
    floor = shown_floor(hits, min_score, calibrated=calibrated)
    return [] if floor is None else [h for h in hits if h.score >= floor]


def shown_floor(hits: list[UnitHit], min_score: float, *, calibrated: bool = True) -> float | None:
    """The score a hit needs to be shown; None when none is. Calibrated: none unless the chance that the best of
    the top ten is relevant reaches `min_score` ("no results" is an answer), then TAIL_SHARE of the best score of the
    top ten. Without calibration: `min_score`."""
    if not hits:
        return None
    if not calibrated:
        return min_score
    if max(h.probability for h in hits[:ANSWER_TOP]) < min_score:
        return None
    return TAIL_SHARE * max(h.score for h in hits[:ANSWER_TOP])


def found_words(facts: QueryFacts, tokens: Container[str]) -> list[bool]:
    """Per query word, whether a hit's analysed words hold it (an acronym's run counts when the hit holds the acronym).
    A unit's stored `Words` are searched with the query's padded words, so each test is a substring search in C."""
    tokens = with_acronyms(facts.acronyms, tokens) if facts.acronyms else tokens
    if type(tokens) is Words:
        padded = tokens.padded
        return [needle in padded for needle in facts.needles]
    return [w in tokens for w in facts.words]


def coverage(facts: QueryFacts, tokens: Container[str], text: str) -> float:
    """The idf-weighted share of the query's words found in a hit's own text."""
    return _coverage(facts, found_words(facts, tokens), text)


def _coverage(facts: QueryFacts, found: list[bool], text: str) -> float:
    total = facts.total_idf
    if total <= 0:
        return 0.0
    covered = 0.0
    lowered: str | None = None  # lowercased only for a CJK word the analyser does not split
    for w, i, cjk, is_found in zip(facts.words, facts.idf, facts.cjk, found, strict=True):
        if is_found:
            covered += i
        elif cjk:
            lowered = text.lower() if lowered is None else lowered
            if w in lowered:
                covered += i
    return covered / total


def matched_share(facts: QueryFacts, tokens: Container[str]) -> float:
    """The share of the query's words (unweighted) found in a hit's own text."""
    return _share(found_words(facts, tokens))


def _share(found: list[bool]) -> float:
    return sum(found) / len(found) if found else 0.0


def bm25_share(bm25: float, facts: QueryFacts) -> float:
    """Raw BM25 against the most the query's words could give (each word at most about (k1 + 1) × its idf)."""
    total = BM25_K1_PLUS_1 * facts.total_idf
    return min(1.0, bm25 / total) if total > 0 else 0.0


def postprocess(
    ranked: list[UnitHit],
    query: str,
    settings: SearchSettings,
    catalog: Catalog,
    keyword: KeywordIndex,
    mode: str,
    limit: int | None,
    now: float | None = None,
    *,
    facts_state: tuple[int, str | None] | None = None,
) -> list[UnitHit]:
    """Re-score the head of `ranked` (best first) and return the new order; `hit.probability` is set for all.
    `facts_state`: the catalog's `unit_facts_state()` when the caller has read it."""
    if not ranked:
        return ranked
    head_size = max(HEAD, limit or 0)
    head, tail = ranked[:head_size], ranked[head_size:]
    units = unit_facts(catalog, keyword, [h.unit_id for h in head], facts_state)  # cached per unit: unit_facts.py
    facts = query_facts(query, keyword, settings, now, catalog, texts=(u.text for u in units.values()))
    covers: dict[int, float] = {}
    matched: dict[int, float] = {}
    plain: dict[int, float] = {}  # the score without the question penalty and ordering-only boosts, where they differ
    penalise = settings.tool_penalty > 0 and not facts.technical
    for hit in head:
        unit = units[hit.unit_id]
        found = found_words(facts, unit.tokens)
        covers[hit.unit_id] = _coverage(facts, found, unit.text)
        matched[hit.unit_id] = _share(found)
        unasked = hit.score - hit.lift  # the ordering-only boosts (search.replyBoost) left out
        if penalise:
            hit.score *= 1.0 - settings.tool_penalty * unit.tool
            unasked *= 1.0 - settings.tool_penalty * unit.tool
        if settings.question_penalty > 0 and unit.question > 0:  # asking repeats a topic's words, not the answer
            hit.score *= 1.0 - settings.question_penalty * unit.question
        if facts.windows and unit.ts is not None and overlaps(message_windows(unit.text, unit.ts), facts.windows):
            hit.score += settings.date_boost * (1.0 - hit.score)
            unasked += settings.date_boost * (1.0 - unasked)
        if unasked != hit.score:
            plain[hit.unit_id] = unasked
    head.sort(key=lambda h: (-h.score, h.unit_id))
    if settings.merge_duplicates:
        seen: set[str] = set()
        kept = []
        for hit in head:
            key = units[hit.unit_id].key
            if key and key in seen:
                continue
            seen.add(key)
            kept.append(hit)
        head = kept
    if settings.session_cap > 0:
        per_session: Counter[str] = Counter()
        capped: list[UnitHit] = []
        overflow: list[UnitHit] = []
        for hit in head:
            session = units[hit.unit_id].session
            per_session[session] += 1
            (capped if per_session[session] <= settings.session_cap else overflow).append(hit)
        head = capped + overflow  # over the cap: after every other hit, not dropped
    best_cover = max(covers.values(), default=0.0)
    best_cosine = max((h.vector or 0.0 for h in ranked), default=0.0)
    for rank, hit in enumerate(head):
        hit.features = (
            # the score without the question penalty and the ordering-only boosts (`lift`): they order the hits; the
            # calibrated chance was fitted without them
            plain.get(hit.unit_id, hit.score),
            hit.fused,
            max(0.0, hit.vector or 0.0),
            covers[hit.unit_id],
            best_cover,
            best_cosine,
            math.log1p(rank),
            bm25_share(hit.bm25, facts),
            matched[hit.unit_id],
            facts.absent,
        )
    top = [hit.features for hit in head[:10]]
    query_features = (
        best_cover,
        facts.absent,
        max((f[7] for f in top), default=0.0),
        max((f[8] for f in top), default=0.0),
    )
    chance = answerable(mode, query_features)
    for hit in head:
        hit.probability = probability(mode, hit.features, chance)
    last = head[-1] if head else None
    for hit in tail:  # never shown above the head: scaled below its last calibrated score
        hit.probability = (last.probability * hit.score / last.score) if last and last.score > 0 else 0.0
    return head + tail
