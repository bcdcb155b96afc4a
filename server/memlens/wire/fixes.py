"""Past errors and what fixed them: tool results that matched a pasted error, each with what came after it."""

from typing import Literal, NotRequired, TypedDict

from memlens.wire.search import LeftOut
from memlens.wire.sessions import HistoryMessage


class ErrorFix(TypedDict):
    """A past tool result that matched the error, and the messages after it in its session (what was done next); or a
    note or message that quotes the error with its fix (`source`)."""

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
    # a note or a message that quotes the error and says how it was fixed (its text is the piece that says it),
    # absent for a tool result that printed it; a note has no session (`sessionKey`, `sessionId`, `messageId` "")
    # and gives its file as `relPath` shows it and the line the piece starts on
    source: NotRequired[Literal["note", "message"]]
    relPath: NotRequired[str]
    lineStart: NotRequired[int | None]


class FixesResponse(TypedDict):
    """`memlens.fixes`, `memlens fixes --json`, MCP `find_fixes`."""

    error: str  # the error as read: its end, when `leftOut` says its start was left out
    fixes: list[ErrorFix]
    leftOut: NotRequired[LeftOut]  # the pasted error was longer than the bound: only its end was read
