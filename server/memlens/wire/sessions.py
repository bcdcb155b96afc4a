"""A session's messages (history) and the page of sessions (sessions)."""

from typing import Literal, NotRequired, TypedDict

from memlens.wire.params import AgentFormat


class HistoryMessage(TypedDict):
    """One message of a session (the parts of a long message joined)."""

    messageId: str
    role: str
    kind: Literal["message", "summary", "tool"]
    timestamp: str | None
    text: str
    position: int


class HistoryResponse(TypedDict):
    """`memlens.history`: a window of a session's messages and whether more lie on either side."""

    sessionKey: str
    sessionId: str
    format: str
    path: str
    title: NotRequired[str]
    resumeCommand: NotRequired[str | None]
    parentSessionKey: NotRequired[str | None]
    anchor: str | None
    messages: list[HistoryMessage]
    hasMoreBefore: bool
    hasMoreAfter: bool


class FileTouched(TypedDict):
    """A file a session's tool calls read or edited."""

    path: str
    count: int
    edited: bool


class ToolUse(TypedDict):
    """A tool a session called, and how often."""

    name: str
    count: int


class SessionSummary(TypedDict):
    """One session of a `memlens.sessions` page."""

    sessionKey: str
    sessionId: str
    reference: str  # the shortest form `history` opens it by (answers/references.py)
    format: AgentFormat
    title: str
    cwd: str | None
    project: str | None
    path: str
    firstTime: str | None
    lastTime: str | None
    messageCount: int
    filesTouched: list[FileTouched]
    filesTouchedTotal: int
    toolsUsed: list[ToolUse]
    parentSessionKey: str | None
    resumeCommand: str | None


class SessionsResponse(TypedDict):
    """`memlens.sessions`: one page; `nextCursor` asks for the next."""

    sessions: list[SessionSummary]
    totalSessions: int
    nextCursor: str | None
    indexing: bool
    note: NotRequired[str]  # why none is listed when a filter names what no session has (a project none worked in)
