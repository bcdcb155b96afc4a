"""`memlens mcp`: the wiring between the MCP SDK's low-level server and one open `Engine`.

Why it exists: this is the only module that knows about transports and the event loop. It serves stdio (the
default; stdout is the wire, so logs go to stderr) or streamable HTTP (`--http HOST:PORT`, localhost by default;
Host/Origin checks on every bind, a bearer token required off loopback: http_security.py), keeps the index live
with the same watcher as `memlens serve` (only when this process holds the writer lock; otherwise it serves
read-only, follows the writer's commits and takes its place once it lets go), runs every engine call in a worker
thread, and turns every failure into an `isError` answer: a `MemlensError` says what is wrong, any other exception
answers "internal error" and is logged, and the server keeps serving either way.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import Any, Protocol, cast

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from memlens import __version__
from memlens.counted import counted
from memlens.engine import Engine
from memlens.engine.indexing.indexer import SyncReport
from memlens.engine.watcher import LiveIndexer
from memlens.engine.writer_takeover import WriterTakeover
from memlens.errors import InvalidRequest, MemlensError
from memlens.local_api.server import LocalServer
from memlens.mcp.http_security import HttpSecurity
from memlens.mcp.masked_errors import masked_errors
from memlens.mcp.render import bound, clip, render
from memlens.mcp.tools import TOOLS, Tool, run_tool, tool_named
from memlens.mcp.well_formed import lone_surrogates_replaced
from memlens.redaction import redact
from memlens.requests import MAX_MESSAGE_BYTES
from memlens.skipped_message import INVALID_REQUEST, Skipped
from memlens.stdin_reader import reading_stdin
from memlens.stop_signal import by_sigterm, stopping_through_the_loop

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "memlens remembers this project's past agent sessions (Claude Code, Codex, OpenClaw, SpecStory) and memory "
    "notes. Before redoing work the user refers to, call `search` (or `context` for a cited briefing); read around "
    "a hit with `history`; list sessions (with their resume commands) with `sessions`."
)


class McpState:
    """The engine and its live indexer, shared by every request."""

    def __init__(self, engine: Engine, live: LiveIndexer | None) -> None:
        self.engine = engine
        self.live = live
        self.built_before = engine.ever_synced()

    def first_build(self) -> bool:
        """True while this process's start-up sync builds an index no sync ever committed to: an answer then misses
        most of what the index will hold, and "0 results" must not read as "nothing was ever said"."""
        return not self.built_before and self.live is not None and not self.live.ready.is_set()

    def indexing(self) -> bool:
        """True while the start-up sync, a watcher sync or the embedding backlog runs."""
        if self.live is not None and (self.live.busy.is_set() or not self.live.ready.is_set()):
            return True
        return self.engine.indexing()

    def answer(self, tool: Tool, arguments: dict[str, Any] | None) -> types.CallToolResult:
        """Run one tool call to its bounded, rendered answer (blocking: runs in a worker thread)."""
        data = run_tool(self.engine, tool, arguments)
        data["indexing"] = bool(data.get("indexing") or self.indexing())
        if self.first_build():
            data["firstIndexing"] = True
        max_chars = self.engine.settings.search.max_response_chars
        data = bound(data, max_chars)
        text = clip(render(tool.name, data), max_chars)
        return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=data)


def _error(name: str, message: str) -> types.CallToolResult:
    """An error answer, `<tool>: <message>`: each part masked on its own (both may echo what the client sent, and
    masked together a name ending in a password's key, such as `/etc/passwd`, would mask the message's first word)."""
    return types.CallToolResult(content=[types.TextContent(text=f"{redact(name)}: {redact(message)}")], is_error=True)


def build_server(state: McpState) -> Server[Any]:
    """The SDK server with memlens's tools registered."""
    listed = [
        types.Tool(
            name=tool.name,
            title=tool.title,
            description=tool.description,
            input_schema=tool.input_schema,
            output_schema=tool.output_schema,
            annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False),
        )
        for tool in TOOLS
    ]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        name = params.name
        try:
            tool = tool_named(name)
            if params.arguments is not None and not isinstance(params.arguments, dict):
                raise InvalidRequest("the arguments must be an object")
            return await anyio.to_thread.run_sync(partial(state.answer, tool, params.arguments))
        except MemlensError as exc:
            return _error(name, str(exc))
        except Exception:
            log.exception("MCP tool %s failed", name)
            return _error(name, "internal error (the memlens server logged the details on its stderr)")

    server: Server[Any] = Server(
        "memlens",
        version=__version__,
        title="memlens: your agents' memory",
        instructions=INSTRUCTIONS,
        get_tool_input_schema=lambda name: next((t.input_schema for t in TOOLS if t.name == name), None),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    server.middleware.insert(0, masked_errors)  # outermost: what the SDK's own steps answer is masked too
    return server


async def _serve_stdio(server: Server[Any]) -> bool:
    """Serve until the client closes stdin (False) or SIGTERM or Ctrl-C stops the server (True)."""
    answers = _Refusals()
    with (
        anyio.CancelScope() as serving,
        stopping_through_the_loop(serving.cancel),
        reading_stdin(MAX_MESSAGE_BYTES) as stdin,
    ):

        async def well_formed() -> AsyncIterator[str]:
            async for line in stdin.text_lines():
                if isinstance(line, Skipped):
                    await answers.refuse(line)
                else:
                    yield lone_surrogates_replaced(line)

        lines = cast("anyio.AsyncFile[str]", well_formed())  # the SDK only iterates it, line by line
        async with stdio_server(stdin=lines) as (read_stream, write_stream):
            answers.stream = write_stream
            await server.run(read_stream, write_stream, server.create_initialization_options())
    return serving.cancelled_caught


class _Sends(Protocol):
    """The SDK's write stream, as far as a refusal uses it."""

    async def send(self, item: SessionMessage, /) -> None: ...


class _Refusals:
    """A line over the bound answered with an error on the SDK's own write stream (its answers and this error then
    never tear each other's lines), or logged when no id was found to answer."""

    def __init__(self) -> None:
        self.stream: _Sends | None = None

    async def refuse(self, skipped: Skipped) -> None:
        if skipped.request_id is None or self.stream is None:
            log.warning("%s (no request id found in it to answer)", skipped.reason())
            return
        error = types.JSONRPCError(
            jsonrpc="2.0",
            id=skipped.request_id,
            error=types.ErrorData(code=INVALID_REQUEST, message=skipped.reason()),
        )
        try:
            await self.stream.send(SessionMessage(error))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):  # the server is stopping: nobody to answer
            log.warning("%s", skipped.reason())


def _sync_logger() -> Callable[[SyncReport], None]:
    """What each sync of the live indexer logs: what it added, and once (until it changes) that the index is empty,
    where the sync looked and what would find something (a polling watcher syncs every file every 30 s)."""
    said: list[str] = []

    def log_sync(report: SyncReport) -> None:
        if report.messages_added or report.files_deleted or report.units_embedded:
            chunks = f"{counted(report.chunks_added, 'chunk')}, {counted(report.chunks_embedded, 'chunk')} embedded"
            log.info("sync: +%s, %s", counted(report.messages_added, "message"), chunks)
        if report.empty is not None and report.empty["lines"] != said:
            said[:] = report.empty["lines"]
            for line in said:  # as the sync line: at INFO (-v), so a start that fails says its error alone
                log.info("%s", line)

    return log_sync


def run(engine: Engine, http: HttpSecurity | None = None, live_indexing: bool = True) -> int:
    """Serve until the client disconnects (stdio) or the process is interrupted (HTTP, with `http`'s checks)."""
    state = McpState(engine, None)
    local = LocalServer(lambda: engine)  # `memlens search` beside this server asks it (local_api)
    local.attach(engine)
    takeover = None
    if live_indexing and engine.writable:
        _start_indexing(state, local)
    elif engine.write_problem is not None:
        log.warning("%s", engine.write_problem)  # a broken writer lock, an index folder it may not write
    elif not engine.writable:
        log.warning("%s writes %s; serving read-only until it stops", engine.writer_name(), engine.index_dir)
        if live_indexing:  # the writer's place, once it lets go (writer_takeover.py)
            takeover = WriterTakeover(engine, on_taken=partial(_start_indexing, state, local))
            takeover.start()
    engine.keep_team_connections()  # closed with the engine
    server = build_server(state)
    stopped = False
    try:
        if http is None:
            stopped = anyio.run(_serve_stdio, server)
        else:
            from memlens.mcp.http_transport import serve_http  # uvicorn is loaded for HTTP only

            stopped = anyio.run(serve_http, server, http)
    except* KeyboardInterrupt:  # Ctrl-C before the loop's handlers are in or after they are out: raised inside one
        stopped = True  # of anyio's tasks, it comes wrapped in a group, and is the same stop
    finally:
        if takeover is not None:
            takeover.stop()  # first: a takeover under way ends before the indexer it starts is stopped
        local.close()
        if state.live is not None:
            state.live.stop()  # the step under way ends: what it committed stays
    if stopped:
        print(f"memlens: MCP server stopped ({'SIGTERM' if by_sigterm() else 'Ctrl-C'})", file=sys.stderr, flush=True)
    return 0


def _start_indexing(state: McpState, local: LocalServer) -> None:
    """The writer keeps the index live and answers `memlens search` beside it (at start, or once it took over)."""
    live = LiveIndexer(state.engine, on_sync=_sync_logger())
    state.built_before = state.engine.ever_synced()  # on a takeover, the writer before may have built it meanwhile
    live.start()
    state.live = live
    local.attach(state.engine)
