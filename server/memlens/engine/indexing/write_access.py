"""Whether this process may write an index: the writer lock taken (waited for, when asked, while a short-lived
command holds it), checked before every commit and repaired on request, who holds it when another process does,
why this process may not write when the reason is not simply another writer, and the last failed write's cause
(kept on disk too, for `stats` in another process)."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from memlens.engine.indexing.write_failure import (
    clear_write_failure,
    last_write_failure,
    record_write_failure,
    reserve_write_failure_slot,
)
from memlens.engine.indexing.writer_holder import Holder, forget_holder, read_holder, record_holder
from memlens.engine.indexing.writer_lock import WriterLock
from memlens.errors import (
    IndexBeingMade,
    IndexUnavailable,
    IndexWriteFailed,
    LockPathBroken,
    environmental_cause,
    unwritable_folder_cause,
)

log = logging.getLogger(__name__)


# How long a command that writes on purpose (`index`, `watch`) waits for a short-lived command to let go of the lock
# (a `search` syncing a large change first can take minutes), and how often it looks.
WAIT_FOR_WRITER_SECONDS = 600.0
WAIT_STEP_SECONDS = 0.1
# How long an unnamed holder may stay unnamed (it writes its name just after it took the lock) before it is taken
# for one that never will (an older memlens, which may be a long-lived `watch`): not waited for.
UNNAMED_SECONDS = 2.0


class WriteAccess:
    def __init__(self, index_dir: Path, *, command: str = "", wait: bool = False) -> None:
        """`command`: the memlens command this process runs (named to others while it holds the lock); `wait`: when
        a short-lived command holds the lock, wait (up to WAIT_FOR_WRITER_SECONDS) for it to let go."""
        self.index_dir = index_dir
        self.command = command
        self.lock = WriterLock(index_dir / "writer.lock")
        # why this process may not write, when the reason is not simply another writer (said by every write)
        self.problem: IndexUnavailable | None = None
        self._checking = threading.Lock()
        self._closed = False
        self.writable = self._acquire()
        if wait and not self.writable and self.problem is None:
            self.writable = self._wait_for_short_writer()
        # the cause of the last failed write, until a write succeeds
        self.last_failure: str | None = last_write_failure(index_dir)
        if self.writable:
            reserve_write_failure_slot(index_dir)

    def _acquire(self) -> bool:
        """Whether this process is the writer. A broken lock path or an index folder this process cannot write
        makes it a reader, with the reason kept in `problem`."""
        try:
            taken = self.lock.acquire()
            if taken and self.command:
                record_holder(self.index_dir, self.command)
            return taken
        except LockPathBroken as exc:
            self.problem = exc
        except OSError as exc:
            cause = environmental_cause(exc, self.index_dir)
            if cause is None:
                raise
            self.problem = IndexWriteFailed(cause, self.index_dir)
        return False

    def _wait_for_short_writer(self) -> bool:
        """Wait while a short-lived command holds the lock (said once); whether this process took it. A long-lived
        holder, one that stays unnamed, or a wait past WAIT_FOR_WRITER_SECONDS: not taken."""
        started = time.monotonic()
        waited_for: Holder | None = None
        while not self._acquire():
            if self.problem is not None:
                return False
            holder = read_holder(self.index_dir)
            waited = time.monotonic() - started
            if holder is None and waited >= UNNAMED_SECONDS:
                return False
            if holder is not None and (holder.lasting or waited >= WAIT_FOR_WRITER_SECONDS):
                return False
            if holder is not None and holder != waited_for:
                log.warning("waiting for %s to finish writing the index at %s", holder, self.index_dir)
                waited_for = holder
            time.sleep(WAIT_STEP_SECONDS)
        return True

    def take_over(self) -> bool:
        """A reader tries the lock once more (its writer may have let go): whether this call made this process the
        writer. Never while a problem other than another writer stands (`problem`, which a try may also find), nor
        once closed."""
        with self._checking:
            if self.writable or self.problem is not None or self._closed:
                return False
            self.writable = self._acquire()
            if self.writable:
                self.last_failure = last_write_failure(self.index_dir)
                reserve_write_failure_slot(self.index_dir)
            return self.writable

    def let_go(self) -> None:
        """Back to reading: a takeover that could not be finished lets the lock go for another process to take."""
        with self._checking:
            if self.lock.still_held():
                forget_holder(self.index_dir)
            self.lock.release()
            self.writable = False

    def holder(self) -> Holder | None:
        """The process that holds the lock, when another does and it is named."""
        return None if self.writable else read_holder(self.index_dir)

    def another_writer(self) -> str:
        """Who writes the index instead of this process, in a user's words."""
        holder = self.holder()
        return "another memlens process" if holder is None else str(holder)

    def not_ready(self, part: str) -> IndexUnavailable:
        """What a reader says of a part of the index it found missing, half-made, unreadable or of another version
        (only the writer makes and repairs them)."""
        if self.problem is not None:
            return IndexUnavailable(f"the index at {self.index_dir} cannot be read ({part}) and {self.problem}")
        return IndexBeingMade(f"the index at {self.index_dir} is being written by {self.another_writer()} ({part})")

    def require(self) -> None:
        """Raise unless this process is (still) the writer."""
        with self._checking:  # one thread retakes the lock; another would let go of what the first just took
            self._check()

    def _check(self) -> None:
        if self.writable and not self.lock.still_held():
            # someone removed or replaced writer.lock under us: lock what the name leads to now, unless another
            # process already has; either way only one process writes from here on
            self.lock.release()
            self.writable = self._acquire()
            if self.writable:
                log.warning("the writer lock %s was removed or replaced; this process took it again", self.lock.path)
            elif self.problem is None:
                log.warning("the writer lock %s was taken by another process; this one stops writing", self.lock.path)
        if self.problem is not None and not self.writable:
            raise self.problem
        if not self.writable:
            raise IndexUnavailable(self._written_by_another())

    def _written_by_another(self) -> str:
        """Said by `memlens index` too: what writes instead, and that it keeps up (or, a short-lived command that
        outlasted the wait, to try again)."""
        holder = self.holder()
        if holder is not None and not holder.lasting:
            return (
                f"{holder} is still writing the index at {self.index_dir}; try again when it finishes (this one "
                "opens it read-only)"
            )
        return (
            f"{self.another_writer()} is writing the index at {self.index_dir} and brings it up to date; this one "
            "opens it read-only"
        )

    def repair(self) -> bool:
        """Replace a broken writer-lock path and take the lock; whether this process is now the writer."""
        try:
            self.lock.repair()
        except OSError as exc:
            raise IndexUnavailable(
                f"could not replace the writer lock {self.lock.path}: {exc.strerror or exc}"
            ) from exc
        self.problem = None
        self.writable = self._acquire()
        if self.writable:
            log.warning("replaced the broken writer lock %s", self.lock.path)
        return self.writable

    def failed(self, cause: str) -> None:
        self.last_failure = cause
        record_write_failure(self.index_dir, cause)

    def succeeded(self) -> None:
        if self.last_failure is not None:
            self.last_failure = None
            clear_write_failure(self.index_dir)

    def close(self) -> None:
        """Let go of the lock; call after the catalog is closed, so the cause is written again once the catalog's
        journal gave its space back."""
        with self._checking:  # a takeover under way either finishes first or finds this closed
            self._closed = True
            if self.last_failure is not None:
                record_write_failure(self.index_dir, self.last_failure)
            if self.lock.still_held():
                forget_holder(self.index_dir)
            self.lock.release()

    def not_indexed_reason(self, *, syncing: bool) -> str:
        """Why files wait: the reason this process cannot write, the last failed write's cause, or none at all."""
        if self.problem is not None and not self.writable:
            return str(self.problem)
        cause = self.last_failure or unwritable_folder_cause(self.index_dir)
        if cause is not None:
            return f"could not update the index: {cause}"
        if syncing:
            return "indexing now"
        if not self.writable:
            return f"{self.another_writer()} writes this index; it indexes them when it next syncs"
        return "changed since the last sync; the next search or `memlens index` indexes them"
