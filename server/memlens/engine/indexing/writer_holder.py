"""Who holds an index's writer lock: the process that took it writes its pid and memlens command beside the lock
(`writer.holder`), so another process can name it and tell a short-lived command, which lets go in moments (a
`stats`, a `search` that syncs first), from a long-lived one that keeps it (`watch`, `serve`, `mcp`).

Not in the lock file itself: a process that tries the lock and fails opens that file too. The file is removed by
its holder when it lets go; one left by a crash names a process that holds nothing, and is read only while some
process holds the lock, which then writes its own over it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

HOLDER_FILE = "writer.holder"
LASTING_COMMANDS = frozenset({"watch", "serve", "mcp"})  # hold the lock for as long as they run


@dataclass(frozen=True, slots=True)
class Holder:
    command: str  # the memlens command (`index`, `stats`, `watch`...)
    pid: int

    @property
    def lasting(self) -> bool:
        return self.command in LASTING_COMMANDS

    def __str__(self) -> str:
        return f"`memlens {self.command}` (pid {self.pid})"


def record_holder(index_dir: Path, command: str) -> None:
    """Say that this process, running `command`, now holds the lock (a failure only leaves it unnamed)."""
    path = index_dir / HOLDER_FILE
    staged = path.with_name(f"{HOLDER_FILE}.{os.getpid()}.tmp")
    try:
        staged.write_text(json.dumps({"pid": os.getpid(), "command": command}), encoding="utf-8")
        os.replace(staged, path)
    except OSError as exc:
        log.debug("cannot write %s: %s", path, exc)
        staged.unlink(missing_ok=True)


def forget_holder(index_dir: Path) -> None:
    """Before this process lets go of the lock: remove the file when it still names this process."""
    path = index_dir / HOLDER_FILE
    holder = read_holder(index_dir)
    if holder is not None and holder.pid == os.getpid():
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


def read_holder(index_dir: Path) -> Holder | None:
    """The process the file names; None when there is none (not written yet, or by a memlens that wrote none)."""
    try:
        said = json.loads((index_dir / HOLDER_FILE).read_text(encoding="utf-8"))
        return Holder(command=str(said["command"]), pid=int(said["pid"]))
    except (OSError, ValueError, TypeError, KeyError):
        return None
