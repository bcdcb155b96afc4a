"""A stdio server's input, read so that stopping the server never waits for the client's next byte.

Why it exists: the MCP SDK (through anyio) reads stdin in a worker thread whose wait cannot be cancelled, and the
loop's shutdown waits for that thread, so a server told to stop (SIGTERM, Ctrl-C) stayed until the client wrote a
line or closed the pipe, which a client that is still connected never does. Here a daemon thread reads a private
copy of fd 0 with plain `os.read` (no buffered reader's lock, which the interpreter's exit would wait for) and hands
each chunk to the event loop; a read awaited on the loop is cancelled as any other await is, and the thread, still
blocked in its read, does not hold up the process's exit. While serving, fd 0 itself points at the null device, so
nothing else in the process reads the wire (the SDK's stdio transport does the same).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager

from memlens.skipped_message import Glimpse, MessageTooLong, Skipped

CHUNK = 64 * 1024
CHUNKS_AHEAD = 4  # read ahead of the server by at most this many chunks; then the pipe holds the rest


class StdinReader:
    """The bytes the client wrote, read on the loop: as lines, or as a count of bytes (an LSP message body). A line
    over `limit` bytes is read to its end and let go as it is read (skipped_message.py), never held."""

    def __init__(self, chunks: asyncio.Queue[bytes], limit: int) -> None:
        self._chunks = chunks
        self._limit = limit
        self._buffer = bytearray()
        self._ended = False

    async def _read_more(self) -> bool:
        """Wait for the next chunk; False at the end of the input."""
        if self._ended:
            return False
        chunk = await self._chunks.get()
        if not chunk:
            self._ended = True
            return False
        self._buffer += chunk
        return True

    async def readline(self) -> bytes:
        """The next line with its b"\\n" (without one at the end of the input); b"" once the input has ended.
        MessageTooLong, once it has been read to its end, for a line over the bound."""
        searched = 0
        while (end := self._buffer.find(b"\n", searched)) < 0:
            if len(self._buffer) > self._limit:
                raise MessageTooLong(await self._skip_line())
            searched = len(self._buffer)
            if not await self._read_more():
                end = len(self._buffer) - 1
                break
        line = bytes(self._buffer[: end + 1])
        del self._buffer[: end + 1]
        if len(line) - line.endswith(b"\n") > self._limit:
            glimpse = Glimpse(self._limit)
            glimpse.see(line.removesuffix(b"\n"))
            raise MessageTooLong(glimpse.skipped())
        return line

    async def _skip_line(self) -> Skipped:
        """Read the rest of the line, keeping only its glimpse; what follows its newline stays to be read."""
        glimpse = Glimpse(self._limit)
        while (end := self._buffer.find(b"\n")) < 0:
            glimpse.see(self._buffer)
            self._buffer.clear()
            if not await self._read_more():
                return glimpse.skipped()
        glimpse.see(self._buffer[:end])
        del self._buffer[: end + 1]
        return glimpse.skipped()

    async def readexactly(self, count: int) -> bytes:
        """The next `count` bytes; fewer only at the end of the input (as pygls's own reader gives them). Held whole:
        its caller bounds `count`."""
        while len(self._buffer) < count and await self._read_more():
            pass
        data = bytes(self._buffer[:count])
        del self._buffer[:count]
        return data

    async def text_lines(self) -> AsyncIterator[str | Skipped]:
        """Each line as text (UTF-8; a byte that is not, replaced, as the MCP SDK's own reader does), or what was
        skipped of a line over the bound."""
        while True:
            try:
                line = await self.readline()
            except MessageTooLong as too_long:
                yield too_long.skipped
                continue
            if not line:
                return
            yield line.decode("utf-8", errors="replace")


@contextmanager
def reading_stdin(limit: int) -> Iterator[StdinReader]:
    """Serve stdin to the running loop until the block ends (call it from a coroutine), a line at most `limit` bytes
    long; fd 0 is given back after."""
    loop = asyncio.get_running_loop()
    wire = os.dup(0)  # never closed: the thread may still be blocked reading it when the block ends
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    chunks: asyncio.Queue[bytes] = asyncio.Queue(CHUNKS_AHEAD)
    threading.Thread(target=_pass_on, args=(wire, chunks, loop), name="memlens stdin", daemon=True).start()
    try:
        yield StdinReader(chunks, limit)
    finally:
        os.dup2(wire, 0)


def _pass_on(wire: int, chunks: asyncio.Queue[bytes], loop: asyncio.AbstractEventLoop) -> None:
    """Read the wire and put each chunk on the loop's queue, up to the end of the input (b"" then) or of the loop."""
    while True:
        try:
            chunk = os.read(wire, CHUNK)
        except OSError:  # the wire broke: for the server, the same as its end
            chunk = b""
        put = chunks.put(chunk)
        try:
            asyncio.run_coroutine_threadsafe(put, loop).result()
        except RuntimeError:  # the loop has closed: the put never ran
            put.close()
            return
        except concurrent.futures.CancelledError:  # the loop cancelled the put as it ended
            return
        if not chunk:
            return
