"""Background indexing behind one small adapter: the live watcher when available, else a one-off sync thread."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from memlens.engine import Engine
from memlens.engine.indexing.indexer import SyncReport
from memlens.engine.progress import Progress

log = logging.getLogger(__name__)

OnSync = Callable[[SyncReport], None]


class BackgroundIndexer:
    """Initial reconcile plus live updates (LiveIndexer), or a single `engine.sync` in a thread as a fallback."""

    def __init__(self, engine: Engine, on_sync: OnSync, on_progress: Progress, live: bool = True) -> None:
        self.engine = engine
        self.on_sync = on_sync
        self.on_progress = on_progress
        self._live: Any = None
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self._want_live = live

    def start(self) -> None:
        if self._want_live:
            try:
                from memlens.engine.watcher import LiveIndexer

                self._live = LiveIndexer(self.engine, on_sync=self.on_sync, on_progress=self.on_progress)
            except (ImportError, TypeError) as exc:
                log.warning("live indexing unavailable (%s); indexing once at start-up", exc)
        if self._live is not None:
            self._live.start()
            return
        self._thread = threading.Thread(target=self._sync_once, name="memlens-initial-sync", daemon=True)
        self._thread.start()

    def _sync_once(self) -> None:
        try:
            report = self.engine.sync(progress=self.on_progress, cancel=self._cancel)
        except Exception:
            log.exception("initial sync failed")
            report = SyncReport(errors=["initial sync failed; see the server log"])
        self.on_sync(report)

    def cancel(self) -> None:
        """Cancel the current long job (initial sync or embedding backlog)."""
        self._cancel.set()
        if self._live is not None:
            self._live.cancel()

    def stop(self) -> None:
        self._cancel.set()
        if self._live is not None:
            self._live.stop()
        if self._thread is not None:
            self._thread.join(10.0)
