"""Holidays in a question about days (ranking/holidays.py): each one's day in any year, which year is meant seen from
the day asked, and that a message's holidays stay unread. The table of day phrases (test_day_phrases.py) reads them
on one fixed day; these read them on the days where the year turns."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from memlens.engine.answers.period import read_period
from memlens.engine.ranking.dates import epoch_day, message_windows, query_windows
from memlens.engine.ranking.holidays import HOLIDAYS, easter, nth_weekday


def test_easter_is_the_calendars_in_every_year_dateutil_knows() -> None:
    """The computed Easter against python-dateutil's (a test's tool only: memlens does not depend on it)."""
    dateutil_easter = pytest.importorskip("dateutil.easter")
    for year in range(1583, 2400):
        assert easter(year) == dateutil_easter.easter(year), year


@pytest.mark.parametrize(
    ("name", "year", "day"),
    [  # each from a printed calendar
        ("easter", 2024, date(2024, 3, 31)),
        ("easter", 2038, date(2038, 4, 25)),
        ("good friday", 2025, date(2025, 4, 18)),
        ("thanksgiving", 2023, date(2023, 11, 23)),  # November 2023 has five Thursdays: the fourth
        ("black friday", 2024, date(2024, 11, 29)),
        ("memorial day", 2024, date(2024, 5, 27)),  # May 2024 has four Mondays after the 6th: the last
        ("labor day", 2026, date(2026, 9, 7)),
        ("mlk day", 2027, date(2027, 1, 18)),
        ("presidents' day", 2025, date(2025, 2, 17)),
        ("mother's day", 2024, date(2024, 5, 12)),  # the US one
        ("mothering sunday", 2024, date(2024, 3, 10)),  # the UK one
        ("father's day", 2024, date(2024, 6, 16)),
        ("the holidays", 2024, date(2024, 12, 24)),
    ],
)
def test_a_moveable_holiday_falls_on_its_day(name: str, year: int, day: date) -> None:
    assert HOLIDAYS[name].day(year) == day


def _days(question: str, asked: date) -> list[tuple[date, date]]:
    now = datetime(asked.year, asked.month, asked.day, 10, tzinfo=UTC).timestamp()
    period = read_period(question, now=now, zone=UTC)
    if period is None:
        return []
    bounds = period.parts or ((period.since, period.until),)
    return [(datetime.fromtimestamp(a, UTC).date(), datetime.fromtimestamp(b, UTC).date()) for a, b in bounds]


@pytest.mark.parametrize(
    ("question", "asked", "meant"),
    [
        ("what did we do on Christmas", date(2026, 12, 25), (date(2026, 12, 25),) * 2),  # today: the latest
        ("what did we do last Christmas", date(2026, 12, 25), (date(2025, 12, 25),) * 2),  # the one before today
        ("what did we do this Christmas", date(2026, 12, 27), (date(2026, 12, 25),) * 2),
        ("what did we do over Christmas", date(2026, 12, 27), (date(2026, 12, 24), date(2026, 12, 26))),
        ("what did we do since Easter", date(2026, 4, 10), (date(2026, 4, 5), date(2026, 4, 10))),
        ("what did we do since Easter", date(2026, 4, 1), (date(2025, 4, 20), date(2026, 4, 1))),
        ("what did we do over Thanksgiving", date(2026, 1, 5), (date(2025, 11, 27), date(2025, 11, 30))),
        ("the day after New Year's", date(2026, 1, 5), (date(2026, 1, 2),) * 2),
        ("what did we do over the holidays", date(2026, 12, 28), (date(2026, 12, 24), date(2027, 1, 1))),  # these
        ("what did we do over the holidays", date(2027, 1, 10), (date(2026, 12, 24), date(2027, 1, 1))),
        ("what did we do over the holidays", date(2026, 12, 20), (date(2025, 12, 24), date(2026, 1, 1))),  # to come
        ("the week after Christmas", date(2027, 1, 10), (date(2026, 12, 26), date(2027, 1, 1))),
        ("the Friday before New Year's", date(2026, 1, 5), (date(2025, 12, 26),) * 2),
        ("the first Monday of January", date(2026, 1, 3), (date(2025, 1, 6),) * 2),  # this January's is to come
    ],
)
def test_a_holiday_is_the_latest_one_said_so(question: str, asked: date, meant: tuple[date, date]) -> None:
    assert _days(question, asked) == [meant]


@pytest.mark.parametrize("question", ["what did we do this Christmas", "what did we do next Easter"])
def test_a_holiday_still_to_come_names_no_day(question: str) -> None:
    assert _days(question, date(2026, 3, 19)) == []


def test_a_message_reads_no_holiday() -> None:
    """A message written in December says "over Christmas" of the one to come as often as of the last one."""
    written = datetime(2025, 12, 10, 12, tzinfo=UTC)
    windows = message_windows("let's pick this up over Christmas", written.timestamp())
    assert windows == [(epoch_day(written.date()),) * 2]


def test_the_ranking_reads_a_holiday_as_a_question_does() -> None:
    now = datetime(2026, 3, 19, 10, tzinfo=UTC).timestamp()
    christmas = epoch_day(date(2025, 12, 25))
    assert query_windows("the deploy over Christmas", now) == [(christmas - 1, christmas + 1)]
    assert query_windows("the christmas tree lights plugin", now) == []


def test_a_month_has_a_fifth_weekday_or_none() -> None:
    assert nth_weekday(2026, 3, 0, 5) == date(2026, 3, 30)
    assert nth_weekday(2026, 2, 0, 5) is None  # February 2026 has four Mondays
