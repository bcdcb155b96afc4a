"""The one-writer rule across processes: an OS lock on an open file, held for the writer's whole life.

Built on `filelock` (flock on Unix, LockFileEx on Windows): the kernel drops the lock when the process dies, so a
crash never leaves a stale lock behind. A lock lives on an inode, not a name: if someone deletes `writer.lock`
while we hold it, a second process would create a new file and lock that. `still_held()` notices (the name no
longer leads to our inode); the engine then lets go and tries once to lock the file the name now leads to, and
writes only if that succeeds, so two processes never both write.

A lock path that is not a regular file (a directory, a FIFO, a symbolic link, a file this user cannot open) holds
no lock; it is reported as `LockPathBroken`, naming the path and what to do, and `repair()` moves it out of the way.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from pathlib import Path

import filelock

from memlens.errors import LockPathBroken


class WriterLock:
    """Try-once lock on `path`: `acquire()` says whether this process is the index writer."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = filelock.FileLock(path, timeout=0, thread_local=False, on_acquired=self._remember)
        self._inode: tuple[int, int] | None = None
        self._not_a_file: str | None = None  # what the descriptor filelock opened turned out to be

    def _remember(self, fd: int) -> None:
        status = os.fstat(fd)
        self._inode = (status.st_dev, status.st_ino)
        # the path may have changed between our look and filelock's open: the descriptor is what counts
        self._not_a_file = None if stat.S_ISREG(status.st_mode) else _kind(status.st_mode)

    def acquire(self) -> bool:
        """True when this process is now the writer; False when another process is. Raises `LockPathBroken` when
        the path is something no lock can live on."""
        self._check_path()
        try:
            self._lock.acquire()
        except filelock.Timeout:
            return False
        except OSError as exc:
            closed = exc.errno in (errno.EACCES, errno.EPERM) and self.path.is_file()
            if closed and os.access(self.path.parent, os.W_OK):
                # a lock file closed to this user in a folder it may write; in a folder it may only read (or not a
                # file at all), the folder is the cause (write_access.py)
                raise self._broken("a file this user may not open for writing") from exc
            if exc.errno in (errno.EISDIR, errno.ELOOP, errno.ENOTDIR, errno.ENXIO):
                raise self._broken(_describe(self.path)) from exc
            raise
        if self._not_a_file is not None:
            kind = self._not_a_file
            self.release()
            raise self._broken(kind)
        if self._inode is None:  # a soft (existence-based) fallback lock reports no descriptor
            status = self.path.stat()
            self._inode = (status.st_dev, status.st_ino)
        return True

    def still_held(self) -> bool:
        """True while `path` is still the file we locked (it was not deleted or replaced under us)."""
        if not self._lock.is_locked or self._inode is None:
            return False
        try:
            status = self.path.stat()
        except OSError:
            return False
        return (status.st_dev, status.st_ino) == self._inode

    def repair(self) -> None:
        """Move a broken lock path out of the way (a directory is renamed aside, never deleted with what it holds;
        a FIFO, socket or symbolic link is removed; a file this user cannot open is made writable when it is
        ours), so the next `acquire()` creates a proper lock file. A regular lock file is never touched: another
        process may hold it."""
        try:
            status = os.lstat(self.path)
        except FileNotFoundError:
            return
        if stat.S_ISDIR(status.st_mode):
            try:
                self.path.rmdir()  # an empty directory holds nothing worth keeping
            except OSError:
                self.path.rename(self.path.with_name(f"{self.path.name}.not-a-lock-{time.time_ns()}"))
        elif not stat.S_ISREG(status.st_mode):
            self.path.unlink(missing_ok=True)
        elif status.st_uid == os.geteuid():
            self.path.chmod(0o644)

    def release(self) -> None:
        if self._lock.is_locked:
            self._lock.release(force=True)
        self._inode = None

    def _check_path(self) -> None:
        try:
            status = os.lstat(self.path)
        except FileNotFoundError:
            return
        if not stat.S_ISREG(status.st_mode):
            raise self._broken(_describe(self.path))

    def _broken(self, kind: str) -> LockPathBroken:
        return LockPathBroken(
            f"the writer lock {self.path} is {kind}, not a lock file: remove it, or run `memlens reindex --full`, "
            "which replaces it; until then this index is read-only"
        )


def _describe(path: Path) -> str:
    """What is at `path`, in a user's words."""
    try:
        status = os.lstat(path)
    except OSError:
        return "missing"
    if stat.S_ISLNK(status.st_mode):
        target = os.readlink(path)
        return f"a symbolic link to {target}" + ("" if path.exists() else " (which does not exist)")
    return _kind(status.st_mode)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"
