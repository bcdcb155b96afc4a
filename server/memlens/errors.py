"""The one error family for everything a user can cause: bad input, bad settings, a missing session, a full disk.

Every layer (engine, CLI, language server, MCP server) raises or catches `MemlensError`; its message is written
for the user, one line, no traceback. Anything else that escapes is a bug, and the CLI says so with a hint to
rerun with `-v`.
"""

from __future__ import annotations

import errno


class MemlensError(Exception):
    """A request memlens cannot serve; `str(error)` is the message meant for the user."""


class InvalidRequest(MemlensError, ValueError):
    """An argument is out of range, of the wrong type, or names something that does not exist."""


class NotFound(InvalidRequest, LookupError):
    """A session, message or summary that does not exist, or is out of scope (the two answer alike)."""


class InvalidPattern(InvalidRequest):
    """A user-supplied regular expression that cannot be compiled, or is too long."""


class IndexUnavailable(MemlensError):
    """The index cannot be written right now: another process holds the writer lock, or the disk is full."""


class SettingsError(MemlensError):
    """A settings file that cannot be read at all (bad values inside a readable file only warn)."""


def is_disk_full(exc: BaseException) -> bool:
    """True for the errors SQLite, tantivy and the OS raise when the disk (or a quota) is full."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    text = str(exc).lower()
    return "disk is full" in text or "no space left" in text or "quota exceeded" in text
