"""Where the transcript fixtures live and how the parser tests read them: the real ones in ../shared (optional),
the committed synthetic ones (always). One module so test_parsers.py and test_parsers_real.py agree on both."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from conftest import SHARED
from memlens.engine.engine import Engine
from memlens.engine.sources import ParseResult, parse_file
from memlens.settings import Settings

HERE = Path(__file__).resolve().parent
TRANSCRIPTS = SHARED / "fixtures" / "transcripts"  # real, when ../shared is present
SYNTHETIC = HERE / "fixtures" / "transcripts"  # committed: one tree of every format
INCREMENTAL = HERE / "fixtures" / "incremental"  # committed: a session in two steps (turn-1 is a prefix of turn-2)
EVENT_DAYS_FOLDER = HERE / "fixtures" / "event_days"  # committed: EVENT_DAYS as one_message_days writes it (bench.days)
ROOTS = {"shared": TRANSCRIPTS, "synthetic": SYNTHETIC, "incremental": INCREMENTAL}


def fixture_path(root: str, rel: str) -> Path:
    return ROOTS[root] / rel


@cache
def parsed(rel: str, root: str = "shared") -> ParseResult:
    result = parse_file(fixture_path(root, rel))
    assert result is not None, rel
    return result


def all_text(result: ParseResult) -> str:
    return "\n".join(r.text for r in result.records)


def jsonl(*objects: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(o).encode() + b"\n" for o in objects)


def counts(result: ParseResult) -> tuple[int, int, int]:
    """(user messages, assistant messages, summaries); tool results are counted by the tests about them."""
    kinds = Counter("summary" if r.kind == "summary" else r.role for r in result.records if r.kind != "tool")
    return kinds["user"], kinds["assistant"], kinds["summary"]


def openclaw_line(uuid: str, parent: str | None, message: dict[str, object]) -> dict[str, object]:
    """One OpenClaw transcript line holding `message`, linked to its parent line."""
    return {"type": "message", "id": uuid, "parentId": parent, "timestamp": "2026-02-26T14:29:54Z", "message": message}


# One OpenClaw session a day whose events are stated only relative to the day each message was written: the offsite
# "tomorrow" on Thu 29 Feb (Fri 1 Mar); the launch "next Tuesday" on Mon 4 Mar, "tomorrow" on Mon 11 Mar and
# "yesterday" on Wed 13 Mar (all Tue 12 Mar); the demo "in two days" on Mon 4 Mar (Wed 6 Mar), then "on Thursday now"
# on Tue 5 Mar (Thu 7 Mar): one mention each, the later statement the one to take.
EVENT_DAYS = {
    "r1": (datetime(2024, 2, 27, 9, tzinfo=UTC), "Rewrote the billing export to stream its rows."),
    "r2": (datetime(2024, 2, 29, 9, tzinfo=UTC), "Offsite tomorrow! I bring the incident timeline."),
    "r3": (
        datetime(2024, 3, 4, 9, tzinfo=UTC),
        "Reminder: the launch is next Tuesday, Sam books the room. Demo in two days.",
    ),
    "r4": (datetime(2024, 3, 5, 9, tzinfo=UTC), "Fixed the flaky login test; the demo is on Thursday now."),
    "r5": (datetime(2024, 3, 8, 9, tzinfo=UTC), "Paired on the search index rebuild; the shard count stays at four."),
    "r6": (datetime(2024, 3, 11, 9, tzinfo=UTC), "Launch tomorrow! Final checks on the press kit."),
    "r7": (datetime(2024, 3, 13, 9, tzinfo=UTC), "The launch was yesterday and went fine; error rates flat."),
    "r8": (datetime(2024, 3, 14, 9, tzinfo=UTC), "Lunch with Sam; we talked about the garden."),
}


def one_message_days(folder: Path, sessions: Mapping[str, tuple[datetime, str]]) -> Path:
    """`folder` holding one OpenClaw session a day: each of `sessions` (id: its time and its one user message), so
    no neighbour's context links two days."""
    folder.mkdir(parents=True)
    for session_id, (when, text) in sessions.items():
        stamp = when.isoformat().replace("+00:00", "Z")
        lines = [
            {"type": "session", "version": 3, "id": session_id, "timestamp": stamp, "cwd": "/"},
            {
                "type": "message",
                "id": f"{session_id}-m1",
                "parentId": None,
                "timestamp": stamp,
                "message": {"role": "user", "content": [{"type": "text", "text": text}]},
            },
        ]
        (folder / f"{session_id}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return folder


def engine_over_days(tmp_path: Path, sessions: Mapping[str, tuple[datetime, str]], *, zone: str = "UTC") -> Engine:
    """A keyword-only engine, synced, over `one_message_days(tmp_path / "transcripts", sessions)` alone (no agent
    folder), its days read in `zone` (`display.timeZone`)."""
    folder = one_message_days(tmp_path / "transcripts", sessions)
    settings = Settings()
    settings.transcripts.agent_defaults = False
    settings.display.time_zone = zone
    workspace = tmp_path / "ws"
    workspace.mkdir()
    engine = Engine([workspace], settings, extra_transcripts=[folder], index_dir=tmp_path / "index", embedder=False)
    engine.sync()
    return engine


def axolotl_session(path: Path) -> None:
    """An OpenClaw session of one message about an axolotl, found by no other fixture: a transcript added later."""
    header = {"type": "session", "version": 3, "id": "0d0e0f10-cccc-4bbb-8ccc-777788889999", "cwd": "/w"}
    text = "The axolotl aquarium heater was replaced with a 50 W model."
    message = {"role": "user", "content": [{"type": "text", "text": text}]}
    line = {"type": "message", "id": "x1", "parentId": None, "timestamp": "2026-04-01T09:00:00Z", "message": message}
    path.write_text(json.dumps(header) + "\n" + json.dumps(line) + "\n", encoding="utf-8")
