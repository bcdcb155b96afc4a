"""The MCP tools: what each one is for (written for the agent choosing a tool), its JSON schemas, and its handler.

Why it exists: an MCP client sees only names, descriptions and schemas, so they are the interface; keeping them in
one table beside thin handlers makes the whole surface reviewable at a glance. Handlers are synchronous (they run
in a worker thread, never on the event loop), take arguments already checked against the tool's input schema, and
return the engine's JSON-ready, redacted answer unchanged except for the fields MCP adds (`indexing`).
Argument names follow docs/lsp-api.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

import jsonschema

from memlens.engine import Engine
from memlens.engine.answers.context_pack import DEFAULT_BUDGET
from memlens.engine.answers.history import MAX_HISTORY
from memlens.engine.answers.sessions import MAX_LIMIT as MAX_SESSIONS
from memlens.engine.answers.summaries import DEFAULT_EXPAND_BUDGET, MAX_GREP
from memlens.engine.filters import FORMATS, KINDS, ROLES, filters_from_dict
from memlens.engine.ranking.search import MODES
from memlens.errors import InvalidRequest
from memlens.wire import (
    ContextParams,
    ContextResponse,
    HistoryParams,
    HistoryResponse,
    McpSearchParams,
    SearchResponse,
    SessionsParams,
    SessionsResponse,
    StatsResponse,
    SummariesDescribeParams,
    SummariesExpandParams,
    SummariesExpandResponse,
    SummariesGrepParams,
    SummariesGrepResponse,
    SummaryDescription,
)

MAX_BUDGET = 200_000
SESSIONS_PAGE = 20  # an agent reads a page; programs page on with nextCursor

# -- argument types (the others are in memlens.wire) -------------------------------------------------------------


class NoArgs(TypedDict):
    pass


# -- handlers ----------------------------------------------------------------------------------------------------


def search(engine: Engine, args: McpSearchParams) -> SearchResponse:
    session = args.get("sessionKey")
    filters = filters_from_dict(
        {
            "kind": args.get("kind"),
            "format": args.get("format"),
            "role": args.get("role"),
            "since": args.get("since"),
            "until": args.get("until"),
            "session": engine.resolve_session(session) if session else None,
        }
    )
    return engine.search(args["query"], limit=args.get("limit"), mode=args.get("mode"), filters=filters)


def history(engine: Engine, args: HistoryParams) -> HistoryResponse:
    return engine.history(args["sessionKey"], message_id=args.get("messageId"), limit=args.get("limit", 20))


def sessions(engine: Engine, args: SessionsParams) -> SessionsResponse:
    return engine.sessions(
        query=args.get("query"),
        format=args.get("format"),
        since=args.get("since"),
        until=args.get("until"),
        limit=args.get("limit", SESSIONS_PAGE),
        cursor=args.get("cursor"),
    )


def summaries_grep(engine: Engine, args: SummariesGrepParams) -> SummariesGrepResponse:
    return engine.summaries_grep(args["pattern"], limit=args.get("limit", 20))


def summaries_describe(engine: Engine, args: SummariesDescribeParams) -> SummaryDescription:
    return engine.summaries_describe(args["summaryId"])


def summaries_expand(engine: Engine, args: SummariesExpandParams) -> SummariesExpandResponse:
    return engine.summaries_expand(args["summaryId"], token_budget=args.get("tokenBudget", DEFAULT_EXPAND_BUDGET))


def context(engine: Engine, args: ContextParams) -> ContextResponse:
    return engine.context(
        args["question"], token_budget=args.get("tokenBudget", DEFAULT_BUDGET), limit=args.get("limit")
    )


def stats(engine: Engine, args: NoArgs) -> StatsResponse:
    return engine.stats()


# -- schemas -------------------------------------------------------------------------------------------------------

_TEXT = {"type": "string", "minLength": 1, "pattern": r"\S"}
_DATE = {"type": "string", "description": "ISO 8601 date or date-time, e.g. 2026-02-10 (UTC unless an offset is given)"}
_SESSION_REF = {
    **_TEXT,
    "description": "a session key (claude-code:<uuid>), a bare session id, or a unique prefix of one (≥ 4 characters)",
}


def _limit(default: int | None, high: int, what: str) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer", "minimum": 1, "maximum": high, "description": what}
    if default is not None:
        schema["default"] = default
    return schema


def _object(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required), "additionalProperties": False}


def _answer(*required: str, **properties: Any) -> dict[str, Any]:
    """An output schema: the fields a program can rely on; the rest is documented in docs/mcp.md."""
    return {"type": "object", "properties": properties, "required": list(required)}


_LIST = {"type": "array", "items": {"type": "object"}}
_FLAG = {"type": "boolean"}
_INT = {"type": "integer"}


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    handler: Callable[[Engine, Any], Mapping[str, object]]  # a memlens.wire answer

    def check(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """The arguments, checked against the input schema; InvalidRequest says what is wrong and where."""
        data = dict(arguments or {})
        validator = jsonschema.Draft202012Validator(self.input_schema)
        errors = sorted(validator.iter_errors(data), key=lambda e: (len(e.path), str(e.path)))
        if errors:
            raise InvalidRequest(_describe(errors[0], self.input_schema))
        return data


def _describe(error: jsonschema.ValidationError, schema: Mapping[str, Any]) -> str:
    field = ".".join(str(p) for p in error.path)
    allowed = ", ".join(sorted(schema.get("properties", {}))) or "none"
    if error.validator == "additionalProperties":
        return f"{error.message}; the arguments are: {allowed}"
    if error.validator == "required":
        return str(error.message).replace("is a required property", "is required")
    if error.validator == "enum":
        return f"{field} must be one of {', '.join(map(str, error.validator_value))}, not {error.instance!r}"
    if error.validator in ("minLength", "pattern") and isinstance(error.instance, str):
        return f"{field} must not be empty"
    if error.validator == "type":
        return f"{field} must be of type {error.validator_value}, not {error.instance!r}"
    return f"{field}: {error.message}" if field else error.message


TOOLS: tuple[Tool, ...] = (
    Tool(
        "search",
        "Search past sessions and memory notes",
        "Search everything your coding agents remember: memory notes (MEMORY.md, memory/*.md, …) and past "
        "conversations of Claude Code, Codex, OpenClaw and SpecStory, by meaning and keywords together. Use it "
        'FIRST whenever the user refers to earlier work ("like we did last time", "how did we fix …", "what did '
        'we decide about …"), before redoing an investigation, or to find which session touched a topic. Each hit '
        "names its session (sessionKey, messageId, title, resumeCommand): follow up with `history` to read around "
        "it. Filters: kind (memory|transcript|summary), format (agent), role, since/until (ISO dates), sessionKey.",
        _object(
            {
                "query": {**_TEXT, "description": "what to look for, in natural language or keywords"},
                "limit": _limit(None, 100, "how many results (default: search.maxResults, 10)"),
                "mode": {"enum": list(MODES), "description": "hybrid (default), keyword (BM25) or vector"},
                "kind": {"enum": list(KINDS)},
                "format": {"enum": list(FORMATS)},
                "role": {"enum": list(ROLES)},
                "since": _DATE,
                "until": {**_DATE, "description": "ISO date or date-time; a bare date includes that whole day"},
                "sessionKey": {**_SESSION_REF, "description": "only this session (key, id or unique prefix)"},
            },
            ("query",),
        ),
        _answer("results", query={"type": "string"}, results=_LIST, totalResults=_INT, indexing=_FLAG),
        search,
    ),
    Tool(
        "history",
        "Read a session's messages",
        "Read the messages of one past session: with `messageId`, the window around that message (e.g. a search "
        "hit, to see the question before it and what was done after); without it, the session's newest messages "
        "(where it ended). `sessionKey` accepts a session key, a bare session id, or a unique prefix. The answer "
        "carries the session's title and resumeCommand, and hasMoreBefore/hasMoreAfter to page on.",
        _object(
            {
                "sessionKey": _SESSION_REF,
                "messageId": {**_TEXT, "description": "anchor the window on this message (from a search hit)"},
                "limit": _limit(20, MAX_HISTORY, "how many messages"),
            },
            ("sessionKey",),
        ),
        _answer("sessionKey", "messages", sessionKey={"type": "string"}, messages=_LIST, indexing=_FLAG),
        history,
    ),
    Tool(
        "sessions",
        "List past sessions",
        "List past agent sessions, newest first, each with its title, project folder (cwd), agent (format), "
        "first and last time, message count, files it touched, tools it used, and the shell command that resumes "
        'it (resumeCommand, for Claude Code and Codex). Use it to answer "what was I working on", "which session '
        'edited X", or to find a session to resume or read with `history`. Filter by `query` (words in the title, '
        "folder or key), `format`, `since`/`until`; page with `cursor` (nextCursor of the previous page).",
        _object(
            {
                "query": {"type": "string", "description": "words that must all appear in the title, cwd or key"},
                "format": {"enum": list(FORMATS)},
                "since": {**_DATE, "description": "sessions active on or after this date"},
                "until": {**_DATE, "description": "sessions active on or before this date (a bare date: that day)"},
                "limit": _limit(SESSIONS_PAGE, MAX_SESSIONS, "sessions per page"),
                "cursor": {**_TEXT, "description": "nextCursor from the previous page"},
            }
        ),
        _answer(
            "sessions", sessions=_LIST, totalSessions=_INT, nextCursor={"type": ["string", "null"]}, indexing=_FLAG
        ),
        sessions,
    ),
    Tool(
        "summaries_grep",
        "Grep compaction summaries",
        "Search the summaries agents wrote when they compacted a long conversation (Claude Code compact summaries "
        "and `summary` lines, OpenClaw compaction/branch summaries) with a case-insensitive regular expression "
        "(or literal text). Use it for an overview of long past sessions; each hit's summaryId feeds "
        "`summaries_describe` and `summaries_expand`. Newest first.",
        _object(
            {
                "pattern": {**_TEXT, "description": "a regular expression (linear-time) or literal text"},
                "limit": _limit(20, MAX_GREP, "how many summaries"),
            },
            ("pattern",),
        ),
        _answer("results", pattern={"type": "string"}, results=_LIST, totalMatches=_INT, indexing=_FLAG),
        summaries_grep,
    ),
    Tool(
        "summaries_describe",
        "Describe a compaction summary",
        "Show one compaction summary in full and the span of messages it replaced (how many, from when to when, "
        "their ids and size in tokens). Use it after `summaries_grep` or a search hit of kind `summary` to decide "
        "whether to `summaries_expand` it.",
        _object(
            {"summaryId": {**_TEXT, "description": "chunk:<n>, from summaries_grep or a summary search hit"}},
            ("summaryId",),
        ),
        _answer("summaryId", "text", summaryId={"type": "string"}, text={"type": "string"}, indexing=_FLAG),
        summaries_describe,
    ),
    Tool(
        "summaries_expand",
        "Expand a compaction summary",
        "Return the original messages a compaction summary replaced, newest kept first within `tokenBudget`, listed "
        "oldest first. Use it when a summary mentions something you need verbatim (a command, an error, a decision "
        "and its reason).",
        _object(
            {
                "summaryId": {**_TEXT, "description": "chunk:<n>"},
                "tokenBudget": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_BUDGET,
                    "default": DEFAULT_EXPAND_BUDGET,
                },
            },
            ("summaryId",),
        ),
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
        _object(
            {
                "question": {**_TEXT, "description": "the task or question to gather context for"},
                "tokenBudget": {"type": "integer", "minimum": 50, "maximum": MAX_BUDGET, "default": DEFAULT_BUDGET},
                "limit": _limit(None, 100, "at most this many items"),
            },
            ("question",),
        ),
        _answer("items", question={"type": "string"}, items=_LIST, tokens=_INT, indexing=_FLAG),
        context,
    ),
    Tool(
        "stats",
        "Index status",
        "Report what the memory index holds and whether it is up to date: files, messages and sessions per agent, "
        "chunks with and without vectors, the embedding provider, the last sync, skipped lines, and `indexing` "
        "(true while a sync or embedding runs, when answers may still miss the newest text). Use it when results "
        "look incomplete.",
        _object({}),
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
