"""Relative dates for `since`/`until` (`7d`, `12h`, `2w`, `3m`, `1y` ago, `today`, `yesterday`, a weekday such as
`monday` or `last tuesday`, a part of one such as `this morning`, `yesterday afternoon` or `last night`, a time on the
clock such as `14:00` or `yesterday 9am`), read in one place for every door: the CLI's `--since 7d`, the editor's
`since:7d`, the MCP tools. The units match the editor's search box (client/src/query.ts): a month is 30 days, a year
365. A day word names a day of the zone the answers show their times in (`display.timeZone`), as a question's
"yesterday" does."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta, tzinfo

from memlens.requests.day_parts import PARTS, spelt_right

# `-3d` too: the minus of `date -d -3days` and of a shell user's "3 days back" says the same "ago"
_AMOUNT = re.compile(r"-?(\d{1,5})\s*([hdwmy])", re.IGNORECASE)
_HOURS = {"h": 1, "d": 24, "w": 24 * 7, "m": 24 * 30, "y": 24 * 365}
_WEEKDAY = re.compile(r"(last\s+)?([a-z]+)")
_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY_NUMBER = {name: number for number, day in enumerate(_DAYS) for name in (day, day[:3])}
# a part of a day after the day it is of: "this morning", "yesterday afternoon", "friday evening", "last night"
_DAY_PART = re.compile(r"(?:(.*?)\s+)?(morning|afternoon|evening|night)")
_THIS_DAY = {"this", "today", "to"}  # "to" of "tonight", read as "to night"
# a time on the clock, today's or after a day word: "14:00", "9am", "2:30 pm", "yesterday 14:00", "monday at 9am" (a
# bare number is no time: "7" may be a count)
_CLOCK = re.compile(r"(?:(.*?)\s+(?:at\s+)?)?(?:(\d{1,2}):(\d{2})\s*(am|pm)?|(\d{1,2})\s*(am|pm))")


def absolute_date(text: str, *, now: datetime | None = None, zone: tzinfo = UTC, end: bool = False) -> str | None:
    """`text` as an ISO date or date-time when it is a relative date, else None (it may be an ISO date already).
    `today`, `yesterday` and weekdays are bare dates, days of `zone`, so an `until` of them includes the whole day;
    a duration ago is a moment, in UTC. A part of a day (`this morning`, `last night`) is its first moment in
    `zone`, or with `end` its last (an `until`'s)."""
    clock = (now or datetime.now(UTC)).astimezone(zone)
    word = spelt_right(" ".join(text.strip().lower().split()))
    part = _DAY_PART.fullmatch("to night" if word == "tonight" else word)
    if part is not None:
        return _day_part(part[1] or "", part[2], clock=clock, zone=zone, end=end)
    clock_time = _CLOCK.fullmatch(word)
    if clock_time is not None and (moment := _clock_time(clock_time, clock=clock, zone=zone)) is not None:
        return moment
    if word == "today":
        return clock.date().isoformat()
    if word == "yesterday":
        return (clock - timedelta(days=1)).date().isoformat()
    weekday = _WEEKDAY.fullmatch(word)
    if weekday is not None and weekday[2] in _WEEKDAY_NUMBER:
        # the latest such day: `monday` may be today, `last monday` is before today (a question's "last Tuesday")
        back = (clock.weekday() - _WEEKDAY_NUMBER[weekday[2]]) % 7
        if back == 0 and weekday[1]:
            back = 7
        return (clock - timedelta(days=back)).date().isoformat()
    amount = _AMOUNT.fullmatch(word)
    if amount is None:
        return None
    hours = int(amount.group(1)) * _HOURS[amount.group(2).lower()]
    return (clock - timedelta(hours=hours)).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _day_part(day_words: str, part_name: str, *, clock: datetime, zone: tzinfo, end: bool) -> str | None:
    """The first (or with `end` the last) moment of a part of the day `day_words` names, as an ISO date-time of
    `zone`; None when they name no day."""
    if day_words in _THIS_DAY:
        day: date | None = clock.date()
    elif day_words == "last" and part_name == "night":
        day = clock.date() - timedelta(days=1)
    else:
        named = absolute_date(day_words, now=clock, zone=zone) if day_words else None
        day = date.fromisoformat(named) if named is not None and len(named) == 10 else None
    if day is None:
        return None
    first, after = PARTS[part_name].bounds(day, zone)
    return (after - timedelta(milliseconds=1) if end else first).isoformat()


def _clock_time(m: re.Match[str], *, clock: datetime, zone: tzinfo) -> str | None:
    """A time on the clock of the day before it (today when none is said) as an ISO date-time of `zone`; None when
    the hour or the minute cannot be, or the words before it name no day."""
    hour, minute = int(m[2] or m[5]), int(m[3] or 0)
    half = m[4] or m[6]
    if half is not None:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if half == "pm" else 0)
    if hour > 23 or minute > 59:
        return None
    if m[1] in (None, "today"):
        day: date | None = clock.date()
    else:
        named = absolute_date(m[1], now=clock, zone=zone)
        day = date.fromisoformat(named) if named is not None and len(named) == 10 else None
    if day is None:
        return None
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone).isoformat()
