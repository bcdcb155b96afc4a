"""The learned ranker's features (`FEATURES`, in the model's order) and the matrix of them for a whole head at once.

Why it exists: the ranker reads 36 numbers about each of the forty hits it orders on every search with vectors, and
building them hit by hit costs a tuple of 36 per hit with a lookup or a call for most of them. Here the head is read
once into one value per hit for each input (`HeadColumns`: every number of a hit in one pass, the digit shares of all
texts in one pass over their code points), and each feature is one step over all hits: one entry of `COLUMNS`, its
name beside how it is worked out, so that adding a feature is adding one entry (and its input to `HeadColumns` when it
needs a new one). The numbers are the same to the bit as a hit-by-hit reading gives (`math.log1p` where a logarithm
is taken, the same divisions in float64), so the model's scores do not move. Forty hits are few for numpy: a step
costs about as much per call as per value, so what is per session or per time (`_session_columns`, `_newer`) is
worked out in Python.
"""

from __future__ import annotations

import functools
import math
import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import log1p
from typing import TYPE_CHECKING

from memlens.engine.ranking.query_facts import BM25_K1_PLUS_1

if TYPE_CHECKING:
    import numpy as np  # imported where used: numpy is not read by a keyword-only search
    import numpy.typing as npt

    from memlens.engine.keyword.parsed_query import ParsedQuery
    from memlens.engine.ranking.head import Head

    Floats = npt.NDArray[np.float64]

KINDS = ("transcript", "memory", "summary", "tool")
NO_RANK = 1000  # a list's rank for a hit that list did not find
_ASKS = re.compile(r"^\s*(who|what|when|where|why|how|which|did|does|do|is|are|was|were|can|could|should)\b", re.I)
_KIND_CODES = {kind: float(code) for code, kind in enumerate(KINDS)}


@dataclass(frozen=True, slots=True)
class QueryRow:
    """What the query is like: the same for every hit of the head."""

    words: float
    idf_mean: float  # the query's words' mean idf over the most an idf can be in this index
    idf_max: float
    absent: float  # idf-weighted share of the query's words no document holds
    technical: float
    error: float
    dates: float
    asks: float


@dataclass(frozen=True, slots=True)
class HeadColumns:
    """The head's hits read once: one array per input, in the hits' order, and the bests the shares are taken of."""

    score: Floats  # the hand-set ranking's score
    fused: Floats
    keyword: Floats
    context: Floats
    bm25_share: Floats  # raw BM25 over the most the query's words could give
    cosine: Floats  # the cosine, 0 when negative or not known
    keyword_rank: Floats  # log(1 + rank), NO_RANK for a list that did not find the hit
    vector_rank: Floats
    neighbours: Floats
    lift: Floats
    cover: Floats
    matched: Floats
    dated: Floats
    kind: Floats  # the kind's place in KINDS (-1: none of them)
    tool: Floats
    question: Floats
    length: Floats  # log(1 + characters)
    digits: Floats
    session_hits: list[float]  # share of the head's hits in the hit's session
    session_best: Floats  # the best score among the other hits of its session (not yet over the head's best)
    newer: list[float]
    best_score: float
    best_cosine: float
    best_cover: float
    query: QueryRow


Column = Callable[[HeadColumns], "npt.ArrayLike"]  # a value per hit, or one for all


def _kind(kind: str) -> Column:
    code = _KIND_CODES[kind]
    return lambda c: c.kind == code


# The model's inputs, in its order: the one list of them (bench/learn_ranker.py names the model's features by it).
COLUMNS: tuple[tuple[str, Column], ...] = (
    ("rules_score", lambda c: c.score),  # the hand-set ranking's score (fusion, neighbours, replies, penalties, dates)
    ("rules_share", lambda c: c.score / c.best_score),  # that over the head's best
    ("fused", lambda c: c.fused),
    ("keyword", lambda c: c.keyword),  # BM25 over the best, the context field's share mixed in
    ("context", lambda c: c.context),  # the context field's BM25 over its best
    ("bm25_share", lambda c: c.bm25_share),  # raw BM25 over the most the query's words could give
    ("cosine", lambda c: c.cosine),
    ("cosine_share", lambda c: c.cosine / c.best_cosine),  # cosine over the head's best
    ("keyword_rank", lambda c: c.keyword_rank),  # log(1 + rank) in the BM25 list; log(1 + NO_RANK) when not in it
    ("vector_rank", lambda c: c.vector_rank),
    ("neighbours", lambda c: c.neighbours),  # what the neighbouring messages added
    ("reply", lambda c: c.lift),  # what answering a matching question added
    ("cover", lambda c: c.cover),  # idf-weighted share of the query's words in the hit's own text
    ("cover_share", lambda c: c.cover / c.best_cover),  # that over the head's best
    ("matched", lambda c: c.matched),  # unweighted share
    ("dated", lambda c: c.dated),  # written on (or naming) a day the query names
    *((f"kind_{k}", _kind(k)) for k in KINDS),
    ("tool_lines", lambda c: c.tool),  # share of tool-call input lines
    ("asks", lambda c: c.question),  # share of the text in questions
    ("length", lambda c: c.length),  # log(1 + characters)
    ("digits", lambda c: c.digits),  # share of characters that are digits (status lines: "All 397 tests pass")
    ("session_hits", lambda c: c.session_hits),  # share of the head's hits in the hit's session
    ("session_best", lambda c: c.session_best / c.best_score),  # the best of the others of its session, over the best
    ("newer", lambda c: c.newer),  # share of the head's dated hits written after it
    ("query_words", lambda c: c.query.words),
    ("query_idf_mean", lambda c: c.query.idf_mean),  # mean idf over the most an idf can be in this index
    ("query_idf_max", lambda c: c.query.idf_max),
    ("query_absent", lambda c: c.query.absent),  # idf-weighted share of the query's words no document holds
    ("query_technical", lambda c: c.query.technical),
    ("query_error", lambda c: c.query.error),
    ("query_dates", lambda c: c.query.dates),
    ("query_asks", lambda c: c.query.asks),
)
FEATURES: tuple[str, ...] = tuple(name for name, _ in COLUMNS)


def feature_matrix(head: Head, query: ParsedQuery) -> Floats:
    """One row per head hit (in the head's order), one column per feature (FEATURES order)."""
    import numpy as np  # here, not the lazy module's proxy: a few dozen of its attributes are read per search

    columns = head_columns(head, query)
    by_feature = np.empty((len(COLUMNS), len(head.hits)))  # each feature's values side by side: a row is one copy
    for at, (_, column) in enumerate(COLUMNS):
        by_feature[at] = column(columns)
    return by_feature.T


def head_columns(head: Head, query: ParsedQuery) -> HeadColumns:
    """Read the head (as the hand-set passes left it) into arrays; the head must hold at least one hit. Every number
    of a hit is read in one pass into one array (a conversion per input costs more than the reading)."""
    import numpy as np

    hits = head.hits
    units = [head.units[h.unit_id] for h in hits]
    neighbours, covers, matched, dated = head.neighbours, head.covers, head.matched, head.dated
    read = np.array(
        [
            (
                h.score,
                h.fused,
                h.keyword,
                h.context,
                h.bm25,
                h.lift,
                h.vector or 0.0,
                log1p(NO_RANK if h.keyword_rank is None else h.keyword_rank),
                log1p(NO_RANK if h.vector_rank is None else h.vector_rank),
                neighbours.get(h.unit_id, 0.0),
                covers[h.unit_id],
                matched[h.unit_id],
                h.unit_id in dated,
                _KIND_CODES.get(u.kind, -1),
                u.tool,
                u.question,
                log1p(len(u.text)),
            )
            for h, u in zip(hits, units, strict=True)
        ],
        dtype=float,
    ).T
    score, fused, keyword, context, bm25, lift, vector, keyword_rank, vector_rank = read[:9]
    neighbour, cover, match, date, kind, tool, question, length = read[9:]
    most_bm25 = BM25_K1_PLUS_1 * head.facts.total_idf
    scores = score.tolist()
    session_hits, session_best = _session_columns([u.session for u in units], scores)
    return HeadColumns(
        score=score,
        fused=fused,
        keyword=keyword,
        context=context,
        bm25_share=np.minimum(1.0, bm25 / most_bm25) if most_bm25 > 0 else np.zeros(len(hits)),
        cosine=np.where(vector > 0.0, vector, 0.0),
        keyword_rank=keyword_rank,
        vector_rank=vector_rank,
        neighbours=neighbour,
        lift=lift,
        cover=cover,
        matched=match,
        dated=date,
        kind=kind,
        tool=tool,
        question=question,
        length=length,
        digits=digit_shares([u.text for u in units]),
        session_hits=session_hits,
        session_best=session_best,
        newer=_newer([u.ts for u in units]),
        best_score=max(scores) or 1.0,
        best_cosine=max(vector.tolist()) or 1.0,
        best_cover=max(covers.values(), default=0.0) or 1.0,
        query=query_row(head, query),
    )


def _newer(stamps: list[float | None]) -> list[float]:
    """Per hit, the share of the head's dated hits written after it (0 for a hit with no time)."""
    dated = sorted(t for t in stamps if t is not None)
    if not dated:
        return [0.0] * len(stamps)
    return [0.0 if t is None else (len(dated) - bisect_right(dated, t)) / len(dated) for t in stamps]


def query_row(head: Head, query: ParsedQuery) -> QueryRow:
    """The query's own features (how long, how rare its words, whether it names an identifier, an error or a date,
    whether it asks)."""
    facts = head.facts
    most_idf = math.log1p(max(1, facts.documents)) or 1.0
    return QueryRow(
        words=float(len(facts.words)),
        idf_mean=(facts.total_idf / len(facts.idf) / most_idf) if facts.idf else 0.0,
        idf_max=max(facts.idf, default=0.0) / most_idf,
        absent=facts.absent,
        technical=float(query.technical),
        error=float(query.error_like),
        dates=float(bool(facts.windows)),
        asks=float(bool(_ASKS.match(query.text)) or query.text.rstrip().endswith("?")),
    )


def _session_columns(sessions: list[str], scores: list[float]) -> tuple[list[float], Floats]:
    """`session_hits` and `session_best`: for each hit, the share of the head in its session and the best score of
    the other hits of its session (0 for a hit alone in it)."""
    import numpy as np

    first: dict[str, float] = {}  # per session: its best score, then its second best (0 when it has one hit)
    second: dict[str, float] = {}
    hits: dict[str, int] = {}
    for session, score in zip(sessions, scores, strict=True):
        hits[session] = hits.get(session, 0) + 1
        best = first.get(session)
        if best is None:
            first[session], second[session] = score, 0.0
        elif score > best:
            first[session], second[session] = score, best
        elif hits[session] == 2 or score > second[session]:
            second[session] = score
    best_other = [second[s] if score == first[s] else first[s] for s, score in zip(sessions, scores, strict=True)]
    return [hits[s] / len(sessions) for s in sessions], np.array(best_other, dtype=float)


# The code points looked up in a table (every digit so far is below it); one beyond it is looked at on its own.
_TABLE_END = 0x20000


@functools.cache
def _digit_table() -> npt.NDArray[np.bool_]:
    """Whether each code point below _TABLE_END is a digit (`str.isdigit`; numpy's `isdigit` asks the same Unicode
    database), worked out once (about a millisecond)."""
    import numpy as np

    return np.asarray(np.char.isdigit(np.arange(_TABLE_END, dtype=np.uint32).view("U1")), dtype=bool)


def digit_shares(texts: Sequence[str]) -> Floats:
    """The share of each text's characters that are digits (`str.isdigit`: other scripts' digits and superscripts
    too; 0 for an empty text), all texts in one pass over their code points: one text at a time, a text past ASCII
    (most real ones hold a dash, a quote or an arrow) has its characters looked at one by one."""
    import numpy as np

    lengths = np.array([len(t) for t in texts], dtype=np.int64)
    points = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    digit = _digit_table().take(points, mode="clip")  # past the table: its last entry, no digit (looked at below)
    if points.size and points.max() >= _TABLE_END:
        beyond = np.flatnonzero(points >= _TABLE_END)
        digit[beyond] = [chr(c).isdigit() for c in points[beyond].tolist()]
    ends = np.cumsum(lengths)
    counts = np.bincount(np.searchsorted(ends, np.flatnonzero(digit), side="right"), minlength=len(texts))
    shares = np.zeros(len(texts))
    np.divide(counts, lengths, out=shares, where=lengths > 0)
    return shares
