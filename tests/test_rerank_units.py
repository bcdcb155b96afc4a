"""The last ranking pass's small rules, pinned at their boundaries (found by mutation testing, see
docs/mutation-testing.md): which hits are shown, how much of a query a text covers, tool-call share, bad modes."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlens.engine.engine import Engine
from memlens.engine.ranking.hits import UnitHit
from memlens.engine.ranking.query_facts import QueryFacts, coverage, found_words
from memlens.engine.ranking.rescoring import HIT_SHARE, choose
from memlens.engine.ranking.unit_facts import Words, tool_share
from memlens.errors import InvalidRequest
from memlens.settings import Settings


def hit(unit_id: int, score: float, probability: float = 0.0) -> UnitHit:
    return UnitHit(unit_id, score=score, probability=probability)


def shown(hits: list[UnitHit], min_score: float, *, calibrated: bool = True, limit: int = 50) -> list[UnitHit]:
    return choose(hits, [h.unit_id for h in hits], limit, min_score, calibrated=calibrated).shown


def test_uncalibrated_shows_every_hit_reaching_min_score() -> None:
    hits = [hit(1, 0.9), hit(2, 0.5), hit(3, 0.49)]
    assert [h.unit_id for h in shown(hits, 0.5, calibrated=False)] == [1, 2]  # 0.5 itself is shown
    assert shown([], 0.5) == []


def test_calibrated_answers_nothing_unless_the_top_ten_reach_min_score() -> None:
    hits = [hit(i, 1.0 - i / 100, probability=0.2) for i in range(10)]
    assert shown(hits, 0.3) == []
    eleventh = [*hits, hit(10, 0.85, probability=0.99)]  # only the top ten vouch for the answer
    assert shown(eleventh, 0.3) == []
    hits[3].probability = 0.3  # exactly min_score is enough
    assert [h.unit_id for h in shown(hits, 0.3)] == list(range(10))  # then every hit over HIT_SHARE of it
    hits[5].probability = HIT_SHARE * 0.3 - 0.001
    assert 5 not in [h.unit_id for h in shown(hits, 0.3)]


def test_calibrated_shows_by_chance_not_by_a_share_of_the_best() -> None:
    """A hit far under the best score is shown when its own chance is high enough; a near-best one that is unsure
    is withheld, and counted."""
    hits = [hit(1, 1.0, 0.9), hit(2, 0.2, 0.6), hit(3, 0.95, 0.01), hit(4, 0.1, 0.001)]
    choice = choose(hits, [1, 2, 3, 4], 3, 0.5)
    assert [h.unit_id for h in choice.shown] == [1, 2]
    assert choice.withheld == 1  # of the first three chunks, chunk 3; chunk 4 lies past the limit
    assert choose(hits, [1, 2, 3, 4], 4, 0.0).withheld == 0  # `--min-score 0` shows them all


def test_withheld_counts_chunks_not_units_and_all_when_unanswered() -> None:
    hits = [hit(1, 1.0, 0.2), hit(2, 0.9, 0.2), hit(3, 0.8, 0.2)]
    choice = choose(hits, [7, 7, 8], 10, 0.5)
    assert choice.shown == [] and choice.withheld == 2 and not choice.answered


def test_tool_share() -> None:
    assert tool_share("") == 0.0
    assert tool_share("  \n\n") == 0.0
    assert tool_share("[Bash] git status\nlooks clean\n\n[Read] a.py\nok") == 0.5


def facts(words: list[str], idf: list[float]) -> QueryFacts:
    return QueryFacts(words=words, idf=idf, technical=False, windows=[])


def test_coverage_is_the_idf_share_of_query_words_in_the_text() -> None:
    query = facts(["deploy", "pgbouncer"], [1.0, 3.0])
    assert coverage(query, {"pgbouncer"}, "pgbouncer pool") == pytest.approx(0.75)
    assert coverage(query, {"deploy", "pgbouncer"}, "") == pytest.approx(1.0)
    # a latin word counts only as a token: text that merely contains it does not
    assert coverage(query, set(), "we deploy pgbouncer") == 0.0
    small = facts(["deploy", "pgbouncer"], [0.5, 0.25])  # idf under 1 in total still gives a share
    assert coverage(small, {"deploy"}, "") == pytest.approx(2 / 3)
    assert coverage(facts(["deploy"], [0.0]), {"deploy"}, "deploy") == 0.0  # no informative word: no coverage


def test_stored_words_find_what_a_set_finds() -> None:
    """A unit's stored words (one padded string) answer exactly as the set of its words, whole words only."""
    query = facts(["deploy", "pg", "bouncer", "pgbouncer"], [1.0, 1.0, 1.0, 1.0])
    for words in ({"pgbouncer"}, {"deploy", "pg"}, {"bouncer", "deployment"}, set(), {"pgbouncer", "deploy", "pg"}):
        stored = Words(" ".join(sorted(words)))
        assert found_words(query, stored) == found_words(query, words) == [w in words for w in query.words]
        assert coverage(query, stored, "") == coverage(query, words, "")


def test_coverage_finds_cjk_runs_inside_the_text() -> None:
    query = facts(["数据库", "pgbouncer"], [2.0, 2.0])
    assert coverage(query, set(), "连接数据库失败") == pytest.approx(0.5)
    assert coverage(query, set(), "连接失败") == 0.0


def test_unknown_mode_is_refused_with_the_modes_named(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    engine = Engine([tmp_path / "ws"], Settings(), index_dir=tmp_path / "index", embedder=False)
    with engine, pytest.raises(InvalidRequest, match=r"mode must be one of .*keyword.*, got 'bogus'"):
        engine.search("anything", mode="bogus")
