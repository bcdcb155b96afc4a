"""What the files removed lately held, by session: a file that moved (removed under one name, read under another, its
session the same) adds no messages or chunks again, whether the watcher reports the removal and the new name in one
sync or in two.

Why it exists: a rename reaches the index as a removal and a new file. In one sync the new file's session found
what the removal left; but the watcher may report the two in separate syncs (its events straddle a batch, or the
new name is written later), and forgetting at every sync's end made such a move "+N messages" of a session that
held them all. Nothing on disk tells a moved file from a deleted one whose session comes back, so a session's
removed messages are remembered for a while, bounded:

- for REMEMBER_SECONDS after the removal (ten minutes: the watcher's next batches come long before; a session
  written again later counts as new);
- at most MAX_SESSIONS sessions, the oldest removals forgotten first (beside its key, an entry holds about 110
  bytes: tracemalloc counted 1.08 MB for 10,000);
- a whole sync forgets what was removed before it began: it read every file, a moved one included.

A session that comes back within the bound (a file moved, or restored from the trash) adds only what it holds beyond
what it held; one that comes back later counts every message and chunk as new, as before. A memory note has no
session: one moved counts its chunks as new.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

REMEMBER_SECONDS = 600.0
MAX_SESSIONS = 10_000


@dataclass(frozen=True, slots=True)
class Stored:
    """Messages (message_count.py) and chunks: what a file's rows hold, or what a write added to the index."""

    messages: int = 0
    chunks: int = 0

    def __add__(self, other: Stored) -> Stored:
        return Stored(self.messages + other.messages, self.chunks + other.chunks)


class RemovedSessions:
    """Session key → what its removed files held, with when they were removed (oldest first)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._held: dict[str, tuple[float, Stored]] = {}  # insertion order is removal order

    def remember(self, by_session: Mapping[str, Stored]) -> None:
        """What a removed file's sessions held (a session removed again keeps the sum, as of now)."""
        now = self._clock()
        for key, held in by_session.items():
            _, before = self._held.pop(key, (now, Stored()))
            self._held[key] = (now, before + held)
        self._bound(now)

    def take(self, keys: Iterable[str | None]) -> Stored:
        """What these sessions held when their files were removed, forgotten as it is taken."""
        self._bound(self._clock())
        taken = [self._held.pop(key, (0.0, Stored()))[1] for key in keys if key is not None]
        return sum(taken, Stored())

    def now(self) -> float:
        return self._clock()

    def forget_before(self, moment: float) -> None:
        """Forget what was removed before `moment` (a whole sync that began then has read every file since)."""
        while self._held:
            oldest = next(iter(self._held))
            if self._held[oldest][0] >= moment:
                return
            del self._held[oldest]

    def clear(self) -> None:
        self._held.clear()

    def __len__(self) -> int:
        return len(self._held)

    def _bound(self, now: float) -> None:
        self.forget_before(now - REMEMBER_SECONDS)
        while len(self._held) > MAX_SESSIONS:
            del self._held[next(iter(self._held))]
