"""The wire protocol, typed: every request and answer the CLI (`--json`), the language server and MCP exchange.

Why it exists: the answers used to be built and passed around as `dict[str, Any]`, so a misspelt key or a field
dropped on one path reached clients unnoticed. Here each answer and each of its parts is a TypedDict whose keys are
exactly the camelCase keys on the wire (`NotRequired` marks a key some answers leave out), the producers in
`memlens.engine` and the `Engine` methods are annotated with them, and `mypy --strict` holds the code to them.
`client/src/protocol.ts` declares the same types for the VS Code client under the same names (the one exception is
`SearchFilterParams`, TS `SearchFilters`, which would clash with `memlens.engine.filters.SearchFilters`);
tests/test_wire_types.py holds the two to each other, key by key and type by type, and holds real answers to these
types. docs/lsp-api.md describes each field.

No logic lives in this package, and nothing is imported from the rest of memlens, so the engine, the faces and the
tests can all import it. (No `from __future__ import annotations` in its modules: Python 3.11 cannot see
`NotRequired` in a string annotation, and the tests read `__optional_keys__`.)

One module per answer family (params.py the requests; search, sessions, index_status, sources, summaries,
context, fixes the answers); this package re-exports every name, so `from memlens.wire import X` is the one way in.
"""

from memlens.wire.context import ContextItem, ContextMessage, ContextPassage, ContextResponse
from memlens.wire.fixes import ErrorFix, FixesResponse
from memlens.wire.index_status import (
    EmptyIndex,
    EmptyIndexFind,
    FileError,
    IndexStatus,
    ReindexReport,
    StatsResponse,
)
from memlens.wire.params import (
    AgentFormat,
    ContextParams,
    FixesParams,
    FusionMode,
    HistoryParams,
    HitKind,
    McpSearchParams,
    ReindexParams,
    RemoveSourceParams,
    SearchFilterParams,
    SearchMode,
    SearchParams,
    SessionsParams,
    SummariesDescribeParams,
    SummariesExpandParams,
    SummariesGrepParams,
)
from memlens.wire.search import (
    AmbiguousDate,
    Confidence,
    EmptyWindow,
    Explain,
    LeftOut,
    Period,
    PeriodEvent,
    PeriodPart,
    SearchResponse,
    SearchResult,
    StatedDay,
    UnnamedEvent,
    UnreadDate,
)
from memlens.wire.sessions import (
    FileTouched,
    HistoryMessage,
    HistoryResponse,
    SessionsResponse,
    SessionSummary,
    ToolUse,
)
from memlens.wire.sources import RemoveSourceResponse, SourceFolder, SourcesResponse, UnnamedSources
from memlens.wire.summaries import (
    SummariesExpandResponse,
    SummariesGrepResponse,
    SummaryCovers,
    SummaryDescription,
    SummaryHeader,
    SummaryHit,
    SummaryMessage,
)
from memlens.wire.team import PublishResponse, TeamSession, TeamSessionsResponse, TeamStatus

__all__ = [
    "PublishResponse",
    "TeamSession",
    "TeamSessionsResponse",
    "TeamStatus",
    "AgentFormat",
    "AmbiguousDate",
    "Confidence",
    "ContextItem",
    "ContextMessage",
    "ContextParams",
    "ContextPassage",
    "ContextResponse",
    "ErrorFix",
    "Explain",
    "LeftOut",
    "UnreadDate",
    "EmptyIndex",
    "EmptyIndexFind",
    "FileError",
    "FileTouched",
    "FixesParams",
    "FixesResponse",
    "FusionMode",
    "HistoryMessage",
    "HistoryParams",
    "HistoryResponse",
    "HitKind",
    "IndexStatus",
    "McpSearchParams",
    "EmptyWindow",
    "Period",
    "PeriodEvent",
    "PeriodPart",
    "ReindexParams",
    "ReindexReport",
    "RemoveSourceParams",
    "RemoveSourceResponse",
    "SearchFilterParams",
    "SearchMode",
    "SearchParams",
    "SearchResponse",
    "SearchResult",
    "SessionSummary",
    "SessionsParams",
    "SessionsResponse",
    "SourceFolder",
    "SourcesResponse",
    "StatedDay",
    "UnnamedEvent",
    "StatsResponse",
    "SummariesDescribeParams",
    "SummariesExpandParams",
    "SummariesExpandResponse",
    "SummariesGrepParams",
    "SummariesGrepResponse",
    "SummaryCovers",
    "SummaryDescription",
    "SummaryHeader",
    "SummaryHit",
    "SummaryMessage",
    "ToolUse",
    "UnnamedSources",
]
