"""Standard streams a caller closed (`memlens search x >&-`, `2>&-`, `<&-`), reopened on the null device before
the command opens anything.

Python starts with `sys.stdout` (or `sys.stderr`, `sys.stdin`) as None when its descriptor is closed, and every
print and flush then fails: a search that found its hits ended in a traceback with status 1, and with stderr closed
an error went to stdout, into the JSON a script reads. Worse, the next file opened takes the free descriptor, so an
index file could become fd 2 and a library's warnings (onnxruntime writes to fd 2) land inside it. git does the same
(`sanitize_stdfds`): a stream nobody reads is the null device, and the exit status still says what happened."""

from __future__ import annotations

import os
import sys

__all__ = ["reopen_closed_standard_streams"]

_STREAMS = ((0, "stdin", os.O_RDONLY), (1, "stdout", os.O_WRONLY), (2, "stderr", os.O_WRONLY))


def reopen_closed_standard_streams() -> None:
    """Point each closed descriptor of 0, 1 and 2 at the null device, and give Python a stream on it. In order from
    0: the null device opens on the lowest free descriptor, which is the one being filled."""
    for fd, name, flags in _STREAMS:
        if not _is_open(fd):
            null = os.open(os.devnull, flags)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
        if getattr(sys, name) is None:
            mode = "r" if fd == 0 else "w"
            setattr(sys, name, open(fd, mode, encoding="utf-8", errors="replace", closefd=False))  # noqa: SIM115


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True
