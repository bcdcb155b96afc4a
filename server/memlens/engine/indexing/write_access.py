"""Whether this process may write an index: the writer lock taken, checked before every commit and repaired on
request, why this process may not write when the reason is not simply another writer, and the last failed write's
cause (kept on disk too, for `stats` in another process)."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from memlens.engine.indexing.write_failure import (
    clear_write_failure,
    last_write_failure,
    record_write_failure,
    reserve_write_failure_slot,
)
from memlens.engine.indexing.writer_lock import WriterLock
from memlens.errors import (
    IndexUnavailable,
    IndexWriteFailed,
    LockPathBroken,
    environmental_cause,
    unwritable_folder_cause,
)

log = logging.getLogger(__name__)


class WriteAccess:
    def __init__(self, index_dir: Path) -> None:
        self.index_dir = index_dir
        self.lock = WriterLock(index_dir / "writer.lock")
        # why this process may not write, when the reason is not simply another writer (said by every write)
        self.problem: IndexUnavailable | None = None
        self._checking = threading.Lock()
        self.writable = self._acquire()
        # the cause of the last failed write, until a write succeeds
        self.last_failure: str | None = last_write_failure(index_dir)
        if self.writable:
            reserve_write_failure_slot(index_dir)

    def _acquire(self) -> bool:
        """Whether this process is the writer. A broken lock path or an index folder this process cannot write
        makes it a reader, with the reason kept in `problem`."""
        try:
            return self.lock.acquire()
        except LockPathBroken as exc:
            self.problem = exc
        except OSError as exc:
            cause = environmental_cause(exc, self.index_dir)
            if cause is None:
                raise
            self.problem = IndexWriteFailed(cause, self.index_dir)
        return False

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
            raise IndexUnavailable(  # said by `memlens index` too: what writes instead, and that it keeps up
                f"another memlens process (an `index`, `watch`, `serve` or `mcp`) is writing the index at "
                f"{self.index_dir} and brings it up to date; this one opens it read-only"
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
        if self.last_failure is not None:
            record_write_failure(self.index_dir, self.last_failure)
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
            return "another memlens process writes this index; it indexes them when it next syncs"
        return "changed since the last sync; the next search or `memlens index` indexes them"
