"""An event's day from the messages that mention it (ranking/event_dates.py): a date they state near its words, when
most of them agree on one, else the days they were written, the best match's first."""

from __future__ import annotations

from datetime import UTC, datetime

from memlens.engine.ranking.dates import epoch_day
from memlens.engine.ranking.event_dates import Mention, event_days, stated_days, utc_day


def test_stated_days_near_the_events_words_only() -> None:
    written = epoch_day(datetime(2026, 2, 18, tzinfo=UTC).date())
    feb20 = epoch_day(datetime(2026, 2, 20, tzinfo=UTC).date())
    assert stated_days("offsite", "offsite is Friday 20 Feb, 12:30 at Café Nordlys", written) == {feb20: "20 Feb"}
    far = "offsite is Friday." + " filler words" * 20 + " Invoice due 20 Feb."
    assert stated_days("offsite", far, written) == {}
    assert stated_days("offsite", "Next offsite in May", written) == {}  # a month: no day


def test_mentions_that_disagree_date_the_event_by_when_they_were_written() -> None:
    feb18 = datetime(2026, 2, 18, 9, tzinfo=UTC).timestamp()
    feb19 = datetime(2026, 2, 19, 9, tzinfo=UTC).timestamp()
    day18, day19 = (epoch_day(datetime.fromtimestamp(ts, UTC).date()) for ts in (feb18, feb19))
    agreeing = [Mention(1, "demo on 2026-02-25", feb18), Mention(2, "the demo, 2026-02-25", feb19)]
    (stated,) = event_days("demo", agreeing, written=2, day=utc_day)
    assert (stated.stated, stated.unit_id) == ("2026-02-25", 1)
    tied = [Mention(1, "demo on 2026-02-25", feb19), Mention(2, "demo on 2026-02-26", feb18)]
    assert [d.day for d in event_days("demo", tied, written=2, day=utc_day)] == [day19, day18]  # best match first
    assert event_days("demo", [], written=2, day=utc_day) == []


def test_a_date_without_a_year_is_the_one_nearest_to_when_it_was_written() -> None:
    december = epoch_day(datetime(2025, 12, 20, tzinfo=UTC).date())
    january = epoch_day(datetime(2026, 1, 8, tzinfo=UTC).date())
    assert stated_days("launch", "the launch is on Jan 8", december) == {january: "Jan 8"}
    assert stated_days("launch", "the launch was on Dec 20", january) == {december: "Dec 20"}
    assert stated_days("launch", "the launch is on 8 Jan 2027", december) == {january + 365: "8 Jan 2027"}
