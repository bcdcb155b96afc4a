"""Server state: workspace folders, settings, the engine holder, its executors and background indexing."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pygls.lsp.server import LanguageServer

from memlens.counted import counted
from memlens.engine import Engine
from memlens.engine.indexing.indexer import SyncReport
from memlens.engine.indexing.source_roots import RootOrigins
from memlens.engine.opening import opened_when_ready
from memlens.engine.writer_takeover import WriterTakeover
from memlens.errors import IndexBeingMade
from memlens.local_api.server import LocalServer
from memlens.lsp.indexing import BackgroundIndexer
from memlens.lsp.progress import StatusPublisher, WorkDone
from memlens.settings import WORKSPACE_CONFIG_FILE, Settings, load_workspace_file, merge
from memlens.wire import IndexStatus, UnnamedSources

log = logging.getLogger(__name__)

T = TypeVar("T")
UNNAMED_SOURCES = "memlens/unnamedSources"
ENGINE_WAIT_SECONDS = 300.0
OPEN_WAIT_SECONDS = 600.0  # how long an open waits for another process to make the index (a first `memlens index`)
POLL_SECONDS = 0.5


def synced_status(report: SyncReport) -> str | None:
    """The status line's word on a sync that changed something (None: it changed nothing), each count named as what
    it counts: `synced 3 files, 12 chunks embedded` (files and chunks were once added up as "15 changes")."""
    files = report.files_parsed + report.files_appended + report.files_deleted
    parts = [f"synced {counted(files, 'file')}"] if files else []
    if report.chunks_embedded:
        parts.append(f"{counted(report.chunks_embedded, 'chunk')} embedded")
    return ", ".join(parts) or None


class EngineUnavailable(JsonRpcException):
    """The index could not be opened (the message says why)."""

    CODE = -32803  # RequestFailed
    MESSAGE = "memlens index unavailable"


class ServerState:
    """Everything the handlers share. Blocking engine work runs in `writer` (one thread) or `readers`."""

    def __init__(self, server: LanguageServer, live_indexing: bool = True) -> None:
        self.server = server
        self.live_indexing = live_indexing
        self.loop: asyncio.AbstractEventLoop | None = None
        self.initialized = False
        self.shut_down = False  # the engine closed: at the client's `shutdown`, or when the server was stopped
        self.workspaces: list[Path] = []
        self.init_options: Any = None
        self.trusted = True  # from initializationOptions.workspaceTrusted (see settings.workspace_trusted)
        self.client_settings: Any = None
        self.settings = Settings()
        self.warnings: list[str] = []
        self.engine: Engine | None = None
        self.local = LocalServer(lambda: self.engine)  # answers `memlens search` from this engine (local_api)
        self.open_error: str | None = None
        self.writer = ThreadPoolExecutor(1, thread_name_prefix="memlens-writer")
        self.readers = ThreadPoolExecutor(4, thread_name_prefix="memlens-reader")
        self.indexer: BackgroundIndexer | None = None
        self.takeover: WriterTakeover | None = None  # a read-only engine's try for the writer's place
        self.status = StatusPublisher(self)
        self.generation = 0  # bumped on every sync and settings change (hover cache key)
        self._engine_ready: asyncio.Event | None = None
        self._key: tuple[str, ...] | None = None
        self._initial: WorkDone | None = None
        self._empty_shown: str | None = None  # the empty index's message last shown
        self._reindexing = 0
        self._shown_warnings: list[str] = []
        self._opening = threading.Event()  # set to stop an open that waits for the index to be made (a newer one)
        self.waiting_for_index: str | None = None  # why the open waits, while another process makes the index

    # -- threads ------------------------------------------------------------------------------------------

    def call_soon(self, callback: Callable[[], Any]) -> None:
        """Run `callback` on the event loop thread (safe from any thread)."""
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(callback)

    async def read(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.readers, fn, *args)

    async def write(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.writer, fn, *args)

    @property
    def ready_event(self) -> asyncio.Event:
        if self._engine_ready is None:
            self._engine_ready = asyncio.Event()
        return self._engine_ready

    async def require_engine(self) -> Engine:
        """The open engine, waiting while it opens (never while it indexes)."""
        waiting = self.waiting_for_index
        if self.engine is None and waiting is not None:  # the wait may be minutes: no request waits it out
            raise EngineUnavailable(waiting)
        if self.engine is None and self.open_error is None:
            try:
                await asyncio.wait_for(self.ready_event.wait(), ENGINE_WAIT_SECONDS)
            except TimeoutError:
                raise EngineUnavailable("the index is still opening; try again shortly") from None
        if self.engine is None:
            raise EngineUnavailable(f"the index could not be opened: {self.open_error or 'not started'}")
        return self.engine

    # -- settings -----------------------------------------------------------------------------------------

    def compute_settings(self) -> tuple[Settings, list[str]]:
        """Defaults ← each folder's .memlens.json ← the client's settings: the latest didChangeConfiguration,
        else initializationOptions. The client sends its whole set each time, so a removed setting goes away.
        In an untrusted workspace, .memlens.json cannot set where memlens reads or writes (settings.TRUST_SETTINGS);
        the client's own settings always apply (VS Code itself ignores a workspace's restricted settings)."""
        warnings: list[str] = []
        settings = Settings()
        for folder in self.workspaces:
            data = load_workspace_file(folder, warnings)
            source = str(folder / WORKSPACE_CONFIG_FILE)
            settings = merge(settings, data, warnings, trusted=self.trusted, source=source)
        layer = self.client_settings if self.client_settings is not None else self.init_options
        if layer is not None:
            settings = merge(settings, layer, warnings)
        return settings, warnings

    async def apply_settings(self) -> None:
        """Recompute settings; reopen the engine if indexing is affected, else apply them in place."""
        settings, warnings = self.compute_settings()
        self.warnings = warnings
        if warnings and warnings != self._shown_warnings:
            text = "memlens: some settings were not applied: " + "; ".join(warnings)  # values quoted: masked_messages
            self.server.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=text))
        self._shown_warnings = warnings
        self.settings = settings
        self.generation += 1
        key = Engine.index_identity(settings, self.workspaces)
        if key != self._key:
            self._key = key
            await self.reopen()
            return
        engine = self.engine
        if engine is not None:
            engine.apply_query_settings(settings)
        self.status.poke("settings applied")

    # -- engine lifecycle ---------------------------------------------------------------------------------

    async def reopen(self) -> None:
        """Close the engine (if any) and open a new one with the current settings, then index in the background."""
        self.ready_event.clear()
        old, self.engine = self.engine, None
        old_indexer, self.indexer = self.indexer, None
        old_takeover, self.takeover = self.takeover, None
        if self._initial is not None:
            self._initial.end("restarting")
            self._initial = None
        self.open_error = None
        settings = merge(self.settings, None)  # a deep copy: the engine owns its settings object
        workspaces = list(self.workspaces)
        origins = RootOrigins(flags="memlens serve", settings=self._paths_origin())
        self._opening.set()  # an earlier open still waiting gives up: this one replaces it
        opening = self._opening = threading.Event()
        self.waiting_for_index = None
        try:
            engine = await self.write(
                self._swap_engine, old, old_indexer, old_takeover, settings, workspaces, origins, opening
            )
        except Exception as exc:
            if isinstance(exc, IndexBeingMade) and (opening is not self._opening or self.shut_down):
                return  # replaced by a newer open (or stopped) while it waited: that one says how it went
            log.exception("cannot open the index")
            self.open_error = str(exc)
            self.server.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Error, message=f"memlens: cannot open the index: {exc}")
            )
            self.ready_event.set()
            return
        if opening is not self._opening or self.shut_down:  # a newer open (or the shutdown) came while this one ran
            await self.write(engine.close)
            return
        self.engine = engine
        self.generation += 1
        self.ready_event.set()
        await self.write(self.local.attach, engine)
        log.info("index open at %s (%s)", engine.index_dir, "writer" if engine.writable else "read-only")
        await self._tell_unnamed_sources(engine)
        if engine.writable:
            await self._start_indexing(engine)
            return
        problem = engine.write_problem  # e.g. a broken writer lock: it says what to do
        if problem is None and self.engine is engine:  # the writer's place, once it lets go (writer_takeover.py)
            self.takeover = WriterTakeover(engine, on_taken=lambda: self.call_soon(partial(self._took_over, engine)))
            self.takeover.start()
        await self.status.publish_now(
            str(problem) if problem else f"{engine.writer_name()} is indexing; serving searches read-only"
        )

    def _took_over(self, engine: Engine) -> None:
        """On the loop: the engine became the writer (its writer let go); index with it, unless it was replaced."""
        if self.engine is engine and not self.shut_down:
            asyncio.ensure_future(self._index_as_new_writer(engine))

    async def _index_as_new_writer(self, engine: Engine) -> None:
        await self.status.publish_now(
            "the other memlens process stopped writing this index; this window indexes it now"
        )
        await self.write(self.local.attach, engine)
        if self.engine is engine:
            await self._start_indexing(engine)

    def _swap_engine(
        self,
        old: Engine | None,
        old_indexer: BackgroundIndexer | None,
        old_takeover: WriterTakeover | None,
        settings: Settings,
        workspaces: list[Path],
        origins: RootOrigins,
        opening: threading.Event,
    ) -> Engine:
        if old_takeover is not None:
            old_takeover.stop()  # before the close: a takeover under way finishes, and the close lets go
        if old_indexer is not None:
            old_indexer.stop()
        if old is not None:
            old.close()

        def waiting(exc: IndexBeingMade) -> None:  # said once; a request meanwhile is told the same at once
            said = self.waiting_for_index = f"{exc.what}; waiting for it to finish"
            log.warning("%s", said)
            shown = types.ShowMessageParams(type=types.MessageType.Info, message=f"memlens: {said}")
            self.call_soon(lambda: self.server.window_show_message(shown))

        engine = opened_when_ready(
            lambda: Engine(workspaces, settings, embedder=settings.embedding.enabled, origins=origins, command="serve"),
            seconds=OPEN_WAIT_SECONDS,
            on_wait=waiting,
            stop=opening,
        )
        self.waiting_for_index = None
        engine.keep_team_connections()
        return engine

    def _paths_origin(self) -> str:
        """Which layer names `transcripts.paths`: the editor's settings (the client tells which of its scopes), else
        the workspace's .memlens.json."""
        layer = self.client_settings if self.client_settings is not None else self.init_options
        if isinstance(layer, dict) and isinstance(layer.get("memlens"), dict):
            layer = layer["memlens"]
        transcripts = layer.get("transcripts") if isinstance(layer, dict) else None
        if isinstance(transcripts, dict) and "paths" in transcripts:
            return "editor setting memlens.transcripts.paths"
        return f"memlens.transcripts.paths in {WORKSPACE_CONFIG_FILE}"

    async def _tell_unnamed_sources(self, engine: Engine) -> None:
        """The folders the index holds that these settings no longer name are kept (still synced and searched), not
        removed: the client is told which, and may ask its user to remove them (`memlens.removeSource`)."""
        try:
            folders = await self.read(engine.unnamed_source_folders)
        except Exception:  # telling is best effort: the index serves either way
            log.exception("cannot list the folders the index holds")
            return
        if folders and self.engine is engine:
            shown = ", ".join(folder["displayPath"] for folder in folders)
            log.warning("the settings no longer name %s; the index keeps it (memlens.removeSource forgets one)", shown)
            notice: UnnamedSources = {"sources": folders}
            self.server.protocol.notify(UNNAMED_SOURCES, notice)

    async def _start_indexing(self, engine: Engine) -> None:
        done = threading.Event()
        indexer = BackgroundIndexer(
            engine,
            on_sync=lambda report: self._synced(engine, report, done),
            on_progress=lambda d, t, m: self._progress(engine, d, t, m),
            live=self.live_indexing,
        )
        progress = WorkDone(self, "memlens: indexing", on_cancel=indexer.cancel)
        self._initial = progress
        await progress.begin("scanning memory and transcripts")
        if self.engine is not engine:
            return
        self.indexer = indexer
        indexer.start()
        asyncio.ensure_future(self._watch_initial(engine, progress, done))

    def _synced(self, engine: Engine, report: SyncReport, done: threading.Event) -> None:
        done.set()
        self.generation += 1
        if self.engine is engine:
            self.status.poke(synced_status(report))
            said = "memlens: " + ". ".join(report.empty["settingLines"]) + "." if report.empty is not None else None
            if said is not None and said != self._empty_shown:  # said once (a polling watcher syncs every 30 s)
                self._empty_shown = said
                shown = types.ShowMessageParams(type=types.MessageType.Info, message=said)
                self.call_soon(lambda: self.server.window_show_message(shown))

    def _progress(self, engine: Engine, done: int, total: int, message: str) -> None:
        if self.engine is not engine:
            return
        if self._initial is not None:
            self._initial.report(done, total, message)
        self.status.poke(message)

    async def _watch_initial(self, engine: Engine, progress: WorkDone, done: threading.Event) -> None:
        """End the initial progress once the first sync reported and nothing waits for a vector."""
        while self.engine is engine and not progress.cancelled:
            if done.is_set() and not await self.read(engine.indexing):
                break
            await asyncio.sleep(POLL_SECONDS)
        if self._initial is progress:
            self._initial = None
        if self.engine is engine:
            progress.end("cancelled" if progress.cancelled else "index up to date")
            await self.status.publish_now("cancelled" if progress.cancelled else "index up to date")

    async def reindex(self, full: bool) -> SyncReport:
        """`memlens.reindex`: a resync (or full re-parse) with its own cancellable progress."""
        engine = await self.require_engine()
        cancel = threading.Event()
        progress = WorkDone(self, "memlens: full reindex" if full else "memlens: reindex", on_cancel=cancel.set)
        await progress.begin("scanning memory and transcripts")
        self._reindexing += 1

        def report(done: int, total: int, message: str) -> None:
            progress.report(done, total, message)
            self.status.poke(message)

        try:
            result = await self.write(lambda: engine.reindex(full=full, progress=report, cancel=cancel))
        except Exception as exc:
            progress.end(f"failed: {exc}")  # an OS error names a path, which may hold a key: masked_messages
            raise JsonRpcInternalError(message=f"reindex failed: {exc}") from exc
        finally:
            self._reindexing -= 1
        self.generation += 1
        progress.end("cancelled" if result.cancelled else "index up to date")
        await self.status.publish_now("reindex cancelled" if result.cancelled else "reindex done")
        return result

    @property
    def busy(self) -> bool:
        """True while the initial indexing or a reindex runs (a job with work-done progress)."""
        return bool(self._reindexing or self._initial is not None)

    async def index_status(self, message: str | None = None) -> IndexStatus | None:
        engine = self.engine
        if engine is None:
            return None
        status = await self.read(engine.status)
        status["indexing"] = status["indexing"] or self.busy
        if message:
            status["message"] = message
        return status

    def shutdown(self) -> None:
        """Stop background work and close the engine (blocking; called once at shutdown)."""
        self.shut_down = True
        self._opening.set()  # an open waiting for the index to be made gives up
        indexer, engine, takeover = self.indexer, self.engine, self.takeover
        self.indexer, self.engine, self.takeover = None, None, None
        if indexer is not None:
            indexer.cancel()

        def close() -> None:
            if takeover is not None:
                takeover.stop()
            self.local.close()
            if indexer is not None:
                indexer.stop()
            if engine is not None:
                engine.close()

        try:
            self.writer.submit(close).result(15.0)
        except Exception:
            log.exception("shutdown did not finish cleanly")
        self.readers.shutdown(wait=False, cancel_futures=True)
