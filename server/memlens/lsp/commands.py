"""The `workspace/executeCommand` commands: search, history, sessions, stats, reindex, summaries, context packs,
past errors and their fixes."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pygls.lsp.server import LanguageServer

from memlens import requests
from memlens.engine import Engine
from memlens.errors import LockPathBroken, MemlensError
from memlens.lsp.params import Args, invalid
from memlens.lsp.state import ServerState
from memlens.requests import (
    ContextRequest,
    FixesRequest,
    HistoryRequest,
    ReindexRequest,
    RemoveSourceRequest,
    SearchRequest,
    SessionsRequest,
    SourcesRequest,
    StatsRequest,
    SummariesDescribeRequest,
    SummariesExpandRequest,
    SummariesGrepRequest,
)
from memlens.wire import (
    ContextResponse,
    FixesResponse,
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


async def search(state: ServerState, args: Args) -> SearchResponse:
    request = SearchRequest.parse(args.data)
    engine = await state.require_engine()
    return await state.read(lambda: _search(engine, request))


def _search(engine: Engine, request: SearchRequest) -> SearchResponse:
    return engine.search(
        request.query,
        limit=request.limit,
        mode=request.mode,
        filters=request.filters,
        explain=request.explain,
        fusion=request.fusion,
        min_score=request.min_score,
    )


async def history(state: ServerState, args: Args) -> HistoryResponse:
    request = HistoryRequest.parse(args.data)
    engine = await state.require_engine()
    return await state.read(
        lambda: engine.history(request.session_key, message_id=request.message_id, limit=request.limit)
    )


async def sessions(state: ServerState, args: Args) -> SessionsResponse:
    request = SessionsRequest.parse(args.data)
    engine = await state.require_engine()
    return await state.read(
        lambda: engine.sessions(
            query=request.query,
            format=request.format,
            project=request.project,
            since=request.since,
            until=request.until,
            limit=request.limit,
            cursor=request.cursor,
        )
    )


async def stats(state: ServerState, args: Args) -> StatsResponse:
    StatsRequest.parse(args.data)  # no fields: any is unknown
    engine = await state.require_engine()
    result = await state.read(engine.stats)
    result["indexing"] = bool(result["indexing"] or state.busy)
    return result


async def reindex(state: ServerState, args: Args) -> ReindexReport:
    request = ReindexRequest.parse(args.data)
    engine = await state.require_engine()
    repairs_lock = request.full and isinstance(engine.write_problem, LockPathBroken)  # a full reindex replaces it
    if not engine.writable and not repairs_lock:
        why = engine.write_problem or f"{engine.index_dir} is being written by another process"
        raise JsonRpcInternalError(message=f"memlens.reindex: {why}")
    report = await state.reindex(request.full)
    return report.to_wire()


async def sources(state: ServerState, args: Args) -> SourcesResponse:
    SourcesRequest.parse(args.data)  # no fields: any is unknown
    engine = await state.require_engine()
    return await state.read(engine.source_folders)


async def remove_source(state: ServerState, args: Args) -> RemoveSourceResponse:
    """Forget a folder the index remembers; the client asks its user first (sourceRemoval.ts)."""
    request = RemoveSourceRequest.parse(args.data)
    engine = await state.require_engine()
    answer = await state.write(lambda: engine.remove_source_folder(request.path))
    state.generation += 1
    state.status.poke(f"removed {answer['displayPath']} from the index")
    return answer


async def summaries_grep(state: ServerState, args: Args) -> SummariesGrepResponse:
    request = SummariesGrepRequest.parse(args.data)
    engine = await state.require_engine()
    return await state.read(lambda: engine.summaries_grep(request.pattern, limit=request.limit))


async def summaries_describe(state: ServerState, args: Args) -> SummaryDescription:
    request = SummariesDescribeRequest.parse(args.data)
    engine = await state.require_engine()
    return await state.read(lambda: engine.summaries_describe(request.summary_id))


async def summaries_expand(state: ServerState, args: Args) -> SummariesExpandResponse:
    request = SummariesExpandRequest.parse(args.data)
    engine = await state.require_engine()
    return await state.read(lambda: engine.summaries_expand(request.summary_id, token_budget=request.token_budget))


async def context(state: ServerState, args: Args) -> ContextResponse:
    request = ContextRequest.parse(args.data)
    engine = await state.require_engine()
    return await state.read(
        lambda: engine.context(request.question, token_budget=request.token_budget, limit=request.limit)
    )


async def fixes(state: ServerState, args: Args) -> FixesResponse:
    request = FixesRequest.parse(args.data)
    engine = await state.require_engine()
    return await state.read(lambda: engine.fixes(request.error, limit=request.limit, follow=request.follow))


HANDLERS: dict[str, Handler] = {
    "memlens.search": search,
    "memlens.history": history,
    "memlens.sessions": sessions,
    "memlens.stats": stats,
    "memlens.reindex": reindex,
    "memlens.sources": sources,
    "memlens.removeSource": remove_source,
    "memlens.summaries.grep": summaries_grep,
    "memlens.summaries.describe": summaries_describe,
    "memlens.summaries.expand": summaries_expand,
    "memlens.context": context,
    "memlens.fixes": fixes,
}

# name → (handler, the fields of its one object argument): the fields are the request schema's (memlens.requests)
COMMANDS: dict[str, tuple[Handler, tuple[str, ...]]] = {
    name: (handler, requests.wire_names(requests.COMMANDS[name])) for name, handler in HANDLERS.items()
}


def _command(state: ServerState, name: str, handler: Handler) -> Callable[..., Any]:
    async def run(*arguments: Any) -> Any:
        args = Args(name, arguments)
        try:
            return await handler(state, args)
        except JsonRpcException:
            raise
        except MemlensError as exc:
            raise invalid(name, str(exc)) from None
        except Exception as exc:
            log.exception("%s failed", name)
            raise JsonRpcInternalError(message=f"{name} failed: {exc}") from exc  # a path it quotes: masked_messages

    run.__name__ = name.replace(".", "_")
    return run


def register_commands(server: LanguageServer, state: ServerState) -> None:
    """Register every command (they appear in executeCommandProvider.commands)."""
    for name, handler in HANDLERS.items():
        server.command(name)(_command(state, name, handler))
