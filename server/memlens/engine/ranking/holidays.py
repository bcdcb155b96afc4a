"""Holidays a question about days names ("over Christmas", "since Easter", "the day after New Year's", "Labor Day"):
the days of the latest one on or before the day asked (the one of a year said after it: "Christmas 2024"; none
still to come: "next Easter", or "this Christmas" said in March). Read: the holidays common to the US and the UK,
and the US federal ones, by one calendar each ("Thanksgiving" is the US one, the fourth Thursday of November; "Labor
Day" the first Monday of September; "Mother's Day" the US one, the second Sunday of May, as the UK's is named
"Mothering Sunday"; "Father's Day" the third Sunday of June in both); no regional or religious calendar beyond
Easter's (Western, Gregorian). Said with "over", "during", "at", "around" or followed by "weekend", a holiday is its
days off around it: Christmas Eve to Boxing Day, New Year's Eve and Day, Thanksgiving Thursday to Sunday, Good Friday
to Easter Monday, a Monday's weekend and the Monday; followed by "week", the Monday to Sunday it falls in. "The
holidays" ("over the holidays", "the holiday break", "the Christmas break", "winter break") are Christmas Eve to New
Year's Day: the days most offices close, whatever a school's break is. A holiday's name is a word of a thing's name
too ("easter egg", "christmas tree lights plugin", "labor day sale banner", "Halloween theme", "mother's day promo
page"): it is a day only when no word of its own follows it, and the names that are also words ("Christmas",
"Easter", "Halloween", "Thanksgiving", "Valentine's", "New Year's", "the holidays") only after a word that makes them
a day ("on", "over", "since", "last", "before", "the week of"…; "holidays" only as "the holidays", and "New Year" not
as "the new year", as often a plan); a year said after a name ("Christmas 2024") or a date in it ("July 4th") makes
it a day whatever follows.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from memlens.engine.keyword.stop_words import STOP_WORDS

DateWindow = tuple[date, date]


def easter(year: int) -> date:
    """Easter Sunday of the Gregorian calendar (the anonymous algorithm of 1876, as Meeus gives it): computed
    rather than taken from python-dateutil, which memlens does not depend on (only a test's tools bring it)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    el = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * el) // 451
    month, day = divmod(h + el - 7 * m + 114, 31)
    return date(year, month, day + 1)


def nth_weekday(year: int, month: int, weekday: int, nth: int) -> date | None:
    """The `nth` (1-5; -1 the last) `weekday` (Monday 0) of a month; None when it has no fifth."""
    if nth < 0:
        last = date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)
        return last - timedelta(days=(last.weekday() - weekday) % 7)
    first = date(year, month, 1)
    day = first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (nth - 1))
    return day if day.month == month else None


def _nth(year: int, month: int, weekday: int, nth: int) -> date:
    """`nth_weekday` for a holiday's `nth` (1-4, or -1), which every month has."""
    day = nth_weekday(year, month, weekday, nth)
    if day is None:
        raise ValueError(f"no {nth}th weekday {weekday} in {year}-{month}")
    return day


def _fixed(month: int, day: int) -> Callable[[int], date]:
    return lambda year: date(year, month, day)


def _thanksgiving(year: int) -> date:
    return _nth(year, 11, 3, 4)


def _mothering_sunday(year: int) -> date:
    return easter(year) - timedelta(days=21)  # the fourth Sunday of Lent


@dataclass(frozen=True, slots=True)
class Holiday:
    day: Callable[[int], date]  # the holiday's day in a year
    days_off: tuple[int, int] = (0, 0)  # "over Christmas": the days before and after the day that are its days off
    word: bool = False  # its name is also a word ("easter", "christmas"): a day only after a word that says so
    period: bool = False  # its days off are what it names, whatever word is said before it ("the holidays")


_MONDAY_WEEKEND = (-2, 0)  # "Memorial Day weekend": the Saturday to the Monday
HOLIDAYS: dict[str, Holiday] = {
    "christmas": Holiday(_fixed(12, 25), (-1, 1), word=True),
    "christmas day": Holiday(_fixed(12, 25), (-1, 1)),
    "christmas eve": Holiday(_fixed(12, 24)),
    "boxing day": Holiday(_fixed(12, 26)),
    "new year's eve": Holiday(_fixed(12, 31)),
    "new year's": Holiday(_fixed(1, 1), (-1, 0), word=True),
    "new year's day": Holiday(_fixed(1, 1), (-1, 0)),
    "thanksgiving": Holiday(_thanksgiving, (0, 3), word=True),
    "thanksgiving day": Holiday(_thanksgiving, (0, 3)),
    "black friday": Holiday(lambda year: _thanksgiving(year) + timedelta(days=1)),
    "easter": Holiday(easter, (-2, 1), word=True),
    "easter sunday": Holiday(easter, (-2, 1)),
    "good friday": Holiday(lambda year: easter(year) - timedelta(days=2), (0, 3)),
    "easter monday": Holiday(lambda year: easter(year) + timedelta(days=1), (-3, 0)),
    "halloween": Holiday(_fixed(10, 31), word=True),
    "valentine's": Holiday(_fixed(2, 14), word=True),
    "valentine's day": Holiday(_fixed(2, 14)),
    "labor day": Holiday(lambda year: _nth(year, 9, 0, 1), _MONDAY_WEEKEND),
    "memorial day": Holiday(lambda year: _nth(year, 5, 0, -1), _MONDAY_WEEKEND),
    "mlk day": Holiday(lambda year: _nth(year, 1, 0, 3), _MONDAY_WEEKEND),
    "presidents' day": Holiday(lambda year: _nth(year, 2, 0, 3), _MONDAY_WEEKEND),
    "juneteenth": Holiday(_fixed(6, 19)),
    "independence day": Holiday(_fixed(7, 4)),
    "veterans day": Holiday(_fixed(11, 11)),
    "bonfire night": Holiday(_fixed(11, 5)),
    "mother's day": Holiday(lambda year: _nth(year, 5, 6, 2)),  # the US one: the second Sunday of May
    "mothering sunday": Holiday(_mothering_sunday),
    "father's day": Holiday(lambda year: _nth(year, 6, 6, 3)),  # the third Sunday of June, US and UK
    # Christmas Eve to New Year's Day: the days most offices close between them, however long a school's break is
    "the holidays": Holiday(_fixed(12, 24), (0, 8), word=True, period=True),
    "the holiday break": Holiday(_fixed(12, 24), (0, 8), period=True),
}
_APOSTROPHE = "['’]?"
# each name as it is written (in lower case); the longest first, so "Christmas Eve" is not "Christmas"
_NAMES: dict[str, str] = {
    r"(?:christmas|xmas)\s+(?:break|holidays?|vacation)|winter\s+(?:break|holidays?|vacation)|holiday\s+break": (
        "the holiday break"
    ),
    r"(?<=the\s)holidays": "the holidays",
    r"christmas\s+eve|xmas\s+eve": "christmas eve",
    r"christmas\s+day|xmas\s+day": "christmas day",
    r"christmas|xmas": "christmas",
    r"boxing\s+day": "boxing day",
    rf"new\s+year{_APOSTROPHE}s\s+eve": "new year's eve",
    rf"new\s+year{_APOSTROPHE}s\s+day|new\s+year\s+day": "new year's day",
    rf"new\s+year{_APOSTROPHE}s": "new year's",
    r"(?<!the\s)new\s+year": "new year's",  # "since New Year"; "in the new year" is as often a plan
    r"thanksgiving\s+day": "thanksgiving day",
    r"thanksgiving": "thanksgiving",
    r"black\s+friday": "black friday",
    r"easter\s+sunday": "easter sunday",
    r"easter\s+monday": "easter monday",
    r"easter": "easter",
    r"good\s+friday": "good friday",
    r"hallowe[e']?n": "halloween",
    rf"(?:st\.?\s+)?valentine{_APOSTROPHE}s\s+day": "valentine's day",
    rf"valentine{_APOSTROPHE}s": "valentine's",
    r"labou?r\s+day": "labor day",
    r"memorial\s+day": "memorial day",
    r"(?:mlk|martin\s+luther\s+king(?:\s+jr\.?)?)\s+day": "mlk day",
    rf"presidents{_APOSTROPHE}\s+day|president{_APOSTROPHE}s\s+day": "presidents' day",
    r"juneteenth": "juneteenth",
    r"independence\s+day|(?:the\s+)?(?:4th|fourth)\s+of\s+july|july\s+(?:4th|fourth|4)": "independence day",
    rf"veteran{_APOSTROPHE}s{_APOSTROPHE}\s+day": "veterans day",
    r"bonfire\s+night|guy\s+fawkes(?:\s+night|\s+day)?": "bonfire night",
    rf"mothers?{_APOSTROPHE}s?{_APOSTROPHE}\s+day": "mother's day",
    r"mothering\s+sunday": "mothering sunday",
    rf"fathers?{_APOSTROPHE}s?{_APOSTROPHE}\s+day": "father's day",
}
_NAME = re.compile(
    r"\b(?:" + "|".join(f"({pattern})" for pattern in _NAMES) + r")(?![\w'’-])"
    r"(?:,?\s+((?:19|20)\d{2})\b(?![-/.:]\d))?(\s+(?:weekend|break|holidays?|vacation)\b)?(\s+week\b)?",
    re.I,
)
_YEAR_GROUP, _DAYS_OFF_GROUP, _WEEK_GROUP = len(_NAMES) + 1, len(_NAMES) + 2, len(_NAMES) + 3
# a word before the name that makes it a day, and which one: "last" the one before today's, "this" this year's
_SAID_AS_A_DAY = re.compile(
    r"\b(?:(over|during|at|around|through(?:out)?)|(last)|(this)|(next)|on|in|since|before|after|until|till|by|from|"
    r"between|and|&|to|thru|past|prior\s+to|week\s+of|day\s+of)\s+(?:the\s+)?$",
    re.I,
)
# words that may follow a holiday said as a day: the time of day, and what a question about it runs on with
_AFTER_A_DAY = frozenset({"morning", "afternoon", "evening", "night", "eve", "week", "weekend", "break", "holiday"})
_CONJUNCTIONS = frozenset({"and", "or", "to", "through", "thru", "until", "till"})
_NEXT_WORD = re.compile(r"\s*(['’]?)([^\W\d_]*)")


def holiday_windows(text: str, today: date) -> list[tuple[DateWindow, int, int]]:
    """(first day, last day, start and end offsets in `text`) for each holiday `text` names as a day, seen from
    `today`; a name said as a thing's ("easter egg") or one still to come is none."""
    found: list[tuple[DateWindow, int, int]] = []
    for m in _NAME.finditer(text):
        key = _NAMES[next(pattern for pattern, group in zip(_NAMES, m.groups(), strict=False) if group)]
        holiday = HOLIDAYS[key]
        said = _SAID_AS_A_DAY.search(text[max(0, m.start() - 16) : m.start()])
        year, days_off, week = m[_YEAR_GROUP], m[_DAYS_OFF_GROUP] is not None, m[_WEEK_GROUP] is not None
        if holiday.word and said is None and year is None and not days_off and not week:  # "easter eggs"
            continue
        if year is None and "july" not in m[0].lower() and not ends_a_day(text, m.end()):  # "easter egg"
            continue
        window = _window(holiday, today, said, None if year is None else int(year), days_off)
        if window is not None and week:  # "Christmas week": the Monday to Sunday of its day
            monday = window[0] - timedelta(days=window[0].weekday())
            window = monday, monday + timedelta(days=6)
        if window is not None:
            found.append((window, m.start(), m.end()))
    return found


def _window(
    holiday: Holiday, today: date, said: re.Match[str] | None, year: int | None, days_off: bool
) -> DateWindow | None:
    """The holiday's day (or `days_off`, or said with "over": its days off) in `year`, else the latest one."""
    if said is not None and said[4]:  # "next Easter": a plan, no day that was
        return None
    if year is not None:
        day = holiday.day(year)
    elif said is not None and said[3]:  # "this Christmas": this year's, when it is past
        day = holiday.day(today.year)
        if day > today:
            return None
    else:  # the latest on or before today ("last": before today)
        before = today - timedelta(days=1) if said is not None and said[2] else today
        day = holiday.day(before.year)
        if day > before:
            day = holiday.day(before.year - 1)
    if (said is not None and said[1]) or days_off or holiday.period:  # "over Christmas", "Memorial Day weekend"
        return day + timedelta(days=holiday.days_off[0]), day + timedelta(days=holiday.days_off[1])
    return day, day


def ends_a_day(text: str, end: int) -> bool:
    """Whether no word of a thing's name follows a day's name at `end` ("easter egg", "Christmas tree", "sat
    solver"; "Sun's JDK" is a possessive): the text ends, a mark, a stop word or the time of day follows; after "and" or
    "or", a date or another holiday."""
    m = _NEXT_WORD.match(text, end)
    if m is None or m[1]:
        return m is None
    word = m[2].lower()
    if not word:
        return True
    if word in _CONJUNCTIONS:
        rest = text[m.end() : m.end() + 40].lstrip()  # a long paste stays linear
        return not rest or bool(_NAME.match(rest)) or rest[:1].isdigit() or _starts_a_date(rest)
    return word in STOP_WORDS or word in _AFTER_A_DAY


_DATE_START = re.compile(
    r"(?:the\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun|new\s+year|"
    r"yesterday|today|last|this|early|mid|late|end|beginning|day|week)",
    re.I,
)


def _starts_a_date(text: str) -> bool:
    return bool(_DATE_START.match(text))
