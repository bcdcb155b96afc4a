"""One line of a Claude Code transcript (a `.jsonl` row), as the tests that write small sessions by hand need it."""

from __future__ import annotations

from typing import Any


def claude_line(
    kind: str, uuid: str, parent: str | None, content: object, *, session: str, timestamp: str
) -> dict[str, Any]:
    """A `user` or `assistant` row of `session` (an assistant's message gets the id Claude Code gives it)."""
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message["id"] = f"msg-{uuid}"
    return {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": session,
        "cwd": "/w",
        "timestamp": timestamp,
        "message": message,
    }
