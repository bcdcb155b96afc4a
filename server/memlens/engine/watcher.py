"""Live indexing: watch the memory and transcript folders, sync changes keyword-first, embed the backlog after.

One worker thread owns all writes (the engine's single writer). File events arrive from a watchfiles thread into
a queue; the worker syncs them without embedding (so new text is keyword-searchable at once), then embeds the
backlog one batch at a time, going back to fresh events between batches. A transcript whose last line has no
newline yet is synced again once it has been quiet for QUIET_SECONDS (no event says so), and that line read then.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import watchfiles

from memlens.engine.engine import Engine
from memlens.engine.indexing.discovery import PRUNED, is_transcript_name
from memlens.engine.indexing.file_reader import QUIET_SECONDS
from memlens.engine.indexing.indexer import SyncReport
from memlens.engine.progress import Progress
from memlens.errors import MemlensError

log = logging.getLogger(__name__)

EMBED_BATCHES_BETWEEN_CHECKS = 1
WATCH_TICK_MS = 200
WATCH_SETUP_SECONDS = 10.0
WATCH_RESTART_SECONDS = 1.0  # after watching failed: a name that fails it again cannot make it spin
WATCH_FAILURES_BEFORE_POLLING = 3
"""Failures of the watch, each within WATCH_STEADY_SECONDS of its start, after which the folders are synced every
POLL_SECONDS instead. A folder whose name is not UTF-8 fails watchfiles whenever anything opens it, and the whole
sync after each failure opens it: a watch restarted on it failed again within a second, for ever, each time with a
whole sync (and a warning)."""
WATCH_STEADY_SECONDS = 30.0
POLL_SECONDS = 30.0


@dataclass
class _Job:
    kind: str  # "changes" | "rescan" (events were lost: a whole sync) | "stop"
    changed: set[Path] = field(default_factory=set)
    deleted: set[Path] = field(default_factory=set)
    folders: set[Path] = field(default_factory=set)  # made, moved or removed: their files are looked at


def watch_roots(engine: Engine) -> list[Path]:
    """The existing folders to watch: workspaces, transcript folders, and agent folders, without nesting."""
    locations = engine.locations()
    candidates = [*locations.workspaces, *locations.transcript_dirs, *locations.cwd_filtered_dirs]
    roots: list[Path] = []
    for path in sorted({p for p in candidates if p.is_dir()}, key=lambda p: len(p.parts)):
        if not any(root == path or root in path.parents for root in roots):
            roots.append(path)
    return roots


def _interesting(change: watchfiles.Change, path: str) -> bool:
    """A source's name, or a name that came or went: it may be a folder, whose files no event names (not one in a
    folder no walk enters: git's lock files come and go at every command)."""
    if is_transcript_name(path):
        return True
    return change != watchfiles.Change.modified and PRUNED.isdisjoint(Path(path).parts)


class LiveIndexer:
    """Keeps an engine's index in line with the disk until stopped."""

    def __init__(
        self,
        engine: Engine,
        on_sync: Callable[[SyncReport], None] | None = None,
        on_progress: Progress | None = None,
        debounce_ms: int = 50,
        own_output: Collection[tuple[int, int]] = (),
    ) -> None:
        """`own_output`: (device, inode) of the files this process writes its reports to (`memlens watch --json >
        log.jsonl` in a watched folder): their changes are not read, as ripgrep skips its own output file, since
        reading one writes a report to it, whose change is read, and so on without end."""
        self.engine = engine
        self.own_output = frozenset(own_output)
        self._own_output_said = False
        self.on_sync = on_sync
        self.on_progress = on_progress
        self.debounce_ms = debounce_ms
        self._jobs: queue.Queue[_Job] = queue.Queue()
        self._stop = threading.Event()
        self._cancel = threading.Event()
        self._paused = False  # cancelled: the embedding backlog waits for the next change
        self._threads: list[threading.Thread] = []
        self.watching = threading.Event()  # set once file events are being delivered
        self.ready = threading.Event()  # set once the start-up reconcile has committed
        self.busy = threading.Event()
        self._rechecked: dict[Path, float] = {}  # waiting tails synced again once quiet: path -> the mtime then

    # -- control --------------------------------------------------------------------------------------------

    def start(self) -> None:
        worker = threading.Thread(target=self._work, name="memlens-indexer", daemon=True)
        watcher = threading.Thread(target=self._watch, name="memlens-watcher", daemon=True)
        self._threads = [worker, watcher]
        worker.start()
        watcher.start()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._cancel.set()
        self._jobs.put(_Job("stop"))
        for thread in self._threads:
            if thread.ident is not None:  # started (a stop may follow a start that a Ctrl-C cut short)
                thread.join(timeout)

    def cancel(self) -> None:
        """Cancel the current long job (the first sync or the backlog's embedding); watching goes on. The rest of the
        backlog waits for the next change: the backlog is embedded a batch at a time, so a cancel that
        only stopped the current batch would be undone 0.2 s later."""
        self._paused = True
        self._cancel.set()

    def notify(self, changed: Iterable[Path] = (), deleted: Iterable[Path] = ()) -> None:
        """Queue file changes by hand (what the watcher does on its own)."""
        self._jobs.put(_Job("changes", set(changed), set(deleted)))

    # -- threads --------------------------------------------------------------------------------------------

    def _watch(self) -> None:
        """Deliver file events until stopped. When watching fails (watchfiles raises on a file name that is not
        UTF-8, and then delivers nothing more), the failure is logged and counted, the watch starts again, and a
        whole sync picks up what the lost events said."""
        roots = watch_roots(self.engine)
        if not roots:
            log.info("nothing to watch")
            self.watching.set()
            return
        log.info("watching %s", ", ".join(map(str, roots)))
        rescan = False
        quick_failures = 0
        try:
            while not self._stop.is_set():
                started = time.monotonic()
                try:
                    self._deliver(roots, rescan)
                except Exception as exc:  # the index stays usable; live updates resume after a pause
                    log.debug("file watcher failure", exc_info=True)
                    self.engine.note_live_failure()
                    quick = time.monotonic() - started < WATCH_STEADY_SECONDS
                    quick_failures = quick_failures + 1 if quick else 1
                    if quick_failures >= WATCH_FAILURES_BEFORE_POLLING:
                        log.warning(
                            "file watching keeps failing (%s); syncing every file every %d s instead", exc, POLL_SECONDS
                        )
                        self._poll()
                        return
                    # one line: watchfiles fails this way each time a file named so is touched (read, too)
                    log.warning("file watcher failed (%s); watching again, and syncing every file once", exc)
                    rescan = True
                    self._stop.wait(WATCH_RESTART_SECONDS)
                else:
                    return  # stopped
        finally:
            self.watching.set()

    def _poll(self) -> None:
        """Instead of events: a whole sync every POLL_SECONDS until stopped (it reads any name, and costs what
        checking every file costs)."""
        self.watching.set()
        while not self._stop.is_set():
            self._jobs.put(_Job("rescan"))
            self._stop.wait(POLL_SECONDS)

    def _deliver(self, roots: list[Path], rescan: bool) -> None:
        """Queue the file events of `roots` until stopped; with `rescan`, a whole sync once the watch is in place
        (as at start-up: a change made during that sync is then an event, never lost)."""
        for changes in watchfiles.watch(
            *roots,
            watch_filter=_interesting,
            debounce=self.debounce_ms,
            step=10,
            stop_event=self._stop,
            rust_timeout=WATCH_TICK_MS,
            yield_on_timeout=True,  # the first (empty) yield says the watch is in place
            raise_interrupt=False,
        ):
            self.watching.set()
            if rescan:
                self._jobs.put(_Job("rescan"))
                rescan = False
            if not changes:
                continue
            job = _Job("changes")
            for change, raw in changes:
                path = Path(raw)
                if self.own_output and self._is_own_output(path):
                    continue
                if not is_transcript_name(raw):
                    if path.is_dir() or not path.exists():  # not some other file: a folder, or gone
                        job.folders.add(path)
                elif change == watchfiles.Change.deleted and not path.exists():
                    job.deleted.add(path)
                    job.changed.discard(path)
                else:
                    job.changed.add(path)
                    job.deleted.discard(path)
            self._jobs.put(job)

    def _is_own_output(self, path: Path) -> bool:
        """Whether `path` is a file this process writes its reports to (said once)."""
        try:
            stat = path.stat()
        except OSError:
            return False
        if (stat.st_dev, stat.st_ino) not in self.own_output:
            return False
        if not self._own_output_said:
            self._own_output_said = True
            log.warning("not reading %s: it is this watch's own output", path)
        return True

    def _work(self) -> None:
        # watch first, then reconcile: a change made during the reconcile is then an event, never lost
        self.watching.wait(WATCH_SETUP_SECONDS)
        self._run(self._reconcile)
        self.ready.set()
        while not self._stop.is_set():
            due, wait = self._quiet_tails()
            if due:
                self._run(partial(self.engine.sync_paths, due, embed=False))
                continue
            timeout = 0.2 if self._backlog() else None
            if wait is not None:
                timeout = wait if timeout is None else min(timeout, wait)
            try:
                job = self._jobs.get(timeout=timeout)
            except queue.Empty:
                if self._backlog():
                    self._run(self._embed_some)
                continue
            jobs = [job, *self._drain()]
            if any(j.kind == "stop" for j in jobs):
                break
            self._paused = False  # new work: the backlog may follow it again
            if any(j.kind == "rescan" for j in jobs):  # events were lost: every file is looked at once
                self._run(self._reconcile)
                continue
            changed: set[Path] = set()
            deleted: set[Path] = set()
            for j in jobs:
                changed = (changed - j.deleted) | j.changed
                deleted = (deleted - j.changed) | j.deleted
            folders = set().union(*(j.folders for j in jobs))
            if folders and not self._run_step(partial(self._add_folder_files, folders, changed, deleted)):
                self._run(self._reconcile)  # their files unknown: every file is looked at once
                continue
            if changed or deleted:  # (a name that came or went and was no folder of sources changes nothing)
                self._sync_changes(changed, deleted)

    def _add_folder_files(self, folders: set[Path], changed: set[Path], deleted: set[Path]) -> None:
        """Add to `changed` and `deleted` the files of folders that came or went (no event names them)."""
        found, gone = self.engine.files_of_folders(folders)
        changed |= found - deleted
        deleted |= gone - changed

    def _run_step(self, step: Callable[[], None]) -> bool:
        """Whether `step` ran without failing; a failure is logged and counted, as a sync's is."""
        try:
            step()
        except Exception:
            log.exception("reading changed folders failed")
            self.engine.note_live_failure()
            return False
        return True

    def _sync_changes(self, changed: set[Path], deleted: set[Path]) -> None:
        """Sync a batch of changed files; when that fails, each file again on its own, so one file that fails
        (logged and counted) never keeps the others of its batch out of the index."""
        if self._run(partial(self.engine.sync_paths, changed, deleted, embed=False)) or len(changed | deleted) < 2:
            return
        for path in sorted(changed | deleted):
            alone = ({path}, set()) if path in changed else (set(), {path})
            self._run(partial(self.engine.sync_paths, *alone, embed=False))

    def _quiet_tails(self) -> tuple[list[Path], float | None]:
        """The transcripts whose unterminated last line has now been quiet long enough to read (each once per
        mtime, so one that stays unread is not synced in a loop), and the seconds until the next one is."""
        now, due, wait = time.time(), [], None
        for path, mtime in self.engine.waiting_tails().items():
            if self._rechecked.get(path) == mtime:
                continue
            left = mtime + QUIET_SECONDS - now
            if left <= 0:
                due.append(path)
                self._rechecked[path] = mtime
            else:
                wait = left + 0.05 if wait is None else min(wait, left + 0.05)
        return due, wait

    def _drain(self) -> list[_Job]:
        jobs = []
        while True:
            try:
                jobs.append(self._jobs.get_nowait())
            except queue.Empty:
                return jobs

    def _backlog(self) -> bool:
        return not self._paused and (self.engine.embeddings_wait() or self.engine.pending_words() > 0)

    def _reconcile(self) -> SyncReport:
        """Start-up: sync whatever changed while nothing was running; keyword first, vectors follow."""
        self._cancel.clear()
        return self.engine.sync(progress=self.on_progress, cancel=self._cancel, embed=False)

    def _embed_some(self) -> SyncReport:
        report = SyncReport()
        if self._paused:
            return report
        self._cancel.clear()
        before = self.engine.chunks_embedded
        report.units_embedded = self.engine.embed_pending(
            progress=self.on_progress, cancel=self._cancel, max_batches=EMBED_BATCHES_BETWEEN_CHECKS
        )
        report.chunks_embedded = self.engine.chunks_embedded - before
        return report

    def _run(self, job: Callable[[], SyncReport]) -> bool:
        """Run one job; whether it succeeded. A failure is logged (and, unless a user can cause it, counted in
        stats) and live indexing goes on."""
        self.busy.set()
        try:
            report = job()
        except MemlensError as exc:  # a full disk, a lost writer lock: said once, and live indexing goes on
            log.warning("sync failed: %s", exc)
            return False
        except Exception:  # a failing sync must not end live indexing
            log.exception("sync failed")
            self.engine.note_live_failure()
            return False
        finally:
            self.busy.clear()
        if self.on_sync is not None:
            try:
                self.on_sync(report)
            except Exception:
                log.exception("on_sync callback failed")
        return True


def run_foreground(
    engine: Engine,
    debounce_ms: int,
    emit: Callable[[SyncReport], None],
    *,
    stopping: Callable[[], None] = lambda: None,
    stop: threading.Event | None = None,
    own_output: Collection[tuple[int, int]] = (),
) -> int:
    """`memlens watch`: live indexing until Ctrl-C or until `stop` is set (by `emit`, whose output has no reader
    left), one line per sync; `stopping` is called once Ctrl-C has come, before the step under way (an embedding
    batch: seconds) ends and the threads stop."""
    live = LiveIndexer(engine, on_sync=emit, debounce_ms=debounce_ms, own_output=own_output)
    until = stop or threading.Event()
    try:
        live.start()  # inside: a Ctrl-C while the threads start (the first sync may already be reported) stops them
        while not until.wait(3600):
            pass
    except KeyboardInterrupt:
        stopping()
    finally:
        live.stop()
    return 0
