"""The learned ranker: the head's order decided by a tree model fitted on questions, not by hand-set weights.

Each hit of the re-scored head gets one row of features (`FEATURES`, in that order): its signals from each list
(BM25, the context field, cosine, its rank in each), what the hand-set passes made of them, how much of the query
its own text holds, what kind of unit it is, how many of the head's hits share its session, and what the query is
like (how long, how rare its words, whether it names an identifier, an error or a date, whether it asks). The model
(bench/learn_ranker.py fits it with LightGBM's LambdaRank on the tune questions; `ranker.txt` beside this module)
gives each row a score and the head is put in that order. Query features only matter through their interactions
with the others: that is what lets one model weigh words for "HistoryParser SessionOrchestrator" and meaning for
"how do people know the lookup is still running?".

The rows are written on every search with vectors (`hit.ranker_features`), whichever ranker orders: the benchmark
reads them to fit the model under the rules' order.
"""

from __future__ import annotations

import bisect
import functools
import math
import re
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

from memlens.engine.ranking.query_facts import bm25_share
from memlens.engine.ranking.tree_model import TreeModel, load_tree_model

if TYPE_CHECKING:
    from memlens.engine.keyword.parsed_query import ParsedQuery
    from memlens.engine.ranking.head import Head
    from memlens.engine.ranking.hits import UnitHit

MODEL_PATH = Path(__file__).with_name("ranker.txt")
KINDS = ("transcript", "memory", "summary", "tool")
NO_RANK = 1000  # a list's rank for a hit that list did not find
_ASKS = re.compile(r"^\s*(who|what|when|where|why|how|which|did|does|do|is|are|was|were|can|could|should)\b", re.I)
FEATURES: tuple[str, ...] = (
    "rules_score",  # the hand-set ranking's score (fusion, neighbours, replies, penalties, dates)
    "rules_share",  # that over the head's best
    "fused",
    "keyword",  # BM25 over the best, the context field's share mixed in
    "context",  # the context field's BM25 over its best
    "bm25_share",  # raw BM25 over the most the query's words could give
    "cosine",
    "cosine_share",  # cosine over the head's best
    "keyword_rank",  # log(1 + rank) in the BM25 list; log(1 + NO_RANK) when not in it
    "vector_rank",
    "neighbours",  # what the neighbouring messages added
    "reply",  # what answering a matching question added
    "cover",  # idf-weighted share of the query's words in the hit's own text
    "cover_share",  # that over the head's best
    "matched",  # unweighted share
    "dated",  # written on (or naming) a day the query names
    *(f"kind_{k}" for k in KINDS),
    "tool_lines",  # share of tool-call input lines
    "asks",  # share of the text in questions
    "length",  # log(1 + characters)
    "digits",  # share of characters that are digits (status lines: "All 397 tests pass")
    "session_hits",  # share of the head's hits in the hit's session
    "session_best",  # the best rules score among the other hits of its session, over the head's best
    "newer",  # share of the head's dated hits written after it
    "query_words",
    "query_idf_mean",  # the query's words' mean idf over the most an idf can be in this index
    "query_idf_max",
    "query_absent",  # idf-weighted share of the query's words no document holds
    "query_technical",
    "query_error",
    "query_dates",
    "query_asks",
)


@functools.cache
def bundled_model() -> TreeModel:
    """The shipped model, read once per process."""
    return load_tree_model(MODEL_PATH)


def write_features(head: Head, query: ParsedQuery) -> None:
    """Set every head hit's `ranker_features` (FEATURES order) from the head as the hand-set passes left it."""
    hits = head.hits
    if not hits:
        return
    best_score = max((h.score for h in hits), default=0.0) or 1.0
    best_cosine = max((h.vector or 0.0 for h in hits), default=0.0) or 1.0
    best_cover = max(head.covers.values(), default=0.0) or 1.0
    per_session: defaultdict[str, list[float]] = defaultdict(list)
    for hit in hits:
        per_session[head.units[hit.unit_id].session].append(hit.score)
    for scores in per_session.values():
        scores.sort(reverse=True)
    stamps = sorted(u.ts for u in (head.units[h.unit_id] for h in hits) if u.ts is not None)
    facts = head.facts
    most_idf = math.log1p(max(1, facts.documents)) or 1.0
    query_row = (
        float(len(facts.words)),
        (facts.total_idf / len(facts.idf) / most_idf) if facts.idf else 0.0,
        max(facts.idf, default=0.0) / most_idf,
        facts.absent,
        float(query.technical),
        float(query.error_like),
        float(bool(facts.windows)),
        float(bool(_ASKS.match(query.text)) or query.text.rstrip().endswith("?")),
    )
    for hit in hits:
        unit = head.units[hit.unit_id]
        text = unit.text
        session_scores = per_session[unit.session]  # best first
        rest = session_scores[1:] if session_scores[0] == hit.score else session_scores
        other_best = rest[0] if rest else 0.0
        newer = 0.0
        if unit.ts is not None and stamps:
            newer = (len(stamps) - bisect.bisect_right(stamps, unit.ts)) / len(stamps)
        hit.ranker_features = (
            hit.score,
            hit.score / best_score,
            hit.fused,
            hit.keyword,
            hit.context,
            bm25_share(hit.bm25, facts),
            max(0.0, hit.vector or 0.0),
            max(0.0, hit.vector or 0.0) / best_cosine,
            math.log1p(NO_RANK if hit.keyword_rank is None else hit.keyword_rank),
            math.log1p(NO_RANK if hit.vector_rank is None else hit.vector_rank),
            head.neighbours.get(hit.unit_id, 0.0),
            hit.lift,
            head.covers[hit.unit_id],
            head.covers[hit.unit_id] / best_cover,
            head.matched[hit.unit_id],
            float(hit.unit_id in head.dated),
            *(float(unit.kind == k) for k in KINDS),
            unit.tool,
            unit.question,
            math.log1p(len(text)),
            digit_share(text),
            len(session_scores) / len(hits),
            other_best / best_score,
            newer,
            *query_row,
        )


def predict(head: Head, model: TreeModel) -> None:
    """Set every head hit's `learned` score from its feature row."""
    import numpy as np

    if not head.hits:
        return
    predicted = model.predict(np.array([h.ranker_features for h in head.hits], dtype=float))
    for hit, value in zip(head.hits, predicted.tolist(), strict=True):
        hit.learned = value


def order_by_model(head: Head) -> None:
    """Put the head in the order of its `learned` scores (ties: the rules' score, then the unit id)."""
    head.hits.sort(key=lambda h: (-h.learned, -h.score, h.unit_id))


def hand_out_scores(hits: list[UnitHit]) -> None:
    """The hits keep the head's scores, handed out best first in their new order: a shown score still falls down
    the list, and the scores keep the scale the rest of the engine reads (0–1, the tail scaled below the head)."""
    for hit, score in zip(hits, sorted((h.score for h in hits), reverse=True), strict=True):
        hit.score = score


_NO_DIGITS = str.maketrans("", "", "0123456789")


_DIGIT_BYTES = b"0123456789"
_PAST_ASCII = re.compile(r"[^\x00-\x7f]+")


def digit_share(text: str) -> float:
    """The share of a text's characters that are digits (`str.isdigit`: other scripts' digits and superscripts
    too). An ASCII text is counted by `str.translate`, in C: a character loop over the forty hits' texts took 2.4 of
    a hybrid search's 16 ms under the profiler. A text past ASCII (most real ones hold a dash, a quote or an arrow)
    has its ASCII digits counted in its bytes and only its other characters looked at one by one: 17.5 → 11.1 µs
    for the realistic corpus's texts (a `str.translate` of such a text is slower than the loop)."""
    if not text:
        return 0.0
    if text.isascii():
        return (len(text) - len(text.translate(_NO_DIGITS))) / len(text)
    ascii_bytes = text.encode("ascii", "ignore")
    digits = len(ascii_bytes) - len(ascii_bytes.translate(None, _DIGIT_BYTES))
    digits += sum(map(str.isdigit, "".join(_PAST_ASCII.findall(text))))
    return digits / len(text)
