"""Seasons a question about days names ("over the summer", "last winter", "in the spring of 2025"): their months by
the northern hemisphere's meteorological calendar (spring March to May, summer June to August, autumn or fall
September to November, winter December to February), as the holidays read are the US and UK ones. A season's name is
a word of a thing's name too ("spring boot", "summer intern project", "fall back"): it is one only after a word that
makes it a period ("last", "this", "over", "during", "in the", "since" …) and before no word of a name, or with a year
after it ("summer 2025"; a winter has none: "winter 2025" is as often the one that ended in it). "last summer" is the
latest one over before today, "over the summer" the latest begun (up to today while it lasts), "this summer" this
year's once begun, "next summer" none.
"""

from __future__ import annotations

import calendar
import re
from datetime import date

from memlens.engine.ranking.holidays import ends_a_day

DateWindow = tuple[date, date]

FIRST_MONTHS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
_SEASON = re.compile(
    r"\b(spring|summer|autumn|fall|winter)(?:\s+(?:of\s+)?((?:19|20)\d{2})\b(?![-/.:]\d))?(?![\w'’-])", re.I
)
# a word before the name that makes it a period, and which one: "last" the latest over, "next" none to read
_SAID_AS_A_PERIOD = re.compile(
    r"\b(?:(last)|(next)|(this)|over|during|in|since|through(?:out)?|before|after|until|till|by)\s+(?:the\s+)?$", re.I
)


def season_windows(text: str, today: date, *, past: bool = False) -> list[tuple[DateWindow, int, int]]:
    """(first day, last day, start and end offsets in `text`) for each season `text` names as a period, seen from
    `today`; `past`: only those said with "last" (a message's: "over the summer" is as often a plan there)."""
    found: list[tuple[DateWindow, int, int]] = []
    for m in _SEASON.finditer(text):
        name, year = m[1].lower(), m[2]
        said = _SAID_AS_A_PERIOD.search(text[max(0, m.start() - 16) : m.start()])
        if past and (said is None or said[1] is None):
            continue
        if year is not None and name != "winter":
            window: DateWindow | None = _season(name, int(year))
        elif year is None and said is not None and not said[2] and ends_a_day(text, m.end()):
            window = _latest(name, today, over=said[1] is not None, this=said[3] is not None)
        else:
            continue
        if window is not None:
            found.append((window, m.start(), m.end()))
    return found


def _season(name: str, year: int) -> DateWindow:
    """The season that begins in `year`'s month of `FIRST_MONTHS` (a winter runs into the next year)."""
    first = FIRST_MONTHS[name]
    last_year, last_month = (year + 1, 2) if first == 12 else (year, first + 2)
    return date(year, first, 1), date(last_year, last_month, calendar.monthrange(last_year, last_month)[1])


def _latest(name: str, today: date, *, over: bool, this: bool) -> DateWindow | None:
    """The latest season begun on or before `today` (up to today), or with `over` the latest ended before it; `this`:
    only this year's (in January and February, the winter begun last December)."""
    if this:  # this year's; a winter's year is its December's
        years: tuple[int, ...] = (today.year - (name == "winter" and today.month <= 2),)
    else:
        years = (today.year, today.year - 1, today.year - 2)
    for year in years:
        first, last = _season(name, year)
        if over and last < today:
            return first, last
        if not over and first <= today:
            return first, min(last, today)
    return None
