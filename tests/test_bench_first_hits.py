"""bench/first_hits.py's reading of a ranking: the first message and the first target, a message's later parts not
counted as places, the lists' ranks shown 1-based, texts cut and on one line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.first_hits import FirstMiss, RankedUnit, Shown, first_miss, format_report, repeated_firsts  # noqa: E402


def unit(key: str | None, text: str = "text", *, keyword: int | None = 0, vector: int | None = None) -> RankedUnit:
    return RankedUnit(key, "assistant", keyword, vector, text)


def test_the_first_target_is_placed_among_messages_not_parts() -> None:
    units = [unit("a#1"), unit("a#1"), unit(None), unit("b#2"), unit("c#3", vector=4)]
    first, target = first_miss(units, {"c#3"})
    assert first.key == "a#1" and first.place == 1
    assert target is not None
    assert (target.key, target.place) == ("c#3", 3)  # a#1's second part and the unit of no message do not count
    assert (target.keyword_rank, target.vector_rank) == (1, 5)


def test_a_target_outside_the_ranking_is_none_and_texts_are_cut_on_one_line() -> None:
    first, target = first_miss([unit("a#1", "one\n\ntwo   three four")], {"z#9"}, chars=13)
    assert target is None
    assert first.text == "one two three"
    assert first.vector_rank is None


def test_a_ranking_of_no_message_is_refused() -> None:
    with pytest.raises(ValueError, match="no message"):
        first_miss([unit(None)], {"a#1"})


def miss(question_id: str, first_key: str) -> FirstMiss:
    first = Shown(first_key, 1, "assistant", 1, None, "text")
    return FirstMiss(question_id, "paraphrase", "question?", first, None, "target text")


def test_the_messages_first_for_several_questions_are_counted_most_first() -> None:
    misses = [miss("u1", "b#2"), miss("u2", "a#1"), miss("u3", "c#3"), miss("u4", "a#1"), miss("u5", "b#2")]
    misses.append(miss("u6", "a#1"))
    assert repeated_firsts(misses) == [("a#1", ["u2", "u4", "u6"]), ("b#2", ["u1", "u5"])]  # c#3, once, is not
    report = format_report(9, misses)
    assert "first for more than one question (2 messages, 5 of the misses):" in report
    assert report.endswith("  3  a#1: u2, u4, u6\n  2  b#2: u1, u5")


def test_no_message_first_twice_adds_no_summary() -> None:
    assert repeated_firsts([miss("u1", "a#1"), miss("u2", "b#2")]) == []
    assert "more than one question" not in format_report(2, [miss("u1", "a#1")])
