"""The MCP tools: what each one is for (written for the agent choosing a tool), its JSON schemas, and its handler.

Why it exists: an MCP client sees only names, descriptions and schemas, so they are the interface; keeping them in
one table beside thin handlers makes the whole surface reviewable at a glance. Handlers are synchronous (they run
in a worker thread, never on the event loop), take arguments already checked against the tool's input schema, and
return the engine's JSON-ready, redacted answer unchanged except for the fields MCP adds (`indexing`) and the
trimming an agent's context needs (mcp.trimming: history messages capped, search titles once per session).
Argument names follow docs/lsp-api.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from memlens.engine import Engine
from memlens.errors import InvalidRequest
from memlens.mcp.trimming import cap_messages, pack_that_fits, titles_once
from memlens.requests import (
    AGENT_SESSIONS,
    ContextRequest,
    FixesRequest,
    HistoryRequest,
    McpSearchRequest,
    Request,
    SessionsRequest,
    StatsRequest,
    SummariesDescribeRequest,
    SummariesExpandRequest,
    SummariesGrepRequest,
    json_schema,
    parse,
)
from memlens.wire import (
    FixesResponse,
    SessionsResponse,
    StatsResponse,
    SummariesExpandResponse,
    SummariesGrepResponse,
    SummaryDescription,
)

# -- handlers (each takes its request, checked: memlens.requests) --------------------------------------------------


def search(engine: Engine, request: McpSearchRequest) -> dict[str, Any]:
    session = engine.resolve_session(request.session_key) if request.session_key else None
    filters = request.filter_request(session)
    return titles_once(
        engine.search(
            request.query, limit=request.limit, mode=request.mode, filters=filters, min_score=request.min_score
        )
    )


def history(engine: Engine, request: HistoryRequest) -> dict[str, Any]:
    return cap_messages(engine.history(request.session_key, message_id=request.message_id, limit=request.limit))


def sessions(engine: Engine, request: SessionsRequest) -> SessionsResponse:
    return engine.sessions(
        query=request.query,
        format=request.format,
        project=request.project,
        since=request.since,
        until=request.until,
        limit=request.limit,
        cursor=request.cursor,
    )


def summaries_grep(engine: Engine, request: SummariesGrepRequest) -> SummariesGrepResponse:
    return engine.summaries_grep(request.pattern, limit=request.limit)


def summaries_describe(engine: Engine, request: SummariesDescribeRequest) -> SummaryDescription:
    return engine.summaries_describe(request.summary_id)


def summaries_expand(engine: Engine, request: SummariesExpandRequest) -> SummariesExpandResponse:
    return engine.summaries_expand(request.summary_id, token_budget=request.token_budget)


def context(engine: Engine, request: ContextRequest) -> dict[str, Any]:
    return pack_that_fits(
        lambda budget: engine.context(request.question, token_budget=budget, limit=request.limit),
        token_budget=request.token_budget,
        max_chars=engine.settings.search.max_response_chars,
    )


def find_fixes(engine: Engine, request: FixesRequest) -> FixesResponse:
    return engine.fixes(request.error, limit=request.limit, follow=request.follow)


def stats(engine: Engine, request: StatsRequest) -> StatsResponse:
    return engine.stats()


# -- schemas -------------------------------------------------------------------------------------------------------


def _answer(*required: str, **properties: Any) -> dict[str, Any]:
    """An output schema: the fields a program can rely on; the rest is documented in docs/mcp.md."""
    return {"type": "object", "properties": properties, "required": list(required)}


_LIST = {"type": "array", "items": {"type": "object"}}
_FLAG = {"type": "boolean"}
_INT = {"type": "integer"}
_TEXT = {"type": "string"}


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    request: type[Request]  # its arguments: the input schema is made from it, and they are parsed into it
    output_schema: dict[str, Any]
    handler: Callable[[Engine, Any], Mapping[str, object]]  # a memlens.wire answer
    defaults: Mapping[str, Any] = field(default_factory=dict)  # where an agent's default differs from the request's

    @property
    def input_schema(self) -> dict[str, Any]:
        return json_schema(self.request, defaults=self.defaults)

    def check(self, arguments: Mapping[str, Any] | None) -> Request:
        """The arguments as the tool's request; InvalidRequest names the field that is wrong and what it allows."""
        return parse(self.request, arguments, defaults=self.defaults)


TOOLS: tuple[Tool, ...] = (
    Tool(
        "search",
        "Search past sessions and memory notes",
        "Search everything your coding agents remember: memory notes (MEMORY.md, memory/*.md, …) and past "
        "conversations of Claude Code, Codex, OpenClaw and SpecStory, by meaning and keywords together. Use it "
        'FIRST whenever the user refers to earlier work ("like we did last time", "how did we fix …", "what did '
        'we decide about …"), before redoing an investigation, or to find which session touched a topic. Each hit '
        "names its session (sessionKey, messageId; each session's title and resumeCommand are listed once, in "
        'sessionTitles): follow up with `history` to read around it. A question about days ("what did we do '
        'yesterday", "on March 3", "last week") answers with that period\'s sessions and their telling messages. '
        "Each hit says how sure it is (confidence: strong, possible, weak); `withheld` counts weaker matches not shown "
        "(minScore 0 shows them). Filters: kind (memory|transcript|summary|tool: a tool call's output), format "
        "(agent), project (a working folder's name or path), role, since/until (ISO dates or 7d, yesterday), "
        "sessionKey. For a pasted error, `find_fixes` answers better.",
        McpSearchRequest,
        _answer(
            "results",
            "sessionTitles",
            query={"type": "string"},
            results=_LIST,
            totalResults=_INT,
            sessionTitles={"type": "object"},
            indexing=_FLAG,
            withheld=_INT,
            note=_TEXT,
        ),
        search,
    ),
    Tool(
        "history",
        "Read a session's messages",
        "Read the messages of one past session: with `messageId`, the window around that message (e.g. a search "
        "hit, to see the question before it and what was done after); without it, the session's newest messages "
        "(where it ended). `sessionKey` accepts a session key, a bare session id, or a unique prefix. The answer "
        "carries the session's title and resumeCommand, and hasMoreBefore/hasMoreAfter to page on. In a window of "
        "several messages each is cut to 1,500 characters (the cut says how much more there is); `limit: 1` with "
        "its messageId shows a message whole.",
        HistoryRequest,
        _answer("sessionKey", "messages", sessionKey={"type": "string"}, messages=_LIST, indexing=_FLAG),
        history,
    ),
    Tool(
        "sessions",
        "List past sessions",
        "List past agent sessions, newest first, each with its title, project folder (cwd), agent (format), "
        "first and last time, message count, files it touched, tools it used, and the shell command that resumes "
        'it (resumeCommand, for Claude Code and Codex). Use it to answer "what was I working on", "which session '
        'edited X", or to find a session to resume or read with `history`. Filter by `query` (words that must all '
        "appear in the title, folder, key, files touched, tool names or commands run), `project` (a working "
        "folder's name or path), `format`, `since`/`until`; page with `cursor` (nextCursor of the previous page).",
        SessionsRequest,
        _answer(
            "sessions",
            sessions=_LIST,
            totalSessions=_INT,
            nextCursor={"type": ["string", "null"]},
            indexing=_FLAG,
            note=_TEXT,
        ),
        sessions,
        defaults={"limit": AGENT_SESSIONS},
    ),
    Tool(
        "summaries_grep",
        "Grep compaction summaries",
        "Search the summaries agents wrote when they compacted a long conversation (Claude Code compact summaries "
        "and `summary` lines, OpenClaw compaction/branch summaries) with a case-insensitive regular expression "
        "(or literal text). Use it for an overview of long past sessions; each hit's summaryId feeds "
        "`summaries_describe` and `summaries_expand`. Newest first.",
        SummariesGrepRequest,
        _answer("results", pattern={"type": "string"}, results=_LIST, totalMatches=_INT, indexing=_FLAG),
        summaries_grep,
    ),
    Tool(
        "summaries_describe",
        "Describe a compaction summary",
        "Show one compaction summary in full and the span of messages it replaced (how many, from when to when, "
        "their ids and size in tokens). Use it after `summaries_grep` or a search hit of kind `summary` to decide "
        "whether to `summaries_expand` it.",
        SummariesDescribeRequest,
        _answer("summaryId", "text", summaryId={"type": "string"}, text={"type": "string"}, indexing=_FLAG),
        summaries_describe,
    ),
    Tool(
        "summaries_expand",
        "Expand a compaction summary",
        "Return the original messages a compaction summary replaced, newest kept first within `tokenBudget`, listed "
        "oldest first. Use it when a summary mentions something you need verbatim (a command, an error, a decision "
        "and its reason).",
        SummariesExpandRequest,
        _answer("messages", summaryId={"type": "string"}, messages=_LIST, tokens=_INT, indexing=_FLAG),
        summaries_expand,
    ),
    Tool(
        "context",
        "Build a cited context pack",
        "Assemble a compact, cited briefing for a question from past sessions and memory notes: the most relevant "
        "passages, taken round-robin across sources (each session or note gets a turn before any gets a second), "
        "within a token budget, each with a citation. Use it at the start of a task that continues earlier work, "
        "when you want the gist of several sources at once rather than individual hits.",
        ContextRequest,
        _answer("items", question={"type": "string"}, items=_LIST, tokens=_INT, indexing=_FLAG),
        context,
    ),
    Tool(
        "find_fixes",
        "Find how an error was fixed before",
        "Given an error text (paste the error line, a traceback's last line, a failing test's message, a linter's "
        "or compiler's complaint) or a question about one, find where the same error appeared in past sessions' "
        "tool output (test runs, builds, linters, shell commands) and return each occurrence, one per session, with "
        "the messages that followed it there: what the agent did next, the edits it made, whether it worked; and "
        "the memory notes and messages that quote the error and say how it was fixed. Use "
        "it FIRST when a command fails with an error that may have been seen before, or when the user asks how "
        "something was fixed; follow up with `history` (sessionKey, messageId) to read further.",
        FixesRequest,
        _answer("fixes", error={"type": "string"}, fixes=_LIST, indexing=_FLAG),
        find_fixes,
    ),
    Tool(
        "stats",
        "Index status",
        "Report what the memory index holds and whether it is up to date: files, messages and sessions per agent, "
        "chunks with and without vectors, the embedding provider, the last sync, skipped lines, and `indexing` "
        "(true while a sync or embedding runs, when answers may still miss the newest text). Use it when results "
        "look incomplete.",
        StatsRequest,
        _answer("totalChunks", totalChunks=_INT, sessions=_INT, indexing=_FLAG),
        stats,
    ),
)

TOOLS_BY_NAME: dict[str, Tool] = {tool.name: tool for tool in TOOLS}


def tool_named(name: str) -> Tool:
    tool = TOOLS_BY_NAME.get(name)
    if tool is None:
        raise InvalidRequest(f"unknown tool {name!r}; the tools are: {', '.join(TOOLS_BY_NAME)}")
    return tool


def run_tool(engine: Engine, tool: Tool, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
    """Check the arguments and run the handler (blocking: call it from a worker thread)."""
    return dict(tool.handler(engine, tool.check(arguments)))  # plain JSON now: MCP adds `indexing` and may cut it
