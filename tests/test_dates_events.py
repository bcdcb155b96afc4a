"""Event-anchored dates ("two days before the demo") on the real engine: the event is dated from the messages
that mention it, and a message on the day the question names ranks above the same words on another day."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

from memlens.engine.engine import Engine
from memlens.engine.ranking.dates import anchored_events, epoch_day
from memlens.engine.vectors.embedder import Embedder
from memlens.settings import Settings
from transcript_fixtures import one_message_days

SESSIONS = {  # one session per day, so no neighbour context links them
    "s1": (datetime(2024, 3, 5, 9, tzinfo=UTC), "I fixed the login bug in the parser."),
    "s2": (datetime(2024, 3, 12, 9, tzinfo=UTC), "I fixed the login bug in the parser, finally."),
    "s3": (datetime(2024, 3, 14, 9, tzinfo=UTC), "The demo for the client went well, they loved the dashboard."),
    "s4": (datetime(2024, 3, 20, 9, tzinfo=UTC), "Lunch with Sam; we talked about the garden."),
}


def _transcripts(folder: Path) -> Path:
    return one_message_days(folder, SESSIONS)


def _engine(tmp_path: Path, embedder: Embedder, event_mentions: int) -> Engine:
    settings = Settings()
    settings.transcripts.agent_defaults = False
    settings.search.event_mentions = event_mentions
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    engine = Engine(
        [workspace],
        settings,
        extra_transcripts=[_transcripts(tmp_path / f"t{event_mentions}")],
        index_dir=tmp_path / f"index{event_mentions}",
        embedder=embedder,
    )
    engine.sync()
    return engine


def _top_text(engine: Engine, query: str) -> str:
    ranking = engine.rank(query, mode="hybrid", limit=10)
    rows = engine.catalog.units_by_id([ranking.hits[0].unit_id])
    return str(rows[ranking.hits[0].unit_id]["text"])


def test_anchored_events_parse() -> None:
    (demo,) = anchored_events("What did I fix two days before the demo?")
    assert (demo.phrase, demo.days, demo.sign) == ("demo", 2, -1)
    assert demo.window(epoch_day(date(2024, 3, 14))) == (epoch_day(date(2024, 3, 11)), epoch_day(date(2024, 3, 13)))
    (party,) = anchored_events("What happened the day after my birthday party?")
    assert party.phrase == "birthday party" and party.window(100) == (101, 101)
    (trip,) = anchored_events("the week after the trip to Paris")
    assert trip.phrase == "trip" and trip.window(100) == (101, 107)
    assert anchored_events("two weeks before August 11, 2023") == []  # a date, handled by query_windows
    assert anchored_events("the day before the May meeting") == []  # a month first: not read as an event
    assert anchored_events("how did we fix the queue before the release") == []  # no offset: not a date


def test_two_days_before_the_demo_finds_the_message_of_that_day(tmp_path: Path, embedder: Embedder) -> None:
    query = "Which login bug in the parser did I fix two days before the demo?"
    with _engine(tmp_path, embedder, event_mentions=0) as plain:  # without event dates the shorter message wins on BM25
        assert _top_text(plain, query) == SESSIONS["s1"][1]
    with _engine(tmp_path, embedder, event_mentions=2) as anchored:
        assert _top_text(anchored, query) == SESSIONS["s2"][1]
        # an event nobody mentioned dates nothing: the order stays
        unknown = "Which login bug in the parser did I fix two days before the hackathon?"
        assert _top_text(anchored, unknown) == SESSIONS["s1"][1]


def test_day_ranges_years_and_weeks_of_a_date() -> None:
    from memlens.engine.ranking.dates import query_windows

    now = datetime(2026, 12, 4, 12, tzinfo=UTC).timestamp()

    def days(query: str) -> list[tuple[str, str]]:
        epoch = date(1970, 1, 1).toordinal()
        return [
            (str(date.fromordinal(a + epoch)), str(date.fromordinal(b + epoch))) for a, b in query_windows(query, now)
        ]

    assert days("what did we do Feb 10-12") == [("2026-02-10", "2026-02-12")]
    assert days("Feb 10 to 12, 2025") == days("10–12 of February 2025") == [("2025-02-10", "2025-02-12")]
    assert days("March 3rd through 5th") == [("2026-03-03", "2026-03-05")]
    assert days("in 2024") == days("during the year 2024") == [("2024-01-01", "2024-12-31")]
    assert days("the week of Feb 11 2026") == [("2026-02-09", "2026-02-15")]  # a Wednesday: its Monday to Sunday
    assert days("Feb 30-31") == []  # no such days
    assert days("feb 12-10") == [("2026-02-12", "2026-02-12")]  # backwards: not a range, the day it starts with
    assert days("in 2025-03") == days("during March 2025") == [("2025-03-01", "2025-03-31")]  # a month, not the year
    assert days("2024-02-29") == [("2024-02-29", "2024-02-29")] and days("build 2025-13") == []
    assert days("release 2025-03-07.1") == [("2025-03-07", "2025-03-07")]  # a day, not its month
    assert days("on Feb 12 at 10-11") == [("2026-02-12", "2026-02-12")]
    # numbers with slashes or dots and a four-digit year: read when only one order of day and month makes a date
    feb_11 = [("2026-02-11", "2026-02-11")]
    assert days("what did we do 2026/02/11") == days("on 2026/2/11") == feb_11  # year first
    assert days("on 11.02.2026") == days("on 11.2.2026.") == feb_11  # dots: day first
    assert days("on 25/02/2026") == days("on 2/25/2026") == [("2026-02-25", "2026-02-25")]  # one order makes a date
    assert days("on 7/7/2026") == [("2026-07-07", "2026-07-07")]  # the same day either way
    assert days("what did we do on 11/02/2026") == []  # 11 February or 2 November: words, not nine months
    assert days("v1.2.2026") == days("build 10.0.2026.1") == days("a/11/02/2026/b") == days("13/13/2026") == []
