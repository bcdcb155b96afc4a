"""The search answer: ranked results, each with its citation fields and, asked for, how it was scored."""

from typing import NotRequired, TypedDict

from memlens.wire.params import FusionMode, HitKind
from memlens.wire.team import TeamStatus


class Explain(TypedDict):
    """How a hit was scored (`explain: true`)."""

    unitId: int
    bm25: float
    keyword: float
    fused: float
    context: float
    rankScore: float
    probability: float
    vector: float | None
    keywordRank: int | None
    vectorRank: int | None


class SearchResult(TypedDict):
    """One hit: a memory section (lines, heading) or a transcript/summary message (session, message, time).

    A hit's kind decides which keys it has; a `| None` field is one the catalog may hold NULL for (a section before
    a note's first heading, a transcript without a session), sent as null rather than left out, so clients must
    treat null as they treat an absent key."""

    id: str
    kind: HitKind
    score: float
    path: str
    relPath: str
    lineStart: NotRequired[int | None]
    lineEnd: NotRequired[int | None]
    heading: NotRequired[str | None]
    format: NotRequired[str]
    sessionKey: NotRequired[str | None]
    sessionId: NotRequired[str | None]
    messageId: NotRequired[str | None]
    role: NotRequired[str | None]
    timestamp: NotRequired[str | None]
    messageCount: NotRequired[int]
    title: NotRequired[str]
    resumeCommand: NotRequired[str | None]
    parentSessionKey: NotRequired[str]
    excerpt: str
    explain: NotRequired[Explain]
    publisher: NotRequired[str]
    project: NotRequired[str]


class SearchResponse(TypedDict):
    """`memlens.search`, `memlens search --json`, MCP `search`."""

    query: str
    mode: str
    results: list[SearchResult]
    totalResults: int
    searchTimeMs: float
    indexing: bool
    fusion: NotRequired[FusionMode]
    note: NotRequired[str]
    team: NotRequired[TeamStatus]
