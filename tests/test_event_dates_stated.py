"""An event's day from the messages that mention it (ranking/event_dates.py): a date they state near its words, as
written or relative to the day they were written (dates.stated_relative_days), the one most of them state (as many:
the latest statement's), else the days they were written, the best match's first."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from memlens.engine.ranking.dates import epoch_day, stated_relative_days
from memlens.engine.ranking.event_dates import Mention, event_days, stated_days, utc_day


def test_stated_days_near_the_events_words_only() -> None:
    written = epoch_day(datetime(2026, 2, 18, tzinfo=UTC).date())
    feb20 = epoch_day(datetime(2026, 2, 20, tzinfo=UTC).date())
    assert stated_days("offsite", "offsite is Friday 20 Feb, 12:30 at Café Nordlys", written) == {feb20: "20 Feb"}
    far = "offsite planning." + " filler words" * 20 + " Invoice due 20 Feb."
    assert stated_days("offsite", far, written) == {}
    assert stated_days("offsite", "Next offsite in May", written) == {}  # a month: no day


def test_mentions_that_state_no_date_date_the_event_by_when_they_were_written() -> None:
    feb18 = datetime(2026, 2, 18, 9, tzinfo=UTC).timestamp()
    feb19 = datetime(2026, 2, 19, 9, tzinfo=UTC).timestamp()
    day18, day19 = (epoch_day(datetime.fromtimestamp(ts, UTC).date()) for ts in (feb18, feb19))
    agreeing = [Mention(1, "demo on 2026-02-25", feb18), Mention(2, "the demo, 2026-02-25", feb19)]
    (stated,) = event_days("demo", agreeing, written=2, day=utc_day)
    assert (stated.stated, stated.unit_id) == ("2026-02-25", 1)
    unstated = [Mention(1, "the demo went well", feb19), Mention(2, "demo prep", feb18)]
    assert [d.day for d in event_days("demo", unstated, written=2, day=utc_day)] == [day19, day18]  # best first
    assert event_days("demo", [], written=2, day=utc_day) == []


def test_a_date_without_a_year_is_the_one_nearest_to_when_it_was_written() -> None:
    december = epoch_day(datetime(2025, 12, 20, tzinfo=UTC).date())
    january = epoch_day(datetime(2026, 1, 8, tzinfo=UTC).date())
    assert stated_days("launch", "the launch is on Jan 8", december) == {january: "Jan 8"}
    assert stated_days("launch", "the launch was on Dec 20", january) == {december: "Dec 20"}
    assert stated_days("launch", "the launch is on 8 Jan 2027", december) == {january + 365: "8 Jan 2027"}


def _day(year: int, month: int, day: int) -> int:
    return epoch_day(date(year, month, day))


WEDNESDAY = date(2026, 2, 18)


@pytest.mark.parametrize(
    ("text", "day", "said"),
    [
        ("offsite tomorrow!", (2026, 2, 19), "tomorrow"),
        ("the launch was yesterday", (2026, 2, 17), "yesterday"),
        ("the demo is today", (2026, 2, 18), "today"),
        ("demo in two days", (2026, 2, 20), "in two days"),
        ("released 3 days ago", (2026, 2, 15), "3 days ago"),
        ("the offsite is on Friday", (2026, 2, 20), "on Friday"),  # a plan: the coming Friday
        ("the offsite is on Wednesday", (2026, 2, 18), "on Wednesday"),  # that day included
        ("the launch was on Monday", (2026, 2, 16), "on Monday"),  # the past tense: the latest before
        ("we had the offsite Friday", (2026, 2, 13), "Friday"),
        ("launch is next Tuesday", (2026, 2, 24), "next Tuesday"),  # the next calendar week's
        ("the retro last Thursday", (2026, 2, 12), "last Thursday"),
        ("offsite is Friday next week", (2026, 2, 27), "Friday next week"),
        ("offsite on fri", (2026, 2, 20), "on fri"),
    ],
)
def test_relative_words_state_a_day_from_the_day_written(text: str, day: tuple[int, int, int], said: str) -> None:
    ((window, start, end),) = stated_relative_days(text, WEDNESDAY)
    assert window == (_day(*day), _day(*day)) and text[start:end] == said


@pytest.mark.parametrize(
    "text",
    ["Friday 20 Feb", "on Friday, February 20", "standup every Friday", "Fridays are quiet", "fri", "last sat solver"],
)
def test_no_relative_day_for_a_dated_weekday_nor_a_habit(text: str) -> None:
    assert stated_relative_days(text, WEDNESDAY) == []


def test_a_relative_day_dates_the_event_only_in_its_sentence() -> None:
    written = epoch_day(WEDNESDAY)
    text = "Reminder: the launch is next Tuesday, Sam books the room. Demo in two days."
    assert stated_days("launch", text, written) == {_day(2026, 2, 24): "next Tuesday"}
    assert stated_days("demo", text, written) == {_day(2026, 2, 20): "in two days"}
    assert stated_days("launch", text, None) == {}  # no day written: nothing relative to it


def test_mentions_that_disagree_the_most_stated_day_else_the_latest_statement() -> None:
    monday = datetime(2026, 2, 16, 9, tzinfo=UTC).timestamp()
    tuesday = datetime(2026, 2, 17, 9, tzinfo=UTC).timestamp()
    moved = [Mention(1, "demo in two days", monday), Mention(2, "the demo is on Thursday now", tuesday)]
    (taken,) = event_days("demo", moved, written=2, day=utc_day)
    assert (taken.day, taken.stated, taken.unit_id) == (_day(2026, 2, 19), "on Thursday", 2)
    assert (taken.mentions, taken.others, taken.latest, taken.written) == (
        1,
        ((_day(2026, 2, 18), 1),),
        True,
        _day(2026, 2, 17),
    )
    most = [*moved, Mention(3, "demo on Wednesday", monday)]  # a third says Wednesday too: the most mentions
    (taken,) = event_days("demo", most, written=2, day=utc_day)
    assert (taken.day, taken.mentions, taken.others, taken.latest) == (
        _day(2026, 2, 18),
        1 + 1,
        ((_day(2026, 2, 19), 1),),
        False,
    )


def test_as_many_mentions_for_two_days_and_no_time_to_order_them_date_it_by_when_written() -> None:
    monday = datetime(2026, 2, 16, 9, tzinfo=UTC).timestamp()
    untimed = [Mention(1, "demo on 2026-02-25", None), Mention(2, "demo on 2026-02-26", monday)]
    (taken,) = event_days("demo", untimed, written=2, day=utc_day)  # the timed statement is the latest
    assert (taken.day, taken.latest) == (_day(2026, 2, 26), True)
    neither = [Mention(1, "demo on 2026-02-25", None), Mention(2, "demo on 2026-02-26", None)]
    assert event_days("demo", neither, written=2, day=utc_day) == []  # no pick, and no day written
