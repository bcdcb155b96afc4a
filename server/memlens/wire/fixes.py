"""Past errors and what fixed them: tool results that matched a pasted error, each with what came after it."""

from typing import NotRequired, TypedDict

from memlens.wire.search import LeftOut
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

    error: str  # the error as read: its end, when `leftOut` says its start was left out
    fixes: list[ErrorFix]
    leftOut: NotRequired[LeftOut]  # the pasted error was longer than the bound: only its end was read
