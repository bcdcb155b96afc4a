"""Seasons in a question about days (ranking/seasons.py): which one is meant seen from the day asked, where the year
turns inside a winter, and that a message reads only the one it says was ("last summer")."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from memlens.engine.answers.period import read_period
from memlens.engine.ranking.dates import epoch_day, message_windows


def _days(question: str, asked: date) -> list[tuple[date, date]]:
    now = datetime(asked.year, asked.month, asked.day, 10, tzinfo=UTC).timestamp()
    period = read_period(question, now=now, zone=UTC)
    if period is None:
        return []
    return [(datetime.fromtimestamp(period.since, UTC).date(), datetime.fromtimestamp(period.until, UTC).date())]


@pytest.mark.parametrize(
    ("question", "asked", "meant"),
    [
        ("what did we do last summer", date(2026, 7, 10), [(date(2025, 6, 1), date(2025, 8, 31))]),  # not this one
        ("what did we do last summer", date(2026, 9, 2), [(date(2026, 6, 1), date(2026, 8, 31))]),  # just over
        ("what did we do over the summer", date(2026, 7, 10), [(date(2026, 6, 1), date(2026, 7, 10))]),  # so far
        ("what did we do this summer", date(2026, 5, 10), []),  # still to come
        ("what did we do over the winter", date(2026, 1, 20), [(date(2025, 12, 1), date(2026, 1, 20))]),
        ("what did we do last winter", date(2026, 1, 20), [(date(2024, 12, 1), date(2025, 2, 28))]),
        ("what did we do last winter", date(2024, 3, 5), [(date(2023, 12, 1), date(2024, 2, 29))]),  # a leap year
        ("what did we do this winter", date(2026, 2, 10), [(date(2025, 12, 1), date(2026, 2, 10))]),
        ("what did we do in the spring of 2025", date(2026, 1, 20), [(date(2025, 3, 1), date(2025, 5, 31))]),
        ("what did we do last fall", date(2026, 1, 20), [(date(2025, 9, 1), date(2025, 11, 30))]),
        ("what did we do next summer", date(2026, 1, 20), []),
    ],
)
def test_a_season_is_the_one_said_from_the_day_asked(
    question: str, asked: date, meant: list[tuple[date, date]]
) -> None:
    assert _days(question, asked) == meant


def test_a_message_reads_the_season_it_says_was_and_no_plan() -> None:
    """A message's "last summer" is the summer before it was written (LoCoMo's turns say so); "over the summer" in a
    message is as often one to come, and stays unread."""
    written = datetime(2023, 8, 11, 12, tzinfo=UTC)
    day = epoch_day(written.date())
    summer_2022 = (epoch_day(date(2022, 6, 1)), epoch_day(date(2022, 8, 31)))
    assert message_windows("we went camping last summer", written.timestamp()) == [(day, day), summer_2022]
    assert message_windows("let's finish it over the summer", written.timestamp()) == [(day, day)]
