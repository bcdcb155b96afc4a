"""The always-on re-scoring of a ranking's head, in named passes: penalties for tool-call inputs, for tool results
(unless the query looks like an error) and for questions,
the date boost, merging identical texts, a per-session cap, then the calibrated chance that each hit is relevant
(calibration.py). Not the optional cross-encoder (cross_encoder.py), which may re-order the top hits after this."""

from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING, NamedTuple

from memlens.engine.ranking.calibration import LEARNED_HYBRID, answerable, probability
from memlens.engine.ranking.dates import message_windows, overlaps
from memlens.engine.ranking.head import Head
from memlens.engine.ranking.learned_order import (
    bundled_model,
    hand_out_scores,
    order_by_model,
    predict,
    write_features,
)
from memlens.engine.ranking.query_facts import bm25_share, found_coverage, found_in_text, found_share, found_words
from memlens.engine.ranking.query_facts import query_facts as read_query_facts
from memlens.engine.ranking.unit_facts import Words, unit_facts
from memlens.engine.ranking.verbatim import lift_named_literals, put_verbatim_first, take_in_holders

if TYPE_CHECKING:
    from memlens.engine.catalog import Catalog
    from memlens.engine.keyword.keyword_index import KeywordIndex
    from memlens.engine.keyword.parsed_query import ParsedQuery
    from memlens.engine.ranking.hits import UnitHit
    from memlens.settings import SearchSettings

# hits re-scored (at least the limit): more ranked no better on the LoCoMo tune split, fewer lost recall there
HEAD = 40
# the query's nearest messages in meaning (their place in the cosine list below this) are re-scored wherever the fused
# score put them: a paraphrase shares few words with its answer, and when many messages share the query's common
# words the answer's best cosine alone leaves it past the head, where the learned ranker, which weighs cosine and
# cosine rank, never sees it. Chosen on the tune sets only (bench/RESULTS.md, "Where the first hit is wrong")
NEAREST_IN_HEAD = 5
ANSWER_TOP = 10  # the hits whose best chance decides whether a query is answered at all (`choose`)
# once a query is answered, a hit is shown when its chance reaches this share of minScore: on the LoCoMo tune split
# (26, 30, 41) the R@10 of what is shown stays where a cut at a share of the best score had it, where minScore
# itself as each hit's floor lost 8.5 points
HIT_SHARE = 0.1
# A tool result (kind "tool") keeps this share of its score unless the query looks like an error or log line or
# asks for tool output: a command's output repeats a topic's words (file names, identifiers) without saying what was
# decided, so it follows the prose about it. Chosen on the transcript tune set (bench/transcripts.py, bench/errors.py).
TOOL_RESULT_WEIGHT = 0.5
# What a hit on a day the query names gains on the learned ranker's score (a LambdaRank margin; two near-equal hits
# differ by 0.1-0.2 there), beside the date boost's share of what a score lacks of 1. Chosen on the tune sets
# (bench/event_questions.py and LoCoMo 26/30/41; figures in bench/RESULTS.md).
LEARNED_DATE_MARGIN = 0.25


def rescore(
    ranked: list[UnitHit],
    query: ParsedQuery,
    *,
    settings: SearchSettings,
    catalog: Catalog,
    keyword: KeywordIndex,
    mode: str,
    limit: int | None,
    facts_state: tuple[int, str | None] | None = None,
) -> list[UnitHit]:
    """Re-score the head of `ranked` (best first) and return the new order; `hit.probability` is set for all.
    `facts_state`: the catalog's `unit_facts_state()` when the caller has read it."""
    if not ranked:
        return ranked
    hits, tail = split_head(ranked, size=max(HEAD, limit or 0), nearest=NEAREST_IN_HEAD)
    units = unit_facts(catalog, keyword, [h.unit_id for h in hits], facts_state)  # cached per unit: unit_facts.py
    hits = [h for h in hits if not units[h.unit_id].copy]  # a message another file of its session keeps: found there
    facts = read_query_facts(query, keyword, texts=(u.text for u in units.values()))
    head = Head(
        hits,
        units,
        facts,
        unasked={h.unit_id: h.score - h.lift for h in hits},
        neighbours={h.unit_id: max(0.0, h.score - h.fused - h.lift) for h in hits},
    )
    measure_coverage(head, with_call=query.asks_output)
    if settings.tool_penalty > 0 and not facts.technical:
        penalise_tool_output(head, settings.tool_penalty)
    if query.asks_output:
        demote_all_but_tool_results(head, TOOL_RESULT_WEIGHT)
    elif not (query.error_like or query.output_like) and not (
        query.filters is not None and query.filters.kind == "tool"
    ):
        demote_tool_results(head, TOOL_RESULT_WEIGHT)
    if settings.question_penalty > 0:
        penalise_questions(head, settings.question_penalty)
    if facts.windows:
        boost_named_dates(head, settings.date_boost)
    # what the learned ranker reads and bench/learn_ranker.py fits it on: every search with vectors (a hybrid search
    # whose words match nothing is fused as vector-only, and its rows are still part of the fit); never keyword-only
    if mode != "keyword":
        write_features(head, query)
    head.hits.sort(key=lambda h: (-h.score, h.unit_id))
    if settings.merge_duplicates:
        merge_duplicates(head)
    if settings.session_cap > 0:
        cap_sessions(head, settings.session_cap)
    # fitted on hybrid rows: cosines and BM25 both there. None of its questions asked what a command printed (their
    # output's header names the call in a field of its own, keyword_query.py): for one that does, the rules' order,
    # which ranks tool output above the call and the prose, stands
    learned = settings.ranker == "learned" and mode == "hybrid" and not query.asks_output
    if learned:
        predict(head, bundled_model())
    # the chances are read in the rules' order: calibration was fitted on it (its rank feature)
    set_features(head, best_cosine=max((h.vector or 0.0 for h in ranked), default=0.0))
    calibrate(head, LEARNED_HYBRID if learned else mode)
    if learned:
        if head.facts.windows and settings.date_boost > 0:
            lift_named_dates(head, LEARNED_DATE_MARGIN)
        order_by_model(head)
        if settings.session_cap > 0:
            cap_sessions(head, settings.session_cap)
        hand_out_scores(head.hits)
    # last: a paste's own source outranks what every other pass made of it, wherever the fused score put it
    tail = take_in_holders(
        head,
        tail,
        query,
        size=max(HEAD, limit or 0),
        texts=catalog.unit_texts,
        facts=lambda ids: unit_facts(catalog, keyword, ids, facts_state),
    )
    put_verbatim_first(head, query)
    lift_named_literals(head, query)
    scale_tail(head.hits, tail)
    return head.hits + tail


def split_head(ranked: list[UnitHit], *, size: int, nearest: int) -> tuple[list[UnitHit], list[UnitHit]]:
    """The hits re-scored and the rest, each in `ranked`'s order: the first `size`, and past them every hit among the
    `nearest` first of the cosine list."""
    joined = [h for h in ranked[size:] if h.vector_rank is not None and h.vector_rank < nearest]
    if not joined:
        return ranked[:size], ranked[size:]
    ids = {h.unit_id for h in joined}
    return ranked[:size] + joined, [h for h in ranked[size:] if h.unit_id not in ids]


def measure_coverage(head: Head, *, with_call: bool = False) -> None:
    """How much of the query each hit's own text holds, weighted by idf and not; `with_call` (a question asking what
    a command printed): a tool output's words with those of the call its header names."""
    for hit in head.hits:
        unit = head.units[hit.unit_id]
        tokens = Words(f"{unit.tokens.padded} {unit.call}") if with_call and unit.call else unit.tokens
        found = found_in_text(head.facts, found_words(head.facts, tokens), unit.text)
        head.covers[hit.unit_id] = found_coverage(head.facts, found, unit.text)
        head.matched[hit.unit_id] = found_share(found)


def penalise_tool_output(head: Head, penalty: float) -> None:
    """Tool-call output weighs less, in proportion to its share of the text, unless the query itself is technical."""
    for hit in head.hits:
        kept = 1.0 - penalty * head.units[hit.unit_id].tool
        hit.score *= kept
        head.unasked[hit.unit_id] *= kept


def demote_tool_results(head: Head, weight: float) -> None:
    """A tool result keeps `weight` of its score (and of what calibration reads): it ranks below the prose about
    the same thing unless nothing else matches."""
    for hit in head.hits:
        if head.units[hit.unit_id].kind == "tool":
            hit.score *= weight
            head.unasked[hit.unit_id] *= weight


def demote_all_but_tool_results(head: Head, weight: float) -> None:
    """The mirror of `demote_tool_results` for a question about what a command printed: the call, shorter and holding
    the same command, would otherwise rank above its output, and take its session's one place."""
    for hit in head.hits:
        if head.units[hit.unit_id].kind != "tool":
            hit.score *= weight
            head.unasked[hit.unit_id] *= weight


def penalise_questions(head: Head, penalty: float) -> None:
    """Asking repeats a topic's words, not the answer: a message that asks weighs less (ordering only)."""
    for hit in head.hits:
        question = head.units[hit.unit_id].question
        if question > 0:
            hit.score *= 1.0 - penalty * question


def boost_named_dates(head: Head, boost: float) -> None:
    """A message written within (or naming) a day the query names gains `boost` of what its score lacks of 1."""
    for hit in head.hits:
        unit = head.units[hit.unit_id]
        if unit.ts is not None and overlaps(message_windows(unit.text, unit.ts), head.facts.windows):
            head.dated.add(hit.unit_id)
            hit.score += boost * (1.0 - hit.score)
            unasked = head.unasked[hit.unit_id]
            head.unasked[hit.unit_id] = unasked + boost * (1.0 - unasked)


def lift_named_dates(head: Head, margin: float) -> None:
    """The date boost in the learned ranker's order: a hit written within (or naming) a day the query names gains
    `margin` on the model's score. The rules' boost adds a share of what a score lacks of 1, which for two near-equal
    hits near the top is little, and the model weighs `dated` beside their length and words, so the same words on the
    day asked about could lose to them on another day ("which login bug did I fix two days before the demo")."""
    for hit in head.hits:
        if hit.unit_id in head.dated:
            hit.learned += margin


def merge_duplicates(head: Head) -> None:
    """Identical texts (up to case and whitespace) count once, at the best-placed one."""
    seen: set[str] = set()
    kept = []
    for hit in head.hits:
        key = head.units[hit.unit_id].key
        if key and key in seen:
            continue
        seen.add(key)
        kept.append(hit)
    head.hits = kept


def cap_sessions(head: Head, cap: int) -> None:
    """At most `cap` hits of one session keep their place; the others follow every other hit, not dropped."""
    per_session: Counter[str] = Counter()
    capped: list[UnitHit] = []
    overflow: list[UnitHit] = []
    for hit in head.hits:
        session = head.units[hit.unit_id].session
        per_session[session] += 1
        (capped if per_session[session] <= cap else overflow).append(hit)
    head.hits = capped + overflow


def set_features(head: Head, *, best_cosine: float) -> None:
    """Each hit's calibration features (calibration.py), in their fitted order; `best_cosine` over all candidates."""
    best_cover = max(head.covers.values(), default=0.0)
    for rank, hit in enumerate(head.hits):
        hit.features = (
            head.unasked[hit.unit_id],
            hit.fused,
            max(0.0, hit.vector or 0.0),
            head.covers[hit.unit_id],
            best_cover,
            best_cosine,
            math.log1p(rank),
            bm25_share(hit.bm25, head.facts),
            head.matched[hit.unit_id],
            head.facts.absent,
        )


def calibrate(head: Head, mode: str) -> None:
    """Each hit's chance of being relevant, given the chance that the query is answerable at all from its top ten.
    `mode`: the calibration's key (calibration.py), the search mode or LEARNED_HYBRID."""
    top = [hit.features for hit in head.hits[:ANSWER_TOP]]
    query_features = (
        max(head.covers.values(), default=0.0),
        head.facts.absent,
        max((f[7] for f in top), default=0.0),
        max((f[8] for f in top), default=0.0),
        max((h.learned for h in head.hits), default=0.0),
        head.facts.absent_named,
    )
    chance = head.answerable = answerable(mode, query_features)
    for hit in head.hits:
        hit.probability = probability(mode, hit.features, chance)


def scale_tail(head: list[UnitHit], tail: list[UnitHit]) -> None:
    """The hits past the head are never shown above it: scaled below its last calibrated score."""
    last = head[-1] if head else None
    for hit in tail:
        hit.probability = (last.probability * hit.score / last.score) if last and last.score > 0 else 0.0


class Choice(NamedTuple):
    """What a list shows of a ranking: a hit per chunk, best first, and how many of the first `limit` chunks it
    withholds because they are too unsure to show."""

    shown: list[UnitHit]
    withheld: int
    answered: bool  # whether the query is answered at all (the best of the top ten is sure enough)


def passes(hit: UnitHit, floor: float, *, calibrated: bool = True) -> bool:
    """Whether a hit reaches `floor`: its calibrated chance does (without calibration, its score does)."""
    return (hit.probability if calibrated else hit.score) >= floor


def hit_floor(min_score: float, *, calibrated: bool = True) -> float:
    """What each shown hit needs once a query is answered: HIT_SHARE of `min_score` (calibrated), else `min_score`."""
    return HIT_SHARE * min_score if calibrated else min_score


def answered(hits: list[UnitHit], min_score: float, *, calibrated: bool = True) -> bool:
    """Whether a ranking answers its query at all: the best of its top ANSWER_TOP reaches `min_score` (their
    calibrated chance, which holds the chance that the query is answerable here; without calibration, the score)."""
    return any(passes(h, min_score, calibrated=calibrated) for h in hits[:ANSWER_TOP])


def choose(hits: list[UnitHit], chunks: list[int], limit: int, min_score: float, *, calibrated: bool = True) -> Choice:
    """The hits shown, one per chunk (`chunks[i]` is `hits[i]`'s), at most `limit`. Calibrated: nothing unless the
    chance that the best of the top ten is relevant reaches `min_score` ("no results" is an answer), then every hit
    whose own chance reaches `hit_floor`, in rank order. No cut relative to the best hit's score: a query naming three
    things shows all three, and the reader sees how sure each is (answers/confidence.py). What is not shown of the
    first `limit` chunks is counted as withheld."""
    if not hits:
        return Choice([], 0, False)
    answers = answered(hits, min_score, calibrated=calibrated)
    floor = hit_floor(min_score, calibrated=calibrated)
    shown: list[UnitHit] = []
    shown_chunks: set[int] = set()
    first: list[int] = []  # the first `limit` distinct chunks: what `min_score 0` would show
    for hit, chunk in zip(hits, chunks, strict=True):
        if chunk not in first and len(first) < limit:
            first.append(chunk)
        if answers and chunk not in shown_chunks and len(shown) < limit and passes(hit, floor, calibrated=calibrated):
            shown.append(hit)
            shown_chunks.add(chunk)
    return Choice(shown, sum(1 for c in first if c not in shown_chunks), answers)
