"""The request types: each command's one object argument (LSP `workspace/executeCommand`; MCP tools share most),
and the literals they and the answers share."""

from typing import Literal, NotRequired, TypedDict

HitKind = Literal["memory", "transcript", "summary", "tool"]
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


class FixesParams(TypedDict):
    """`memlens.fixes` and the MCP tool `find_fixes`."""

    error: str
    limit: NotRequired[int]
    follow: NotRequired[int]


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
    minScore: NotRequired[float]
