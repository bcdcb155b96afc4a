"""An engine opened once the index is there to read: a server (`memlens serve`, `memlens mcp`) started while another
process creates or rebuilds the index (a first `memlens index`, a schema change) finds a part not made yet, and would
otherwise fail for good; the process making it holds the writer lock, makes the part within moments of starting, and
the same open then succeeds. A short command still fails at once with the one line that says so."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from memlens.errors import IndexBeingMade

log = logging.getLogger(__name__)

OPEN_RETRY_SECONDS = 1.0
T = TypeVar("T")


def opened_when_ready(
    open_index: Callable[[], T],
    *,
    seconds: float,
    on_wait: Callable[[IndexBeingMade], None] = lambda exc: log.warning("%s; waiting for it to finish", exc.what),
    stop: threading.Event | None = None,
) -> T:
    """`open_index()`, tried again every OPEN_RETRY_SECONDS while it raises IndexBeingMade, for at most `seconds` (or
    until `stop` is set): the last error then. `on_wait` is told the first time it waits."""
    deadline = time.monotonic() + seconds
    told = False
    while True:
        try:
            return open_index()
        except IndexBeingMade as exc:
            if time.monotonic() >= deadline or (stop is not None and stop.is_set()):
                raise
            if not told:
                on_wait(exc)
                told = True
        if stop is not None:
            stop.wait(OPEN_RETRY_SECONDS)
        else:
            time.sleep(OPEN_RETRY_SECONDS)
