"""Relative dates for since/until, read in one place for every door (the editor's `since:7d` uses the same units)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memlens.errors import InvalidRequest
from memlens.requests import SearchFilterRequest, parse_time
from memlens.requests.relative_dates import absolute_date

NOW = datetime(2026, 3, 15, 12, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7d", "2026-03-08T12:30:00Z"),
        ("-7d", "2026-03-08T12:30:00Z"),  # the minus says the same "ago" (`--since -7d`)
        ("--7d", None),
        ("12h", "2026-03-15T00:30:00Z"),
        ("2W", "2026-03-01T12:30:00Z"),
        ("1m", "2026-02-13T12:30:00Z"),  # a month is 30 days, as in the editor
        ("1y", "2025-03-15T12:30:00Z"),
        ("today", "2026-03-15"),
        (" Yesterday ", "2026-03-14"),
        ("2026-02-10", None),
        ("7 days", None),
        ("sunday", "2026-03-15"),  # NOW is a Sunday: the latest Sunday is today
        ("last sunday", "2026-03-08"),  # ...and the last one before today a week ago
        ("Last  Tuesday", "2026-03-10"),
        ("fri", "2026-03-13"),
        ("monday", "2026-03-09"),
        ("last tues", None),
        ("next monday", None),
        ("d7", None),
    ],
)
def test_relative_dates(text: str, expected: str | None) -> None:
    assert absolute_date(text, now=NOW) == expected


def test_every_door_takes_them_and_names_a_bad_one() -> None:
    assert SearchFilterRequest(since="7d", until="yesterday").since == "7d"
    assert parse_time("yesterday", "until", end_of_day=True) > parse_time("yesterday", "since")
    with pytest.raises(InvalidRequest, match=r"^since must be an ISO date .*\(7d, 12h"):
        parse_time("someday", "since")
    with pytest.raises(InvalidRequest, match="must not be after"):
        SearchFilterRequest(since="today", until="7d")
