"""What the files removed lately held, by session: a file that moved (removed under one name, read under another, its
session the same) adds no messages or chunks again, whether the watcher reports the removal and the new name in one
sync or in two.

Why it exists: a rename reaches the index as a removal and a new file. In one sync the new file's session found
what the removal left; but the watcher may report the two in separate syncs (its events straddle a batch, or the
new name is written later), and forgetting at every sync's end made such a move "+N messages" of a session that
held them all. A session's removed messages and chunks are remembered within recently_removed.py's bounds (ten
minutes; a whole sync that began after the removal forgets it), for at most MAX_SESSIONS sessions (beside its key,
an entry holds about 110 bytes: tracemalloc counted 1.08 MB for 10,000).

A session that comes back within the bound (a file moved, or restored from the trash) adds only what it holds beyond
what it held; one that comes back later counts every message and chunk as new, as before. A memory note has no
session: one moved counts its chunks as new.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from memlens.engine.indexing.recently_removed import REMEMBER_SECONDS, RecentlyRemoved

__all__ = ["MAX_SESSIONS", "REMEMBER_SECONDS", "RemovedSessions", "Stored"]

MAX_SESSIONS = 10_000


@dataclass(frozen=True, slots=True)
class Stored:
    """Messages (message_count.py) and chunks: what a file's rows hold, or what a write added to the index."""

    messages: int = 0
    chunks: int = 0

    def __add__(self, other: Stored) -> Stored:
        return Stored(self.messages + other.messages, self.chunks + other.chunks)


class RemovedSessions:
    """Session key → what its removed files held (recently_removed.py's bounds, at most MAX_SESSIONS sessions)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._held: RecentlyRemoved[str, Stored] = RecentlyRemoved(most=MAX_SESSIONS, clock=clock)

    def remember(self, by_session: Mapping[str, Stored]) -> None:
        """What a removed file's sessions held (a session removed again keeps the sum, as of now)."""
        for key, held in by_session.items():
            self._held.put(key, (self._held.pop(key) or Stored()) + held)

    def take(self, keys: Iterable[str | None]) -> Stored:
        """What these sessions held when their files were removed, forgotten as it is taken."""
        return sum((self._held.pop(key) or Stored() for key in keys if key is not None), Stored())

    def now(self) -> float:
        return self._held.now()

    def forget_before(self, moment: float) -> None:
        """Forget what was removed before `moment` (a whole sync that began then has read every file since)."""
        self._held.forget_before(moment)

    def clear(self) -> None:
        self._held.clear()

    def __len__(self) -> int:
        self._held.forget_expired()
        return len(self._held)
