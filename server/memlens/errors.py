"""The one error family for everything a user can cause: bad input, bad settings, a missing session, a full disk.

Every layer (engine, CLI, language server, MCP server) raises or catches `MemlensError`; its message is written
for the user, one line, no traceback. Anything else that escapes is a bug, and the CLI says so with a hint to
rerun with `-v`.
"""

from __future__ import annotations

import errno
import os
import re
import sys
from pathlib import Path


class MemlensError(Exception):
    """A request memlens cannot serve; `str(error)` is the message meant for the user, secrets masked."""

    def __str__(self) -> str:
        # a message quotes what was typed or read (a session id, a cursor, a date, a path), and a user pastes tokens
        # anywhere: it leaves masked, as every other answer does, from each door (CLI, MCP, LSP, socket)
        from memlens.redaction import redact  # loaded when an error is shown, not by every import of this

        return redact(super().__str__())


class InvalidRequest(MemlensError, ValueError):
    """An argument is out of range, of the wrong type, or names something that does not exist."""


class NotFound(InvalidRequest, LookupError):
    """A session, message or summary that does not exist, or is out of scope (the two answer alike)."""


class InvalidPattern(InvalidRequest):
    """A user-supplied regular expression that cannot be compiled, or is too long."""


class IndexUnavailable(MemlensError):
    """The index cannot be written right now: another process holds the writer lock, or the disk is full."""


class IndexWriteFailed(IndexUnavailable):
    """The index could not be written for a reason outside memlens (a full disk, a read-only or failing disk, no
    permission): what was committed before stays, and searches answer from it."""

    def __init__(self, cause: str, index_dir: object) -> None:
        self.cause = cause
        super().__init__(
            f"could not update the index at {index_dir}: {cause}; {what_to_do(cause)}; searches answer from the "
            "last update"
        )


class LockPathBroken(IndexUnavailable):
    """The writer lock's path is something no lock can live on (a directory, a FIFO, a symbolic link, a file
    this user cannot open): the index is read-only until it is removed or `reindex --full` replaces it."""


class IndexBeingMade(IndexUnavailable):
    """A reader opened an index another process is still creating or rebuilding (it holds the writer lock): the same
    open succeeds once that process has made the part (engine/opening.py waits for it). `what`: whose doing it is."""

    def __init__(self, what: str) -> None:
        self.what = what
        super().__init__(f"{what}; try again when it finishes")


class IndexNotReady(IndexUnavailable):
    """A part of the index a reader found missing, half-made, unreadable or of another version: only the writer
    creates, repairs or rebuilds it, so a reader says what it found (`part`) and changes nothing."""

    def __init__(self, part: str) -> None:
        self.part = part
        super().__init__(part)


class SettingsError(MemlensError):
    """A settings file that cannot be read at all (bad values inside a readable file only warn)."""


# the causes an index write can fail for that lie outside memlens, by errno
ENVIRONMENTAL_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EIO, errno.EACCES, errno.EPERM)
_SQLITE_CAUSES = {  # SQLite says these in its own words
    "database or disk is full": errno.ENOSPC,
    "attempt to write a readonly database": errno.EROFS,
    "disk i/o error": errno.EIO,
}
# Rust's io::Error as tantivy shows it (Display, then Debug), and Python's
_OS_ERROR_IN_TEXT = re.compile(r"os error (\d+)|os \{ code: (\d+)|\[errno (\d+)\]")
_WHAT_TO_DO = {
    os.strerror(errno.ENOSPC).lower(): "free some space there (or point memlens.indexDir at another disk)",
    os.strerror(errno.EDQUOT).lower(): "free some of your quota there (or point memlens.indexDir at another disk)",
    os.strerror(errno.EROFS).lower(): "remount it read-write (or point memlens.indexDir at a writable folder)",
    os.strerror(errno.EACCES).lower(): "give this user write access to it (or point memlens.indexDir elsewhere)",
    os.strerror(errno.EIO).lower(): "check the disk, then run `memlens reindex --full`",
    os.strerror(errno.EFBIG).lower(): "raise the file size limit memlens runs under (`ulimit -f`)",
}


def what_to_do(cause: str) -> str:
    """The user's next step for an `environmental_cause`."""
    return _WHAT_TO_DO.get(cause, "fix that and try again")


def environmental_cause(exc: BaseException, index_dir: Path | None = None) -> str | None:
    """Why a write failed, when the reason lies outside memlens ("no space left on device", "read-only file
    system", ...), found in `exc` or the exceptions it was raised from; None for anything else (a bug). With
    `index_dir`, an OS error that names a file elsewhere (a source folder this user may not read) is not the
    index's."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if index_dir is not None and not _about(current, index_dir):
            return None
        number = _errno_of(current)
        if number in ENVIRONMENTAL_ERRNOS:
            if number == errno.EPERM:
                number = errno.EACCES  # one cause for the user: this user may not write there
            return os.strerror(number).lower()
        current = current.__cause__ or current.__context__
    return None


def _about(exc: BaseException, index_dir: Path) -> bool:
    """False for an OS error naming a file outside `index_dir`."""
    filename = exc.filename if isinstance(exc, OSError) else None
    if not isinstance(filename, (str, bytes, os.PathLike)):
        return True
    try:
        named = Path(os.fsdecode(filename)).resolve()
        return named == index_dir.resolve() or index_dir.resolve() in named.parents
    except (OSError, ValueError):
        return True


def _errno_of(exc: BaseException) -> int | None:
    if isinstance(exc, OSError) and exc.errno is not None:
        return exc.errno
    text = str(exc).lower()
    sqlite3 = sys.modules.get("sqlite3")  # only an SQLite error can be one: never imported for this (CLI start-up)
    if sqlite3 is not None and isinstance(exc, sqlite3.Error):
        for words, number in _SQLITE_CAUSES.items():
            if words in text:
                return errno.EFBIG if number == errno.EIO and _file_size_limited() else number
    found = _OS_ERROR_IN_TEXT.search(text)
    if found:
        return int(next(group for group in found.groups() if group))
    if "no space left" in text or "disk is full" in text:
        return errno.ENOSPC
    if "quota exceeded" in text:
        return errno.EDQUOT
    return None


def _file_size_limited() -> bool:
    """Whether this process may write files only up to a size (`ulimit -f`): SQLite says a write past it (EFBIG) in
    the words of a failing disk, "disk I/O error"."""
    try:
        import resource  # (not on Windows)
    except ImportError:
        return False
    return resource.getrlimit(resource.RLIMIT_FSIZE)[0] != resource.RLIM_INFINITY


def unwritable_folder_cause(folder: Path) -> str | None:
    """Why `folder` cannot be written at all (a read-only file system, no write permission), if so."""
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return os.strerror(errno.EROFS).lower()
    except (OSError, AttributeError):  # no statvfs (Windows): the access check below still answers
        pass
    if folder.exists() and not os.access(folder, os.W_OK):
        return os.strerror(errno.EACCES).lower()
    return None


def is_disk_full(exc: BaseException) -> bool:
    """True for the errors SQLite, tantivy and the OS raise when the disk (or a quota) is full."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    text = str(exc).lower()
    return "disk is full" in text or "no space left" in text or "quota exceeded" in text
