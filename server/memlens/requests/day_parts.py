"""Parts of a day ("this morning", "yesterday afternoon", "last night", "tonight", "Friday evening") as hours of the
user's day, read in one place for a question about a period (answers/period.py) and for since/until
(relative_dates.py): "what did we do this morning" asked at four in the afternoon is not the afternoon's sessions too.

The hours are clock hours of the zone the answers show their times in (`display.timeZone`): a morning from 5:00 to
noon, an afternoon from noon to 18:00, an evening from 17:00 to midnight, a night from 18:00 to 6:00 the next
morning (what was written after midnight was written "last night"). Only the standard library: the CLI reads since and
until without importing the engine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo


@dataclass(frozen=True, slots=True)
class DayPart:
    """A part of a day by name, from `first_hour` to `end_hour` (past 24: into the next day's)."""

    name: str
    first_hour: int
    end_hour: int

    def bounds(self, day: date, zone: tzinfo) -> tuple[datetime, datetime]:
        """The part of `day` in `zone`: its first instant and the instant it ends (excluded), as clock times (a day
        whose clocks change keeps its hours on the clock)."""
        midnight = datetime(day.year, day.month, day.day, tzinfo=zone)
        return midnight + timedelta(hours=self.first_hour), midnight + timedelta(hours=self.end_hour)


PARTS = {
    part.name: part
    for part in (
        DayPart("morning", 5, 12),
        DayPart("afternoon", 12, 18),
        DayPart("evening", 17, 24),
        DayPart("night", 18, 30),
    )
}


@dataclass(frozen=True, slots=True)
class SaidDayPart:
    """A part of a day a question says: which, how many days before today its day is when the words say so
    ("yesterday afternoon": 1; None when another date names the day: "Tuesday evening", "on March 3 in the
    morning"), and whether it is said as where a period starts ("since this morning": to now)."""

    part: DayPart
    days_back: int | None
    since: bool


# "yesterday" as it is misspelt in a search box (the date readers' list too: ranking/dates.py)
YESTERDAY_MISSPELT = (
    "yesterdy", "yestreday", "yesteday", "yesturday", "yesterady", "yesterdya", "ysterday", "yestarday",
)  # fmt: skip
_YESTERDAY = "(?:yesterday|" + "|".join(YESTERDAY_MISSPELT) + ")"
_PART = r"(morning|afternoon|evening|night)"
_SHORT_DAYS = "mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun"
_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
# each way a question says a part of a day, with the days back its own words name (None: another date names the day)
_SAID: tuple[tuple[re.Pattern[str], int | None], ...] = (
    (re.compile(r"\b(?:this|today['’]?s?)\s+" + _PART + r"\b", re.I), 0),  # "this morning", "today's afternoon"
    (re.compile(r"\bto(night)\b", re.I), 0),
    (re.compile(r"\b(?:the\s+)?(night)\s+before\s+last\b", re.I), 2),
    (re.compile(r"\blast\s+(night)\b", re.I), 1),
    (re.compile(rf"\b{_YESTERDAY}(?:['’]s)?\s+{_PART}\b", re.I), 1),  # "yesterday evening", misspelt too
    # "Tuesday evening", "last Fri night", "Monday's afternoon"
    (re.compile(rf"\b(?:{_WEEKDAYS}|{_SHORT_DAYS})\.?(?:['’]s)?\s+{_PART}s?\b", re.I), None),
    (re.compile(r"\b(?:in|during)\s+the\s+(morning|afternoon|evening|night)\b", re.I), None),  # "on Feb 12 in the…"
    (re.compile(r"\bat\s+(night)\b", re.I), None),
    (re.compile(r"\bthe\s+(morning|afternoon|evening|night)\s+(?:of|on)\b", re.I), None),  # "the morning of March 3"
)
_SINCE = re.compile(r"\bsince\s+(?:the\s+)?$", re.I)


def said_day_part(text: str) -> SaidDayPart | None:
    """The one part of a day `text` says, or None when it says none, or two that differ ("last night and this
    morning": the days, whole)."""
    found: list[tuple[int, SaidDayPart]] = []
    taken: list[tuple[int, int]] = []
    for pattern, days_back in _SAID:
        for m in pattern.finditer(text):
            if any(start < m.end() and m.start() < end for start, end in taken):
                continue
            taken.append((m.start(), m.end()))
            since = bool(_SINCE.search(text[max(0, m.start() - 12) : m.start()]))
            found.append((m.start(), SaidDayPart(PARTS[m[1].lower()], days_back, since)))
    said = {part for _, part in found}
    return found[0][1] if len(said) == 1 else None
