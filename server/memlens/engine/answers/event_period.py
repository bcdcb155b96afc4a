"""Questions about the days around a named event ("what did we do the week before the offsite", "what was I doing two
days after the launch"), between two ("what did we do between the offsite and the launch") or from one to today ("what
have we done since the offsite", "everything after the launch": its own day included): answered as a question about
those days is (period.py), once the events are dated.

The events' words are no topic of the question: what is left once the offset and the events are taken out decides,
as for any period question, whether it asks about the period (at most period.MAX_OTHER_WORDS other words: "what
did we decide about naming the week before the offsite" searches "decide naming" within that week) or is a search
whose date boost reads the event's days (ranking/event_dates.py). An event is dated by a date its best matches
state near its words, as written or relative to the day the message was written ("offsite tomorrow!"), else by the
days they were written (`event_dates.event_days`), reading only messages this search may show; the answer says
which day it took and, when mentions disagree, why (`PeriodEvent`). An event no message names is said so
(`UnnamedEvent`), never answered with some other week. Other words narrow the days between two events, or since one,
only when a message states each event's day ("what did we decide about naming between the offsite and the launch");
else the question is the search it was ("what broke since the refactor": a cause as often as a day).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo

from memlens.engine.answers.period import (
    MAX_OTHER_WORDS,
    Hides,
    PeriodQuestion,
    midnight,
    other_words,
    visible,
    zone_name,
)
from memlens.engine.catalog import Catalog
from memlens.engine.filters import SearchFilters
from memlens.engine.keyword.keyword_index import KeywordIndex
from memlens.engine.ranking.dates import (
    AnchoredEvent,
    anchored_events,
    epoch_day,
    event_spans,
    since_events,
    without_dates,
)
from memlens.engine.ranking.event_dates import STATED_MENTIONS, EventDay, event_days, event_mentions
from memlens.wire import PeriodEvent, StatedDay, UnnamedEvent

MENTIONS_READ = 20  # an event's best matches read for those this search may show
_ASKS_WHAT_WAS_DONE = re.compile(
    r"\b(?:do|did|done|doing|work|worked|working|happen|happened|discuss|discussed|talk|talked|go|went|get|got)\b", re.I
)


@dataclass(frozen=True, slots=True)
class EventQuestion:
    """A question about the days around an event, or between two, and its words that are neither the events, the
    offset nor asking."""

    event: AnchoredEvent
    rest: str
    until: AnchoredEvent | None = None  # days between two events: the second ("between the offsite and the launch")
    to_now: bool = False  # from the event's day to today ("since the offsite", "everything after the launch")
    # the question's other words narrow a span or days since an event to those days only when a message states each
    # event's day ("what did we decide about naming between the offsite and the launch"); else it is a search
    stated_only: bool = False


def read_event_question(text: str) -> EventQuestion | None:
    """The event-relative days `text` asks about when the rest of it asks about a period; None otherwise."""
    spans = event_spans(text)
    events = anchored_events(text)
    if len(spans) == 1 and not events:  # "what did we do between the offsite and the launch"
        span = spans[0]
        rest = other_words(without_dates(f"{text[: span.start]} {text[span.end :]}"))
        # "between" is as often no time ("the difference between the old parser and the new one", "the cache sits
        # between the client and the database"): days only when the question asks what was done, and nothing else
        asks = _ASKS_WHAT_WAS_DONE.search(text[: span.start])
        if not asks or len(rest) > MAX_OTHER_WORDS:
            return None
        return EventQuestion(span.first, " ".join(rest), span.last, stated_only=bool(rest))
    if not spans and not events:  # "what have we done since the offsite", "everything after the launch"
        for event in since_events(text):
            rest = other_words(without_dates(f"{text[: event.start]} {text[event.end :]}"))
            if len(rest) <= MAX_OTHER_WORDS:
                return EventQuestion(event, " ".join(rest), to_now=True, stated_only=bool(rest))
        return None
    if spans or len(events) != 1:  # two offsets ("between the launch and the week after the offsite"): a search's
        return None
    event = events[0]
    rest = other_words(without_dates(f"{text[: event.start]} {text[event.end :]}"))
    if len(rest) > MAX_OTHER_WORDS:
        return None
    return EventQuestion(event, " ".join(rest))


def event_period(
    question: EventQuestion,
    *,
    keyword: KeywordIndex,
    catalog: Catalog,
    hides: Hides,
    filters: SearchFilters | None,
    zone: tzinfo,
    mentions: int,
    name: Callable[[int], str],
    now: float | None = None,
) -> PeriodQuestion | UnnamedEvent | None:
    """The days the question names, each event dated by the messages this search may show that mention it; `name`:
    how the answer refers to the message that states its day; `now`: when today is (days since an event end today).
    An `UnnamedEvent` when none mentions one; None (a search, not a period) when the question's other words narrow
    days whose event no message states a day of (`EventQuestion.stated_only`), or an event of several words said
    with "since" is named nowhere as written ("since the refactor broke the parser": a cause)."""

    def dated(event: AnchoredEvent) -> EventDay | None:
        found = event_mentions(event, keyword, catalog, limit=MENTIONS_READ)
        rows = catalog.result_rows([m.unit_id for m in found])
        shown = [m for m in found if (row := rows.get(m.unit_id)) is not None and visible(row, filters, hides)]
        days = event_days(event.phrase, shown[:STATED_MENTIONS], written=max(1, mentions), day=local_day)
        return days[0] if days else None  # the stated day, or the day its best match was written

    def local_day(ts: float) -> int | None:
        try:
            return epoch_day(datetime.fromtimestamp(ts, zone).date())
        except (OverflowError, OSError, ValueError):
            return None

    event, until = question.event, question.until
    taken = dated(event)
    if question.stated_only and (taken is None or not taken.stated):
        return None
    if question.to_now and len(event.phrase.split()) > 1 and not _named_as_written(event, keyword):
        return None
    if taken is None:
        unnamed: UnnamedEvent = {"event": event.phrase, "offset": event.offset}
        if until is not None:
            unnamed["end"] = "start"
        return unnamed
    said = _said(event, taken, name)
    if question.to_now:  # the event's own day included: what was done that day after it is as often asked about
        today = local_day(time.time() if now is None else now)
        first, last = sorted((taken.day, taken.day if today is None else today))
        return _period(first, last, question.rest, zone, event=said)
    if until is None:
        first, last = event.window(taken.day, slack=False)
        return _period(first, last, question.rest, zone, event=said)
    ends = dated(until)
    if question.stated_only and (ends is None or not ends.stated):
        return None
    if ends is None:
        return {"event": until.phrase, "offset": until.offset, "end": "end"}
    first, last = sorted((taken.day, ends.day))  # "between" reads both ways; each day is said
    return _period(first, last, question.rest, zone, event=said, end_event=_said(until, ends, name))


def _named_as_written(event: AnchoredEvent, keyword: KeywordIndex) -> bool:
    """Whether some message names the event's words as the question writes them, in that order."""
    return bool(keyword.search(keyword.parse(f'"{event.phrase}"'), 1))


def _period(
    first: int, last: int, rest: str, zone: tzinfo, *, event: PeriodEvent, end_event: PeriodEvent | None = None
) -> PeriodQuestion:
    """The days from `first` to `last` (epoch days, both included) in `zone`."""
    return PeriodQuestion(
        since=midnight(first, zone),
        until=midnight(last + 1, zone) - 0.001,
        zone=zone_name(zone),
        rest=rest,
        event=event,
        end_event=end_event,
    )


def _said(event: AnchoredEvent, taken: EventDay, name: Callable[[int], str]) -> PeriodEvent:
    """What the answer says of the day `event` was taken to be, and why."""
    said: PeriodEvent = {"event": event.phrase, "offset": event.offset, "day": _iso_day(taken.day)}
    if taken.stated and taken.unit_id is not None:
        said["stated"] = taken.stated
        said["statedIn"] = name(taken.unit_id)
        if taken.written is not None:
            said["statedOn"] = _iso_day(taken.written)
    if taken.others:
        said["mentions"] = taken.mentions
        others: list[StatedDay] = [{"day": _iso_day(day), "mentions": count} for day, count in taken.others]
        said["otherDays"] = others
        said["chosenBy"] = "latest" if taken.latest else "most"
    return said


def _iso_day(day: int) -> str:
    return (date(1970, 1, 1) + timedelta(days=day)).isoformat()
