"""Every command's request: its fields, their bounds and defaults, declared once (the bounds are named, because the
engine's answers clamp to the same figures)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal, get_args

from memlens.requests.fields import Request, arg, check_range
from memlens.wire import AgentFormat, FusionMode, HitKind, SearchMode

Role = Literal["user", "assistant"]
KINDS: tuple[str, ...] = get_args(HitKind)
FORMATS: tuple[str, ...] = get_args(AgentFormat)
ROLES: tuple[str, ...] = get_args(Role)
MODES: tuple[str, ...] = get_args(SearchMode)
FUSIONS: tuple[str, ...] = get_args(FusionMode)

# -- the bounds (named, because the engine's answers clamp to the same figures) --------------------------------------

MAX_RESULTS = 100
"""Search hits, context items: a page a person or an agent reads."""
MAX_HISTORY = 500
"""Messages of one history window."""
DEFAULT_HISTORY = 20
MAX_SESSIONS = 500
"""Sessions per page (the editor's sessions view asks for the largest page)."""
DEFAULT_SESSIONS = 50
AGENT_SESSIONS = 20
"""The MCP tool's default page: an agent reads a page; programs page on with nextCursor."""
MAX_GREP = 200
DEFAULT_GREP = 20
MAX_BUDGET = 200_000
"""Tokens of a context pack or an expanded summary."""
DEFAULT_EXPAND_BUDGET = 2000
DEFAULT_CONTEXT_BUDGET = 2000
MIN_CONTEXT_BUDGET = 50
MAX_FIXES = 20
"""Past errors a fixes answer shows (one per session)."""
DEFAULT_FIXES = 3
MAX_FOLLOW = 10
"""Messages after each error in a fixes answer."""
DEFAULT_FOLLOW = 3
MAX_QUERY_CHARS = 4000
"""What is read of a query, a pasted error or a question: its cost grows with its length (a megabyte took a minute of
CPU). A search query or a pasted error over it is read by its first line and its end (`read_end`, pasted_text.py):
a Python traceback tells at its end, a Java or JavaScript one on its first line; a sessions filter or a context
question is refused instead (their words are all meant)."""
MAX_PASTE_CHARS = 1_000_000
"""The most a text read by its end may hold at all; a longer one is refused, saying to paste its first line and end.
Cutting even 10 MB costs little (about 3 ms), but every door holds the whole request first (a JSON message parsed, a
command line), and a megabyte is not a pasted error but a whole log or file: the user is better told than answered
about a sliver of it."""
MAX_PATTERN_CHARS = 1000
MAX_KEY_CHARS = 1000
"""Session keys, message ids, summary ids, cursors: a key is `<format>:<id>`, an id at most a path's length."""
MAX_DATE_CHARS = 64
MAX_PATH_CHARS = 4096
"""A folder path: Linux's PATH_MAX."""


# -- the requests -------------------------------------------------------------------------------------------------

_DATE_HELP = (
    "only what is newer: an ISO date (UTC unless an offset is given), a duration ago (7d, 12h, 2w, 3m, 1y), today, "
    "yesterday, a weekday (monday, last tue), a part of a day (this morning, last night) or a time (14:00, "
    "yesterday 9am; days and times of memlens.display.timeZone)"
)
_UNTIL_HELP = (
    "only what is older: an ISO date or date-time (a bare date includes that whole day), a duration ago (7d, 2w), "
    "today, yesterday, a weekday (last tue), a part of a day (this morning) or a time (14:00)"
)
_PROJECT_HELP = "only sessions of this project: a working folder's name (any case) or path (and its subfolders)"
_QUERY_HELP = "what to look for, in natural language or keywords"
_SESSION_REF = "a session key (claude-code:<uuid>), a bare session id, or a unique prefix of one (≥ 4 characters)"


@dataclass(frozen=True, kw_only=True)
class SearchFilterRequest(Request):
    """`SearchParams.filters` (wire.SearchFilterParams, TS `SearchFilters`)."""

    kind: HitKind | None = arg(
        "only hits of this kind (memory notes, transcript messages, compaction summaries, tool output)"
    )
    format: AgentFormat | None = arg("only this agent's transcripts", example="codex")
    project: str | None = arg(_PROJECT_HELP, max_chars=MAX_PATH_CHARS, example="billing")
    session: str | None = arg(
        "only this session: its key, id or a unique prefix (≥ 4 characters)",
        max_chars=MAX_KEY_CHARS,
        example="5b0e7d3c",
    )
    session_key: str | None = arg("an alias of `session`", max_chars=MAX_KEY_CHARS)
    role: Role | None = arg("only this speaker's messages (user: you; assistant: the agent)")
    since: str | None = arg(_DATE_HELP, max_chars=MAX_DATE_CHARS, date=True, example="7d")
    until: str | None = arg(_UNTIL_HELP, max_chars=MAX_DATE_CHARS, date=True, example="2026-02-10")

    def check(self) -> None:
        check_range(self.since, self.until)


@dataclass(frozen=True, kw_only=True)
class SearchRequest(Request):
    """`memlens.search`, `memlens search`, the local socket's `search`."""

    query: str = arg(_QUERY_HELP, max_chars=MAX_PASTE_CHARS, read_end=MAX_QUERY_CHARS, required=True)
    limit: int | None = arg("how many results", low=1, high=MAX_RESULTS, setting="search.max_results", example="5")
    mode: SearchMode | None = arg(
        "hybrid (words and meaning), keyword (BM25 words only, loads no model) or vector (meaning only)",
        setting="search.mode",
    )
    fusion: FusionMode | None = arg("how keyword and vector scores combine", setting="search.fusion")
    filters: SearchFilterRequest = dataclasses.field(default_factory=SearchFilterRequest, metadata={"help": "filters"})
    explain: bool = arg("show each hit's component scores", default=False)
    min_score: float | None = arg(
        "the least calibrated score the best hit needs (0.4 is shown as 40 percent), else no results",
        low=0,
        high=1,
        setting="search.min_score",
        example="0.4",
    )


@dataclass(frozen=True, kw_only=True)
class McpSearchRequest(Request):
    """The MCP tool `search` (wire.McpSearchParams): the filters flat, `sessionKey` a key, an id or a prefix."""

    query: str = arg(_QUERY_HELP, max_chars=MAX_PASTE_CHARS, read_end=MAX_QUERY_CHARS, required=True)
    limit: int | None = arg("how many results", low=1, high=MAX_RESULTS, setting="search.max_results")
    mode: SearchMode | None = arg("hybrid (default), keyword (BM25) or vector")
    kind: HitKind | None = arg("only hits of this kind")
    format: AgentFormat | None = arg("only this agent's transcripts")
    role: Role | None = arg("only this speaker's messages")
    since: str | None = arg(_DATE_HELP, max_chars=MAX_DATE_CHARS, date=True)
    until: str | None = arg(_UNTIL_HELP, max_chars=MAX_DATE_CHARS, date=True)
    session_key: str | None = arg("only this session (key, id or unique prefix)", max_chars=MAX_KEY_CHARS)
    min_score: float | None = arg(
        "the least calibrated chance the best hit needs (0 shows the weaker matches withheld)",
        low=0,
        high=1,
        setting="search.min_score",
    )
    project: str | None = arg(_PROJECT_HELP, max_chars=MAX_PATH_CHARS)

    def check(self) -> None:
        check_range(self.since, self.until)

    def filter_request(self, session: str | None) -> SearchFilterRequest:
        """The filters nested, as `memlens.search` takes them; `session` the key `session_key` resolved to."""
        return SearchFilterRequest(
            kind=self.kind,
            format=self.format,
            role=self.role,
            since=self.since,
            until=self.until,
            session=session,
            project=self.project,
        )


@dataclass(frozen=True, kw_only=True)
class HistoryRequest(Request):
    """`memlens.history`, `memlens history`, the MCP tool `history`."""

    session_key: str = arg(_SESSION_REF, max_chars=MAX_KEY_CHARS, required=True)
    message_id: str | None = arg(
        "anchor the window on this message (its id or a unique prefix)",
        max_chars=MAX_KEY_CHARS,
        flag="--message",
        example="b93217ff",
    )
    limit: int = arg("how many messages", default=DEFAULT_HISTORY, low=1, high=MAX_HISTORY, example="50")


@dataclass(frozen=True, kw_only=True)
class SessionsRequest(Request):
    """`memlens.sessions`, `memlens sessions`, the MCP tool `sessions`."""

    query: str | None = arg(
        "words that must all appear in the title, folder, session key, files touched, tools or commands run",
        max_chars=MAX_QUERY_CHARS,
    )
    format: AgentFormat | None = arg("only this agent's sessions")
    project: str | None = arg(_PROJECT_HELP, max_chars=MAX_PATH_CHARS, example="billing")
    since: str | None = arg(
        "sessions active on or after this date: ISO, 7d, 2w, today, yesterday",
        max_chars=MAX_DATE_CHARS,
        date=True,
        example="2w",
    )
    until: str | None = arg(
        "sessions active on or before this date: ISO (a bare date: that whole day), 7d, 2w, today, yesterday",
        max_chars=MAX_DATE_CHARS,
        date=True,
        example="yesterday",
    )
    limit: int = arg("sessions per page", default=DEFAULT_SESSIONS, low=1, high=MAX_SESSIONS, example="10")
    cursor: str | None = arg("nextCursor of the previous page", max_chars=MAX_KEY_CHARS)

    def check(self) -> None:
        check_range(self.since, self.until)


@dataclass(frozen=True, kw_only=True)
class StatsRequest(Request):
    """`memlens.stats`, `memlens stats`, the MCP tool `stats`: no arguments."""


@dataclass(frozen=True, kw_only=True)
class ReindexRequest(Request):
    """`memlens.reindex`, `memlens reindex`."""

    full: bool = arg("re-read every file, not only the changed ones", default=False)


@dataclass(frozen=True, kw_only=True)
class SummariesGrepRequest(Request):
    """`memlens.summaries.grep`, the MCP tool `summaries_grep`."""

    pattern: str = arg("a regular expression (linear-time) or literal text", max_chars=MAX_PATTERN_CHARS, required=True)
    limit: int = arg("how many summaries", default=DEFAULT_GREP, low=1, high=MAX_GREP)


@dataclass(frozen=True, kw_only=True)
class SummariesDescribeRequest(Request):
    """`memlens.summaries.describe`, the MCP tool `summaries_describe`."""

    summary_id: str = arg(
        "chunk:<n>, from summaries_grep or a summary search hit", max_chars=MAX_KEY_CHARS, required=True
    )


@dataclass(frozen=True, kw_only=True)
class SummariesExpandRequest(Request):
    """`memlens.summaries.expand`, the MCP tool `summaries_expand`."""

    summary_id: str = arg("chunk:<n>", max_chars=MAX_KEY_CHARS, required=True)
    token_budget: int = arg("at most this many tokens", default=DEFAULT_EXPAND_BUDGET, low=1, high=MAX_BUDGET)


@dataclass(frozen=True, kw_only=True)
class FixesRequest(Request):
    """`memlens.fixes`, `memlens fixes`, the MCP tool `find_fixes`."""

    error: str = arg(
        "an error text (a pasted error or log line) or a question about one",
        max_chars=MAX_PASTE_CHARS,
        read_end=MAX_QUERY_CHARS,
        required=True,
    )
    limit: int = arg("past errors to show, one per session", default=DEFAULT_FIXES, low=1, high=MAX_FIXES)
    follow: int = arg("messages after each error", default=DEFAULT_FOLLOW, low=1, high=MAX_FOLLOW)


@dataclass(frozen=True, kw_only=True)
class ContextRequest(Request):
    """`memlens.context`, the MCP tool `context`."""

    question: str = arg("the task or question to gather context for", max_chars=MAX_QUERY_CHARS, required=True)
    token_budget: int = arg(
        "at most this many tokens", default=DEFAULT_CONTEXT_BUDGET, low=MIN_CONTEXT_BUDGET, high=MAX_BUDGET
    )
    limit: int | None = arg("at most this many items", low=1, high=MAX_RESULTS)


@dataclass(frozen=True, kw_only=True)
class SourcesRequest(Request):
    """`memlens.sources`, `memlens sources`: the folders the index remembers; no arguments."""


@dataclass(frozen=True, kw_only=True)
class RemoveSourceRequest(Request):
    """`memlens.removeSource`, `memlens sources remove DIR`: forget one remembered folder."""

    path: str = arg(
        "the folder to forget (absolute, or ~/…), as memlens sources lists it", max_chars=MAX_PATH_CHARS, required=True
    )


MAX_NAME_CHARS = 200
"""A publisher's or a project's name."""
MAX_URL_CHARS = 2000


@dataclass(frozen=True, kw_only=True)
class TeamFilterRequest(Request):
    """`memlens search --team URL`, `memlens sessions --team URL`: the team index asked, and whose hits (the
    project filter is the search's own `project`: a team's units are published under their project's folder name)."""

    team: str | None = arg(
        "also search the team index at this PostgreSQL URL (postgresql://user:password@host/db)",
        max_chars=MAX_URL_CHARS,
        setting="team.url",
    )
    publisher: str | None = arg("only the team's hits of this publisher", max_chars=MAX_NAME_CHARS)


@dataclass(frozen=True, kw_only=True)
class PublishRequest(Request):
    """`memlens publish --team URL`: this machine's search units, redacted, into the team index."""

    team: str = arg(
        "the team index: a PostgreSQL URL (postgresql://user:password@host/db)", max_chars=MAX_URL_CHARS, required=True
    )
    as_name: str | None = arg("publish as this name (default: your user name)", max_chars=MAX_NAME_CHARS, flag="--as")
    project: str | None = arg(
        "the project these units are published under (default: the workspace folder's name)", max_chars=MAX_NAME_CHARS
    )


COMMANDS: dict[str, type[Request]] = {
    "memlens.search": SearchRequest,
    "memlens.history": HistoryRequest,
    "memlens.sessions": SessionsRequest,
    "memlens.stats": StatsRequest,
    "memlens.reindex": ReindexRequest,
    "memlens.summaries.grep": SummariesGrepRequest,
    "memlens.summaries.describe": SummariesDescribeRequest,
    "memlens.summaries.expand": SummariesExpandRequest,
    "memlens.context": ContextRequest,
    "memlens.fixes": FixesRequest,
    "memlens.sources": SourcesRequest,
    "memlens.removeSource": RemoveSourceRequest,
}
"""The language server's commands and the request each one takes."""
