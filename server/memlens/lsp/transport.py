"""The language server's wire, stdio or TCP (`memlens serve --tcp HOST:PORT`), stopped through the event loop.

Why it exists: pygls's own `start_io` and `start_tcp` left a stop to an interrupt raised wherever SIGTERM or Ctrl-C
landed. On TCP, asyncio then cancelled the client's connection at shutdown, and Python 3.11's stream protocol logged
that cancellation as "Exception in callback …" with a traceback; the interrupt went on past the server to the
command's handler, so the server's own stop (the step under way ends, the index closed) and its line were skipped
and the process exited 143. On stdio, pygls's stop waited for its thread reading stdin, so a client that kept the
pipe open kept the server (and an interrupt landing inside a lock the executor held could leave it stuck for good).
Here the loop takes the signals (stop_signal.stopping_through_the_loop); on TCP it ends the connection by closing it
(the message loop sees the end of its input, as when the client hangs up), on stdio it cancels the message loop,
whose read of stdin is an await on the loop (stdin_reader). One client at a time, as pygls.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from typing import TYPE_CHECKING, BinaryIO

from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer

from memlens.stdin_reader import reading_stdin
from memlens.stop_signal import stopping_through_the_loop

if TYPE_CHECKING:
    from pygls.io_ import AsyncReader  # a Protocol pygls declares for type checkers alone

log = logging.getLogger(__name__)


async def serve_stdio(server: LanguageServer, stdout: BinaryIO) -> bool:
    """Serve until the client closes stdin (False) or SIGTERM or Ctrl-C stops the server (True)."""
    serving = asyncio.current_task()
    assert serving is not None  # called from a coroutine
    stopped = False

    def stop() -> None:
        nonlocal stopped
        stopped = True
        serving.cancel()

    server.protocol.set_writer(StdoutWriter(stdout))
    with stopping_through_the_loop(stop), reading_stdin() as stdin:
        try:
            await _messages(server, stdin)
        except asyncio.CancelledError:
            if not stopped:
                raise
    return stopped


async def serve_tcp(server: LanguageServer, host: str, port: int) -> bool:
    """Serve until the client hangs up (False) or SIGTERM or Ctrl-C stops the server (True). Says where it listens
    once it does (port 0: the port the system gave)."""
    done = asyncio.Event()
    stopped = False
    writers: set[asyncio.StreamWriter] = set()
    handlers: set[asyncio.Task[None]] = set()

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        handler = asyncio.current_task()
        assert handler is not None  # a connection is served in a task of its own
        handlers.add(handler)
        writers.add(writer)
        server.protocol.set_writer(writer)
        try:
            await _messages(server, reader)
        finally:
            writers.discard(writer)
            done.set()

    def stop() -> None:
        nonlocal stopped
        stopped = True
        done.set()

    with stopping_through_the_loop(stop):
        listening = await asyncio.start_server(connection, host, port)
        bound = listening.sockets[0].getsockname()
        print(f"memlens: language server listening on {bound[0]}:{bound[1]}", file=sys.stderr, flush=True)
        async with listening:
            await done.wait()
            for writer in list(writers):
                writer.close()  # the message loop reads the end of its input and returns
            await asyncio.gather(*handlers, return_exceptions=True)
    return stopped


async def _messages(server: LanguageServer, reader: AsyncReader) -> None:
    """pygls's message loop over `reader` until its input ends; stopped by cancelling it or ending its input, never
    by pygls's stop event."""
    await run_async(
        stop_event=threading.Event(),
        reader=reader,
        protocol=server.protocol,
        logger=log,
        error_handler=server.report_server_error,
    )
