"""The wire protocol, typed: every request and answer the CLI (`--json`), the language server and MCP exchange.

Why it exists: the answers used to be built and passed around as `dict[str, Any]`, so a misspelt key or a field
dropped on one path reached clients unnoticed. Here each answer and each of its parts is a TypedDict whose keys are
exactly the camelCase keys on the wire (`NotRequired` marks a key some answers leave out), the producers in
`memlens.engine` and the `Engine` methods are annotated with them, and `mypy --strict` holds the code to them.
`client/src/protocol.ts` declares the same types for the VS Code client under the same names (the one exception is
`SearchFilterParams`, TS `SearchFilters`, which would clash with `memlens.engine.filters.SearchFilters`);
tests/test_wire_types.py holds the two to each other, key by key and type by type, and holds real answers to these
types. docs/lsp-api.md describes each field.

No logic lives here, and nothing is imported from the rest of memlens, so the engine, the faces and the tests can
all import it. (No `from __future__ import annotations` here: Python 3.11 cannot see `NotRequired` in a string
annotation, and the tests read `__optional_keys__`.)
"""

from typing import Literal, NotRequired, TypedDict

HitKind = Literal["memory", "transcript", "summary"]
SearchMode = Literal["hybrid", "keyword", "vector"]
AgentFormat = Literal["claude-code", "codex", "openclaw", "specstory"]
FusionMode = Literal["weighted", "rrf", "rescue"]

# -- requests (the one object argument of each `workspace/executeCommand`; MCP tools share most of them) ----------


class SearchFilterParams(TypedDict, total=False):
    """`SearchParams.filters` (TS `SearchFilters`); `since`/`until` are ISO dates or date-times."""

    kind: HitKind
    format: AgentFormat
    project: str
    session: str
    role: Literal["user", "assistant"]
    since: str
    until: str


class SearchParams(TypedDict):
    """`memlens.search`."""

    query: str
    limit: NotRequired[int]
    mode: NotRequired[SearchMode]
    fusion: NotRequired[FusionMode]
    filters: NotRequired[SearchFilterParams]
    explain: NotRequired[bool]
    minScore: NotRequired[float]


class HistoryParams(TypedDict):
    """`memlens.history` and the MCP tool `history`: a session's messages around `messageId`."""

    sessionKey: str
    messageId: NotRequired[str]
    limit: NotRequired[int]


class SessionsParams(TypedDict, total=False):
    """`memlens.sessions` and the MCP tool `sessions`: one page of sessions, newest first."""

    query: str
    format: AgentFormat
    project: str
    since: str
    until: str
    limit: int
    cursor: str


class RemoveSourceParams(TypedDict):
    """`memlens.removeSource`: forget one folder the index remembers (absolute, or `~/…`)."""

    path: str


class ReindexParams(TypedDict, total=False):
    """`memlens.reindex`; `full` re-reads every file."""

    full: bool


class SummariesGrepParams(TypedDict):
    """`memlens.summaries.grep` and the MCP tool `summaries_grep`."""

    pattern: str
    limit: NotRequired[int]


class SummariesDescribeParams(TypedDict):
    """`memlens.summaries.describe` and the MCP tool `summaries_describe`."""

    summaryId: str


class SummariesExpandParams(TypedDict):
    """`memlens.summaries.expand` and the MCP tool `summaries_expand`."""

    summaryId: str
    tokenBudget: NotRequired[int]


class ContextParams(TypedDict):
    """`memlens.context` and the MCP tool `context`."""

    question: str
    tokenBudget: NotRequired[int]
    limit: NotRequired[int]


class McpSearchParams(TypedDict):
    """The MCP tool `search` (no TS counterpart): the filters flat, `sessionKey` a key, an id or a unique prefix."""

    query: str
    limit: NotRequired[int]
    mode: NotRequired[SearchMode]
    kind: NotRequired[HitKind]
    format: NotRequired[AgentFormat]
    project: NotRequired[str]
    role: NotRequired[Literal["user", "assistant"]]
    since: NotRequired[str]
    until: NotRequired[str]
    sessionKey: NotRequired[str]


# -- search ----------------------------------------------------------------------------------------------------------


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


# -- history and sessions ------------------------------------------------------------------------------------------


class HistoryMessage(TypedDict):
    """One message of a session (the parts of a long message joined)."""

    messageId: str
    role: str
    kind: Literal["message", "summary"]
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


# -- index status --------------------------------------------------------------------------------------------------


class FileError(TypedDict):
    """A file with skipped lines or a failure."""

    path: str
    badLines: int
    replaced: int  # characters read as U+FFFD (invalid bytes, NULs, lone surrogates); their messages are kept
    reasons: list[str]


class StatsResponse(TypedDict):
    """`memlens.stats`: what the index holds and whether it is up to date."""

    totalChunks: int
    chunksWithEmbeddings: int
    chunksNeedingEmbeddings: int
    pendingMessages: int
    lastSync: str | None
    provider: str
    providerNote: str | None
    files: dict[str, int]
    messages: dict[str, int]
    sessions: int
    badLines: int
    replaced: int  # characters read as U+FFFD (invalid bytes, NULs, lone surrogates) in the messages and notes kept
    orphanedMessages: int
    filesWithErrors: int
    fileErrors: list[FileError]
    filesUnrecognised: int  # files found among transcripts that no parser recognised (nothing of them is searchable)
    unrecognisedFiles: list[str]  # the first 50 of them, by path
    aliases: int  # names of indexed files found under another name too (hard links, symlinks): not indexed again
    watcherErrors: int  # changes live indexing failed on since this process started (each logged; watching goes on)
    indexing: bool
    indexDir: str
    readOnly: bool
    filesNotIndexed: int  # source files the index does not hold as they are now (new, or changed since)
    notIndexedReason: str | None  # why they wait (a full disk, a broken lock, no sync yet); None when none wait


class ReindexReport(TypedDict):
    """`memlens.reindex`: what a sync did (`indexer.SyncReport.to_wire`)."""

    filesSeen: int
    filesParsed: int
    filesAppended: int
    filesUnchanged: int
    filesDeleted: int
    filesFailed: int
    aliases: int
    messagesAdded: int
    chunksAdded: int
    unitsEmbedded: int
    badLines: int
    errors: list[str]
    seconds: float
    cancelled: bool


class IndexStatus(TypedDict):
    """The `memlens/indexStatus` notification."""

    indexing: bool
    totalChunks: int
    chunksNeedingEmbeddings: int
    pendingMessages: int
    provider: str
    lastSync: str | None
    message: NotRequired[str]


# -- the folders an index was built from --------------------------------------------------------------------------


class SourceFolder(TypedDict):
    """One folder the index was built from or is told to read (`memlens.sources`, `memlens sources --json`)."""

    path: str
    displayPath: str
    kind: Literal["memory", "transcripts", "agent"]
    files: int
    units: int
    addedFrom: str
    named: bool


class SourcesResponse(TypedDict):
    """`memlens.sources`: every remembered folder, and any the settings name that no sync has recorded yet."""

    sources: list[SourceFolder]


class RemoveSourceResponse(TypedDict):
    """`memlens.removeSource`: the folder forgotten and how many of its files left the index."""

    path: str
    displayPath: str
    filesRemoved: int


class UnnamedSources(TypedDict):
    """The `memlens/unnamedSources` notification: folders the index holds (and keeps syncing and searching) that the
    server's settings no longer name."""

    sources: list[SourceFolder]


# -- compaction summaries ----------------------------------------------------------------------------------------


class SummaryHit(TypedDict):
    """One summary `memlens.summaries.grep` found."""

    summaryId: str
    sessionKey: str
    format: str
    messageId: str
    timestamp: str | None
    excerpt: str


class SummariesGrepResponse(TypedDict):
    """`memlens.summaries.grep`: matching summaries, newest first."""

    pattern: str
    totalMatches: int
    truncated: bool
    results: list[SummaryHit]


SummaryCovers = TypedDict(  # functional form: `from` is a Python keyword
    "SummaryCovers",
    {
        "messageCount": int,
        "firstMessageId": str | None,
        "lastMessageId": str | None,
        "from": str | None,
        "to": str | None,
        "tokens": int,
    },
)
"""The span of messages a summary replaced."""


class SummaryHeader(TypedDict):
    """The fields a summary's describe and expand answers open with."""

    summaryId: str
    sessionKey: str
    sessionId: str
    format: str
    messageId: str
    timestamp: str | None


class SummaryDescription(SummaryHeader):
    """`memlens.summaries.describe`: one summary in full and what it covers."""

    text: str
    tokens: int
    covers: SummaryCovers


class SummaryMessage(TypedDict):
    """One message a summary replaced."""

    messageId: str
    role: str
    timestamp: str | None
    text: str
    position: int
    truncated: NotRequired[bool]


class SummariesExpandResponse(SummaryHeader):
    """`memlens.summaries.expand`: the messages a summary replaced, within a token budget."""

    tokenBudget: int
    tokens: int
    messages: list[SummaryMessage]
    totalMessages: int
    omittedMessages: int
    truncated: bool


# -- context packs ---------------------------------------------------------------------------------------------


class ContextMessage(TypedDict):
    """A message quoted in a context pack."""

    messageId: str
    role: str
    timestamp: str | None
    text: str


class ContextPassage(TypedDict):
    """A context item before its cost is known: `ContextItem` without `tokens` (no TS counterpart)."""

    kind: HitKind
    score: float
    relPath: str
    source: str
    citation: str
    truncated: NotRequired[bool]
    sessionKey: NotRequired[str]
    messageId: NotRequired[str]
    timestamp: NotRequired[str | None]
    format: NotRequired[str]
    messages: NotRequired[list[ContextMessage]]
    lineStart: NotRequired[int | None]
    lineEnd: NotRequired[int | None]
    heading: NotRequired[str | None]
    text: NotRequired[str]


class ContextItem(ContextPassage):
    """One passage of a context pack: a transcript message (or summary) with a neighbour, or a memory section."""

    tokens: int


class ContextResponse(TypedDict):
    """`memlens.context`: cited passages within a token budget, and the same as ready-to-paste markdown."""

    question: str
    tokenBudget: int
    tokens: int
    sources: int
    truncated: bool
    indexing: bool
    mode: SearchMode
    items: list[ContextItem]
    markdown: str
