"""Relative dates for since/until, read in one place for every door (the editor's `since:7d` uses the same units)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from claude_lines import claude_line
from memlens.errors import InvalidRequest
from memlens.requests import SearchFilterRequest, parse_time
from memlens.requests.relative_dates import absolute_date
from memlens_runs import claude_folder_flags

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


@pytest.mark.parametrize(
    ("zone", "now", "today", "yesterday", "monday"),
    [
        ("UTC", NOW, "2026-03-15", "2026-03-14", "2026-03-09"),
        ("Asia/Tokyo", datetime(2026, 3, 15, 20, tzinfo=UTC), "2026-03-16", "2026-03-15", "2026-03-16"),  # Mon 05:00
        ("America/Los_Angeles", datetime(2026, 3, 15, 3, tzinfo=UTC), "2026-03-14", "2026-03-13", "2026-03-09"),
    ],
)
def test_a_day_word_is_a_day_of_the_display_zone(
    zone: str, now: datetime, today: str, yesterday: str, monday: str
) -> None:
    """Tokyo's Monday 05:00 is Sunday in UTC, Los Angeles' Saturday 20:00 too: each zone's own days."""
    assert absolute_date("today", now=now, zone=ZoneInfo(zone)) == today
    assert absolute_date("yesterday", now=now, zone=ZoneInfo(zone)) == yesterday
    assert absolute_date("monday", now=now, zone=ZoneInfo(zone)) == monday
    assert absolute_date("7d", now=NOW, zone=ZoneInfo(zone)) == "2026-03-08T12:30:00Z"  # a moment: no zone's


def test_a_day_words_bounds_are_the_zones_midnights() -> None:
    tokyo = ZoneInfo("Asia/Tokyo")
    before = datetime.now(tokyo).date()
    since = parse_time("today", "since", zone=tokyo)
    until = parse_time("today", "until", end_of_day=True, zone=tokyo)
    start = datetime.fromtimestamp(since, tokyo)
    assert (start.hour, start.minute) == (0, 0) and start.date() in {before, datetime.now(tokyo).date()}
    assert until - since == pytest.approx(86400 - 0.001)
    assert parse_time("2026-03-15", "since", zone=tokyo) == datetime(2026, 3, 15, tzinfo=UTC).timestamp()  # ISO: UTC


def _session_at(folder: Path, name: str, moment: datetime) -> None:
    stamp = moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    session = f"5e55{name.encode().hex()[:8]:0>8}-0000-4000-8000-000000000000"
    row = claude_line("user", f"{name}-1", None, f"the {name} session", session=session, timestamp=stamp)
    (folder / f"{session}.jsonl").write_text(json.dumps(row) + "\n")


@pytest.mark.slow  # CLI processes
@pytest.mark.parametrize("zone", ["Asia/Tokyo", "America/Los_Angeles"])
def test_the_cli_reads_yesterday_in_the_machines_zone(tmp_path: Path, zone: str) -> None:
    """`memlens sessions --since yesterday --until yesterday` with TZ set: the sessions of that zone's yesterday, from
    its first minutes to its last, none of the day before or of today (UTC's yesterday is another window there)."""
    folder = tmp_path / "claude"
    folder.mkdir()
    env = {**os.environ, "TZ": zone}
    for _ in range(2):  # once more when the zone's day changed meanwhile
        for old in folder.iterdir():
            old.unlink()
        local = ZoneInfo(zone)
        day = datetime.now(local).date() - timedelta(days=1)
        midnight = datetime(day.year, day.month, day.day, tzinfo=local)
        for name, moment in {
            "before": midnight - timedelta(minutes=30),
            "early": midnight + timedelta(minutes=30),
            "late": midnight + timedelta(hours=23, minutes=30),
            "after": midnight + timedelta(days=1, minutes=30),
        }.items():
            _session_at(folder, name, moment)
        flags = claude_folder_flags(tmp_path)
        subprocess.run([sys.executable, "-m", "memlens", "index", *flags], check=True, env=env, capture_output=True)
        listed = subprocess.run(
            [sys.executable, "-m", "memlens", "sessions", "--json", "--since", "yesterday", "--until", "yesterday"]
            + flags,
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        if datetime.now(local).date() - timedelta(days=1) == day:
            break
    titles = sorted(s["title"] for s in json.loads(listed.stdout)["sessions"])
    assert titles == ["the early session", "the late session"]
