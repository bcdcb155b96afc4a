"""Who wrote a hit or a history message, in the words every door shows: a tool output is the command's, whatever
the role of the message that carried it (Claude Code sends a tool's result as the user's)."""

from __future__ import annotations

_BY_KIND = {"summary": "summary", "tool": "tool output"}


def speaker(kind: str | None, role: str | None) -> str:
    """`summary`, `tool output`, else the role, else `message`."""
    return _BY_KIND.get(kind or "") or role or "message"
