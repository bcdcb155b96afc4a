"""Past errors and what fixed them: tool results that matched a pasted error, each with what came after it."""

from typing import TypedDict

from memlens.wire.sessions import HistoryMessage


class ErrorFix(TypedDict):
    """A past tool result that matched the error, and the messages after it in its session (what was done next)."""

    sessionKey: str
    sessionId: str
    format: str
    path: str
    title: str | None
    messageId: str
    timestamp: str | None
    error: bool
    score: float
    text: str
    after: list[HistoryMessage]


class FixesResponse(TypedDict):
    """`memlens.fixes`, `memlens fixes --json`, MCP `find_fixes`."""

    error: str
    fixes: list[ErrorFix]
