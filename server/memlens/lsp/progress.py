"""Work-done progress (begin/report/end, cancellable) and the throttled `memlens/indexStatus` notification."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Protocol

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from memlens.wire import IndexStatus


class ServerState(Protocol):
    """What progress reporting needs of the server's state (memlens.lsp.state.ServerState provides it); a protocol
    here keeps this module free of an import back into state."""

    server: LanguageServer
    initialized: bool

    def call_soon(self, callback: Callable[[], Any]) -> None: ...

    async def index_status(self, message: str | None = None) -> IndexStatus | None: ...


log = logging.getLogger(__name__)

INDEX_STATUS = "memlens/indexStatus"
REPORT_INTERVAL = 0.2
STATUS_INTERVAL = 0.5


class WorkDone:
    """One server-initiated work-done progress. `report` may be called from any thread."""

    def __init__(self, state: ServerState, title: str, on_cancel: Callable[[], None] | None = None) -> None:
        self.state = state
        self.title = title
        self.on_cancel = on_cancel
        self.token: str | None = None
        self.cancelled = False
        self._last_report = 0.0
        self._ended = False

    async def begin(self, message: str = "") -> None:
        server = self.state.server
        window = server.client_capabilities.window if self.state.initialized else None
        if not (window and window.work_done_progress):
            return
        token = f"memlens-{uuid.uuid4().hex[:12]}"
        try:
            await asyncio.wait_for(server.work_done_progress.create_async(token), 10.0)
        except Exception as exc:  # a client that refuses progress still gets the work done
            log.info("work-done progress refused: %s", exc)
            return
        self.token = token
        future: Future[Any] | None = server.work_done_progress.tokens.get(token)
        if future is not None:
            future.add_done_callback(self._cancelled)
        server.work_done_progress.begin(
            token,
            types.WorkDoneProgressBegin(title=self.title, message=message or None, percentage=0, cancellable=True),
        )

    def _cancelled(self, future: Future[Any]) -> None:
        if future.cancelled() and not self._ended:
            self.cancelled = True
            log.info("%s cancelled by the client", self.title)
            if self.on_cancel is not None:
                self.on_cancel()

    def report(self, done: int, total: int, message: str) -> None:
        """Thread-safe, throttled progress report."""
        now = time.monotonic()
        if self.token is None or self._ended or (now - self._last_report < REPORT_INTERVAL and done < total):
            return
        self._last_report = now
        percentage = max(0, min(100, round(100 * done / total))) if total > 0 else None
        value = types.WorkDoneProgressReport(message=message, percentage=percentage, cancellable=True)
        self.state.call_soon(lambda: self._send(value))

    def _send(self, value: types.WorkDoneProgressReport) -> None:
        if self.token is not None and not self._ended:
            self.state.server.work_done_progress.report(self.token, value)

    def end(self, message: str = "") -> None:
        """End the progress (on the event loop thread)."""
        if self.token is None or self._ended:
            self._ended = True
            return
        self._ended = True
        self.state.server.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message or None))
        self.state.server.work_done_progress.tokens.pop(self.token, None)


class StatusPublisher:
    """Sends `memlens/indexStatus` at most ~2 times a second (the last one always goes out)."""

    def __init__(self, state: ServerState) -> None:
        self.state = state
        self._last = 0.0
        self._scheduled = False
        self._message: str | None = None

    def poke(self, message: str | None = None) -> None:
        """Ask for a status notification soon (thread-safe)."""
        self.state.call_soon(lambda: self._schedule(message))

    def _schedule(self, message: str | None) -> None:
        if message is not None:
            self._message = message
        if self._scheduled:
            return
        self._scheduled = True
        delay = max(0.0, STATUS_INTERVAL - (time.monotonic() - self._last))
        asyncio.get_running_loop().call_later(delay, lambda: asyncio.ensure_future(self._publish()))

    async def publish_now(self, message: str | None = None) -> None:
        if message is not None:
            self._message = message
        await self._publish()

    async def _publish(self) -> None:
        self._scheduled = False
        self._last = time.monotonic()
        message, self._message = self._message, None
        try:
            status = await self.state.index_status(message)
        except Exception:
            log.exception("cannot compute the index status")
            return
        if status is not None:
            self.state.server.protocol.notify(INDEX_STATUS, status)
