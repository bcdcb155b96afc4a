"""Relative dates for `since`/`until` (`7d`, `12h`, `2w`, `3m`, `1y` ago, `today`, `yesterday`, a weekday such as
`monday` or `last tuesday`), read in one place for every door: the CLI's `--since 7d`, the editor's `since:7d`, the
MCP tools. The units match the editor's search box (client/src/query.ts): a month is 30 days, a year 365. A day word
names a day of the zone the answers show their times in (`display.timeZone`), as a question's "yesterday" does."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, tzinfo

# `-3d` too: the minus of `date -d -3days` and of a shell user's "3 days back" says the same "ago"
_AMOUNT = re.compile(r"-?(\d{1,5})\s*([hdwmy])", re.IGNORECASE)
_HOURS = {"h": 1, "d": 24, "w": 24 * 7, "m": 24 * 30, "y": 24 * 365}
_WEEKDAY = re.compile(r"(last\s+)?([a-z]+)")
_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY_NUMBER = {name: number for number, day in enumerate(_DAYS) for name in (day, day[:3])}


def absolute_date(text: str, *, now: datetime | None = None, zone: tzinfo = UTC) -> str | None:
    """`text` as an ISO date or date-time when it is a relative date, else None (it may be an ISO date already).
    `today`, `yesterday` and weekdays are bare dates, days of `zone`, so an `until` of them includes the whole day;
    a duration ago is a moment, in UTC."""
    clock = (now or datetime.now(UTC)).astimezone(zone)
    word = text.strip().lower()
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
