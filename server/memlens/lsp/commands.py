"""The `workspace/executeCommand` commands: search, history, sessions, stats, reindex, summaries, context packs."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pygls.lsp.server import LanguageServer

from memlens.engine.answers.context_pack import DEFAULT_BUDGET
from memlens.engine.answers.history import MAX_HISTORY
from memlens.engine.answers.sessions import DEFAULT_LIMIT as SESSIONS_LIMIT
from memlens.engine.answers.sessions import MAX_LIMIT as MAX_SESSIONS
from memlens.engine.answers.summaries import DEFAULT_EXPAND_BUDGET, MAX_GREP
from memlens.engine.filters import FORMATS, InvalidFilter, filters_from_dict
from memlens.engine.ranking.search import FUSIONS, MODES
from memlens.errors import LockPathBroken, MemlensError
from memlens.lsp.params import Args, invalid
from memlens.lsp.state import ServerState
from memlens.wire import (
    ContextResponse,
    HistoryResponse,
    ReindexReport,
    RemoveSourceResponse,
    SearchResponse,
    SessionsResponse,
    SourcesResponse,
    StatsResponse,
    SummariesExpandResponse,
    SummariesGrepResponse,
    SummaryDescription,
)

log = logging.getLogger(__name__)

Handler = Callable[[ServerState, Args], Awaitable[Any]]
MAX_BUDGET = 200_000


async def search(state: ServerState, args: Args) -> SearchResponse:
    query = args.required_text("query")
    limit = args.integer("limit", None, 1, 100)
    mode = args.choice("mode", MODES)
    fusion = args.choice("fusion", FUSIONS)
    explain = args.flag("explain")
    min_score = args.number("minScore", 0.0, 1.0)
    try:
        filters = filters_from_dict(args.mapping("filters"))
    except InvalidFilter as exc:
        raise args.error(f"filters: {exc}") from None
    engine = await state.require_engine()
    return await state.read(
        lambda: engine.search(
            query, limit=limit, mode=mode, filters=filters, explain=explain, fusion=fusion, min_score=min_score
        )
    )


async def history(state: ServerState, args: Args) -> HistoryResponse:
    key = args.required_text("sessionKey")
    message_id = args.text("messageId")
    limit = args.integer("limit", 20, 1, MAX_HISTORY) or 20
    engine = await state.require_engine()
    return await state.read(lambda: engine.history(key, message_id=message_id, limit=limit))


async def sessions(state: ServerState, args: Args) -> SessionsResponse:
    query = args.text("query")
    agent_format = args.choice("format", FORMATS)
    since = args.text("since")
    until = args.text("until")
    limit = args.integer("limit", SESSIONS_LIMIT, 1, MAX_SESSIONS) or SESSIONS_LIMIT
    cursor = args.text("cursor")
    engine = await state.require_engine()
    return await state.read(
        lambda: engine.sessions(query=query, format=agent_format, since=since, until=until, limit=limit, cursor=cursor)
    )


async def stats(state: ServerState, args: Args) -> StatsResponse:
    engine = await state.require_engine()
    result = await state.read(engine.stats)
    result["indexing"] = bool(result["indexing"] or state.busy)
    return result


async def reindex(state: ServerState, args: Args) -> ReindexReport:
    full = args.flag("full")
    engine = await state.require_engine()
    repairs_lock = full and isinstance(engine.write_problem, LockPathBroken)  # a full reindex replaces a broken lock
    if not engine.writable and not repairs_lock:
        why = engine.write_problem or f"{engine.index_dir} is being written by another process"
        raise JsonRpcInternalError(message=f"memlens.reindex: {why}")
    report = await state.reindex(full)
    return report.to_wire()


async def sources(state: ServerState, args: Args) -> SourcesResponse:
    engine = await state.require_engine()
    return await state.read(engine.source_folders)


async def remove_source(state: ServerState, args: Args) -> RemoveSourceResponse:
    """Forget a folder the index remembers; the client asks its user first (sourceRemoval.ts)."""
    path = args.required_text("path")
    engine = await state.require_engine()
    answer = await state.write(lambda: engine.remove_source_folder(path))
    state.generation += 1
    state.status.poke(f"removed {answer['displayPath']} from the index")
    return answer


async def summaries_grep(state: ServerState, args: Args) -> SummariesGrepResponse:
    pattern = args.required_text("pattern")
    limit = args.integer("limit", 20, 1, MAX_GREP) or 20
    engine = await state.require_engine()
    return await state.read(lambda: engine.summaries_grep(pattern, limit=limit))


async def summaries_describe(state: ServerState, args: Args) -> SummaryDescription:
    summary = args.required_text("summaryId")
    engine = await state.require_engine()
    return await state.read(lambda: engine.summaries_describe(summary))


async def summaries_expand(state: ServerState, args: Args) -> SummariesExpandResponse:
    summary = args.required_text("summaryId")
    budget = args.integer("tokenBudget", DEFAULT_EXPAND_BUDGET, 1, MAX_BUDGET) or DEFAULT_EXPAND_BUDGET
    engine = await state.require_engine()
    return await state.read(lambda: engine.summaries_expand(summary, token_budget=budget))


async def context(state: ServerState, args: Args) -> ContextResponse:
    question = args.required_text("question")
    budget = args.integer("tokenBudget", DEFAULT_BUDGET, 50, MAX_BUDGET) or DEFAULT_BUDGET
    limit = args.integer("limit", None, 1, 100)
    engine = await state.require_engine()
    return await state.read(lambda: engine.context(question, token_budget=budget, limit=limit))


# name → (handler, the fields of its one object argument)
COMMANDS: dict[str, tuple[Handler, tuple[str, ...]]] = {
    "memlens.search": (search, ("query", "limit", "mode", "fusion", "filters", "explain", "minScore")),
    "memlens.history": (history, ("sessionKey", "messageId", "limit")),
    "memlens.sessions": (sessions, ("query", "format", "since", "until", "limit", "cursor")),
    "memlens.stats": (stats, ()),
    "memlens.reindex": (reindex, ("full",)),
    "memlens.sources": (sources, ()),
    "memlens.removeSource": (remove_source, ("path",)),
    "memlens.summaries.grep": (summaries_grep, ("pattern", "limit")),
    "memlens.summaries.describe": (summaries_describe, ("summaryId",)),
    "memlens.summaries.expand": (summaries_expand, ("summaryId", "tokenBudget")),
    "memlens.context": (context, ("question", "tokenBudget", "limit")),
}


def _command(state: ServerState, name: str, handler: Handler, fields: tuple[str, ...]) -> Callable[..., Any]:
    async def run(*arguments: Any) -> Any:
        args = Args(name, arguments, fields)
        try:
            return await handler(state, args)
        except JsonRpcException:
            raise
        except MemlensError as exc:
            raise invalid(name, str(exc)) from None
        except Exception as exc:
            log.exception("%s failed", name)
            raise JsonRpcInternalError(message=f"{name} failed: {exc}") from exc

    run.__name__ = name.replace(".", "_")
    return run


def register_commands(server: LanguageServer, state: ServerState) -> None:
    """Register every command (they appear in executeCommandProvider.commands)."""
    for name, (handler, fields) in COMMANDS.items():
        server.command(name)(_command(state, name, handler, fields))
