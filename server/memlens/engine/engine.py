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
from typing import cast

from memlens.engine.answers.context_pack import DEFAULT_BUDGET, build_context_pack
from memlens.engine.answers.history import session_history
from memlens.engine.answers.index_stats import index_stats
from memlens.engine.answers.outbound import redact_response
from memlens.engine.answers.results import ResultBuilder
from memlens.engine.answers.sessions import DEFAULT_LIMIT as SESSIONS_LIMIT
from memlens.engine.answers.sessions import label_history, label_results, list_sessions, resolve_session
from memlens.engine.answers.summaries import DEFAULT_EXPAND_BUDGET, describe_summary, expand_summary, grep_summaries
from memlens.engine.answers.visibility import Visibility, VisibilityCache
from memlens.engine.catalog import Catalog
from memlens.engine.filters import SearchFilters
from memlens.engine.index_location import index_dir_for, resolve_workspaces
from memlens.engine.indexing.discovery import Locations, SourceFile, classify, discover, resolve_locations
from memlens.engine.indexing.indexer import Indexer, SyncReport
from memlens.engine.indexing.stored_text import reparse_if_redaction_changed
from memlens.engine.indexing.writer_lock import WriterLock
from memlens.engine.keyword.keyword_index import KeywordIndex
from memlens.engine.progress import Progress
from memlens.engine.ranking.cross_encoder import CrossEncoder
from memlens.engine.ranking.hits import Ranking
from memlens.engine.ranking.search import Retriever
from memlens.engine.vectors.bundled_model import BUNDLED_DIM
from memlens.engine.vectors.embedder import Embedder, load_embedder
from memlens.engine.vectors.vector_index import VectorIndex
from memlens.errors import IndexUnavailable, is_disk_full
from memlens.settings import Settings, to_wire
from memlens.wire import (
    ContextResponse,
    FusionMode,
    HistoryResponse,
    SearchResponse,
    SessionsResponse,
    StatsResponse,
    SummariesExpandResponse,
    SummariesGrepResponse,
    SummaryDescription,
)

# The settings an open engine takes as they change (`apply_query_settings`), as the settings' wire names; every other
# one shapes what is indexed or where, and a change to it needs the engine reopened (`index_identity`).
QUERY_SETTINGS = frozenset({"search", "reranker", "hover", "excludeSessions"})

log = logging.getLogger(__name__)


class Engine:
    def __init__(
        self,
        workspaces: Iterable[Path],
        settings: Settings | None = None,
        extra_transcripts: Iterable[Path] = (),
        index_dir: Path | None = None,
        embedder: Embedder | None | bool = True,
    ) -> None:
        """`embedder`: True loads the configured model, False runs keyword-only, or pass a loaded Embedder."""
        self.settings = settings or Settings()
        self.workspaces = resolve_workspaces(workspaces)
        self.extra_transcripts = [Path(p).expanduser().resolve() for p in extra_transcripts]
        self.index_dir = index_dir_for(
            workspaces=self.workspaces, configured=self.settings.index_dir, explicit=index_dir
        )
        self.index_dir.mkdir(parents=True, exist_ok=True)
        self._lock = WriterLock(self.index_dir / "writer.lock")
        self.writable = self._lock.acquire()
        self.catalog = Catalog(self.index_dir / "catalog.sqlite3")
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
        self._visibility = VisibilityCache()
        try:
            self._open_derived()
        except Exception as exc:  # a full disk while realigning: open anyway, serve what is there, retry at sync
            if not is_disk_full(exc):
                raise
            log.warning("the disk holding %s is full; the keyword index is realigned at the next sync", self.index_dir)
            self._derived_stale = True
            self._reload_vectors(self.catalog.generation())

    # -- lifecycle --------------------------------------------------------------------------------------------

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
            self.keyword.index.reload()
            self._reload_vectors(generation)

    def close(self) -> None:
        self.catalog.close()
        self._lock.release()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _unit_count(self) -> int:
        return self.catalog.count("units")

    # -- indexing ---------------------------------------------------------------------------------------------

    def locations(self) -> Locations:
        return resolve_locations(self.workspaces, self.settings, self.extra_transcripts)

    def _known_cwd(self) -> Callable[[Path], str | None]:
        """The cwd each indexed session recorded: agent folders are filtered by it without reading the files."""
        cwd_of = self.catalog.session_cwds()
        return lambda path: cwd_of.get(str(path))

    def sources(self) -> list[SourceFile]:
        return discover(self.locations(), self.settings, self._known_cwd())

    def sync(
        self, progress: Progress | None = None, cancel: threading.Event | None = None, embed: bool = True
    ) -> SyncReport:
        self._require_writer()
        self.syncing.set()
        try:
            with self._writing():
                report = self.indexer.sync(self.sources(), progress, cancel, embed=embed)
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
            if not is_disk_full(exc):
                raise
            self._derived_stale = True
            raise IndexUnavailable(
                f"the disk holding the index at {self.index_dir} is full: free some space there (or point "
                "memlens.indexDir at another disk) and sync again; searches keep answering from the last commit"
            ) from exc

    def sync_paths(self, changed: Iterable[Path], deleted: Iterable[Path] = (), embed: bool = True) -> SyncReport:
        """Sync only these files (watcher events); a changed path that is not a source is ignored."""
        self._require_writer()
        locations, known_cwd = self.locations(), self._known_cwd()
        with self._writing():
            report = self.indexer.remove_paths(list(deleted))
            classified = (classify(p, locations, self.settings, known_cwd) for p in dict.fromkeys(changed))
            chosen = [source for source in classified if source is not None]
            if chosen:
                report.merge(self.indexer.sync(chosen, embed=embed, prune=False))
            else:
                self.indexer.collect_garbage()
        return report

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
        """Incremental resync, or with `full` a rebuild: every file re-parsed (cached vectors are reused)."""
        self._require_writer()
        if full:
            with self.catalog.transaction() as db:
                self.catalog.mark_all_for_reparse(db)
        return self.sync(progress, cancel)

    def _require_writer(self) -> None:
        if self.writable and not self._lock.still_held():
            self.writable = False  # someone removed writer.lock under us: another process may be writing now
            log.warning("the writer lock %s was removed; this process stops writing", self._lock.path)
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
        filters: SearchFilters | None = None,
        explain: bool = False,
        fusion: str | None = None,
        min_score: float | None = None,
    ) -> SearchResponse:
        """The `--json` / `memlens.search` response."""
        started = time.perf_counter()
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
        return redact_response(response)

    def history(self, session_key: str, *, message_id: str | None = None, limit: int = 20) -> HistoryResponse:
        """A session's messages around `message_id` (or its newest tail); excluded sessions do not exist.
        `session_key` may also be a bare session id or a unique prefix (see `resolve_session`)."""
        self.refresh()
        visibility = self.visibility()
        key = resolve_session(self.catalog, session_key, visibility)
        history = session_history(self.catalog, key, message_id, limit, visibility)
        label_history(self.catalog, key, history)
        return redact_response(history)

    def resolve_session(self, ref: str) -> str:
        """The key of the one visible session a key, a bare session id or a unique prefix names."""
        self.refresh()
        return resolve_session(self.catalog, ref, self.visibility())

    def sessions(
        self,
        *,
        query: str | None = None,
        format: str | None = None,
        since: str | None = None,
        until: str | None = None,
        limit: int = SESSIONS_LIMIT,
        cursor: str | None = None,
    ) -> SessionsResponse:
        """A page of visible sessions, newest first: title, project, times, files touched, tools, resume command."""
        self.refresh()
        page = list_sessions(
            self.catalog,
            self.visibility(),
            query=query,
            format=format,
            since=since,
            until=until,
            limit=limit,
            cursor=cursor,
        )
        answer: SessionsResponse = {**page, "indexing": self.indexing()}
        return redact_response(answer)

    def summaries_grep(self, pattern: str, *, limit: int = 20) -> SummariesGrepResponse:
        """Compaction summaries whose text matches `pattern` (a linear-time regular expression)."""
        self.refresh()
        return redact_response(grep_summaries(self.catalog, pattern, limit, self.visibility()))

    def summaries_describe(self, summary_id: str) -> SummaryDescription:
        """One summary with the span of messages it covers."""
        self.refresh()
        return redact_response(describe_summary(self.catalog, summary_id, self.visibility()))

    def summaries_expand(
        self, summary_id: str, *, token_budget: int = DEFAULT_EXPAND_BUDGET
    ) -> SummariesExpandResponse:
        """The messages a summary replaced, within a token budget."""
        self.refresh()
        return redact_response(expand_summary(self.catalog, summary_id, token_budget, self.visibility()))

    def context(
        self, question: str, *, token_budget: int = DEFAULT_BUDGET, limit: int | None = None
    ) -> ContextResponse:
        """A context pack: the turns most relevant to `question`, cited, within a token budget."""
        return redact_response(build_context_pack(self, question, token_budget=token_budget, limit=limit))

    def stats(self) -> StatsResponse:
        """What the index holds; through the door's redaction like every answer (a file's failure reason is free
        text, which may quote what it failed on)."""
        stats = index_stats(
            self.catalog,
            model=self.embedder.name if self.embedder else None,
            provider_note=self.provider_note,
            indexing=self.indexing(),
            index_dir=self.index_dir,
            writable=self.writable,
        )
        return redact_response(stats)
