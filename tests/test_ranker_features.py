"""The learned ranker's feature matrix, built for the whole head at once: each column read on a head made by hand,
the digit shares against `str.isdigit`, and the model reading the rows of the hits the later passes kept."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from bare_query import bare_query
from memlens.engine.keyword.parsed_query import ParsedQuery
from memlens.engine.ranking.head import Head
from memlens.engine.ranking.hits import UnitHit
from memlens.engine.ranking.learned_order import bundled_model, predict, write_features
from memlens.engine.ranking.query_facts import BM25_K1_PLUS_1, QueryFacts
from memlens.engine.ranking.ranker_features import COLUMNS, FEATURES, NO_RANK, digit_shares, feature_matrix
from memlens.engine.ranking.unit_facts import UnitFacts, Words


def query(text: str = "how did the deploy go", *, technical: bool = False) -> ParsedQuery:
    return bare_query(text, words=("deploy", "go"), technical=technical)


def unit(text: str, *, session: str, ts: float | None, kind: str = "transcript") -> UnitFacts:
    return UnitFacts(text, ts, session, Words(""), 0.25, text, 0.5, kind)


def head() -> Head:
    """Four hits: two of session a (scores 0.8, 0.6), one of b, one of c; one with no time; one found by BM25 only."""
    hits = [
        UnitHit(1, score=0.8, fused=0.7, bm25=4.0, keyword=0.9, vector=0.5, keyword_rank=0, vector_rank=3),
        UnitHit(2, score=0.6, fused=0.6, bm25=2.0, keyword=0.5, vector=-0.1, keyword_rank=4, vector_rank=None),
        UnitHit(3, score=0.4, fused=0.4, bm25=0.0, keyword=0.0, vector=0.25, keyword_rank=None, vector_rank=0),
        UnitHit(4, score=0.2, fused=0.1, bm25=1.0, keyword=0.3, vector=None, keyword_rank=7, lift=0.05),
    ]
    units = {
        1: unit("deploy went fine", session="a", ts=300.0),
        2: unit("ran 12 of 20 tests", session="a", ts=100.0, kind="tool"),
        3: unit("", session="b", ts=None, kind="memory"),
        4: unit("the deploy, on day 2", session="c", ts=200.0, kind="summary"),
    }
    facts = QueryFacts(["deploy", "go"], [2.0, 1.0], False, [], absent=0.25, documents=99)
    return Head(
        hits,
        units,
        facts,
        covers={1: 0.5, 2: 0.25, 3: 0.0, 4: 1.0},
        matched={1: 0.5, 2: 0.5, 3: 0.0, 4: 1.0},
        neighbours={1: 0.1},
        dated={4},
    )


def column(matrix: np.ndarray, name: str) -> list[float]:
    return [float(v) for v in matrix[:, FEATURES.index(name)]]


def test_every_feature_is_one_column_named_once() -> None:
    assert len(FEATURES) == len(set(FEATURES)) == len(COLUMNS)
    assert bundled_model().feature_names == FEATURES  # the model reads them in this order


def test_each_column_reads_its_hit() -> None:
    matrix = feature_matrix(head(), query())
    assert matrix.shape == (4, len(FEATURES))
    assert column(matrix, "rules_share") == [1.0, 0.6 / 0.8, 0.4 / 0.8, 0.2 / 0.8]
    assert column(matrix, "bm25_share") == [min(1.0, b / (BM25_K1_PLUS_1 * 3.0)) for b in (4.0, 2.0, 0.0, 1.0)]
    assert column(matrix, "cosine") == [0.5, 0.0, 0.25, 0.0]  # a negative or unknown cosine reads 0
    assert column(matrix, "cosine_share") == [1.0, 0.0, 0.5, 0.0]
    assert column(matrix, "keyword_rank") == [0.0, math.log1p(4), math.log1p(NO_RANK), math.log1p(7)]
    assert column(matrix, "vector_rank") == [math.log1p(3), math.log1p(NO_RANK), 0.0, math.log1p(NO_RANK)]
    assert column(matrix, "neighbours") == [0.1, 0.0, 0.0, 0.0]
    assert column(matrix, "reply") == [0.0, 0.0, 0.0, 0.05]
    assert column(matrix, "cover_share") == [0.5, 0.25, 0.0, 1.0]
    assert column(matrix, "dated") == [0.0, 0.0, 0.0, 1.0]
    assert column(matrix, "kind_tool") == [0.0, 1.0, 0.0, 0.0]
    assert column(matrix, "kind_memory") == [0.0, 0.0, 1.0, 0.0]
    assert column(matrix, "length") == [math.log1p(16), math.log1p(18), 0.0, math.log1p(20)]
    assert column(matrix, "digits") == [0.0, 4 / 18, 0.0, 1 / 20]


def test_the_session_columns_count_the_head_and_name_the_best_other_hit() -> None:
    matrix = feature_matrix(head(), query())
    assert column(matrix, "session_hits") == [0.5, 0.5, 0.25, 0.25]
    # the best of its session's other hits, over the head's best: a's two name each other, b and c have none
    assert column(matrix, "session_best") == [0.6 / 0.8, 1.0, 0.0, 0.0]


def test_a_tie_at_the_top_of_a_session_names_the_other() -> None:
    tied = head()
    tied.hits[1].score = 0.8
    assert column(feature_matrix(tied, query()), "session_best")[:2] == [1.0, 1.0]


def test_newer_is_the_share_of_dated_hits_written_after() -> None:
    assert column(feature_matrix(head(), query()), "newer") == [0.0, 2 / 3, 0.0, 1 / 3]  # the undated one: 0


def test_the_query_columns_are_the_same_for_every_hit() -> None:
    matrix = feature_matrix(head(), query("What broke? ", technical=True))
    assert column(matrix, "query_words") == [2.0] * 4
    assert column(matrix, "query_idf_mean") == [1.5 / math.log1p(99)] * 4
    assert column(matrix, "query_technical") == [1.0] * 4
    assert column(matrix, "query_asks") == [1.0] * 4
    assert column(feature_matrix(head(), query("deploy notes")), "query_asks") == [0.0] * 4


def test_the_model_reads_the_rows_of_the_hits_kept_in_their_new_order() -> None:
    scored = head()
    write_features(scored, query())
    rows = {h.unit_id: h.ranker_features for h in scored.hits}
    assert all(len(row) == len(FEATURES) for row in rows.values())
    scored.hits = [scored.hits[3], scored.hits[0], scored.hits[2]]  # one dropped (a duplicate), the rest moved
    predict(scored, bundled_model())
    expected = bundled_model().predict(np.array([rows[h.unit_id] for h in scored.hits]))
    assert [h.learned for h in scored.hits] == expected.tolist()


def test_digit_shares_count_every_kind_of_digit_as_isdigit_does() -> None:
    # past ASCII: a text's other characters (a dash, an arrow) beside its digits, digits of other kinds, a lone
    # surrogate, and characters past the table (U+20000)
    texts = ["All 397 tests pass", "", "no digits", "x" * 100 + "7", "٣٤ and 12", "12 passed — 3 failed"]
    texts += ["x² → y³ ①", "café 7…", "—", "\ud8009", "\U00020000 1 \U0001fbf9", "𝟘𝟙"]
    expected = [sum(c.isdigit() for c in t) / len(t) if t else 0.0 for t in texts]
    assert digit_shares(texts).tolist() == expected


@given(st.lists(st.text(), max_size=8))
def test_digit_shares_of_any_texts_are_isdigits_share(texts: list[str]) -> None:
    expected = [sum(c.isdigit() for c in t) / len(t) if t else 0.0 for t in texts]
    assert digit_shares(texts).tolist() == expected
