"""Whether a day exists, and why not: one answer for a date flag (`--since 2026-02-30`: an error, exit 2) and for a
date a query names ("what did we do on February 30": a note beside the results, the words still searched).

A numeric date that one order of day and month reads as one day and the other as another ("11/02/2026") is neither:
it is searched as words and the answer names both days and the way to write the one meant.

Why the two differ: a flag's value is only ever a date, so one that cannot exist is a mistake to be told at once; a
query is free text, where "February 30" may be words to find (a bug about that very day), so it is searched as
words and the answer says that no day was read from it."""

from __future__ import annotations

import calendar
import re
from datetime import date

from memlens.wire import AmbiguousDate, UnreadDate

_ISO_DAY = re.compile(r"\s*([+-]?\d{4})-(\d{2})-(\d{2})(?:[T ].*)?\s*", re.S)


def why_no_such_day(month: int, day: int, year: int | None = None) -> str | None:
    """None when `day` of `month` exists (in `year`, or in some year when none is given), else why not: `there is no
    month 13`, `April has 30 days`, `February 2026 has 28 days`, `February has 29 days at most`."""
    if not 1 <= month <= 12:
        return f"there is no month {month}"
    if day < 1:
        return "there is no day 0"
    name = calendar.month_name[month]
    if year is None:
        most = 29 if month == 2 else calendar.monthrange(2001, month)[1]
        return None if day <= most else f"{name} has {most} days" + (" at most" if month == 2 else "")
    most = calendar.monthrange(year, month)[1] if 1 <= year <= 9999 else 31
    return None if day <= most else f"{name} {year} has {most} days"


def why_not_iso_day(text: str) -> str | None:
    """Why `text`, written as an ISO date (`2026-02-30`, `2026-13-01T10:00`), names no day; None when it is not
    written so, or names one."""
    written = _ISO_DAY.fullmatch(text)
    if written is None:
        return None
    return why_no_such_day(int(written[2]), int(written[3]), int(written[1]))


def unread_date_note(unread: UnreadDate) -> str:
    """`"February 30" is not a date (February has 29 days at most): left out of the search, no day read from it`, or
    `searched as words` where it was all the query named (an answer of an older memlens has no `wordsSearched`)."""
    done = "searched as words" if unread.get("wordsSearched", True) else "left out of the search"
    return f'"{unread["text"]}" is not a date ({unread["reason"]}): {done}, no day read from it'


def ambiguous_date_note(ambiguous: AmbiguousDate) -> str:
    """`"11/02/2026" could be 11 February or 2 November 2026: searched as words, no day read from it; write 2026-02-11
    or 2026-11-02 for a day`."""
    days = [date.fromisoformat(day) for day in ambiguous["readings"]]
    named = " or ".join(f"{day.day} {calendar.month_name[day.month]}" for day in days)
    years = sorted({day.year for day in days})
    written = " or ".join(ambiguous["readings"])
    return (
        f'"{ambiguous["text"]}" could be {named} {"/".join(map(str, years))}: searched as words, no day read from it;'
        f" write {written} for a day"
    )
