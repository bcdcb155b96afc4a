"""Relative dates for `since`/`until` (`7d`, `12h`, `2w`, `3m`, `1y` ago, `today`, `yesterday`), read in one place
for every door: the CLI's `--since 7d`, the editor's `since:7d`, the MCP tools. The units match the editor's search
box (client/src/query.ts): a month is 30 days, a year 365."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

_AMOUNT = re.compile(r"(\d{1,5})\s*([hdwmy])", re.IGNORECASE)
_HOURS = {"h": 1, "d": 24, "w": 24 * 7, "m": 24 * 30, "y": 24 * 365}


def absolute_date(text: str, *, now: datetime | None = None) -> str | None:
    """`text` as an ISO date or date-time when it is a relative date, else None (it may be an ISO date already).
    `today` and `yesterday` are bare dates, so an `until` of them includes the whole day."""
    clock = now or datetime.now(UTC)
    word = text.strip().lower()
    if word == "today":
        return clock.date().isoformat()
    if word == "yesterday":
        return (clock - timedelta(days=1)).date().isoformat()
    amount = _AMOUNT.fullmatch(word)
    if amount is None:
        return None
    hours = int(amount.group(1)) * _HOURS[amount.group(2).lower()]
    return (clock - timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")
