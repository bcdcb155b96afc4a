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
session: its chunks are kept by their text (the hash its vector is found by), one entry each, so a moved note adds
only the chunks no removed note held.

What a write finds here is claimed, not taken (`claim`): the write may still fail to commit (a full disk), and a
count taken then was gone, so the file counted as new the next time. The writer takes what it claimed once its
transaction has committed (`settle`); until then a second file of the same write cannot claim it again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from memlens.engine.indexing.recently_removed import REMEMBER_SECONDS, RecentlyRemoved

__all__ = ["MAX_SESSIONS", "REMEMBER_SECONDS", "Claims", "RemovedSessions", "Stored"]

MAX_SESSIONS = 10_000
_NOTE_CHUNK = "note-chunk:"  # a note's chunk kept by its text's hash, beside the session keys (which hold a colon
# after their format's name, never this one)


@dataclass(frozen=True, slots=True)
class Stored:
    """Messages (message_count.py) and chunks: what a file's rows hold, or what a write added to the index."""

    messages: int = 0
    chunks: int = 0

    def __add__(self, other: Stored) -> Stored:
        return Stored(self.messages + other.messages, self.chunks + other.chunks)

    def __sub__(self, other: Stored) -> Stored:
        return Stored(self.messages - other.messages, self.chunks - other.chunks)


Claims = dict[str, Stored]
"""What one write (one catalog transaction) claimed of the removed files' counts, by key, until it commits."""


class RemovedSessions:
    """Session key (a note's chunk: its text's hash) → what removed files held (recently_removed.py's bounds, at
    most MAX_SESSIONS entries)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._held: RecentlyRemoved[str, Stored] = RecentlyRemoved(most=MAX_SESSIONS, clock=clock)

    def remember(self, by_session: Mapping[str, Stored]) -> None:
        """What a removed file's sessions held (a session removed again keeps the sum, as of now)."""
        for key, held in by_session.items():
            self._held.put(key, (self._held.pop(key) or Stored()) + held)

    def remember_note_chunks(self, text_hashes: Iterable[str]) -> None:
        """The chunks of a removed memory note, by their texts' hashes (one chunk each; a text held twice, twice)."""
        for text_hash in text_hashes:
            key = _NOTE_CHUNK + text_hash
            self._held.put(key, (self._held.pop(key) or Stored()) + Stored(chunks=1))

    def claim(self, keys: Iterable[str | None], claims: Claims) -> Stored:
        """What these sessions held when their files were removed and no earlier file of this write claimed,
        claimed (in `claims`) for this write."""
        return sum((self._claim(key, claims, whole=True) for key in keys if key is not None), Stored())

    def claim_note_chunks(self, text_hashes: Iterable[str], claims: Claims) -> Stored:
        """The chunks of these texts a removed note held and no earlier file of this write claimed, one a text."""
        return sum((self._claim(_NOTE_CHUNK + h, claims, whole=False) for h in text_hashes), Stored())

    def settle(self, claims: Claims) -> None:
        """The write that claimed these has committed: what it claimed is taken (a chunk held more often than it
        claimed keeps the rest, as removed when it was)."""
        for key, claimed in claims.items():
            held = self._held.get(key)
            if held is None:
                continue
            left = held - claimed
            if left.messages > 0 or left.chunks > 0:
                self._held.replace(key, left)
            else:
                self._held.pop(key)

    def _claim(self, key: str, claims: Claims, *, whole: bool) -> Stored:
        left = (self._held.get(key) or Stored()) - claims.get(key, Stored())
        claimed = left if whole else Stored(chunks=min(1, left.chunks))
        if claimed.messages <= 0 and claimed.chunks <= 0:
            return Stored()
        claims[key] = claims.get(key, Stored()) + claimed
        return claimed

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
