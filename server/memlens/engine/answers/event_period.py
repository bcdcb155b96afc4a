"""Questions about the days around a named event ("what did we do the week before the offsite", "what was I doing two
days after the launch"): answered as a question about those days is (period.py), once the event is dated.

The event's words are no topic of the question: what is left once the offset and the event are taken out decides,
as for any period question, whether it asks about the period (at most period.MAX_OTHER_WORDS other words: "what
did we decide about naming the week before the offsite" searches "decide naming" within that week) or is a search
whose date boost reads the event's days (ranking/event_dates.py). The event is dated by a date its best matches
state near its words, else by the days they were written (`event_dates.event_days`), reading only messages this
search may show; the answer says which day it took (`PeriodEvent`). An event no message names is said so
(`UnnamedEvent`), never answered with some other week.
"""

from __future__ import annotations

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
from memlens.engine.ranking.dates import AnchoredEvent, anchored_events, epoch_day, without_dates
from memlens.engine.ranking.event_dates import STATED_MENTIONS, event_days, event_mentions
from memlens.wire import PeriodEvent, UnnamedEvent

MENTIONS_READ = 20  # an event's best matches read for those this search may show


@dataclass(frozen=True, slots=True)
class EventQuestion:
    """A question about the days around an event, and its words that are neither the event, the offset nor asking."""

    event: AnchoredEvent
    rest: str


def read_event_question(text: str) -> EventQuestion | None:
    """The event-relative days `text` asks about when the rest of it asks about a period; None otherwise."""
    events = anchored_events(text)
    if len(events) != 1:  # two events ("between the launch and the week after the offsite"): a search's dates
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
) -> PeriodQuestion | UnnamedEvent:
    """The days the question names, the event dated by the messages this search may show that mention it; `name`:
    how the answer refers to the message that states its day. An `UnnamedEvent` when none mentions it."""
    event = question.event
    found = event_mentions(event, keyword, catalog, limit=MENTIONS_READ)
    rows = catalog.result_rows([m.unit_id for m in found])
    shown = [m for m in found if (row := rows.get(m.unit_id)) is not None and visible(row, filters, hides)]
    shown = shown[:STATED_MENTIONS]

    def local_day(ts: float) -> int | None:
        try:
            return epoch_day(datetime.fromtimestamp(ts, zone).date())
        except (OverflowError, OSError, ValueError):
            return None

    days = event_days(event.phrase, shown, written=max(1, mentions), day=local_day)
    if not days:
        return {"event": event.phrase, "offset": event.offset}
    taken = days[0]  # the stated day, or the day its best match was written
    first, last = event.window(taken.day, slack=False)
    said: PeriodEvent = {"event": event.phrase, "offset": event.offset, "day": _iso_day(taken.day)}
    if taken.stated and taken.unit_id is not None:
        said["stated"] = taken.stated
        said["statedIn"] = name(taken.unit_id)
    return PeriodQuestion(
        since=midnight(first, zone),
        until=midnight(last + 1, zone) - 0.001,
        zone=zone_name(zone),
        rest=question.rest,
        event=said,
    )


def _iso_day(day: int) -> str:
    return (date(1970, 1, 1) + timedelta(days=day)).isoformat()
