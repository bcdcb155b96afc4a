"""The engine's front door: opens one workspace's index and answers sync, search, stats and history.

The CLI and the language server both drive this class; neither reaches past it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TypeVar, cast

from memlens.engine.answers.context_pack import build_context_pack
from memlens.engine.answers.cut_secrets import mask_cut_secrets
from memlens.engine.answers.history import session_history
from memlens.engine.answers.index_stats import index_stats
from memlens.engine.answers.outbound import redact_response
from memlens.engine.answers.results import ResultBuilder, display_path
from memlens.engine.answers.sessions import label_history, label_results, list_sessions, resolve_session
from memlens.engine.answers.source_folders import source_folders
from memlens.engine.answers.summaries import describe_summary, expand_summary, grep_summaries
from memlens.engine.answers.visibility import Visibility, VisibilityCache
from memlens.engine.catalog import Catalog, RootRow
from memlens.engine.file_names import disk_path, stored_path
from memlens.engine.filters import SearchFilters, filters_from_request
from memlens.engine.index_location import index_dir_for, resolve_workspaces
from memlens.engine.indexing.discovery import Locations, SourceFile, classify, discover, resolve_locations
from memlens.engine.indexing.indexer import Indexer, SyncReport
from memlens.engine.indexing.source_roots import RootOrigins, inferred_roots, named_roots, unnamed, widen
from memlens.engine.indexing.stored_text import reparse_if_redaction_changed
from memlens.engine.indexing.write_failure import (
    clear_write_failure,
    last_write_failure,
    record_write_failure,
    reserve_write_failure_slot,
)
from memlens.engine.indexing.writer_lock import WriterLock
from memlens.engine.keyword.keyword_index import KeywordIndex
from memlens.engine.progress import Progress
from memlens.engine.ranking.cross_encoder import CrossEncoder
from memlens.engine.ranking.hits import Ranking
from memlens.engine.ranking.search import Retriever
from memlens.engine.sources.common import scrub
from memlens.engine.vectors.bundled_model import BUNDLED_DIM
from memlens.engine.vectors.embedder import Embedder, load_embedder
from memlens.engine.vectors.vector_index import VectorIndex
from memlens.errors import (
    IndexUnavailable,
    IndexWriteFailed,
    InvalidRequest,
    LockPathBroken,
    environmental_cause,
    unwritable_folder_cause,
)
from memlens.requests import (
    DEFAULT_CONTEXT_BUDGET,
    DEFAULT_EXPAND_BUDGET,
    DEFAULT_GREP,
    DEFAULT_HISTORY,
    DEFAULT_SESSIONS,
    ContextRequest,
    HistoryRequest,
    SearchFilterRequest,
    SearchRequest,
    SummariesDescribeRequest,
    SummariesExpandRequest,
    SummariesGrepRequest,
    checked,
)
from memlens.settings import Settings, to_wire
from memlens.wire import (
    ContextResponse,
    FusionMode,
    HistoryResponse,
    RemoveSourceResponse,
    SearchResponse,
    SessionsResponse,
    SourceFolder,
    SourcesResponse,
    StatsResponse,
    SummariesExpandResponse,
    SummariesGrepResponse,
    SummaryDescription,
)

# The settings an open engine takes as they change (`apply_query_settings`), as the settings' wire names; every other
# one shapes what is indexed or where, and a change to it needs the engine reopened (`index_identity`).
QUERY_SETTINGS = frozenset({"search", "reranker", "hover", "excludeSessions"})

log = logging.getLogger(__name__)


T = TypeVar("T")


class Engine:
    def __init__(
        self,
        workspaces: Iterable[Path],
        settings: Settings | None = None,
        extra_transcripts: Iterable[Path] = (),
        index_dir: Path | None = None,
        embedder: Embedder | None | bool = True,
        origins: RootOrigins | None = None,
    ) -> None:
        """`embedder`: True loads the configured model, False runs keyword-only, or pass a loaded Embedder.
        `origins`: what the folders of `extra_transcripts` and of the settings are recorded as added from."""
        self.settings = settings or Settings()
        self.origins = origins or RootOrigins()
        self.workspaces = resolve_workspaces(workspaces)
        self.extra_transcripts = [Path(p).expanduser().resolve() for p in extra_transcripts]
        self.index_dir = index_dir_for(
            workspaces=self.workspaces, configured=self.settings.index_dir, explicit=index_dir
        )
        self.index_dir.mkdir(parents=True, exist_ok=True)
        self._lock = WriterLock(self.index_dir / "writer.lock")
        # why this process may not write, when the reason is not simply another writer (said by every write)
        self.write_problem: IndexUnavailable | None = None
        self._lock_check = threading.Lock()
        self.writable = self._acquire_lock()
        self.catalog = Catalog(self.index_dir / "catalog.sqlite3")
        self._remembered: list[RootRow] = self.catalog.roots()  # the folders the index was built from
        self.keyword = KeywordIndex(self.index_dir / "keyword")
        self.embedder, self.provider_note = self._load_embedder(embedder)
        self.vectors = VectorIndex(self.embedder.info.dim if self.embedder else BUNDLED_DIM)
        self.indexer = Indexer(self.catalog, self.keyword, self.vectors, self.embedder, self.settings)
        self.indexer.guard = self._require_writer  # checked before every commit
        self.retriever = Retriever(self.catalog, self.keyword, self.vectors, self.embedder)
        # the optional cross-encoder (cross_encoder.py): loads a model only if one is configured
        self.cross_encoder = CrossEncoder(self.index_dir.parent.parent / "models")
        self.syncing = threading.Event()
        self._seen_generation = -1
        self._derived_stale = False  # a write failed between the catalog and the derived indexes
        # the cause of the last failed write, until a write succeeds (kept on disk too, for `stats` elsewhere)
        self.last_write_failure: str | None = last_write_failure(self.index_dir)
        if self.writable:
            reserve_write_failure_slot(self.index_dir)
        self._visibility = VisibilityCache()
        self._live_failures = 0  # changes live indexing (watcher.py) failed on: stats reports them
        self._live_failures_lock = threading.Lock()
        try:
            self._open_derived()
            if self.writable:
                self._adopt_older_index()
        except Exception as exc:  # a full disk while realigning: open anyway, serve what is there, retry at sync
            cause = environmental_cause(exc, self.index_dir)
            if cause is None:
                raise
            log.warning("could not update the index at %s: %s; answering from the last update", self.index_dir, cause)
            self._derived_stale = True
            self._reload_vectors(self.catalog.generation())

    # -- lifecycle --------------------------------------------------------------------------------------------

    def _acquire_lock(self) -> bool:
        """Whether this process is the writer. A broken lock path or an index folder this process cannot write
        makes it a reader, with the reason kept in `write_problem`."""
        try:
            return self._lock.acquire()
        except LockPathBroken as exc:
            self.write_problem = exc
        except OSError as exc:
            cause = environmental_cause(exc, self.index_dir)
            if cause is None:
                raise
            self.write_problem = IndexWriteFailed(cause, self.index_dir)
        return False

    def _load_embedder(self, embedder: Embedder | None | bool) -> tuple[Embedder | None, str]:
        if isinstance(embedder, Embedder):
            return embedder, ""
        if embedder is False or embedder is None:
            return None, "embeddings are off; keyword search only"
        return load_embedder(self.settings.embedding, self.index_dir.parent.parent / "models")

    def _open_derived(self) -> None:
        """Make tantivy and the vector matrix agree with the catalog, rebuilding what disagrees or is damaged."""
        if self.writable:
            reparse_if_redaction_changed(self.catalog, enabled=self.settings.privacy.redact_index)
        generation = self.catalog.generation()
        if self.writable and self.keyword.generation() != generation:
            log.info(
                "keyword index is behind the catalog (%s != %s); rebuilding",
                self.keyword.generation(),
                generation,
            )
            self.indexer.rebuild_keyword_index()
        elif self.writable and self.keyword.num_docs() != self._unit_count():
            log.warning("keyword index disagrees with the catalog; rebuilding")
            self.indexer.rebuild_keyword_index()
        self._reload_vectors(generation)

    def _reload_vectors(self, generation: int) -> None:
        self.indexer.embedding.forget_counts()
        if self.embedder is not None:
            self.vectors.load(self.catalog, self.embedder.name)
        self._seen_generation = generation

    @staticmethod
    def index_identity(settings: Settings, workspaces: Iterable[Path]) -> tuple[str, ...]:
        """What, if changed, needs the engine reopened and the index resynced: every setting but QUERY_SETTINGS
        (a setting added later reopens the index until it is known to change none), and the workspaces."""
        wire = to_wire(settings)
        shaping = [(key, value) for key, value in wire.items() if key not in QUERY_SETTINGS]
        return (repr(shaping), *map(str, workspaces))

    def apply_query_settings(self, settings: Settings) -> None:
        """Take the settings that change no index (QUERY_SETTINGS); others need a new Engine (`index_identity`)."""
        self.settings.search = dataclasses.replace(settings.search)
        self.settings.reranker = dataclasses.replace(settings.reranker)
        self.settings.hover = dataclasses.replace(settings.hover)
        self.settings.exclude_sessions = list(settings.exclude_sessions)

    def refresh(self) -> None:
        """A read-only engine follows the writer's commits: reload what changed since it last looked."""
        if self.writable:
            return
        generation = self.catalog.generation()
        if generation != self._seen_generation:
            self._remembered = self.catalog.roots()
            self.keyword.index.reload()
            self._reload_vectors(generation)

    def close(self) -> None:
        self.catalog.close()
        if self.last_write_failure is not None:  # again, now that the catalog's journal gave its space back
            record_write_failure(self.index_dir, self.last_write_failure)
        self._lock.release()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _unit_count(self) -> int:
        return self.catalog.count("units")

    # -- indexing ---------------------------------------------------------------------------------------------

    def locations(self) -> Locations:
        """What a sync walks and a search may show: the folders this engine is told to read, and the ones the index
        remembers (source_roots.py)."""
        return widen(self.named_locations(), self._remembered)

    def named_locations(self) -> Locations:
        """Only the folders this engine's workspaces, settings and flags name."""
        return resolve_locations(self.workspaces, self.settings, self.extra_transcripts)

    def named_roots(self) -> list[RootRow]:
        return named_roots(
            self.named_locations(),
            settings=self.settings,
            extra_transcripts=self.extra_transcripts,
            origins=self.origins,
        )

    def _remember_roots(self) -> None:
        """Record the folders this sync is told to read."""
        self._adopt_older_index()
        known = {root.path: root for root in self.catalog.roots()}
        new = [r for r in self.named_roots() if r.path not in known or (r.whole and not known[r.path].whole)]
        if new:
            self.indexer.remember_roots(new)
        self._remembered = self.catalog.roots()

    def _adopt_older_index(self) -> None:
        """A catalog with no folders recorded: started anew after damage, it takes back the copy beside it (roots.json);
        built before folders were remembered, it records the named folders and one for every file no named folder
        holds. At open, so an upgrade removes nothing and the first command already says what the index holds."""
        if self.catalog.roots():
            return
        if not self.indexer.restore_roots() and self.catalog.count("files"):
            named = self.named_roots()
            kinds = {path: row.kind for path, row in self.catalog.files().items()}
            self.indexer.remember_roots([*named, *inferred_roots(kinds, named, Path.home())])
        self._remembered = self.catalog.roots()

    def _known_cwd(self) -> Callable[[Path], str | None]:
        """The cwd each indexed session recorded: agent folders are filtered by it without reading the files."""
        cwd_of = self.catalog.session_cwds()
        return lambda path: cwd_of.get(stored_path(path))

    def sources(self) -> list[SourceFile]:
        return discover(self.locations(), self.settings, self._known_cwd())

    def sync(
        self,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
        embed: bool = True,
        *,
        settled: bool = False,
    ) -> SyncReport:
        """Bring the index in line with the sources; `settled` (reindex): read every unterminated last line of a
        file that is not growing now, not only once its file is quiet (indexing.file_reader)."""
        self._require_writer()
        self.syncing.set()
        try:
            with self._writing():
                self._remember_roots()
                report = self.indexer.sync(self.sources(), progress, cancel, embed=embed, settled=settled)
                if not report.cancelled:  # a whole sync, not a watcher's few files: piled-up segments written afresh
                    self.indexer.compact_keyword_index(cancel, progress)
                return report
        finally:
            self.syncing.clear()

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """Around every write: a full disk becomes one clear error, and the derived indexes are realigned with
        the catalog's last commit, so searches keep answering and the next sync, once space is back, recovers."""
        try:
            if self._derived_stale:
                self._open_derived()
                self._derived_stale = False
            yield
        except Exception as exc:
            cause = environmental_cause(exc, self.index_dir)
            if cause is None:
                raise
            self._derived_stale = True
            self.last_write_failure = cause
            record_write_failure(self.index_dir, cause)
            raise IndexWriteFailed(cause, self.index_dir) from exc
        if self.last_write_failure is not None:
            self.last_write_failure = None
            clear_write_failure(self.index_dir)

    def sync_paths(self, changed: Iterable[Path], deleted: Iterable[Path] = (), embed: bool = True) -> SyncReport:
        """Sync only these files (watcher events); a changed path that is not a source is ignored."""
        self._require_writer()
        locations, known_cwd = self.locations(), self._known_cwd()
        deleted = list(deleted)
        # a removed file's other names (hard links, symlinks) were aliases: one of them is now indexed instead
        named = self.catalog.aliases_of([stored_path(p) for p in deleted])
        changed = [*changed, *(disk_path(alias) for alias in named)]
        with self._writing():
            report = self.indexer.remove_paths(deleted)
            classified = (classify(p, locations, self.settings, known_cwd) for p in dict.fromkeys(changed))
            chosen = [source for source in classified if source is not None]
            if chosen:
                report.merge(self.indexer.sync(chosen, embed=embed, prune=False))
            else:
                self.indexer.collect_garbage()
        return report

    def waiting_tails(self) -> dict[Path, float]:
        """Transcripts whose unterminated last line waits for the file to be quiet: path -> mtime (seconds)."""
        return dict(self.indexer.waiting_tails)

    def embed_pending(
        self, *, progress: Progress | None = None, cancel: threading.Event | None = None, max_batches: int | None = None
    ) -> int:
        """Embed texts that have no vector yet (the watcher does it a few batches at a time between events)."""
        self._require_writer()
        with self._writing():
            return self.indexer.embedding.embed_pending(progress=progress, cancel=cancel, max_batches=max_batches)

    def pending_embeddings(self) -> int:
        return self.indexer.embedding.pending() if self.embedder is not None else 0

    def pending_words(self) -> int:
        """Words of the index still to embed for query expansion (after every unit has its vector)."""
        return self.indexer.embedding.pending_words() if self.embedder is not None else 0

    def reindex(
        self, full: bool = False, progress: Progress | None = None, cancel: threading.Event | None = None
    ) -> SyncReport:
        """Incremental resync, or with `full` a rebuild: every file re-parsed (cached vectors are reused). A full
        rebuild also replaces a broken writer-lock path (see WriterLock.repair)."""
        if full and isinstance(self.write_problem, LockPathBroken):
            self._repair_lock()
        self._require_writer()
        if full:
            with self.catalog.transaction() as db:
                self.catalog.mark_all_for_reparse(db)
        return self.sync(progress, cancel, settled=True)

    def _repair_lock(self) -> None:
        try:
            self._lock.repair()
        except OSError as exc:
            raise IndexUnavailable(
                f"could not replace the writer lock {self._lock.path}: {exc.strerror or exc}"
            ) from exc
        self.write_problem = None
        self.writable = self._acquire_lock()
        if self.writable:
            log.warning("replaced the broken writer lock %s", self._lock.path)
            self._derived_stale = True  # opened as a reader: realign the derived indexes before the first write

    def source_folders(self) -> SourcesResponse:
        """Every folder the index remembers, and any this engine names that no sync has recorded yet."""
        self.refresh()
        named = self.named_roots()
        remembered = {root.path for root in self._remembered}
        roots = [*self._remembered, *(root for root in named if root.path not in remembered)]
        answer: SourcesResponse = {"sources": source_folders(self.catalog, roots, named)}
        return redact_response(answer)

    def unnamed_source_folders(self) -> list[SourceFolder]:
        """The folders the index holds (and still syncs and searches) that this engine's settings and flags do not
        name: what a face tells its user it also holds."""
        self.refresh()
        named = self.named_roots()
        return redact_response(source_folders(self.catalog, unnamed(self._remembered, named), named))

    def remove_source_folder(self, folder: str | Path) -> RemoveSourceResponse:
        """Forget one remembered folder: its files (those no other folder holds) leave the catalog, tantivy and
        the vectors. A folder this engine still names cannot be removed (the next sync would add it back)."""
        self._require_writer()
        target = str(Path(folder).expanduser().resolve())
        known = {root.path: root for root in self.catalog.roots()}
        shown = display_path(target, [])
        if target not in known:
            raise InvalidRequest(f"{shown} is not a folder this index holds (memlens sources lists them)")
        named = next((root for root in self.named_roots() if root.path == target), None)
        if named is not None:
            raise InvalidRequest(
                f"{shown} is named by this command's settings or flags ({named.added_from}); "
                "stop naming it there, then remove it"
            )
        with self._writing():
            remaining = [root for path, root in known.items() if path != target]
            locations = widen(self.named_locations(), remaining)
            keep = {str(s.path) for s in discover(locations, self.settings, self._known_cwd())}
            gone = [Path(p) for p in self.catalog.files_under(target) if p not in keep]
            report = self.indexer.forget_root(target, gone)
        self._remembered = self.catalog.roots()
        answer: RemoveSourceResponse = {"path": target, "displayPath": shown, "filesRemoved": report.files_deleted}
        return redact_response(answer)

    def _require_writer(self) -> None:
        with self._lock_check:  # one thread retakes the lock; another would let go of what the first just took
            self._check_lock()

    def _check_lock(self) -> None:
        if self.writable and not self._lock.still_held():
            # someone removed or replaced writer.lock under us: lock what the name leads to now, unless another
            # process already has; either way only one process writes from here on
            self._lock.release()
            self.writable = self._acquire_lock()
            if self.writable:
                log.warning("the writer lock %s was removed or replaced; this process took it again", self._lock.path)
            elif self.write_problem is None:
                log.warning("the writer lock %s was taken by another process; this one stops writing", self._lock.path)
        if self.write_problem is not None and not self.writable:
            raise self.write_problem
        if not self.writable:
            raise IndexUnavailable(
                f"another memlens process is writing the index at {self.index_dir}; this one serves searches read-only"
            )

    # -- reading ----------------------------------------------------------------------------------------------

    def visibility(self) -> Visibility:
        """What a request may return (see visibility.py)."""
        return self._visibility.get(
            workspaces=self.workspaces,
            extra_transcripts=self.extra_transcripts,
            settings=self.settings,
            locations=self.locations,
            remembered=self._remembered,
        )

    def indexing(self) -> bool:
        """Whether answers may still change without a file changing: a sync is running, or texts or the vocabulary's
        words still wait for their vectors (until the words have theirs, query expansion finds less)."""
        return self.syncing.is_set() or self.pending_embeddings() > 0 or self.pending_words() > 0

    def rank(
        self,
        query: str,
        *,
        mode: str | None = None,
        filters: SearchFilters | None = None,
        limit: int | None = None,
        fusion: str | None = None,
    ) -> Ranking:
        self.refresh()
        return self._ranked(query, mode=mode, filters=filters, limit=limit, fusion=fusion)

    def _ranked(
        self, query: str, *, mode: str | None, filters: SearchFilters | None, limit: int | None, fusion: str | None
    ) -> Ranking:
        """`rank` once the engine has followed the writer (`refresh`). The query is parsed here, once, and every step
        after reads the parsed query."""
        parsed = self.retriever.read(query, self.settings.search, filters)
        ranking = self.retriever.rank(parsed, self.settings.search, mode, fusion, limit)
        return self.cross_encoder.rerank(query, ranking, self.settings.reranker, self.catalog)

    def search(
        self,
        query: str,
        *,
        limit: int | None = None,
        mode: str | None = None,
        filters: SearchFilters | SearchFilterRequest | None = None,
        explain: bool = False,
        fusion: str | None = None,
        min_score: float | None = None,
    ) -> SearchResponse:
        """The `--json` / `memlens.search` response; `filters` as the engine's, or as the request's (`filters` of a
        memlens.requests.SearchRequest)."""
        checked(SearchRequest, query=query, limit=limit, mode=mode, fusion=fusion, explain=explain, min_score=min_score)
        if isinstance(filters, SearchFilterRequest):
            filters = filters_from_request(filters)
        started = time.perf_counter()
        query = scrub(query)  # raw bytes that are not UTF-8 (a shell passes them as typed) read as stored text does
        settings = self.settings.search
        limit = limit or settings.max_results
        self.refresh()
        # read before the answer is worked out: work that ends during the search (the words' vectors) must not make
        # an answer from before it read as final (the editor's self-test saw 6 hits said final, then 7)
        indexing = self.indexing()
        ranking = self._ranked(query, mode=mode, filters=filters, limit=limit, fusion=fusion)
        builder = ResultBuilder(self.catalog, self.workspaces, self.visibility())
        results = builder.build(
            ranking,
            limit,
            settings.min_score if min_score is None else min_score,
            settings.excerpt_chars,
            settings.max_response_chars,
            explain,
        )
        label_results(self.catalog, results)
        response: SearchResponse = {
            "query": query,
            "mode": ranking.mode,
            "results": results,
            "totalResults": len(results),
            "searchTimeMs": round((time.perf_counter() - started) * 1000, 2),
            "indexing": indexing,
        }
        if ranking.mode != (mode or settings.mode):
            response["note"] = f"no embedding model ({self.provider_note or 'no vectors yet'}); keyword search only"
        if explain:
            response["fusion"] = cast(FusionMode, ranking.fusion)  # the retriever checked it against FUSIONS
        return self._outbound(response)

    def history(
        self, session_key: str, *, message_id: str | None = None, limit: int = DEFAULT_HISTORY
    ) -> HistoryResponse:
        """A session's messages around `message_id` (or its newest tail); excluded sessions do not exist.
        `session_key` may also be a bare session id or a unique prefix (see `resolve_session`)."""
        checked(HistoryRequest, session_key=session_key, message_id=message_id, limit=limit)
        self.refresh()
        visibility = self.visibility()
        key = resolve_session(self.catalog, session_key, visibility)
        history = session_history(self.catalog, key, message_id, limit, visibility)
        label_history(self.catalog, key, history)
        return self._outbound(history)

    def resolve_session(self, ref: str) -> str:
        """The key of the one visible session a key, a bare session id or a unique prefix names."""
        self.refresh()
        return resolve_session(self.catalog, ref, self.visibility())

    def sessions(
        self,
        *,
        query: str | None = None,
        format: str | None = None,
        project: str | None = None,
        since: str | None = None,
        until: str | None = None,
        limit: int = DEFAULT_SESSIONS,
        cursor: str | None = None,
    ) -> SessionsResponse:
        """A page of visible sessions, newest first: title, project, times, files touched, tools, resume command."""
        self.refresh()
        page = list_sessions(
            self.catalog,
            self.visibility(),
            query=query,
            format=format,
            project=project,
            since=since,
            until=until,
            limit=limit,
            cursor=cursor,
        )
        answer: SessionsResponse = {**page, "indexing": self.indexing()}
        return redact_response(answer)

    def summaries_grep(self, pattern: str, *, limit: int = DEFAULT_GREP) -> SummariesGrepResponse:
        """Compaction summaries whose text matches `pattern` (a linear-time regular expression)."""
        checked(SummariesGrepRequest, pattern=pattern, limit=limit)
        self.refresh()
        return self._outbound(grep_summaries(self.catalog, pattern, limit, self.visibility()))

    def summaries_describe(self, summary_id: str) -> SummaryDescription:
        """One summary with the span of messages it covers."""
        checked(SummariesDescribeRequest, summary_id=summary_id)
        self.refresh()
        return self._outbound(describe_summary(self.catalog, summary_id, self.visibility()))

    def summaries_expand(
        self, summary_id: str, *, token_budget: int = DEFAULT_EXPAND_BUDGET
    ) -> SummariesExpandResponse:
        """The messages a summary replaced, within a token budget."""
        checked(SummariesExpandRequest, summary_id=summary_id, token_budget=token_budget)
        self.refresh()
        return self._outbound(expand_summary(self.catalog, summary_id, token_budget, self.visibility()))

    def context(
        self, question: str, *, token_budget: int = DEFAULT_CONTEXT_BUDGET, limit: int | None = None
    ) -> ContextResponse:
        """A context pack: the turns most relevant to `question`, cited, within a token budget."""
        checked(ContextRequest, question=question, token_budget=token_budget, limit=limit)
        return self._outbound(build_context_pack(self, question, token_budget=token_budget, limit=limit))

    def _outbound(self, response: T) -> T:
        """The door: secrets masked in what an answer shows (also those cut between stored messages when the index
        keeps text unmasked; a redacted index stored them masked already)."""
        if not self.settings.privacy.redact_index:
            response = mask_cut_secrets(response, self.catalog)
        return redact_response(response)

    def note_live_failure(self) -> None:
        """Live indexing failed on a change (logged where it happened) and goes on: counted for `stats`."""
        with self._live_failures_lock:
            self._live_failures += 1

    def stats(self, *, count_unindexed: bool = True) -> StatsResponse:
        """What the index holds, through the door's redaction like every answer (a file's failure reason is free
        text, which may quote what it failed on). `count_unindexed`: look at every source file for those the index
        does not hold yet (a walk of the folders; the status line, asked often, skips it and reports 0)."""
        not_indexed = self.indexer.count_unindexed(self.sources()) if count_unindexed else 0
        return redact_response(
            index_stats(
                self.catalog,
                model=self.embedder.name if self.embedder else None,
                provider_note=self.provider_note,
                indexing=self.indexing(),
                index_dir=self.index_dir,
                writable=self.writable,
                not_indexed=not_indexed,
                not_indexed_reason=self._not_indexed_reason() if not_indexed else None,
                watcher_errors=self._live_failures,
            )
        )

    def _not_indexed_reason(self) -> str:
        """Why files wait: the reason this process cannot write, the last failed write's cause, or none at all."""
        if self.write_problem is not None and not self.writable:
            return str(self.write_problem)
        cause = self.last_write_failure or unwritable_folder_cause(self.index_dir)
        if cause is not None:
            return f"could not update the index: {cause}"
        if self.syncing.is_set():
            return "indexing now"
        if not self.writable:
            return "another memlens process writes this index; it indexes them when it next syncs"
        return "changed since the last sync; the next search or `memlens index` indexes them"
