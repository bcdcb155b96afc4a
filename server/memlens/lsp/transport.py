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
import json
import logging
import re
import sys
from typing import TYPE_CHECKING, BinaryIO

from lsprotocol.types import ResponseError
from pygls.exceptions import JsonRpcException
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

from memlens.listen_address import listening_sockets, said_address
from memlens.requests import MAX_MESSAGE_BYTES
from memlens.skipped_message import INVALID_REQUEST, Glimpse, Skipped
from memlens.stdin_reader import CHUNK, reading_stdin
from memlens.stop_signal import stopping_through_the_loop

if TYPE_CHECKING:
    from pygls.io_ import AsyncReader  # a Protocol pygls declares for type checkers alone

log = logging.getLogger(__name__)

_CONTENT_LENGTH = re.compile(rb"^Content-Length: (\d+)\r\n$")  # as pygls reads it


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
    with stopping_through_the_loop(stop), reading_stdin(MAX_MESSAGE_BYTES) as stdin:
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
        sockets = listening_sockets(host, port)  # every address of the host on one port (listen_address.py)
        servers = [await asyncio.start_server(connection, sock=sock) for sock in sockets]
        where = " and ".join(said_address(sock) for sock in sockets)
        print(f"memlens: language server listening on {where}", file=sys.stderr, flush=True)
        try:
            await done.wait()
            for writer in list(writers):
                writer.close()  # the message loop reads the end of its input and returns
            await asyncio.gather(*handlers, return_exceptions=True)
        finally:
            for listening in servers:
                listening.close()
                await listening.wait_closed()
    return stopped


async def _messages(server: LanguageServer, reader: AsyncReader) -> None:
    """pygls's message loop (`pygls.io_.run_async`) over `reader` until its input ends, with a bound on a message:
    a header line or a body over MAX_MESSAGE_BYTES is read to its end and let go, the client answered with an error
    where the body shows its request's id (else the server logs one line), and the next message is served. Stopped
    by cancelling it or ending its input, never by pygls's stop event."""
    content_length = 0
    while True:
        try:
            header = await reader.readline()
        except ValueError as exc:  # a header line over the bound (asyncio's reader: over its own), read and let go
            log.warning("%s", exc)
            continue
        if not header:
            return
        if not content_length and (declared := _CONTENT_LENGTH.fullmatch(header)) is not None:
            content_length = int(declared.group(1))
        if content_length and not header.strip():
            if content_length > MAX_MESSAGE_BYTES:
                skipped = await _skipped_body(reader, content_length)
                if skipped is None:
                    return
                _refuse(server, skipped)
            else:
                body = await reader.readexactly(content_length)
                if not body:
                    return
                _handle(server, body)
            content_length = 0


def _handle(server: LanguageServer, body: bytes) -> None:
    """One message to pygls's protocol, as its own loop hands it on."""
    try:
        message = json.loads(body, object_hook=server.protocol.structure_message)
        server.protocol.handle_message(message)
    except Exception as exc:
        log.exception("Unable to handle message")
        server.report_server_error(exc, JsonRpcException)


async def _skipped_body(reader: AsyncReader, length: int) -> Skipped | None:
    """Read a body of `length` bytes a chunk at a time, keeping only its glimpse; None when the input ends first."""
    glimpse = Glimpse(MAX_MESSAGE_BYTES)
    left = length
    while left:
        try:
            chunk = await reader.readexactly(min(CHUNK, left))
        except asyncio.IncompleteReadError:  # asyncio's reader at the end of its input
            return None
        if not chunk:
            return None
        glimpse.see(chunk)
        left -= len(chunk)
    return glimpse.skipped()


def _refuse(server: LanguageServer, skipped: Skipped) -> None:
    if skipped.request_id is None:
        log.warning("%s (no request id found in it to answer)", skipped.reason())
        return
    error = ResponseError(code=INVALID_REQUEST, message=skipped.reason())
    server.protocol._send_response(skipped.request_id, error=error)  # pygls's own answer to a request
