"""The one-writer rule across processes: an OS lock on an open file, held for the writer's whole life.

Built on `filelock` (flock on Unix, LockFileEx on Windows): the kernel drops the lock when the process dies, so a
crash never leaves a stale lock behind. A lock lives on an inode, not a name: if someone deletes `writer.lock`
while we hold it, a second process would create a new file and lock that. `still_held()` notices (the name no
longer leads to our inode) so the writer stops writing before its next commit instead of writing twice.
"""

from __future__ import annotations

import os
from pathlib import Path

import filelock


class WriterLock:
    """Try-once lock on `path`: `acquire()` says whether this process is the index writer."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = filelock.FileLock(path, timeout=0, thread_local=False, on_acquired=self._remember)
        self._inode: tuple[int, int] | None = None

    def _remember(self, fd: int) -> None:
        stat = os.fstat(fd)
        self._inode = (stat.st_dev, stat.st_ino)

    def acquire(self) -> bool:
        try:
            self._lock.acquire()
        except filelock.Timeout:
            return False
        if self._inode is None:  # a soft (existence-based) fallback lock reports no descriptor
            stat = self.path.stat()
            self._inode = (stat.st_dev, stat.st_ino)
        return True

    def still_held(self) -> bool:
        """True while `path` is still the file we locked (it was not deleted or replaced under us)."""
        if not self._lock.is_locked or self._inode is None:
            return False
        try:
            stat = self.path.stat()
        except OSError:
            return False
        return (stat.st_dev, stat.st_ino) == self._inode

    def release(self) -> None:
        if self._lock.is_locked:
            self._lock.release(force=True)
        self._inode = None
