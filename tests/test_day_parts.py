"""Parts of a day ("this morning", "yesterday afternoon", "last night", "tonight", "Monday evening") are their hours
of the user's day (`display.timeZone`), in a question about a period and in since/until, not the whole day."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from memlens.engine.engine import Engine
from memlens.requests import SearchFilterRequest, parse_time
from memlens.requests.day_parts import said_clock, said_clock_span, said_day_part, said_day_parts, said_hours
from memlens.requests.relative_dates import absolute_date
from memlens.wire import SearchResponse
from transcript_fixtures import engine_over_days

# Monday 3 and Tuesday 4 March 2025, in UTC: a session each morning, afternoon, evening and after midnight
SESSIONS = {
    "mon-0900": (datetime(2025, 3, 3, 9, 0, tzinfo=UTC), "Reviewed the websocket reconnect backoff"),
    "mon-1400": (datetime(2025, 3, 3, 14, 0, tzinfo=UTC), "Added retries to the exporter upload"),
    "mon-2000": (datetime(2025, 3, 3, 20, 0, tzinfo=UTC), "Drafted the billing release notes"),
    "tue-0130": (datetime(2025, 3, 4, 1, 30, tzinfo=UTC), "Hotfixed the login redirect loop"),
    "tue-1000": (datetime(2025, 3, 4, 10, 0, tzinfo=UTC), "Planned the dashboard cache"),
    "tue-2100": (datetime(2025, 3, 4, 21, 0, tzinfo=UTC), "Tuned the vector cache warmup"),
}
TUESDAY_AFTERNOON = datetime(2025, 3, 4, 16, 0, tzinfo=UTC).timestamp()
TUESDAY_LATE = datetime(2025, 3, 4, 23, 0, tzinfo=UTC).timestamp()
WEDNESDAY = datetime(2025, 3, 5, 12, 0, tzinfo=UTC).timestamp()  # "Tuesday" asked on a Tuesday is the one before


@pytest.fixture(scope="module")
def utc_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with engine_over_days(tmp_path_factory.mktemp("utc"), SESSIONS) as engine:
        yield engine


@pytest.fixture(scope="module")
def new_york_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with engine_over_days(tmp_path_factory.mktemp("ny"), SESSIONS, zone="America/New_York") as engine:
        yield engine


def _sessions(engine: Engine, query: str, now: float) -> set[str]:
    engine.retriever.now = now
    response: SearchResponse = engine.search(query, mode="keyword")
    assert "period" in response, query
    return {str(hit.get("sessionId")) for hit in response["results"]}


@pytest.mark.parametrize(
    ("query", "now", "expected"),
    [
        ("what did we do this morning", TUESDAY_AFTERNOON, {"tue-1000"}),
        ("what did we do yesterday afternoon", TUESDAY_AFTERNOON, {"mon-1400"}),
        ("yesterday evening", TUESDAY_AFTERNOON, {"mon-2000"}),
        ("what did we do yesterday morning?", TUESDAY_AFTERNOON, {"mon-0900"}),
        # a night runs into the next morning: what was written after midnight was written last night
        ("what did we do last night", TUESDAY_AFTERNOON, {"mon-2000", "tue-0130"}),
        # ...and asked late, last night is still the one before today's evening
        ("what did we do last night", TUESDAY_LATE, {"mon-2000", "tue-0130"}),
        ("what did we do tonight", TUESDAY_LATE, {"tue-2100"}),
        ("what did we do on Monday night", TUESDAY_LATE, {"mon-2000", "tue-0130"}),
        ("what did we do on March 3 in the afternoon", TUESDAY_LATE, {"mon-1400"}),
        ("the morning of March 3", TUESDAY_LATE, {"mon-0900"}),
        # parts said together: from the first's start to the last's end
        ("what did we do yesterday morning and afternoon", TUESDAY_AFTERNOON, {"mon-0900", "mon-1400"}),
        # hours counted back from now are those hours, not today and yesterday whole
        ("what did we do in the last three hours", TUESDAY_LATE, {"tue-2100"}),
        ("what did we do two hours ago", TUESDAY_LATE, {"tue-2100"}),
        ("what did we do an hour ago", TUESDAY_LATE, set()),
        # misspelt as typed in a hurry
        ("what did we do tonite", TUESDAY_LATE, {"tue-2100"}),
        ("what did we do yesterday mornign", TUESDAY_AFTERNOON, {"mon-0900"}),
        ("this mornig", TUESDAY_AFTERNOON, {"tue-1000"}),
        # a time on the clock said of a day, or since one today
        ("what did we do yesterday at 2pm", TUESDAY_AFTERNOON, {"mon-1400"}),
        ("what did we do on Monday before noon", TUESDAY_LATE, {"mon-0900"}),
        ("what did we do yesterday after 19:00", TUESDAY_AFTERNOON, {"mon-2000"}),
        ("what did we do since 9am", TUESDAY_LATE, {"tue-1000", "tue-2100"}),
        ("what did we do this morning before 11am", TUESDAY_AFTERNOON, {"tue-1000"}),
        # a day said alone is still the whole day
        ("what did we do yesterday", TUESDAY_AFTERNOON, {"mon-0900", "mon-1400", "mon-2000"}),
        # parts said of different days: each day its own hours, not both days whole
        ("what did we do Monday evening and Tuesday morning", WEDNESDAY, {"mon-2000", "tue-1000"}),
        ("yesterday afternoon and this morning", TUESDAY_AFTERNOON, {"mon-1400", "tue-1000"}),
        ("what did we do last night and this morning", TUESDAY_AFTERNOON, {"mon-2000", "tue-0130", "tue-1000"}),
        ("mon morning, tue evening", WEDNESDAY, {"mon-0900", "tue-2100"}),
        ("what did we do March 3 evening and March 4 morning", WEDNESDAY, {"mon-2000", "tue-1000"}),
        ("2025-03-03 afternoon and 2025-03-04 evening", WEDNESDAY, {"mon-1400", "tue-2100"}),
        # two times on the clock as the ends of a span: from the one to the other
        ("between Monday 3pm and Tuesday noon", WEDNESDAY, {"mon-2000", "tue-0130", "tue-1000"}),
        ("what did we do yesterday between 1pm and 3pm", TUESDAY_AFTERNOON, {"mon-1400"}),
        ("what did we do on Monday from 10pm to 2am", TUESDAY_LATE, {"tue-0130"}),
    ],
)
def test_a_part_of_a_day_is_its_hours(utc_engine: Engine, query: str, now: float, expected: set[str]) -> None:
    assert _sessions(utc_engine, query, now) == expected


def test_the_hours_are_the_users_time_zone(new_york_engine: Engine) -> None:
    """14:00 UTC is 9:00 in New York (a morning), 9:00 UTC is 4:00 (no part of the morning), and 1:30 UTC on Tuesday
    is 20:30 on Monday there (Monday's evening)."""
    assert _sessions(new_york_engine, "what did we do yesterday morning", TUESDAY_AFTERNOON) == {"mon-1400"}
    assert _sessions(new_york_engine, "what did we do yesterday evening", TUESDAY_AFTERNOON) == {"tue-0130"}
    new_york_engine.retriever.now = TUESDAY_AFTERNOON
    period = new_york_engine.search("yesterday evening", mode="keyword")["period"]
    assert (period["since"], period["until"][:19]) == ("2025-03-03T17:00:00-05:00", "2025-03-03T23:59:59")


def test_an_empty_part_of_a_day_says_nothing_was_written_then(utc_engine: Engine) -> None:
    """Tuesday had sessions, but none from noon to 18:00: no afternoon session is shown, and the answer says when the
    nearest were written."""
    utc_engine.retriever.now = datetime(2025, 3, 5, 12, tzinfo=UTC).timestamp()  # Wednesday
    response = utc_engine.search("what did we do yesterday afternoon", mode="keyword")
    assert response["results"] == []
    assert response["period"]["nearestBefore"].startswith("2025-03-04T10:00")
    assert response["period"]["nearestAfter"].startswith("2025-03-04T21:00")


def test_a_part_of_a_day_that_holds_nothing_on_the_topic_says_its_hours(utc_engine: Engine) -> None:
    utc_engine.retriever.now = TUESDAY_AFTERNOON
    response = utc_engine.search("the saxophone this morning", mode="keyword")
    assert response["results"] == []
    assert response["note"] == (
        "nothing about 'saxophone' from 2025-03-04 05:00 to 2025-03-04 11:59; 1 session was written then"
    )


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("what did we do this morning", ("morning", 0)),
        ("yesterday afternoon", ("afternoon", 1)),
        ("last night", ("night", 1)),
        ("the night before last", ("night", 2)),
        ("tonight", ("night", 0)),
        ("Tuesday evening", ("evening", None)),
        ("on Feb 12 in the morning", ("morning", None)),
        ("the afternoon of March 3", ("afternoon", None)),
        ("yesterday morning and afternoon", ("morning and afternoon", 1)),
        ("what did we do last nite", ("night", 1)),
        ("yesterday afternon", ("afternoon", 1)),
        ("morning standup notes", None),  # a thing's name, no part of a day said
        ("good morning", None),
        ("what did we do yesterday", None),
    ],
)
def test_what_reads_as_a_part_of_a_day(text: str, part: tuple[str, int | None] | None) -> None:
    said = said_day_part(text)
    assert (None if said is None else (said.part.name, said.days_back)) == part


@pytest.mark.parametrize(
    ("text", "back"),
    [
        ("in the last 2 hours", (7200, 0)),
        ("over the past hour", (3600, 0)),
        ("what did we do an hour ago", (5400, 1800)),
        ("three hours ago", (16200, 5400)),
        ("in the last hour and two hours ago", None),  # two times: neither
        ("last week", None),
    ],
)
def test_hours_counted_back(text: str, back: tuple[float, float] | None) -> None:
    assert said_hours(text) == back


@pytest.mark.parametrize(
    ("text", "clock"),
    [
        ("since 9am", (9, 0, "since")),
        ("yesterday at 3 pm", (15, 0, "at")),
        ("on Friday around 2:30pm", (14, 30, "at")),
        ("after 18:00", (18, 0, "since")),
        ("before noon", (12, 0, "before")),
        ("at 12am", (0, 0, "at")),
        ("at 13pm", None),
        ("at 25:00", None),
        ("since 9am and after 3pm", None),  # two times: neither
        ("3pm", None),  # no word that says how the time is meant
    ],
)
def test_what_reads_as_a_time_on_the_clock(text: str, clock: tuple[int, int, str] | None) -> None:
    said = said_clock(text)
    assert (None if said is None else (said.hour, said.minute, said.relation)) == clock


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("Monday evening and Tuesday morning", [("evening", None, 0), ("morning", None, 1)]),
        ("last night and this morning", [("night", 1, None), ("morning", 0, None)]),
        ("yesterday morning and afternoon", [("morning and afternoon", 1, None)]),
        ("what did we do yesterday", []),
    ],
)
def test_each_part_of_a_day_said(text: str, parts: list[tuple[str, int | None, int | None]]) -> None:
    assert [(said.part.name, said.days_back, said.weekday) for said in said_day_parts(text)] == parts


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("between Monday 3pm and Tuesday noon", ((15, 0), (12, 0))),
        ("yesterday from 10pm to 2am", ((22, 0), (2, 0))),
        ("from 9:00 until 11:30 on Friday", ((9, 0), (11, 30))),
        ("the cron runs at 3pm and 5pm", None),  # no "between" or "from": two times, no span
        ("from 2pm. Then at 4pm", None),  # not one clause
        ("between 13pm and 2pm", None),
        ("since 9am", None),
    ],
)
def test_what_reads_as_a_span_of_the_clock(text: str, span: tuple[tuple[int, int], tuple[int, int]] | None) -> None:
    said = said_clock_span(text)
    assert (None if said is None else (said.start, said.end)) == span


def test_a_time_on_the_clock_without_a_day_is_no_period_but_since(utc_engine: Engine) -> None:
    """ "why does the cron run at 3pm" is a search, not today's hours around three."""
    utc_engine.retriever.now = TUESDAY_AFTERNOON
    assert "period" not in utc_engine.search("why does the cron run at 3pm", mode="keyword")


NOW = datetime(2026, 3, 15, 16, 30, tzinfo=UTC)  # a Sunday afternoon


@pytest.mark.parametrize(
    ("text", "since", "until"),
    [
        ("this morning", "2026-03-15T05:00:00+00:00", "2026-03-15T11:59:59.999000+00:00"),
        ("yesterday afternoon", "2026-03-14T12:00:00+00:00", "2026-03-14T17:59:59.999000+00:00"),
        ("last night", "2026-03-14T18:00:00+00:00", "2026-03-15T05:59:59.999000+00:00"),
        ("Friday evening", "2026-03-13T17:00:00+00:00", "2026-03-13T23:59:59.999000+00:00"),
        ("last sun morning", "2026-03-08T05:00:00+00:00", "2026-03-08T11:59:59.999000+00:00"),
        ("this mornig", "2026-03-15T05:00:00+00:00", "2026-03-15T11:59:59.999000+00:00"),
        ("tonite", "2026-03-15T18:00:00+00:00", "2026-03-16T05:59:59.999000+00:00"),
    ],
)
def test_since_and_until_take_a_part_of_a_day(text: str, since: str, until: str) -> None:
    assert absolute_date(text, now=NOW) == since
    assert absolute_date(text, now=NOW, end=True) == until


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("14:00", "2026-03-15T14:00:00+00:00"),
        ("9am", "2026-03-15T09:00:00+00:00"),
        ("2:30 pm", "2026-03-15T14:30:00+00:00"),
        ("12am", "2026-03-15T00:00:00+00:00"),
        ("yesterday 14:00", "2026-03-14T14:00:00+00:00"),
        ("friday at 9am", "2026-03-13T09:00:00+00:00"),
        ("25:00", None),
        ("13pm", None),
        ("7", None),  # a count, not a time
        ("someday 9am", None),
    ],
)
def test_since_and_until_take_a_time_on_the_clock(text: str, expected: str | None) -> None:
    """`--since 14:00` was an error: "must be an ISO date …"; a time of today (or of the day said before it), in the
    display zone."""
    assert absolute_date(text, now=NOW) == expected


def test_since_a_part_of_a_day_is_of_the_display_zone() -> None:
    zone = ZoneInfo("Europe/Berlin")
    assert absolute_date("this morning", now=NOW, zone=zone) == "2026-03-15T05:00:00+01:00"
    since = parse_time("yesterday evening", "since", zone=zone)
    until = parse_time("yesterday evening", "until", end_of_day=True, zone=zone)
    assert until - since == pytest.approx(7 * 3600, abs=0.01)
    assert SearchFilterRequest(since="this morning", until="today").since == "this morning"
    assert absolute_date("9am", now=NOW, zone=zone) == "2026-03-15T09:00:00+01:00"
