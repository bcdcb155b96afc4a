"""Questions about the days around a named event ("what did we do the week before the offsite") or between two
("between the offsite and the launch") on the real engine: answered as a period, each event dated by a date its
mentions state, as written or relative to the day written ("launch tomorrow!"; else the days they were written), the
event's words no topic, the day taken and why said on every door, and an event no message names said so."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memlens.cli.answer_notes import answer_notes
from memlens.engine.answers.event_period import read_event_question
from memlens.engine.engine import Engine
from memlens.engine.ranking.dates import epoch_day
from memlens.engine.ranking.event_dates import event_windows
from memlens.mcp.render import render_search
from memlens.wire import Period, SearchResponse
from transcript_fixtures import EVENT_DAYS, EVENT_DAYS_FOLDER, engine_over_days, one_message_days

OFFSITE_WEEK = ("2026-02-13", "2026-02-19")


def _window(period: Period) -> tuple[str, str]:
    """A period answer's first and last day."""
    return period["since"][:10], period["until"][:10]


def _event(period: Period) -> tuple[str, str, str]:
    """The event a period is counted from: its words, the offset asked, the day taken."""
    return period["event"]["event"], period["event"]["offset"], period["event"]["day"]


def _days_of(response: SearchResponse) -> set[str]:
    """The days (UTC) the transcript hits were written, and the days of the memory notes shown (their file names)."""
    days = set()
    for hit in response["results"]:
        if stamp := hit.get("timestamp"):
            days.add(stamp[:10])
        else:
            days.add(Path(hit["relPath"]).stem)
    return days


def test_the_week_before_the_offsite_is_what_was_done_that_week(example: Engine) -> None:
    example.settings.display.time_zone = "UTC"
    response = example.search("what did we do the week before the offsite")
    period = response["period"]
    assert _window(period) == OFFSITE_WEEK
    # the offsite is stated ("offsite is Friday 20 Feb", the note headed 2026-02-20), not read from the days the
    # planning messages were written (Feb 18 and 19)
    event = period["event"]
    assert (event["event"], event["offset"], event["day"]) == ("offsite", "the week before", "2026-02-20")
    assert event.get("stated") and event.get("statedIn")
    days = _days_of(response)
    assert days and all(OFFSITE_WEEK[0] <= day <= OFFSITE_WEEK[1] for day in days), days
    assert "2026-02-17" in days  # the release that week, which names no offsite: the week, not the event's words
    # said where the period is said: the CLI's notes and the MCP text
    said = f'the offsite: Fri 20 Feb 2026 (stated in {event["statedIn"]}: "{event["stated"]}")'
    assert said in answer_notes(response)
    assert f"The offsite: Fri 20 Feb 2026 (stated in {event['statedIn']}" in render_search(dict(response))


def test_other_words_are_searched_within_the_events_week(example: Engine) -> None:
    example.settings.display.time_zone = "UTC"
    response = example.search("what did we decide about naming the week before the offsite")
    period = response["period"]
    assert _window(period) == OFFSITE_WEEK
    days = _days_of(response)
    assert days and all(OFFSITE_WEEK[0] <= day <= OFFSITE_WEEK[1] for day in days), days
    # more than a period's few other words: a search, the event's days only boosting
    longer = example.search("how did the rollback runbook for the orders index change the week before the offsite")
    assert "period" not in longer


def test_the_days_between_two_events_of_the_example(example: Engine) -> None:
    """README's example: from the refund incident ("The 10 Feb refund incident") to the offsite, both days said."""
    example.settings.display.time_zone = "UTC"
    response = example.search("what did we do between the refund incident and the offsite")
    period = response["period"]
    assert _window(period) == ("2026-02-10", "2026-02-20")
    assert (period["event"]["event"], period["event"]["day"]) == ("refund incident", "2026-02-10")
    assert (period["endEvent"]["event"], period["endEvent"]["day"]) == ("offsite", "2026-02-20")
    days = _days_of(response)
    assert days and all("2026-02-10" <= day <= "2026-02-20" for day in days), days
    notes = answer_notes(response)
    assert f'the refund incident: Tue 10 Feb 2026 (stated in {period["event"]["statedIn"]}: "10 Feb")' in notes


def test_an_event_no_message_names_is_said_not_answered_with_another_week(example: Engine) -> None:
    response = example.search("what did we do the week before the hackathon")
    assert response["results"] == []
    assert "period" not in response
    assert response["unnamedEvent"] == {"event": "hackathon", "offset": "the week before"}
    assert response["note"] == 'no message names "hackathon": no day to count "the week before" from'
    assert 'no message names "hackathon"' in render_search(dict(response))


def test_event_questions_off_with_event_mentions_zero(example: Engine) -> None:
    example.settings.search.event_mentions = 0
    response = example.search("what did we do the week before the hackathon")
    assert "unnamedEvent" not in response and "period" not in response


SESSIONS = {  # the launch is planned on March 1 and 3 for March 20; nothing mentions it on the day itself
    "s1": (datetime(2024, 3, 1, 9, tzinfo=UTC), "Plan: the launch is on March 20, 2024; Sam books the room."),
    "s2": (datetime(2024, 3, 3, 9, tzinfo=UTC), "Launch checklist drafted for Mar 20 2024, press kit next."),
    "s3": (datetime(2024, 3, 19, 9, tzinfo=UTC), "Rewrote the billing export to stream its rows."),
    "s4": (datetime(2024, 3, 21, 9, tzinfo=UTC), "Lunch with Sam; we talked about the garden."),
}


def _engine(tmp_path: Path, sessions: Mapping[str, tuple[datetime, str]] = SESSIONS) -> Engine:
    return engine_over_days(tmp_path, sessions)


def test_a_date_the_mentions_state_dates_the_event_not_the_days_they_were_written(tmp_path: Path) -> None:
    with _engine(tmp_path) as engine:
        response = engine.search("what did we do the day before the launch", mode="keyword")
        assert response["period"]["event"]["day"] == "2024-03-20"
        assert _days_of(response) == {"2024-03-19"}
        # the date boost reads the same day
        day = epoch_day(datetime(2024, 3, 20, tzinfo=UTC).date())
        windows = event_windows(
            "billing two days before the launch", engine.retriever.keyword, engine.catalog, mentions=2
        )
        assert windows == [(day - 3, day - 1)]


def test_an_event_stated_relative_to_the_day_written_is_dated_from_that_day(tmp_path: Path) -> None:
    with _engine(tmp_path, EVENT_DAYS) as engine:
        response = engine.search("what did we do the day before the launch", mode="keyword")
    event = response["period"]["event"]
    # "next Tuesday" on Mon 4 Mar, "tomorrow" on Mon 11 Mar, "yesterday" on Wed 13 Mar: all Tue 12 Mar, not the days
    # they were written
    assert (event["day"], event["stated"], event["statedOn"]) == ("2024-03-12", "tomorrow", "2024-03-11")
    assert "otherDays" not in event  # "Demo in two days" is another sentence's
    assert _days_of(response) == {"2024-03-11"}
    said = f'the launch: Tue 12 Mar 2024 (stated in {event["statedIn"]} on Mon 11 Mar: "tomorrow")'
    notes = answer_notes(response)
    assert said in notes and not any(line.startswith("no sessions") for line in notes)
    assert f"The launch: Tue 12 Mar 2024 (stated in {event['statedIn']} on Mon 11 Mar" in render_search(dict(response))


def test_mentions_that_disagree_are_said_with_the_reason_for_the_day_taken(tmp_path: Path) -> None:
    with _engine(tmp_path, EVENT_DAYS) as engine:
        response = engine.search("what did we do the day after the demo", mode="keyword")
    event = response["period"]["event"]
    # "in two days" on Mon 4 Mar, "on Thursday now" on Tue 5 Mar: one each, the latest statement taken
    assert (event["day"], event["chosenBy"], event["mentions"]) == ("2024-03-07", "latest", 1)
    assert event["otherDays"] == [{"day": "2024-03-06", "mentions": 1}]
    note = (
        f'the demo: Thu 07 Mar 2024 (stated in {event["statedIn"]} on Tue 05 Mar: "on Thursday"; the latest'
        " statement: 1 of 2, 1 says Wed 06 Mar)"
    )
    assert note in answer_notes(response)


def test_the_days_between_two_events_run_from_ones_day_to_the_others(tmp_path: Path) -> None:
    with _engine(tmp_path, EVENT_DAYS) as engine:
        between = engine.search("what did we do between the offsite and the launch", mode="keyword")
        until = engine.search("what did we do after the offsite until the launch", mode="keyword")
        reversed_ = engine.search("what did we do between the launch and the offsite", mode="keyword")
        unnamed = engine.search("what did we do between the offsite and the hackathon", mode="keyword")
    for response in (between, until, reversed_):
        period = response["period"]
        assert _window(period) == ("2024-03-01", "2024-03-12")
        assert _days_of(response) == {"2024-03-04", "2024-03-05", "2024-03-08", "2024-03-11"}  # not its planning
    period = between["period"]
    assert (period["event"]["event"], period["event"]["day"]) == ("offsite", "2024-03-01")
    assert (period["endEvent"]["event"], period["endEvent"]["day"]) == ("launch", "2024-03-12")
    notes = answer_notes(between)
    assert notes[1].startswith("the offsite: Fri 01 Mar 2024 (stated in") and notes[1].endswith(
        'on Thu 29 Feb: "tomorrow")'
    )
    assert notes[2].startswith("the launch: Tue 12 Mar 2024 (stated in")
    rendered = render_search(dict(between))
    assert "The offsite: Fri 01 Mar 2024" in rendered and "The launch: Tue 12 Mar 2024" in rendered
    # the second event named nowhere: said so, as the first would be
    assert unnamed["results"] == [] and "period" not in unnamed
    assert unnamed["unnamedEvent"] == {
        "event": "hackathon",
        "offset": "between the offsite and the hackathon",
        "end": "end",
    }
    assert (
        unnamed["note"] == 'no message names "hackathon": no day for the end of "between the offsite and the hackathon"'
    )


@pytest.mark.parametrize(
    ("question", "events"),
    [
        ("what did we do between the offsite and the launch", ("offsite", "launch")),
        ("what did we work on from the offsite to the launch", ("offsite", "launch")),
        ("what happened after the offsite until the launch", ("offsite", "launch")),
        ("what is the difference between the old parser and the new parser", None),  # no days asked about
        ("how does the cache sit between the client and the database", None),
        ("what did we do after the visit to the hospital", None),  # one event: "to" ends no span after "after"
        ("what did we do between the first and the second deploy", None),
        ("what did we do between the 2nd and the 5th", None),  # days of a month, read as such
    ],
)
def test_a_question_about_the_days_between_two_events(question: str, events: tuple[str, str] | None) -> None:
    asked = read_event_question(question)
    if events is None:
        assert asked is None
    else:
        assert asked is not None and asked.until is not None
        assert (asked.event.phrase, asked.until.phrase, asked.rest) == (*events, "")


@pytest.mark.parametrize(
    ("question", "event", "rest"),
    [
        ("what have we done since the offsite", "offsite", ""),
        ("everything after the launch", "launch", ""),
        ("since the demo?", "demo", ""),
        ("what did we change in the consumer after the offsite", "offsite", "change consumer"),
        ("since Monday", None, ""),  # dates, read as such (ranking/dates.py)
        ("what did we do since March 2", None, ""),
        ("what did we do since Easter", None, ""),
        ("what did we do since the 3rd", None, ""),
        ("what did we do after the holidays", None, ""),
        ("what did we do since the last release", None, ""),
        ("what did Caroline do after the visit to the hospital", None, ""),  # not the question's last words
        ("since the refactor broke the parser", None, ""),  # a cause: words follow the event
        ("what did we do the week after the offsite", None, ""),  # an offset from it, not days to today
        ("what did we do after the offsite until the launch", None, ""),  # a span
        ("how did the rollback runbook for the orders index change since the offsite", None, ""),  # a search
    ],
)
def test_a_question_about_the_days_since_an_event(question: str, event: str | None, rest: str) -> None:
    asked = read_event_question(question)
    if event is None:
        assert asked is None or not asked.to_now
    else:
        assert asked is not None and asked.to_now and asked.until is None
        assert (asked.event.phrase, asked.rest, asked.stated_only) == (event, rest, bool(rest))


def test_other_words_between_two_events_narrow_a_search_to_their_days() -> None:
    asked = read_event_question("what did we decide about naming between the offsite and the launch")
    assert asked is not None and asked.until is not None
    assert (asked.event.phrase, asked.until.phrase, asked.rest, asked.stated_only) == (
        "offsite",
        "launch",
        "decide naming",
        True,
    )
    assert read_event_question("the difference between the old parser and the new one") is None  # asks nothing done


TODAY = datetime(2024, 3, 15, 12, tzinfo=UTC).timestamp()


def _asked_on_the_event_days(tmp_path: Path, *questions: str) -> list[SearchResponse]:
    """Each question's keyword answer over the event days' sessions, asked on TODAY."""
    with _engine(tmp_path, EVENT_DAYS) as engine:
        engine.retriever.now = TODAY
        return [engine.search(question, mode="keyword") for question in questions]


def test_the_days_since_an_event_run_from_its_day_to_today(tmp_path: Path) -> None:
    since, after, unnamed = _asked_on_the_event_days(
        tmp_path,
        "what have we done since the offsite",
        "everything after the launch",
        "what did we do since the hackathon",
    )
    period = since["period"]
    # the offsite's own day included ("Offsite tomorrow!" on Thu 29 Feb: Fri 1 Mar), to today
    assert _window(period) == ("2024-03-01", "2024-03-15")
    assert _event(period) == ("offsite", "since", "2024-03-01")
    assert "endEvent" not in period
    assert _days_of(since) == {"2024-03-04", "2024-03-05", "2024-03-08", "2024-03-11", "2024-03-13", "2024-03-14"}
    notes = answer_notes(since)
    assert notes[0] == "sessions from 2024-03-01T00:00 to 2024-03-15T23:59 (UTC)"
    assert notes[1].startswith("the offsite: Fri 01 Mar 2024 (stated in")
    assert "The offsite: Fri 01 Mar 2024" in render_search(dict(since))
    assert _window(after["period"]) == ("2024-03-12", "2024-03-15")
    assert _days_of(after) == {"2024-03-13", "2024-03-14"}
    assert unnamed["results"] == [] and "period" not in unnamed
    assert unnamed["unnamedEvent"] == {"event": "hackathon", "offset": "since"}
    assert unnamed["note"] == 'no message names "hackathon": no day to count "since" from'


def test_other_words_are_searched_within_the_days_of_an_event_or_two(tmp_path: Path) -> None:
    """Sam is named on Mon 4 Mar (between the offsite and the launch) and Thu 14 Mar (after the launch)."""
    plain, between, after, changed, cause, written_only, several, clause = _asked_on_the_event_days(
        tmp_path,
        "what did we do with Sam",
        "what did we do with Sam between the offsite and the launch",
        "what did we do with Sam after the launch",
        "what did we change in the login test after the offsite",
        # an event no message names, or none states a day of, with other words: the search it was
        "what broke the login test since the hackathon",
        "what did we do with Sam since the billing export",
        "since the refactor broke the login test",
        "since the billing export broke Sam",  # named nowhere as written
    )
    assert _days_of(plain) == {"2024-03-04", "2024-03-14"}
    assert _days_of(between) == {"2024-03-04"}
    assert _window(between["period"]) == ("2024-03-01", "2024-03-12")
    assert (between["period"]["event"]["day"], between["period"]["endEvent"]["day"]) == ("2024-03-01", "2024-03-12")
    assert _days_of(after) == {"2024-03-14"}
    assert after["period"]["event"]["day"] == "2024-03-12"
    assert _days_of(changed) == {"2024-03-05"}
    for response in (cause, written_only, several, clause):
        assert "period" not in response and "unnamedEvent" not in response, response["query"]


def test_a_period_with_results_is_not_also_said_to_hold_no_sessions() -> None:
    response: SearchResponse = {
        "query": "what did we do on March 3",
        "mode": "keyword",
        "results": [{"timestamp": "2024-03-03T09:00:00+00:00"}],  # type: ignore[typeddict-item]
        "totalResults": 1,
        "searchTimeMs": 1.0,
        "indexing": False,
        "withheld": 0,
        "period": {"since": "2024-03-03T00:00:00+00:00", "until": "2024-03-03T23:59:59+00:00", "timeZone": "UTC"},
    }
    assert answer_notes(response) == ["sessions from 2024-03-03T00:00 to 2024-03-03T23:59 (UTC)"]


def test_the_committed_event_days_are_what_one_message_days_writes(tmp_path: Path) -> None:
    """bench.days --synthetic reads tests/fixtures/event_days: the sessions these tests ask about."""
    written = one_message_days(tmp_path / "openclaw", EVENT_DAYS)
    committed = EVENT_DAYS_FOLDER / "openclaw"
    assert sorted(p.name for p in committed.iterdir()) == sorted(p.name for p in written.iterdir())
    for path in written.iterdir():
        assert (committed / path.name).read_bytes() == path.read_bytes(), path.name


def test_the_days_since_an_event_of_the_example(example: Engine) -> None:
    """README's example: from the refund incident ("The 10 Feb refund incident") to today, its topic words within."""
    example.settings.display.time_zone = "UTC"
    example.retriever.now = datetime(2026, 3, 1, 12, tzinfo=UTC).timestamp()  # a private copy (conftest)
    response = example.search("what have we done since the refund incident")
    narrowed = example.search("what did we decide about the offsite since the refund incident")
    period = response["period"]
    assert _window(period) == ("2026-02-10", "2026-03-01")
    assert _event(period) == ("refund incident", "since", "2026-02-10")
    days = _days_of(response)
    assert days and all("2026-02-10" <= day <= "2026-03-01" for day in days), days
    assert narrowed["period"]["event"]["day"] == "2026-02-10"
    days = _days_of(narrowed)
    assert days and all("2026-02-10" <= day <= "2026-03-01" for day in days), days
