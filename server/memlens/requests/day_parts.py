"""Parts of a day ("this morning", "yesterday afternoon", "last night", "tonight", "Friday evening") as hours of the
user's day, read in one place for a question about a period (answers/period.py) and for since/until
(relative_dates.py): "what did we do this morning" asked at four in the afternoon is not the afternoon's sessions too.

The hours are clock hours of the zone the answers show their times in (`display.timeZone`): a morning from 5:00 to
noon, an afternoon from noon to 18:00, an evening from 17:00 to midnight, a night from 18:00 to 6:00 the next
morning (what was written after midnight was written "last night"); parts said together ("yesterday morning and
afternoon") are the hours from the first's start to the last's end; parts said of different days ("Monday evening and
Tuesday morning") are each that day's hours (`said_day_parts`). Hours counted back from now ("in the last two hours",
"an hour ago") are read here too (`said_hours`), a time on the clock said of a day ("yesterday at 3pm", "since 9am":
`said_clock`), and two said as the ends of a span ("between Monday 3pm and Tuesday noon": `said_clock_span`). Only the
standard library: the CLI reads since and until without importing the engine.
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

    def joined(self, other: DayPart) -> DayPart:
        """The hours from the earlier start to the later end ("morning and afternoon": 5:00 to 18:00)."""
        if other == self:
            return self
        name = f"{self.name} and {other.name}"
        return DayPart(name, min(self.first_hour, other.first_hour), max(self.end_hour, other.end_hour))

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
    weekday: int | None = None  # the weekday its words name ("Tuesday evening": 1, Monday being 0), else None


# "yesterday" as it is misspelt in a search box (the date readers' list too: ranking/dates.py)
YESTERDAY_MISSPELT = (
    "yesterdy", "yestreday", "yesteday", "yesturday", "yesterady", "yesterdya", "ysterday", "yestarday",
)  # fmt: skip
_YESTERDAY = "(?:yesterday|" + "|".join(YESTERDAY_MISSPELT) + ")"
# counts as a question says them ("two days ago", "a couple of hours"); the date readers' too (ranking/dates.py)
NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "couple of": 2, "couple": 2, "few": 3, "several": 3,
}  # fmt: skip
_NUM = r"(\d{1,3}|" + "|".join(sorted(NUMBERS, key=len, reverse=True)) + ")"
# each part's name as it is misspelt in a search box ("this mornig", "tonite"): read wherever the name is
PART_SPELLINGS = {
    "morning": ("mornig", "mornign", "moring", "morming", "mornin", "monring"),
    "afternoon": ("afternon", "aftenoon", "afternooon", "afteroon", "afertnoon"),
    "evening": ("evenning", "evning", "eveing", "evenig"),
    "night": ("nite",),
}
_SPELT_AS = {spelt: name for name, spellings in PART_SPELLINGS.items() for spelt in (name, *spellings)}
_PART_WORD = "(?:" + "|".join(sorted(_SPELT_AS, key=len, reverse=True)) + ")"
_MISSPELT_PART = re.compile(
    r"\b(?:" + "|".join(spelt for spellings in PART_SPELLINGS.values() for spelt in spellings) + r")\b", re.I
)


def spelt_right(text: str) -> str:
    """`text` with each part of a day's name misspelt as PART_SPELLINGS has it written as it is spelt ("this mornig":
    "this morning"; "tonite": "tonight")."""
    text = re.sub(r"\b(?:to|2)nite\b", "tonight", text, flags=re.I)
    return _MISSPELT_PART.sub(lambda m: _SPELT_AS[m[0].lower()], text)


# a part said with more after it: "morning and afternoon", "afternoon and evening", "morning to evening"
_PART = rf"({_PART_WORD}(?:\s*(?:,|and|or|&|to|through|-)\s*(?:the\s+)?{_PART_WORD}\b)*)"
_SHORT_DAYS = "mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun"
_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]{0,6}\.?"
_DAY_NUMBER = r"\d{1,2}(?:st|nd|rd|th)?"
_DATE = rf"(?:{_MONTH}\s+{_DAY_NUMBER}|{_DAY_NUMBER}\s+(?:of\s+)?{_MONTH}|\d{{4}}-\d{{2}}-\d{{2}})"
# each way a question says a part of a day, with the days back its own words name (None: another date names the day)
_SAID: tuple[tuple[re.Pattern[str], int | None], ...] = (
    (re.compile(r"\b(?:this|today['’]?s?)\s+" + _PART + r"\b", re.I), 0),  # "this morning", "today's afternoon"
    (re.compile(r"\bto(night)\b", re.I), 0),
    (re.compile(r"\b(?:the\s+)?(night)\s+before\s+last\b", re.I), 2),
    (re.compile(r"\blast\s+(night)\b", re.I), 1),
    (re.compile(rf"\b{_YESTERDAY}(?:['’]s)?\s+{_PART}\b", re.I), 1),  # "yesterday evening", misspelt too
    # "Tuesday evening", "last Fri night", "Monday's afternoon"
    (re.compile(rf"\b(?:{_WEEKDAYS}|{_SHORT_DAYS})\.?(?:['’]s)?\s+{_PART}s?\b", re.I), None),
    # "Feb 10 evening", "on 11 March in the morning", "2026-02-10 night"
    (re.compile(rf"\b{_DATE},?\s+(?:in\s+the\s+)?{_PART}\b", re.I), None),
    (re.compile(rf"\b(?:in|during)\s+the\s+({_PART_WORD})\b", re.I), None),  # "on Feb 12 in the morning"
    (re.compile(r"\bat\s+(night)\b", re.I), None),
    (re.compile(rf"\bthe\s+({_PART_WORD})\s+(?:of|on)\b", re.I), None),  # "the morning of March 3"
)
_SINCE = re.compile(r"\bsince\s+(?:the\s+)?$", re.I)


def said_day_part(text: str) -> SaidDayPart | None:
    """The one part of a day `text` says, or None when it says none, or two that differ ("last night and this
    morning": `said_day_parts` reads each)."""
    found = said_day_parts(text)
    said = {(part.part, part.days_back, part.since) for part in found}
    return found[0] if len(said) == 1 else None


_WEEKDAY_AT_START = re.compile(rf"(?:{_WEEKDAYS}|{_SHORT_DAYS})\b", re.I)
_WEEKDAY_NUMBERS = {name[:3]: i for i, name in enumerate(_WEEKDAYS.split("|"))}


def said_day_parts(text: str) -> list[SaidDayPart]:
    """Every part of a day `text` says, in the order said: "Monday evening and Tuesday morning" two, each with the
    weekday its words name."""
    text = spelt_right(text)
    found: list[tuple[int, SaidDayPart]] = []
    taken: list[tuple[int, int]] = []
    for pattern, days_back in _SAID:
        for m in pattern.finditer(text):
            if any(start < m.end() and m.start() < end for start, end in taken):
                continue
            taken.append((m.start(), m.end()))
            since = bool(_SINCE.search(text[max(0, m.start() - 12) : m.start()]))
            names = [_SPELT_AS[spelt] for spelt in re.findall(_PART_WORD, m[1].lower())]
            part = PARTS[names[0]]
            for name in names[1:]:
                part = part.joined(PARTS[name])
            day = _WEEKDAY_AT_START.match(m[0])
            weekday = _WEEKDAY_NUMBERS[day[0][:3].lower()] if day else None
            found.append((m.start(), SaidDayPart(part, days_back, since, weekday)))
    return [part for _, part in sorted(found, key=lambda said: said[0])]


_UNIT_SECONDS = {"hour": 3600, "hr": 3600, "minute": 60, "min": 60}
_HOURS_BACK = re.compile(
    rf"\b(?:(?:in|over|during|within|for)\s+)?(?:the\s+)?(?:last|past)\s+(?:{_NUM}\s+)?(hour|hr|minute|min)s?\b", re.I
)
_HOURS_AGO = re.compile(rf"\b{_NUM}\s+(hour|hr|minute|min)s?\s+ago\b", re.I)


def said_hours(text: str) -> tuple[float, float] | None:
    """The time a question counts back from now in hours or minutes, as (seconds back to its start, seconds back to
    its end): "in the last two hours" (7200, 0); "an hour ago" the hour around then, half of it (at least half an
    hour) either side, (5400, 1800). None when it says no such time, or two."""
    found: list[tuple[float, float]] = []
    for m in _HOURS_BACK.finditer(text):
        found.append((_count(m[1]) * _UNIT_SECONDS[m[2].lower()], 0.0))
    for m in _HOURS_AGO.finditer(text):
        back = _count(m[1]) * _UNIT_SECONDS[m[2].lower()]
        slack = max(back / 2, 1800.0)
        found.append((back + slack, max(0.0, back - slack)))
    return found[0] if len(found) == 1 else None


def _count(word: str | None) -> int:
    """A count as said ("2", "two", "a couple of"); none said ("the last hour") is one."""
    if word is None:
        return 1
    word = " ".join(word.lower().split())
    return int(word) if word.isdigit() else NUMBERS.get(word, 1)


# a time on the clock: "3pm", "2:30 pm", "14:00", "noon"
CLOCK = r"(?:(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b|(\d{1,2}):(\d{2})\b|(noon|midday|midnight)\b)"
_CLOCK_SAID = re.compile(
    rf"\b(since|after|from|at|around|about|before|until|till)\s+(?:about\s+|around\s+)?{CLOCK}", re.I
)
_NAMED_HOURS = {"noon": 12, "midday": 12, "midnight": 0}


@dataclass(frozen=True, slots=True)
class SaidClock:
    """A time on the clock a question says, and how: "since 9am" (`since`: from it on), "at 3pm" (`at`: the hour
    around it), "before noon" (`before`: the day up to it)."""

    hour: int
    minute: int
    relation: str  # since | at | before

    def bounds(self, day: date, zone: tzinfo) -> tuple[datetime, datetime]:
        """The moments it names on `day` in `zone`: from the first to the second (excluded)."""
        midnight = datetime(day.year, day.month, day.day, tzinfo=zone)
        moment = midnight + timedelta(hours=self.hour, minutes=self.minute)
        if self.relation == "since":
            return moment, midnight + timedelta(days=1)
        if self.relation == "before":
            return midnight, moment
        return moment - timedelta(hours=1), moment + timedelta(hours=1)


_RELATIONS = {
    "since": "since",
    "after": "since",
    "from": "since",
    "before": "before",
    "until": "before",
    "till": "before",
}


def said_clock(text: str) -> SaidClock | None:
    """The one time on the clock `text` says after a word that says how ("since 9am", "at 3pm", "before noon"), or
    None when it says none, or two."""
    found = [m for m in _CLOCK_SAID.finditer(text)]
    if len(found) != 1:
        return None
    m = found[0]
    time_said = _hour_and_minute(m, 2)
    if time_said is None:
        return None
    return SaidClock(*time_said, _RELATIONS.get(m[1].lower(), "at"))


def _hour_and_minute(m: re.Match[str], first: int) -> tuple[int, int] | None:
    """The hour and minute of a match of CLOCK whose groups start at group `first`; None for no time of a day
    ("13pm", "25:00")."""
    h12, m12, meridiem, h24, m24, named = (m[first + i] for i in range(6))
    if named:
        hour, minute = _NAMED_HOURS[named.lower()], 0
    elif h24:
        hour, minute = int(h24), int(m24)
    else:
        hour, minute = int(h12), int(m12 or 0)
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if meridiem.lower() == "pm" else 0)
    if hour > 23 or minute > 59:
        return None
    return hour, minute


@dataclass(frozen=True, slots=True)
class SaidClockSpan:
    """Two times on the clock said as the ends of a span ("between Monday 3pm and Tuesday noon", "yesterday from
    10pm to 2am"): from the first, on the first day the question names, to the second, on its last day."""

    start: tuple[int, int]  # hour, minute
    end: tuple[int, int]

    def bounds(self, first: date, last: date, zone: tzinfo) -> tuple[datetime, datetime]:
        """From the start on `first` to the end on `last` (excluded), in `zone`; an end before the start on the same
        day is the next day's ("from 10pm to 2am")."""
        start = datetime(first.year, first.month, first.day, *self.start, tzinfo=zone)
        end = datetime(last.year, last.month, last.day, *self.end, tzinfo=zone)
        if end <= start and first == last:
            end += timedelta(days=1)
        return start, end


_ANY_CLOCK = re.compile(rf"\b{CLOCK}", re.I)
_SPAN_OPENS = re.compile(r"\b(?:between|from)\b[^.?!;,]{0,30}$", re.I)  # "between Monday ", "from "
_SPAN_GAP = re.compile(r"[^.?!;,]{0,30}?(?:\b(?:and|to|until|till|through|thru)\b|[-–])[^.?!;,]{0,30}", re.I)


def said_clock_span(text: str) -> SaidClockSpan | None:
    """The two times on the clock `text` says as the ends of a span, after "between" or "from" and joined by "and",
    "to" or a dash ("between Monday 3pm and Tuesday noon", "from 9:00 to 11:30"), or None when it says no such
    span."""
    found = list(_ANY_CLOCK.finditer(text))
    if len(found) != 2:
        return None
    first, second = found
    if not _SPAN_OPENS.search(text[max(0, first.start() - 40) : first.start()]):
        return None
    if not _SPAN_GAP.fullmatch(text[first.end() : second.start()]):
        return None
    start, end = _hour_and_minute(first, 1), _hour_and_minute(second, 1)
    if start is None or end is None:
        return None
    return SaidClockSpan(start, end)
