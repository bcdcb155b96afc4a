"""A small transcript folder whose one session ran into a distinctive exception and fixed it, and a pasted traceback
of it far longer than a query's bound (200 frames), for the tests of a paste read by its end (CLI and MCP)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SESSION = "3c9e1d7a-5b2f-4e8a-9c1d-7f6e5d4c3b2a"
EXCEPTION = "zebracorn.buffers.QuuxOverflowError: the quux ring overflowed at slot 4096 (capacity 4095)"
FIX_WORDS = "widen the quux ring before the flush"
FRAMES = 200


def traceback_text(frames: int = FRAMES) -> str:
    """A Python traceback of `frames` frames ending in EXCEPTION: the head (the first frames) names nothing of it."""
    lines = ["Traceback (most recent call last):"]
    for i in range(frames):
        lines.append(f'  File "/srv/app/pipeline/stage_{i:03d}.py", line {100 + i}, in run_stage_{i:03d}')
        lines.append(f"    return run_stage_{i + 1:03d}(payload, options=options)")
    lines.append('  File "/srv/app/zebracorn/buffers.py", line 88, in push')
    lines.append("    raise QuuxOverflowError(slot, self.capacity)")
    lines.append(EXCEPTION)
    return "\n".join(lines) + "\n"


def _line(kind: str, uuid: str, parent: str | None, content: object, minute: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message["id"] = f"msg-{uuid}"
    return {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": SESSION,
        "cwd": "/w",
        "timestamp": f"2026-05-11T10:{minute:02d}:00Z",
        "message": message,
    }


def write_transcripts(root: Path) -> Path:
    """`root`/claude-code/-w/SESSION.jsonl: the failing run (its output the same traceback), then the fix."""
    folder = root / "claude-code" / "-w"
    folder.mkdir(parents=True)
    output = "Exit code 1\n" + traceback_text()
    call = [{"type": "tool_use", "id": "call-1", "name": "Bash", "input": {"command": "python -m app.pipeline"}}]
    result = [{"type": "tool_result", "tool_use_id": "call-1", "is_error": True, "content": output}]
    fix = [{"type": "text", "text": f"The ring is full at 4096: {FIX_WORDS}."}]
    lines = [
        _line("user", "u1", None, "run the pipeline", 0),
        _line("assistant", "a1", "u1", call, 1),
        _line("user", "r1", "a1", result, 2),
        _line("assistant", "a2", "r1", fix, 3),
    ]
    path = folder / f"{SESSION}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return root
