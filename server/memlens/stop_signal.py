"""SIGTERM (what `kill`, systemd and `docker stop` send) handled as the first Ctrl-C.

Python's default for SIGTERM is to die at once: no goodbye line, no step finished, the writer lock and the index left
as the kill found them. Here it raises SIGINT instead, so whatever stops a command on Ctrl-C stops it on SIGTERM: the
step under way ends (or is rolled back), what was committed stays, the command says it stopped; a second one quits
at once, as a second Ctrl-C does. While a step that looks at a cancel event runs (`cancelled_by_a_stop`: the CLI's
sync), the first one sets that event instead of raising: the sync ends where the editor's cancel ends it, the files
read so far committed, and a second one quits at once. Where SIGINT has no Python handler (a process started with
SIGINT ignored, as a shell does for `cmd &` in a script) it raises KeyboardInterrupt itself. `by_sigterm()` tells a
command which of the two stopped it: its line and its exit status may differ (`memlens index` exits 143, 128 +
SIGTERM, as a shell reports a process SIGTERM ended; a server stopped by either exits 0, which systemd counts as a
clean stop).

A server on an event loop takes both through the loop instead (`stopping_through_the_loop`): an interrupt raised
wherever the signal lands may land inside one of the loop's tasks, and asyncio then prints that task's traceback
through the loop's exception handler ("unhandled exception during asyncio.run() shutdown", "Exception in callback")
on the way out; the loop calls the server's stop instead, at a point where nothing is half done.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

EXIT_SIGTERM = 128 + signal.SIGTERM
EXIT_CTRL_C = 128 + signal.SIGINT

_received = threading.Event()
_ctrl_c = threading.Event()
_cancel: list[threading.Event] = []  # the step's cancel the first stop sets (`cancelled_by_a_stop`), innermost last


def treat_sigterm_as_ctrl_c() -> None:
    """Install the handlers (from the main thread, before the command's work starts; elsewhere a no-op): SIGTERM
    raises SIGINT, and SIGINT, where Python's own handler has it, is remembered before it interrupts."""
    if threading.current_thread() is not threading.main_thread():
        return
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, _as_ctrl_c)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _remembered_ctrl_c)


def by_sigterm() -> bool:
    """Whether a SIGTERM has come."""
    return _received.is_set()


def interrupted() -> bool:
    """Whether a Ctrl-C or a SIGTERM has come: the KeyboardInterrupt it raised may reach the command as another
    error (SQLite turns one raised inside a Python SQL function into `OperationalError: user-defined function raised
    exception`)."""
    return _ctrl_c.is_set() or _received.is_set()


def _remembered_ctrl_c(signum: int, frame: FrameType | None) -> None:
    _ctrl_c.set()
    if not _cancelled_instead():
        raise KeyboardInterrupt


@contextmanager
def cancelled_by_a_stop(cancel: threading.Event) -> Iterator[None]:
    """While the block runs (a sync that looks at `cancel` between its files): the first Ctrl-C or SIGTERM sets
    `cancel` instead of raising KeyboardInterrupt, so the step ends at its next look, keeping what it did (the caller
    asks `interrupted()` once it returns); a second one quits at once (`_quit_at_once`: what was committed stays).
    Off the main thread a no-op: signals come only to the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _cancel.append(cancel)
    try:
        yield
    finally:
        _cancel.remove(cancel)


def _cancelled_instead() -> bool:
    """Whether a step's cancel took this stop (`cancelled_by_a_stop`); a second stop while it winds down quits."""
    if not _cancel:
        return False
    if _cancel[-1].is_set():
        _quit_at_once(signal.SIGTERM if _received.is_set() else signal.SIGINT, None)
    _cancel[-1].set()
    return True


@contextmanager
def stopping_through_the_loop(stop: Callable[[], None]) -> Iterator[None]:
    """While a server runs on the running asyncio loop (anyio's too): SIGTERM, and SIGINT unless the process was
    started with it ignored, call `stop` in the loop (once). A second signal while it stops quits at once, with one
    line (`_quit_at_once`: an interrupt raised inside a task would print its traceback). The handlers before are back
    once the block ends. Off the main thread a no-op: signals come only to the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    loop = asyncio.get_running_loop()
    watched = [signal.SIGTERM] + ([signal.SIGINT] if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN else [])
    before = {signum: signal.getsignal(signum) for signum in watched}

    def give_back() -> None:
        for signum in watched:
            loop.remove_signal_handler(signum)  # it sets SIG_DFL (SIGINT: Python's); ours or asyncio's goes back
            signal.signal(signum, before[signum])

    def on_signal(signum: int) -> None:
        if signum == signal.SIGTERM:
            _received.set()
        for watched_signum in watched:
            loop.remove_signal_handler(watched_signum)
            signal.signal(watched_signum, _quit_at_once)
        stop()

    for signum in watched:
        loop.add_signal_handler(signum, on_signal, signum)
    try:
        yield
    finally:
        give_back()


def _quit_at_once(signum: int, frame: FrameType | None) -> None:
    """A second signal while a server stops: exit now, as a second Ctrl-C does, saying so (what was committed stays:
    the catalog and the keyword index commit atomically)."""
    os.write(2, b"memlens: stopped at once\n")
    os._exit(EXIT_SIGTERM if signum == signal.SIGTERM else EXIT_CTRL_C)


def _as_ctrl_c(signum: int, frame: FrameType | None) -> None:
    _received.set()
    if _cancelled_instead():
        return
    if callable(signal.getsignal(signal.SIGINT)):  # Python's own or asyncio's: it stops the command as Ctrl-C does
        signal.raise_signal(signal.SIGINT)
    else:
        raise KeyboardInterrupt
