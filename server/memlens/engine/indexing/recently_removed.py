"""What the files removed lately left behind, kept for a while in case one of them moved: a rename reaches the index as
a removal and a new file, and the new file should find what the old name held (its sessions' counts:
removed_sessions.py; its rows' vectors: VectorWriter.mirror) instead of counting or embedding it all again.

Why bounded, and how: nothing on disk tells a moved file from a deleted one, and the watcher may report the removal
and the new name in one sync or in two (its events straddle a batch). So what a removal left is kept

- for REMEMBER_SECONDS after the removal (ten minutes: the watcher's next batches come long before; a file that
  comes back later is new);
- for at most `most` keys, the oldest removals forgotten first;
- until a whole sync that began after the removal ends (it read every file, a moved one included: `forget_before`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Generic, TypeVar

REMEMBER_SECONDS = 600.0

K = TypeVar("K")
V = TypeVar("V")


class RecentlyRemoved(Generic[K, V]):
    """Key → what a removal left, with when (oldest first), within the bounds above."""

    def __init__(self, *, most: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._most = most
        self._clock = clock
        self._kept: dict[K, tuple[float, V]] = {}  # insertion order is removal order

    def now(self) -> float:
        return self._clock()

    def put(self, key: K, value: V) -> None:
        """Remember `value` for `key` as removed now (a key put again moves to the newest end)."""
        now = self._clock()
        self._kept.pop(key, None)
        self._kept[key] = (now, value)
        self._bound(now)

    def get(self, key: K) -> V | None:
        return self._live(self._kept.get(key))

    def pop(self, key: K) -> V | None:
        return self._live(self._kept.pop(key, None))

    def replace(self, key: K, value: V) -> None:
        """Hold `value` for `key` instead, as removed when its first value was (nothing for a key not kept)."""
        kept = self._kept.get(key)
        if kept is not None:
            self._kept[key] = (kept[0], value)

    def forget_before(self, moment: float) -> None:
        """Forget what was removed before `moment` (a whole sync that began then has read every file since)."""
        while self._kept:
            oldest = next(iter(self._kept))
            if self._kept[oldest][0] >= moment:
                return
            del self._kept[oldest]

    def forget_expired(self) -> None:
        self.forget_before(self._clock() - REMEMBER_SECONDS)

    def clear(self) -> None:
        self._kept.clear()

    def __len__(self) -> int:
        return len(self._kept)

    def _live(self, kept: tuple[float, V] | None) -> V | None:
        """A kept value, or None for one past its time (not yet forgotten: that waits for the next change)."""
        return None if kept is None or kept[0] < self._clock() - REMEMBER_SECONDS else kept[1]

    def _bound(self, now: float) -> None:
        self.forget_before(now - REMEMBER_SECONDS)
        while len(self._kept) > self._most:
            del self._kept[next(iter(self._kept))]
