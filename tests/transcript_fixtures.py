"""Where the transcript fixtures live and how the parser tests read them: the real ones in ../shared (optional),
the committed synthetic ones (always). One module so test_parsers.py and test_parsers_real.py agree on both."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

from conftest import SHARED
from memlens.engine.sources import ParseResult, parse_file

HERE = Path(__file__).resolve().parent
TRANSCRIPTS = SHARED / "fixtures" / "transcripts"  # real, when ../shared is present
SYNTHETIC = HERE / "fixtures" / "transcripts"  # committed: one tree of every format
INCREMENTAL = HERE / "fixtures" / "incremental"  # committed: a session in two steps (turn-1 is a prefix of turn-2)
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


def axolotl_session(path: Path) -> None:
    """An OpenClaw session of one message about an axolotl, found by no other fixture: a transcript added later."""
    header = {"type": "session", "version": 3, "id": "0d0e0f10-cccc-4bbb-8ccc-777788889999", "cwd": "/w"}
    text = "The axolotl aquarium heater was replaced with a 50 W model."
    message = {"role": "user", "content": [{"type": "text", "text": text}]}
    line = {"type": "message", "id": "x1", "parentId": None, "timestamp": "2026-04-01T09:00:00Z", "message": message}
    path.write_text(json.dumps(header) + "\n" + json.dumps(line) + "\n", encoding="utf-8")
