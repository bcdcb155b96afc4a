"""Day phrases as people type them into a search box about their past work, each with the days a careful reader
means, read on a fixed day (Thursday, 19 March 2026): relative days, weekdays with what says which one, parts of weeks,
months and years, days of a month, misspellings and short forms in lower case; and phrases near a date's words that
name no day. Where a phrase reads two ways the row says which reading is taken (and RESULTS.md's days section why)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from memlens.engine.answers.period import read_period
from memlens.engine.ranking.dates import epoch_day, message_windows, query_windows

NOW = datetime(2026, 3, 19, 10, tzinfo=UTC).timestamp()  # a Thursday; last week is March 9-15

# (phrase, the days meant: "MM-DD" of 2026 or a whole ISO date, "FIRST..LAST" for a run, " + " between runs; "" for no
# period, a plain search). Decided where a phrase reads two ways: "last Tuesday" is the latest one (this week's on a
# Thursday); "last week" the thirteen days before today (both its meanings); "last night" (and "Friday night") its
# evening and the hours after midnight; "N days ago" that day; "a week ago Friday" the Friday nearest a week back;
# "the other week" the four weeks before this last one; "an hour ago" the hour around then (today's, asked at 10:00;
# the ranking's window is today and yesterday); "the first half of the week" (and "of the month", "of the year") this
# one's, and a part still to come no period; a holiday the latest one (on or before today), "over" one its days off
# around it ("before Christmas" is an open bound).
PHRASES = [
    # relative days
    ("what did we do yesterday", "03-18"),
    ("yesterday morning", "03-18"),
    ("yesterday afternoon", "03-18"),
    ("last night", "03-18..03-19"),
    ("this morning", "03-19"),
    ("earlier today", "03-19"),
    ("what did we do today", "03-19"),
    ("the day before yesterday", "03-17"),
    ("day before yesterday", "03-17"),
    ("2 days ago", "03-17"),
    ("three days ago", "03-16"),
    ("a day ago", "03-18"),
    ("10 days ago", "03-09"),
    ("a few days ago", "03-15..03-17"),
    ("a week ago", "03-11..03-13"),
    ("two weeks ago", "03-03..03-07"),
    ("3 weeks ago", "02-22..03-02"),
    ("a month ago", "02-11..02-23"),
    ("the other day", "03-13..03-18"),
    ("the other week", "02-19..03-12"),
    ("in the last few days", "03-16..03-19"),
    ("the past couple of days", "03-17..03-19"),
    ("over the last two weeks", "03-05..03-19"),
    ("this past week", "03-12..03-19"),
    ("the past 7 days", "03-12..03-19"),
    ("recently", ""),
    ("a week ago today", "03-12"),
    ("a week ago yesterday", "03-11"),
    ("this time last week", "03-12"),
    ("the night before last", "03-17..03-18"),
    ("2 wks ago", "03-03..03-07"),
    ("past 2 wks", "03-05..03-19"),
    ("a few weeks back", "02-22..03-02"),
    ("5 days back", "03-14"),
    ("an hour ago", "03-19"),  # 8:30 to 9:30, asked at 10:00
    ("3 hours ago", "03-19"),
    # weekdays with modifiers
    ("what did we do last Tuesday", "03-17"),
    ("on Monday", "03-16"),
    ("what did we do monday", "03-16"),
    ("this Monday", "03-16"),
    ("Monday last week", "03-09"),
    ("last week Monday", "03-09"),
    ("the Tuesday before last", "03-10"),
    ("the Tuesday before last week", "03-03"),
    ("a week ago Friday", "03-13"),
    ("since Monday", "03-16..03-19"),
    ("since last Monday", "03-16..03-19"),
    ("between Monday and Wednesday", "03-16..03-18"),
    ("monday and tuesday", "03-16..03-17"),
    ("last friday", "03-13"),
    ("on friday", "03-13"),
    ("Friday night", "03-13..03-14"),  # its evening and the hours after midnight
    ("Friday afternoon", "03-13"),
    ("tuesday morning", "03-17"),
    ("last Tues", "03-17"),
    ("since wed", "03-18..03-19"),
    ("this fri", ""),
    ("on thursday", "03-12"),
    ("two weeks ago on Monday", "03-02"),
    ("the Friday before last week", "03-06"),
    ("last Fri", "03-13"),
    ("on wed", "03-18"),
    ("last wendesday", "03-18"),
    ("on wensday", "03-18"),
    ("yesterdy", "03-18"),
    ("yestreday", "03-18"),
    # weekends
    ("over the weekend", "03-14..03-15"),
    ("last weekend", "03-14..03-15"),
    ("the weekend before last", "03-07..03-08"),
    # parts of weeks
    ("early last week", "03-09..03-11"),
    ("late last week", "03-13..03-15"),
    ("the middle of last week", "03-11..03-13"),
    ("mid last week", "03-11..03-13"),
    ("the first half of last week", "03-09..03-11"),
    ("second half of last week", "03-12..03-15"),
    ("what did we do the first half of the week", "03-16..03-18"),
    ("the first half of this week", "03-16..03-18"),
    ("the beginning of the week", "03-16..03-18"),
    ("the end of last week", "03-13..03-15"),
    ("earlier this week", "03-16..03-18"),
    ("earlier in the week", "03-16..03-18"),
    ("later in the week", ""),
    ("monday thru wednesday", "03-16..03-18"),
    ("Mon-Wed", "03-16..03-18"),
    ("mon to wed", "03-16..03-18"),
    ("Mon - Wed", "03-16..03-18"),
    ("monday-wednesday", "03-16..03-18"),
    ("Tues-Thurs", "03-10..03-12"),  # the latest Thursday is last week's: said on a Thursday, today is not yet past
    ("Mon–Fri", "03-09..03-13"),
    ("on Mon-Wed", "03-16..03-18"),
    ("Mon-Wed last week", "03-09..03-11"),
    ("this week", "03-16..03-19"),
    ("last week", "03-06..03-18"),
    ("the week before last", "03-02..03-08"),
    ("the previous week", "03-06..03-18"),
    # parts of months
    ("last month", "02-01..02-28"),
    ("early last month", "02-01..02-10"),
    ("late last month", "02-21..02-28"),
    ("end of last month", "02-21..02-28"),
    ("the beginning of last month", "02-01..02-10"),
    ("mid last month", "02-11..02-20"),
    ("this month", "03-01..03-19"),
    ("earlier this month", "03-01..03-18"),
    ("the first half of the month", "03-01..03-15"),
    ("the end of the month", ""),
    ("the end of the week", ""),
    ("the first half of the year", "01-01..03-19"),
    ("the month before last", "01-01..01-31"),
    ("early in the month", "03-01..03-10"),
    ("the first week of last month", "02-01..02-07"),
    ("the last week of last month", "02-22..02-28"),
    ("first week of the month", "03-01..03-07"),
    ("in February", "02-01..02-28"),
    ("in feb", "02-01..02-28"),
    ("in febuary", "02-01..02-28"),
    ("beginning of March", "03-01..03-10"),
    ("mid-February", "02-11..02-20"),
    ("mid february", "02-11..02-20"),
    ("end of February", "02-21..02-28"),
    ("early feb", "02-01..02-10"),
    ("the first week of March", "03-01..03-07"),
    ("the last week of February", "02-22..02-28"),
    ("the week of March 2", "03-02..03-08"),
    ("last March", "2025-03-01..2025-03-31"),
    # days of a month
    ("what did we do the 12th", "03-12"),
    ("on the 3rd", "03-03"),
    ("Feb 12th", "02-12"),
    ("12 Feb", "02-12"),
    ("feb 12", "02-12"),
    ("February 12th", "02-12"),
    ("12th of February", "02-12"),
    ("the 12th of feb", "02-12"),
    ("between the 3rd and the 7th", "03-03..03-07"),
    ("from the 3rd to the 7th", "03-03..03-07"),
    ("March 2nd to 6th", "03-02..03-06"),
    ("march 2-6", "03-02..03-06"),
    ("on 2/12", ""),
    # years and quarters
    ("last year", "2025-01-01..2025-12-31"),
    ("this year", "01-01..03-19"),
    ("earlier this year", "01-01..03-18"),
    ("in 2025", "2025-01-01..2025-12-31"),
    ("the end of last year", "2025-09-01..2025-12-31"),
    ("in Q4", "2025-10-01..2025-12-31"),
    ("last quarter", "2025-10-01..2025-12-31"),
    ("Q1 2026", "01-01..03-31"),
    ("q4 of 2025", "2025-10-01..2025-12-31"),
    ("the first half of last year", "2025-01-01..2025-06-30"),
    ("late 2025", "2025-09-01..2025-12-31"),
    ("LATE 2025", "2025-09-01..2025-12-31"),  # in capitals as any other part of a year
    ("the END OF 2025", "2025-09-01..2025-12-31"),
    # weekends said with "sat" and "sun" (read only where a word or a range makes them days)
    ("Fri–Sun", "03-13..03-15"),
    ("fri-sun", "03-13..03-15"),
    ("sat-sun", "03-14..03-15"),
    ("Sat and Sun", "03-14..03-15"),
    ("last sat", "03-14"),
    ("last sun", "03-15"),
    ("since sat", "03-14..03-19"),
    ("what did we do on sun?", "03-15"),
    ("last Sat morning", "03-14"),
    ("this sat", ""),  # still to come, as "this fri"
    ("Saturday and Sunday", "03-14..03-15"),
    ("on the weekend", "03-14..03-15"),
    # holidays: the latest before today (US and UK common ones; "Thanksgiving" the US one)
    ("before Christmas", ""),  # an open bound, as "before Feb 5"
    ("over Christmas", "2025-12-24..2025-12-26"),
    ("on Christmas", "2025-12-25"),
    ("Christmas Eve", "2025-12-24"),
    ("Christmas 2024", "2024-12-25"),
    ("last Christmas", "2025-12-25"),
    ("this Christmas", ""),  # still to come
    ("the day before Christmas", "2025-12-24"),
    ("Boxing Day", "2025-12-26"),
    ("New Year's Eve", "2025-12-31"),
    ("the day after New Year's", "2026-01-02"),
    ("the day after Feb 5", "02-06"),  # that day alone: was Feb 5 to 7
    ("between Christmas and New Year's", "2025-12-25..2026-01-01"),
    ("over Thanksgiving", "2025-11-27..2025-11-30"),
    ("the week of Thanksgiving", "2025-11-24..2025-11-30"),
    ("Black Friday", "2025-11-28"),
    ("since Easter", "2025-04-20..03-19"),
    ("over Easter", "2025-04-18..2025-04-21"),
    ("Good Friday", "2025-04-18"),
    ("Easter Monday", "2025-04-21"),
    ("next Easter", ""),
    ("on Halloween", "2025-10-31"),
    ("July 4th", "2025-07-04"),
    ("the Fourth of July", "2025-07-04"),
    ("Valentine's day", "02-14"),
    ("on valentines day", "02-14"),
    ("Labor Day", "2025-09-01"),
    ("Memorial Day", "2025-05-26"),
    ("Memorial Day weekend", "2025-05-24..2025-05-26"),
    ("MLK day", "01-19"),
    ("Presidents' Day", "02-16"),
    ("Juneteenth", "2025-06-19"),
    ("over the holidays", "2025-12-24..2026-01-01"),  # Christmas Eve to New Year's Day
    ("during the holidays", "2025-12-24..2026-01-01"),
    ("since the holidays", "2025-12-24..03-19"),
    ("before the holidays", ""),  # an open bound
    ("the holiday break", "2025-12-24..2026-01-01"),
    ("over the Christmas break", "2025-12-24..2026-01-01"),  # was Christmas Eve to Boxing Day
    ("the christmas holidays", "2025-12-24..2026-01-01"),
    ("over winter break", "2025-12-24..2026-01-01"),
    ("Mother's Day", "2025-05-11"),  # the US one, the second Sunday of May
    ("on mothers day", "2025-05-11"),
    ("Mothering Sunday", "03-15"),  # the UK one, three weeks before Easter
    ("Father's Day", "2025-06-15"),
    ("Christmas week", "2025-12-22..2025-12-28"),
    ("Thanksgiving week", "2025-11-24..2025-11-30"),
    ("since New Year", "01-01..03-19"),
    ("over new year", "2025-12-31..2026-01-01"),
    # beside a date: "the week before/after X" the seven days before or after it, "the weekend before/after X" the
    # Saturday and Sunday that side of it, "the Friday before X" the nearest Friday that side
    ("the week after Christmas", "2025-12-26..2026-01-01"),
    ("the week before Thanksgiving", "2025-11-20..2025-11-27"),  # and the day itself: what the week was is told on it
    ("the week after Feb 5", "02-06..02-12"),  # was Feb 5 to 13
    ("the week before March 2", "02-23..03-02"),
    ("the week after New Year's", "01-02..01-08"),
    ("the week after the 12th", "03-13..03-19"),
    ("the weekend before Easter", "2025-04-12..2025-04-13"),
    ("the weekend after Thanksgiving", "2025-11-29..2025-11-30"),
    ("the weekend before March 14", "03-07..03-08"),  # March 14 is a Saturday: the weekend before it
    ("the weekend after Feb 5", "02-07..02-08"),
    ("the day after last Tuesday", "03-18"),  # was last Tuesday
    ("the weekend after last Friday", "03-14..03-15"),
    ("the Friday before Christmas", "2025-12-19"),  # was last Friday
    ("the Monday after Easter", "2025-04-21"),
    ("the weekend of March 7", "03-07..03-08"),
    ("the weekend of the 7th", "03-07..03-08"),
    # a weekday of a month: the latest such day
    ("the first Monday of March", "03-02"),  # was this Monday
    ("the last Friday of February", "02-27"),  # was last Friday
    ("last weekend of February", "02-28..03-01"),
    ("the second Tuesday of March 2025", "2025-03-11"),
    ("the last Friday of March", "2025-03-28"),  # this March's is still to come
    # parts of quarters, quarters of a year said so, halves, so far this year
    ("end of Q3", "2025-09-01..2025-09-30"),  # its last month
    ("start of Q1", "01-01..01-31"),
    ("the end of the third quarter", "2025-09-01..2025-09-30"),
    ("end of last quarter", "2025-12-01..2025-12-31"),  # was all of it
    ("Q3 last year", "2025-07-01..2025-09-30"),  # was all of last year
    ("the third quarter of last year", "2025-07-01..2025-09-30"),
    ("H2 2025", "2025-07-01..2025-12-31"),
    ("year to date", "01-01..03-19"),
    ("YTD", "01-01..03-19"),
    ("month-to-date", "03-01..03-19"),
    # seasons: the northern meteorological ones
    ("over the summer", "2025-06-01..2025-08-31"),
    ("last summer", "2025-06-01..2025-08-31"),
    ("this summer", ""),  # still to come
    ("last winter", "2025-12-01..2026-02-28"),
    ("in the fall", "2025-09-01..2025-11-30"),
    ("the summer of 2025", "2025-06-01..2025-08-31"),
    ("in the spring", "03-01..03-19"),
    # a month in lower case where no verb can stand: "march" and "may" too (were no period)
    ("what did we do in march?", "03-01..03-31"),
    ("since march", "03-01..03-31"),
    # a weekday's short form before a part of a day (was no period)
    ("mon morning", "03-16"),
    ("what did we do tue evening", "03-17"),
    # words around a date that only say it
    ("around March 5", "03-05"),
    ("sometime in February", "02-01..02-28"),
    ("late last night", "03-18..03-19"),
    # not dates
    ("prior art", ""),
    ("the previous version", ""),
    ("first half of the migration", ""),
    ("2 weeks of work", ""),
    ("a few days of logs", ""),
    ("upgrade to python 3.12", ""),
    ("bump v2.3.4", ""),
    ("error at 12/02 parse failed", ""),
    ("on the 3rd try", ""),
    ("the 2nd attempt", ""),
    ("the 3rd of the files", ""),
    ("what did we do on 12/02", ""),
    ("may I ask", ""),
    ("this may fail", ""),  # "may" and "march" in lower case: the verb, unless they end what is said
    ("the tests in may be flaky", ""),
    ("Q3 planning", ""),
    ("week 3 of the plan", ""),
    ("day 2 of onboarding", ""),
    ("second half of the file", ""),
    ("the last day of the sprint", ""),
    ("last commit", ""),
    ("last time it failed", ""),
    ("the end of the file", ""),
    ("every monday standup", ""),
    ("retry after 3 days", ""),
    ("the first week of onboarding", ""),
    ("early return", ""),
    ("mid-size refactor", ""),
    ("sun java", ""),
    ("sat solver", ""),
    ("the week in review", ""),
    ("10 days timeout", ""),
    ("roll back 2 days", ""),
    ("the last week of the sprint", ""),
    ("deploy-mon-wed-job", ""),
    ("mon-wed-job", ""),
    ("0 9 * * mon-fri /usr/bin/backup", ""),
    ("30 2 * * MON-FRI", ""),
    ("every mon-fri", ""),
    ("Mon-Fri 9-5", ""),
    ("Mon-Fri 9am-5pm", ""),
    ("cron: mon-fri at 9:00", ""),
    ("open mon to fri, 10-6", ""),
    ("c:/mon-wed", ""),
    # "sat", "sun" and a holiday's name are words too: as a thing's name, no day
    ("christmas tree lights plugin", ""),
    ("easter egg in the UI", ""),
    ("easter eggs", ""),
    ("christmas", ""),
    ("halloween theme", ""),
    ("the thanksgiving recipe app", ""),
    ("black friday sale load test", ""),
    ("labor day sale banner", ""),
    ("the boxing day sales page", ""),
    ("the valentine's card component", ""),
    ("sat down with the team", ""),
    ("the cat sat on the mat", ""),
    ("sat and smt solvers", ""),
    ("last sat solver run", ""),
    ("since sat solvers are slow", ""),
    ("on sun microsystems hardware", ""),
    ("sun certificate", ""),
    ("the sun and moon icons", ""),
    ("labor cost", ""),
    ("memorial page", ""),
    ("new year resolution script", ""),
    ("fri-sun-deploy", ""),
    ("sat-sun-job", ""),
    ("a week from Monday", ""),  # still to come: was last Monday
    ("two days from today", ""),
    ("the holiday sale banner", ""),
    ("mother's day promo page", ""),
    ("father's day gift feature", ""),
    ("thanksgiving week sale", ""),
    ("the holidays table", ""),
    ("public holidays list", ""),
    ("holiday calendar sync", ""),
    ("happy new year banner", ""),
    ("in the new year", ""),  # as often a plan
    ("over the break", ""),  # a lunch break as often as a holiday
    ("during the sprint", ""),
    ("the week after we shipped", ""),  # an event's day: the ranking's, not a date
    ("the week before the release", ""),
    ("week after week", ""),
    ("day after day", ""),
    ("spring cleaning", ""),
    ("in the spring boot app", ""),
    ("last spring cleanup", ""),
    ("summer intern project", ""),
    ("after fall back", ""),
    ("winter 2025", ""),  # the winter that ended in it or the one begun in it
    ("the h1 heading", ""),
    ("when did the assistant ask the shell what day it is today", ""),  # the date itself asked about
    ("what day is it today", ""),
    ("what's today's date", ""),
    ("what is the date today", ""),
    ("what time is it now", ""),
    ("what day of the week it is", ""),
]

# Where the ranking's window (`query_windows`) is wider than what a question about days reads, on purpose: a boost
# that errs wide costs little. "N days ago" takes a day either side (a message's "two days ago" is as often three);
# "last weekend", "this week", "last/this month" and "last/this year" keep the ranking's own windows, which take both
# their meanings (the calendar's and so many days back); a weekday said alone names no day in a search ("friday
# deploy" is as often the recurring one); a day said as an open bound is still a day to boost ("before Christmas":
# Christmas Day, as "before Feb 5" boosts Feb 5). Every other phrase of PHRASES reads the same days in both.
RANKING_WIDER = {
    "an hour ago": "03-18..03-19",  # the ranking has days: today and yesterday, it may have been before midnight
    "3 hours ago": "03-18..03-19",
    "2 days ago": "03-16..03-18",
    "three days ago": "03-15..03-17",
    "a day ago": "03-17..03-19",
    "10 days ago": "03-07..03-11",
    "5 days back": "03-13..03-15",
    "what did we do monday": "",
    "monday and tuesday": "",
    "Friday night": "",
    "Friday afternoon": "",
    "tuesday morning": "",
    "mon morning": "",
    "what did we do tue evening": "",
    "Saturday and Sunday": "",
    "before Christmas": "2025-12-25",
    "before the holidays": "2025-12-24..2026-01-01",
    "last weekend": "03-10..03-18",
    "this week": "03-13..03-25",
    "last month": "01-18..03-18",
    "this month": "02-17..04-18",
    "last year": "2024-09-25..2026-03-18",
    "this year": "2025-03-19..2027-03-19",
}


def _runs(said: str) -> list[tuple[int, int]]:
    runs = []
    for run in said.split(" + ") if said else []:
        first, _, last = run.partition("..")
        days = [date.fromisoformat(d if len(d) == 10 else f"2026-{d}") for d in (first, last or first)]
        runs.append((epoch_day(days[0]), epoch_day(days[1])))
    return runs


def _read(phrase: str) -> list[tuple[int, int]]:
    period = read_period(phrase, now=NOW, zone=UTC)
    if period is None:
        return []
    bounds = period.parts or ((period.since, period.until),)
    return [(int(since // 86400), int(until // 86400)) for since, until in bounds]


@pytest.mark.parametrize(("phrase", "meant"), PHRASES, ids=[phrase for phrase, _ in PHRASES])
def test_a_day_phrase_reads_the_days_meant(phrase: str, meant: str) -> None:
    assert _read(phrase) == _runs(meant)
    period = read_period(phrase, now=NOW, zone=UTC)
    assert period is None or period.rest == "", phrase  # "fri", "yesterdy", "half" are no words to find


@pytest.mark.parametrize(("phrase", "meant"), PHRASES, ids=[phrase for phrase, _ in PHRASES])
def test_the_ranking_reads_a_phrase_as_the_question_reader_does(phrase: str, meant: str) -> None:
    """One reading for both: on the parent commit the ranking read none of "the 12th", "in Q1", "an hour ago", "the
    first half of the week", "the week before last", "over the weekend" or "Mon-Wed", and "early last week", "the
    first week of last month" or "the end of last year" as the whole of last week, month or year."""
    assert sorted(query_windows(phrase, NOW)) == _runs(RANKING_WIDER.get(phrase, meant))


def test_every_wider_reading_is_a_phrase_of_the_table() -> None:
    assert set(RANKING_WIDER) <= {phrase for phrase, _ in PHRASES}


@pytest.mark.parametrize(
    ("query", "meant"),
    [
        ("Mon-Wed deploy", "03-16..03-18"),  # was none
        ("the deploy the 12th", "03-12"),  # was none
        ("Q1 2026 roadmap", "01-01..03-31"),  # was none
        ("the error an hour ago", "03-18..03-19"),  # was none
        ("deploy early last week", "03-09..03-11"),  # was the thirteen days before today
        ("the deploy-mon-wed job failed", ""),
        ("last Fri deploy", "03-13"),  # was none: "fri" a word to find
        ("deploy on wensday", "03-18"),
        ("a week ago Friday deploy", "03-13"),  # was the days around a week ago
        ("the Tuesday before last week deploy", "03-03"),  # was the latest Tuesday
        ("two weeks ago on Monday deploy", "03-02"),  # was the days around two weeks ago and the latest Monday
        ("yestreday deploy", "03-18"),
        ("a week ago today deploy", "03-12"),  # was the days around a week ago, and today
        ("this time last week deploy", "03-12"),  # was the thirteen days
        ("the night before last deploy", "03-17..03-18"),  # was none
        ("2 wks ago deploy", "03-03..03-07"),  # was none
    ],
)
def test_the_ranking_reads_them_too(query: str, meant: str) -> None:
    assert query_windows(query, NOW) == _runs(meant)


def test_a_message_reads_a_short_weekday_and_last_march() -> None:
    """A message's "last Fri" is the Friday before it was written (LoCoMo's turns say so), and "last March" written
    in March is the year before's."""
    written = datetime(2023, 7, 15, 12, tzinfo=UTC)  # a Saturday
    day = epoch_day(written.date())
    assert (day - 1, day - 1) in message_windows(
        "Last Fri I finally took my kids to a pottery workshop", written.timestamp()
    )
    in_march = datetime(2023, 3, 20, 12, tzinfo=UTC)
    march_2022 = (epoch_day(date(2022, 3, 1)), epoch_day(date(2022, 3, 31)))
    assert march_2022 in message_windows("we moved house last March", in_march.timestamp())
    assert (epoch_day(date(2023, 3, 1)), epoch_day(date(2023, 3, 31))) not in message_windows(
        "we moved house last March", in_march.timestamp()
    )


def test_a_message_reads_sat_and_sun_only_as_days() -> None:
    """A message's "last sat" is the Saturday before it was written; "sat" and "sun" in a thing's name are no day."""
    written = datetime(2023, 7, 19, 12, tzinfo=UTC)  # a Wednesday
    day = epoch_day(written.date())
    assert (day - 4, day - 4) in message_windows("last sat we finally shipped it", written.timestamp())
    assert message_windows("worked on the sat solver, then on sun java", written.timestamp()) == [(day, day)]
