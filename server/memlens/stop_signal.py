"""SIGTERM (what `kill`, systemd and `docker stop` send) handled as the first Ctrl-C.

Python's default for SIGTERM is to die at once: no goodbye line, no step finished, the writer lock and the index left
as the kill found them. Here it raises SIGINT instead, so whatever stops a command on Ctrl-C stops it on SIGTERM: the
step under way ends (or is rolled back), what was committed stays, the command says it stopped; a second one quits
at once, as a second Ctrl-C does. Where SIGINT has no Python handler (a process started with SIGINT ignored, as a
shell does for `cmd &` in a script) it raises KeyboardInterrupt itself. `by_sigterm()` tells a command which of the
two stopped it: its line and its exit status may differ (`memlens index` exits 143, 128 + SIGTERM, as a shell
reports a process SIGTERM ended; a server stopped by either exits 0, which systemd counts as a clean stop).
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

EXIT_SIGTERM = 128 + signal.SIGTERM

_received = threading.Event()


def treat_sigterm_as_ctrl_c() -> None:
    """Install the handler (from the main thread, before the command's work starts; elsewhere a no-op)."""
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, _as_ctrl_c)


def by_sigterm() -> bool:
    """Whether a SIGTERM has come."""
    return _received.is_set()


def _as_ctrl_c(signum: int, frame: FrameType | None) -> None:
    _received.set()
    if callable(signal.getsignal(signal.SIGINT)):  # Python's own or asyncio's: it stops the command as Ctrl-C does
        signal.raise_signal(signal.SIGINT)
    else:
        raise KeyboardInterrupt
