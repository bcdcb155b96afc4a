"""Dates of named events: "two days before the demo" names a day only the corpus knows, the day of the demo.

The event's words (dates.anchored_events) are looked up in the keyword index, as a phrase first and loosely if the
phrase is nowhere. People write about an event before it happens ("offsite is Friday 20 Feb, 12:30", "launch
tomorrow!"), so a date its best few matches state near the event's words, as written or relative to the day the
message was written, dates it: the one most of them state, as many for two the latest statement's (`event_days`);
otherwise the days its best `mentions` matches were written do. The offset is applied to each day
(dates.AnchoredEvent.window), the days between two events ("between the offsite and the launch") are read as well,
and the windows join the query's other dates for the re-scoring's date boost; a question about what was done then is
answered as a period (answers/event_period.py).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from memlens.engine.ranking.dates import (
    AnchoredEvent,
    Window,
    absolute_dates,
    anchored_events,
    day_of,
    epoch_day,
    event_spans,
    stated_relative_days,
)

if TYPE_CHECKING:
    from memlens.engine.catalog import Catalog
    from memlens.engine.keyword.keyword_index import KeywordIndex

STATED_MENTIONS = 5  # the best matches read for a date they state (the agreeing majority dates the event)
STATED_NEAR = 80  # characters between the event's words and a date they state ("offsite is Friday 20 Feb")
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n")


@dataclass(frozen=True, slots=True)
class Mention:
    """One of an event's best keyword matches: its unit, its text and when it was written (None: unknown)."""

    unit_id: int
    text: str
    ts: float | None


@dataclass(frozen=True, slots=True)
class EventDay:
    """A day an event was taken to be: stated by a mention (`stated`: the date as written, `unit_id`: the mention),
    or the day a mention was written (`stated` "")."""

    day: int  # epoch day
    stated: str = ""
    unit_id: int | None = None
    written: int | None = None  # the day the mention was written, when what it states is relative to it ("tomorrow")
    mentions: int = 0  # how many mentions state this day, when others state another
    others: tuple[tuple[int, int], ...] = ()  # the other days stated and how many mentions state each, most first
    latest: bool = False  # with `others`: as many state another day, and this one's statement is the latest


@dataclass(frozen=True, slots=True)
class Stated:
    """A day a mention states near an event's words: the date as written, and whether it is relative to the day the
    mention was written ("tomorrow", "on Friday")."""

    text: str
    relative: bool = False


def event_mentions(event: AnchoredEvent, keyword: KeywordIndex, catalog: Catalog, *, limit: int) -> list[Mention]:
    """The event's best `limit` keyword matches, best first: as a phrase, or its words loosely where the phrase is
    nowhere."""
    hits = keyword.search(keyword.parse(f'"{event.phrase}"'), limit)
    hits = hits or keyword.search(keyword.parse(event.phrase), limit)
    rows = catalog.units_by_id([unit_id for unit_id, _ in hits])
    mentions = []
    for unit_id, _ in hits:
        row = rows.get(unit_id)
        if row is not None:
            ts = row["ts"]
            mentions.append(Mention(unit_id, str(row["text"] or ""), None if ts is None else float(ts)))
    return mentions


def event_days(
    phrase: str, mentions: Sequence[Mention], *, written: int, day: Callable[[float], int | None]
) -> list[EventDay]:
    """The days the event of `phrase` was taken to be: the one date most of `mentions` state near its words (one vote
    each; as many for two: the one stated latest), else the days the first `written` of them were written, the best
    match's first (`day`: a time's day, None when none)."""
    votes: Counter[int] = Counter()
    first: dict[int, tuple[Stated, Mention, int | None]] = {}
    latest: dict[int, float] = {}
    for mention in mentions:
        written_on = day(mention.ts) if mention.ts is not None and mention.ts >= 0 else None
        for stated, said in stated_readings(phrase, mention.text, written_on).items():
            votes[stated] += 1
            first.setdefault(stated, (said, mention, written_on))
            if mention.ts is not None:
                latest[stated] = max(latest.get(stated, mention.ts), mention.ts)
    ranked = votes.most_common()
    top = [d for d, n in ranked if n == ranked[0][1]] if ranked else []
    if len(top) > 1:  # as many state each: the latest statement's (one with no time is none's; two such, no pick)
        when = sorted((latest.get(d, -math.inf), d) for d in top)
        top = [when[-1][1]] if when[-1][0] > when[-2][0] else top
    if len(top) == 1:
        stated = top[0]
        said, mention, written_on = first[stated]
        others = tuple((d, n) for d, n in ranked if d != stated)
        return [
            EventDay(
                stated,
                said.text,
                mention.unit_id,
                written=written_on if said.relative else None,
                mentions=votes[stated] if others else 0,
                others=others,
                latest=bool(others) and others[0][1] == votes[stated],
            )
        ]
    days = [day(m.ts) for m in mentions[:written] if m.ts is not None and m.ts >= 0]
    return [EventDay(d) for d in dict.fromkeys(days) if d is not None]


def stated_days(phrase: str, text: str, written_on: int | None) -> dict[int, str]:
    """The single days `text` states within STATED_NEAR characters of one of `phrase`'s words, each with the date as
    written; a date without a year takes the year the text was written in (`written_on`, an epoch day)."""
    return {day: said.text for day, said in stated_readings(phrase, text, written_on).items()}


def stated_readings(phrase: str, text: str, written_on: int | None) -> dict[int, Stated]:
    """`stated_days`, each day with whether it is said relative to the day the text was written ("the launch was
    yesterday", "offsite on Friday": dates.stated_relative_days), read only when that day is known and only in a
    sentence of the event's words (such short words are as often about another thing said beside it: "the launch is
    next Tuesday. Demo in two days.")."""
    near = [
        (m.start(), m.end())
        for word in phrase.split()
        for m in re.finditer(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text, re.I)
    ]
    if not near:
        return {}
    readings = [(window, start, end, False) for window, start, end in _nearest_readings(text, written_on)]
    if written_on is not None:
        relative = stated_relative_days(text, _date_of(written_on))
        readings += [(window, start, end, True) for window, start, end in relative]
    said: dict[int, Stated] = {}
    for (first, last), start, end, relative_to_written in readings:
        if first != last:  # a month, a span of days: not the event's day
            continue
        if any(
            start - STATED_NEAR <= at_end
            and at_start <= end + STATED_NEAR
            and not (relative_to_written and _SENTENCE_END.search(text, min(end, at_end), max(start, at_start)))
            for at_start, at_end in near
        ):
            said.setdefault(first, Stated(" ".join(text[start:end].split()).rstrip("."), relative_to_written))
    return said


def _nearest_readings(text: str, written_on: int | None) -> list[tuple[Window, int, int]]:
    """`text`'s absolute dates, one without a year in the year that puts it nearest to `written_on` ("Jan 8" written
    on December 20: the coming January; "Dec 20" written on January 8: the December just past)."""
    if written_on is None:
        return absolute_dates(text)
    year = _date_of(written_on).year
    readings: dict[tuple[int, int], list[Window]] = {}
    for hint in (year, year - 1, year + 1):
        for window, start, end in absolute_dates(text, hint):
            readings.setdefault((start, end), []).append(window)
    return [
        (min(windows, key=lambda w: abs(w[0] - written_on)), start, end) for (start, end), windows in readings.items()
    ]


@dataclass(frozen=True, slots=True)
class EventReading:
    """What a query says of events: the day windows it names through them, and where each dated event is said with
    what counts from it ("the week before the offsite", "between the offsite and the launch": (start, end) in the
    query)."""

    windows: list[Window]
    said: list[tuple[int, int]]


def event_windows(query: str, keyword: KeywordIndex, catalog: Catalog, *, mentions: int) -> list[Window]:
    """The day windows `query` names relative to events (`read_events`)."""
    return read_events(query, keyword, catalog, mentions=mentions).windows


def read_events(query: str, keyword: KeywordIndex, catalog: Catalog, *, mentions: int) -> EventReading:
    """The day windows `query` names relative to events, each event dated by `event_days` (the days of its `mentions`
    best keyword matches when no date stated in them agrees): offsets from one ("two days before the demo") and the
    days between two ("between the offsite and the launch"), read whatever else the question says (a question too
    long to be about the days alone is a search, and its date boost still reads them). An event no message mentions
    names no days, and is not `said`. The days from one to today ("… since the refund incident") are not read here:
    in a search they held nearly every message of the data after the event (bench/RESULTS.md, issue 33)."""
    if mentions <= 0:
        return EventReading([], [])

    def days(event: AnchoredEvent) -> list[int]:
        found = event_mentions(event, keyword, catalog, limit=max(mentions, STATED_MENTIONS))
        return [d.day for d in event_days(event.phrase, found, written=mentions, day=utc_day)]

    windows: list[Window] = []
    said: list[tuple[int, int]] = []
    for event in anchored_events(query):
        named = [event.window(day) for day in days(event)]
        windows += named
        said += [(event.start, event.end)] if named else []
    for span in event_spans(query):
        firsts, lasts = days(span.first), days(span.last)
        windows += [(min(a, b), max(a, b)) for a in firsts for b in lasts]
        said += [(span.start, span.end)] if firsts and lasts else []
    return EventReading(windows, said)


def utc_day(ts: float) -> int | None:
    """The epoch day (UTC) of `ts`, None for a time no calendar holds."""
    try:
        return epoch_day(day_of(ts))
    except (OverflowError, OSError, ValueError):
        return None


def _date_of(day: int) -> date:
    return date.fromordinal(date(1970, 1, 1).toordinal() + day)
