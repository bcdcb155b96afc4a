"""A long-lived reader (`memlens serve`, `memlens mcp` opened beside another writer) takes the writer's place when
the writer lets go: the editor window that indexed was closed, or a `stats` held the lock the moment this server
opened. Without it, such a server served read-only for its whole life and new transcripts were never indexed.

A thread tries the writer lock every TAKEOVER_SECONDS (a try is one non-blocking `flock`, never on an event loop);
the kernel gives a freed lock to one process only, so of two readers trying, one becomes the writer and the other
goes on reading, and trying, behind it. A reason not to write other than another writer (a broken lock path, a
folder this user may not write) is said once and ends the trying: it does not go away by itself.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from memlens.engine.engine import Engine

log = logging.getLogger(__name__)

TAKEOVER_SECONDS = 2.0


class WriterTakeover:
    """Tries, until stopped, to make `engine` the writer; calls `on_taken` (on its own thread) once it is."""

    def __init__(self, engine: Engine, on_taken: Callable[[], None], *, every: float = TAKEOVER_SECONDS) -> None:
        self.engine = engine
        self.on_taken = on_taken
        self.every = every
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="memlens-takeover", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop trying; when this returns, no takeover is under way and `on_taken` will not be called."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    @property
    def trying(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            try:
                taken = self.engine.take_over()
            except Exception:
                log.exception("could not take over writing the index at %s; serving read-only", self.engine.index_dir)
                return
            if taken:
                log.warning("the index's writer let go of %s; this process writes it now", self.engine.index_dir)
                if not self._stop.is_set():  # stopping: the engine is about to close, and lets go with it
                    self.on_taken()
                return
            problem = self.engine.write_problem
            if problem is not None:
                log.warning("%s", problem)
                return
