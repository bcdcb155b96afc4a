"""The engine's front door: opens one workspace's index and answers sync, search, stats and history.

The CLI and the language server both drive this class; neither reaches past it.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

from memlens.engine.answers.context_pack import build_context_pack
from memlens.engine.answers.cut_secrets import mask_cut_secrets
from memlens.engine.answers.empty_index import empty_index
from memlens.engine.answers.fixes import past_fixes
from memlens.engine.answers.history import session_history
from memlens.engine.answers.index_stats import index_stats, index_status
from memlens.engine.answers.outbound import redact_response
from memlens.engine.answers.period import PeriodQuestion, time_zone
from memlens.engine.answers.references import split_reference
from memlens.engine.answers.search_answer import period_question, ranked, search
from memlens.engine.answers.sessions import label_history, list_sessions, resolve_session
from memlens.engine.answers.source_folders import removed_answer, source_folders, sources_answer
from memlens.engine.answers.summaries import describe_summary, expand_summary, grep_summaries
from memlens.engine.answers.visibility import Visibility, VisibilityCache
from memlens.engine.catalog import Catalog, RootRow
from memlens.engine.catalog.units import TimeSpan
from memlens.engine.configured_folders import missing_transcript_folders
from memlens.engine.file_names import disk_path, stored_path
from memlens.engine.filters import SearchFilters
from memlens.engine.index_location import index_dir_for, resolve_workspaces
from memlens.engine.indexing.changed_files import files_of_folders, sync_changed, with_aliases_of
from memlens.engine.indexing.derived_indexes import DerivedIndexes
from memlens.engine.indexing.discovery import Locations, SourceFile, classify, discover, resolve_locations
from memlens.engine.indexing.indexer import Indexer, SyncReport
from memlens.engine.indexing.remembered_roots import adopt_older_index, remember_named_roots, removable_root
from memlens.engine.indexing.source_roots import RootOrigins, named_roots, unnamed, widen
from memlens.engine.indexing.write_access import WriteAccess
from memlens.engine.keyword.keyword_index import KeywordIndex
from memlens.engine.model_cache import model_cache_dir
from memlens.engine.progress import Progress
from memlens.engine.query_settings import apply_query_settings, index_identity
from memlens.engine.ranking.cross_encoder import CrossEncoder
from memlens.engine.ranking.hits import Ranking
from memlens.engine.ranking.search import Retriever
from memlens.engine.team import TeamQuery
from memlens.engine.team.team_answers import publish_units, search_with_team, team_session_page
from memlens.engine.team.team_connections import PooledTeamConnections, TeamConnections
from memlens.engine.vectors.bundled_model import BUNDLED_DIM
from memlens.engine.vectors.embedder import Embedder, chosen_embedder
from memlens.engine.vectors.vector_index import VectorIndex
from memlens.errors import IndexNotReady, IndexUnavailable, LockPathBroken, unwritable_folder_cause
from memlens.log_lines import mask_own_records
from memlens.requests import (
    DEFAULT_CONTEXT_BUDGET,
    DEFAULT_EXPAND_BUDGET,
    DEFAULT_FIXES,
    DEFAULT_FOLLOW,
    DEFAULT_GREP,
    DEFAULT_HISTORY,
    DEFAULT_SESSIONS,
    ContextRequest,
    HistoryRequest,
    PublishRequest,
    SearchFilterRequest,
    SummariesDescribeRequest,
    SummariesExpandRequest,
    SummariesGrepRequest,
    TeamFilterRequest,
    checked,
)
from memlens.settings import Settings
from memlens.wire import (
    ContextResponse,
    EmptyIndex,
    FixesResponse,
    HistoryResponse,
    IndexStatus,
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
from memlens.wire.team import PublishResponse, TeamSessionsResponse

T = TypeVar("T")
log = logging.getLogger(__name__)


class Engine:
    def __init__(
        self,
        workspaces: Iterable[Path],
        settings: Settings | None = None,
        extra_transcripts: Iterable[Path] = (),
        index_dir: Path | None = None,
        embedder: Embedder | None | bool = True,
        origins: RootOrigins | None = None,
        command: str = "",
        wait_for_writer: bool = False,
        keyword_may_be_unready: bool = False,
        workspace_reason: str | None = None,
    ) -> None:
        """`embedder`: True loads the configured model, False runs keyword-only, or pass a loaded Embedder.
        `origins`: what the folders of `extra_transcripts` and of the settings are recorded as added from.
        `command`: the memlens command this process runs, named to other processes while it writes the index;
        `wait_for_writer`: wait for a short-lived command (a `stats`, a `search`) that writes the index to finish,
        and write it then (an `index`, a `watch`: commands that are run to write); `keyword_may_be_unready`: a
        reader opens while the writer still makes the keyword index, with an empty one in its place
        (`keyword_unready_note` says so), for `stats`, which answers from the catalog. `workspace_reason`: why the
        workspace is the folder it is (the CLI's project root), said when the index is empty (`empty_index`)."""
        mask_own_records()  # an application's own log handlers write memlens's lines masked too
        self.settings = settings or Settings()
        self.workspace_reason = workspace_reason
        self._empty: EmptyIndex | None = None  # what `empty_index` found since the last sync
        self.origins = origins or RootOrigins()
        self.workspaces = resolve_workspaces(workspaces)
        self.extra_transcripts = [Path(p).expanduser().resolve() for p in extra_transcripts]
        for folder in missing_transcript_folders(self.workspaces, self.settings):
            log.warning("memlens.transcripts.paths: %s is not a folder; nothing is read from it", folder)
        self.index_dir = index_dir_for(
            workspaces=self.workspaces, configured=self.settings.index_dir, explicit=index_dir
        )
        self.index_dir.mkdir(parents=True, exist_ok=True)
        self._access = WriteAccess(self.index_dir, command=command, wait=wait_for_writer)
        self.catalog, self.keyword = self._open_parts(keyword_may_be_unready=keyword_may_be_unready)
        self._remembered: list[RootRow] = self.catalog.roots()  # the folders the index was built from
        models = model_cache_dir()
        self.embedder, self.provider_note = chosen_embedder(embedder, self.settings.embedding, models)
        self.vectors = VectorIndex(self.embedder.info.dim if self.embedder else BUNDLED_DIM)
        self.indexer = Indexer(self.catalog, self.keyword, self.vectors, self.embedder, self.settings)
        self.indexer.guard = self._access.require  # checked before every commit
        self.retriever = Retriever(self.catalog, self.keyword, self.vectors, self.embedder)
        # the optional cross-encoder (cross_encoder.py): loads a model only if one is configured
        self.cross_encoder = CrossEncoder(models)
        self.syncing = threading.Event()
        self._visibility = VisibilityCache()
        self._live_failures = 0  # changes live indexing (watcher.py) failed on: stats reports them
        self._live_failures_lock = threading.Lock()
        self.team_connections: TeamConnections = TeamConnections()
        self._derived = DerivedIndexes(self.indexer, self.embedder, access=self._access, settings=self.settings)
        self._derived.open(adopt=self._adopt_older_index)

    def _open_parts(self, *, keyword_may_be_unready: bool) -> tuple[Catalog, KeywordIndex]:
        """The catalog and the keyword index. Only the writer creates, repairs or rebuilds them; a reader that finds
        one not ready (another process is creating or rebuilding it) says so in one error and writes nothing."""
        writable = self._access.writable
        catalog: Catalog | None = None
        try:
            read_only = not writable and self.read_only_cause() is not None
            catalog = Catalog(self.index_dir / "catalog.sqlite3", writable=writable, read_only_folder=read_only)
            keyword = KeywordIndex(
                self.index_dir / "keyword",
                writable=writable,
                read_only_folder=read_only,
                stand_in=keyword_may_be_unready,
            )
            return catalog, keyword
        except IndexNotReady as exc:
            if catalog is not None:
                catalog.close()
            self._access.close()
            raise self._access.not_ready(exc.part) from None
        except BaseException:
            if catalog is not None:
                catalog.close()
            self._access.close()
            raise

    def read_only_cause(self) -> str | None:
        """Why this process may not write the index when its folder cannot be written (a read-only mount, a backup
        snapshot, a folder this user may only read); None otherwise."""
        return None if self._access.writable else unwritable_folder_cause(self.index_dir)

    def read_only_reason(self) -> str | None:
        """Why this process only reads the index, in a few words; None when it writes."""
        if self.writable:
            return None
        cause = self.read_only_cause()
        if cause is not None:
            return f"this user cannot write its folder: {cause}"
        problem = self.write_problem
        if problem is not None:
            return str(problem)
        return f"{self.writer_name()} writes it"

    def writer_name(self) -> str:
        """The process that writes the index when this one does not: "`memlens serve` (pid N)", else "another memlens
        process" (not named yet)."""
        return self._access.another_writer()

    def read_only_note(self) -> str | None:
        """One line for a command that answers from an index whose folder cannot be written: it answers from the
        index as it is (and, when tantivy could not open its keyword index there, by meaning only)."""
        cause = self.read_only_cause()
        if cause is None:
            return None
        note = f"the index at {self.index_dir} cannot be written ({cause}); answering from it as it is"
        if self.keyword.unopened is not None:
            note += ", by meaning only (tantivy cannot open its keyword index without writing its lock file)"
        return note

    def another_writer_note(self) -> str | None:
        """One line for a command that answers beside a short-lived writer (`memlens index` building the index, a
        search syncing it first): its answer holds only what that writer has committed yet. None when this process
        writes, beside a lasting writer (`watch`, `serve`, `mcp` keep the index live) or a folder no one may write."""
        if self.writable or self.write_problem is not None or self.read_only_cause() is not None:
            return None
        holder = self._access.holder()
        if holder is None or holder.lasting:
            return None
        return f"{holder} is updating the index; answering from what it has written so far"

    def keyword_unready_note(self) -> str | None:
        """One line for `stats` opened while the writer still makes the keyword index: what answers instead."""
        if self.keyword.unready is None:
            return None
        return (
            f"the index at {self.index_dir} is being written by {self.writer_name()} "
            f"({self.keyword.unready}); these counts come from its catalog"
        )

    # -- lifecycle --------------------------------------------------------------------------------------------

    @property
    def writable(self) -> bool:
        """Whether this process is the index's writer (write_access.py)."""
        return self._access.writable

    @property
    def write_problem(self) -> IndexUnavailable | None:
        """Why this process may not write, when the reason is not simply another writer."""
        return self._access.problem

    @property
    def last_write_failure(self) -> str | None:
        """The cause of the last failed write, until a write succeeds."""
        return self._access.last_failure

    @staticmethod
    def index_identity(settings: Settings, workspaces: Iterable[Path]) -> tuple[str, ...]:
        """What, if changed, needs the engine reopened and the index resynced (query_settings.py)."""
        return index_identity(settings, workspaces)

    def apply_query_settings(self, settings: Settings) -> None:
        """Take the settings that change no index (QUERY_SETTINGS); others need a new Engine (`index_identity`)."""
        apply_query_settings(self.settings, settings)

    def refresh(self) -> None:
        """A read-only engine follows the writer's commits: reload what changed since it last looked."""
        if self.writable:
            return
        if self._derived.follow():
            self._remembered = self.catalog.roots()

    def take_over(self) -> bool:
        """A reader whose writer let go of the lock (its window closed, a `stats` finished) becomes the writer in
        place: whether this call made this process the writer, so its caller starts indexing. It first takes in
        the last writer's commits; its first write then realigns tantivy and the vectors with the catalog, as a
        writer does at open. False while another process holds the lock, and for good once `write_problem` says
        why this process may not write."""
        if not self._access.take_over():
            return False
        try:
            if self._derived.follow():
                self._remembered = self.catalog.roots()
        except BaseException:
            self._access.let_go()
            raise
        self.catalog.writable = self.keyword.writable = True  # and may now rebuild what it opened
        self._derived.stale = True
        return True

    def keep_team_connections(self) -> None:
        """Keep the team index's connections between searches (a long-lived server: the language server, the MCP
        server), closed by `close`; a one-shot search opens its own (team_connections.py)."""
        if not isinstance(self.team_connections, PooledTeamConnections):
            self.team_connections.close()
            self.team_connections = PooledTeamConnections()

    def close(self) -> None:
        self.team_connections.close()
        self.catalog.close()
        self.keyword.close()
        self._access.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
        self._remembered = remember_named_roots(self.indexer, self.catalog, self.named_roots())

    def _adopt_older_index(self) -> None:
        """A catalog with no folders recorded takes them from an older index (remembered_roots.py)."""
        adopt_older_index(self.indexer, self.catalog, self.named_roots)
        self._remembered = self.catalog.roots()

    def _known_cwd(self) -> Callable[[str], str | None]:
        """The cwd each indexed session recorded: agent folders are filtered by it without reading the files. Read
        at the first question, so a walk with no cwd-filtered folder reads none."""
        cwd_of: dict[str, str] | None = None

        def known_cwd(path: str) -> str | None:
            nonlocal cwd_of
            if cwd_of is None:
                cwd_of = self.catalog.session_cwds()
            return cwd_of.get(stored_path(path))

        return known_cwd

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
        self._access.require()
        self.syncing.set()
        try:
            with self._derived.writing():
                self._remember_roots()
                self._empty = None
                report = self.indexer.sync(self.sources(), progress, cancel, embed=embed, settled=settled)
                if not report.cancelled:  # a whole sync, not a watcher's few files: piled-up segments written afresh
                    self.indexer.compact_keyword_index(cancel, progress)
                    self.indexer.embedding.compact()  # and the vector file, once its log holds enough
                    report.empty = self.empty_index()
                return report
        finally:
            self.syncing.clear()

    def sync_paths(self, changed: Iterable[Path], deleted: Iterable[Path] = (), embed: bool = True) -> SyncReport:
        """Sync only these files (watcher events); a changed path that is not a source is ignored."""
        self._access.require()
        locations = self.locations()

        def known_cwd(path: str) -> str | None:  # a watcher's few files: each looked up, not every session read
            return self.catalog.session_cwd(stored_path(path))

        deleted = list(deleted)
        changed = with_aliases_of(self.catalog, changed, deleted)
        with self._derived.writing():
            source_of = functools.partial(classify, locations=locations, settings=self.settings, known_cwd=known_cwd)
            return sync_changed(self.indexer, changed, deleted, source_of=source_of, embed=embed)

    def files_of_folders(self, folders: Iterable[Path]) -> tuple[set[Path], set[Path]]:
        """The files (changed, deleted) behind folders a watcher saw come or go (changed_files.files_of_folders)."""
        return files_of_folders(self.catalog, folders)

    def empty_index(self) -> EmptyIndex | None:
        """None when the index holds anything (one count of the catalog); else where a sync looks and what would
        find something (answers/empty_index.py: a bounded walk, made once until the next sync)."""
        if self.catalog.unit_count():
            return None
        if self._empty is None:
            facts = empty_index(
                self.locations(), self.settings, home=Path.home(), workspace_reason=self.workspace_reason
            )
            self._empty = redact_response(facts)
        return self._empty

    def waiting_tails(self) -> dict[Path, float]:
        """Transcripts whose unterminated last line waits for the file to be quiet: path -> mtime (seconds)."""
        return dict(self.indexer.waiting_tails)

    def embed_pending(
        self, *, progress: Progress | None = None, cancel: threading.Event | None = None, max_batches: int | None = None
    ) -> int:
        """Embed texts that have no vector yet (the watcher does it a few batches at a time between events)."""
        self._access.require()
        with self._derived.writing():
            return self.indexer.embedding.embed_pending(progress=progress, cancel=cancel, max_batches=max_batches)

    @property
    def chunks_embedded(self) -> int:
        """The chunks this engine's writer gave their last missing vector, since it opened (a report takes the
        difference: what `embed_pending` returns counts texts, not the chunks `stats` counts)."""
        return self.indexer.embedding.chunks_embedded

    def pending_embeddings(self) -> int:
        return self.indexer.embedding.pending() if self.embedder is not None else 0

    def embeddings_wait(self) -> bool:
        """`pending_embeddings() > 0`, asked without counting the queue."""
        return self.indexer.embedding.has_pending() if self.embedder is not None else False

    def pending_words(self) -> int:
        """Words of the index still to embed for query expansion (after every unit has its vector)."""
        return self.indexer.embedding.pending_words() if self.embedder is not None else 0

    def reindex(
        self, full: bool = False, progress: Progress | None = None, cancel: threading.Event | None = None
    ) -> SyncReport:
        """Incremental resync, or with `full` a rebuild: every file re-parsed (the vector file's rows are reused by
        text). A full rebuild also replaces a broken writer-lock path (see WriterLock.repair)."""
        if full and isinstance(self.write_problem, LockPathBroken):
            self._derived.stale = self._access.repair()  # opened as a reader: realign before the first write
            self.catalog.writable = self.keyword.writable = self.writable  # and may now rebuild what it opened
        self._access.require()
        if full:
            with self.catalog.transaction() as db:
                self.catalog.mark_all_for_reparse(db)
        return self.sync(progress, cancel, settled=True)

    def source_folders(self) -> SourcesResponse:
        """Every folder the index remembers, and any this engine names that no sync has recorded yet."""
        self.refresh()
        return redact_response(sources_answer(self.catalog, self._remembered, self.named_roots()))

    def unnamed_source_folders(self) -> list[SourceFolder]:
        """The folders the index holds (and still syncs and searches) that this engine's settings and flags do not
        name: what a face tells its user it also holds."""
        self.refresh()
        named = self.named_roots()
        return redact_response(source_folders(self.catalog, unnamed(self._remembered, named), named))

    def remove_source_folder(self, folder: str | Path) -> RemoveSourceResponse:
        """Forget one remembered folder: its files (those no other folder holds) leave the catalog, tantivy and
        the vectors. A folder this engine still names cannot be removed (the next sync would add it back)."""
        self._access.require()
        target, remaining = removable_root(folder, self.catalog, self.named_roots)
        with self._derived.writing():
            locations = widen(self.named_locations(), remaining)
            keep = {stored_path(s.path) for s in discover(locations, self.settings, self._known_cwd())}
            gone = [disk_path(p) for p in self.catalog.files_under(target) if p not in keep]
            report = self.indexer.forget_root(target, gone)
        self._remembered = self.catalog.roots()
        return redact_response(removed_answer(target, report.files_deleted))

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

    def ever_synced(self) -> bool:
        """Whether a sync ever committed to this index (False for an index still being built the first time)."""
        return self.catalog.get_meta("last_sync") is not None

    def indexing(self) -> bool:
        """Whether answers may still change without a file changing: a sync is running, or texts or the vocabulary's
        words still wait for their vectors (until the words have theirs, query expansion finds less)."""
        return self.syncing.is_set() or self.embeddings_wait() or self.pending_words() > 0

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
        return ranked(self, query, mode=mode, filters=filters, limit=limit, fusion=fusion)

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
        team: TeamQuery | None = None,
        local_only: bool = False,
    ) -> SearchResponse:
        """The `--json` / `memlens.search` response; `filters` as the engine's, or as the request's (`filters` of a
        memlens.requests.SearchRequest). `team`: also ask this team index (default: the `team.url` setting's);
        `local_only`: ask none (hover, context packs: they read each hit back from this index)."""
        answer = search(
            self, query, limit=limit, mode=mode, filters=filters, explain=explain, fusion=fusion, min_score=min_score
        )
        empty = None if answer["results"] else self.empty_index()
        if empty is not None:
            answer["emptyIndex"] = empty
        asked = team or (TeamQuery(self.settings.team.url) if self.settings.team.url else None)
        if asked is not None and not local_only:
            checked(TeamFilterRequest, team=asked.url, publisher=asked.publisher)
            where = asked.within(filters.project if filters is not None else None)
            answer = search_with_team(self, answer, where=where, mode=mode, limit=limit, strict=team is not None)
        return self._outbound(answer)

    def period_question(self, query: str) -> PeriodQuestion | None:
        """The days `query` asks about when it is a question about a period ("what did we do yesterday")."""
        return period_question(self, query)

    # -- the team index (engine/team/) ------------------------------------------------------------------------

    def publish(self, url: str, *, publisher: str | None = None, project: str | None = None) -> PublishResponse:
        """Push this index's visible units, redacted whatever `privacy.redactIndex` says, to the team index at
        `url` as `publisher` (default: the user's name) under `project` (default: the workspace folder's name)."""
        checked(PublishRequest, team=url, as_name=publisher, project=project)
        self.refresh()
        return redact_response(publish_units(self, url, publisher=publisher, project=project))

    def team_sessions(
        self, team: TeamQuery, *, query: str | None = None, limit: int = DEFAULT_SESSIONS
    ) -> TeamSessionsResponse:
        """The team index's sessions, newest first, each with its publisher and project."""
        checked(TeamFilterRequest, team=team.url, publisher=team.publisher)
        page = team_session_page(team.url, publisher=team.publisher, project=team.project, limit=limit, query=query)
        return redact_response(page)

    def history(
        self, session_key: str, *, message_id: str | None = None, limit: int = DEFAULT_HISTORY
    ) -> HistoryResponse:
        """A session's messages around `message_id` (or its newest tail); excluded sessions do not exist.
        `session_key` may also be a bare session id or a unique prefix (see `resolve_session`), or a search hit's
        reference `SESSION:MESSAGE` (answers/references.py)."""
        checked(HistoryRequest, session_key=session_key, message_id=message_id, limit=limit)
        self.refresh()
        visibility = self.visibility()
        if message_id is None:
            session_key, message_id = split_reference(self.catalog, session_key)
        key = resolve_session(self.catalog, session_key, visibility, message=message_id)
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
            zone=time_zone(self.settings.display.time_zone),
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

    def time_span(self) -> TimeSpan:
        """When the index's units were written, first and last, and how many have no time: a `since` before the
        first (or an `until` after the last) of an index whose every unit has a time leaves nothing out."""
        self.refresh()
        return self.catalog.time_span()

    def stats(self, *, count_unindexed: bool = True) -> StatsResponse:
        """What the index holds, through the door's redaction like every answer (a file's failure reason is free
        text, which may quote what it failed on). `count_unindexed`: look at every source file for those the index
        does not hold yet (a walk of the folders; the status line, asked often, skips it and reports 0)."""
        not_indexed = self.indexer.count_unindexed(self.sources()) if count_unindexed else 0
        why = self._access.not_indexed_reason(syncing=self.syncing.is_set()) if not_indexed else None
        return redact_response(
            index_stats(
                self.catalog,
                model=self.embedder.name if self.embedder else None,
                provider_note=self.provider_note,
                indexing=self.indexing(),
                index_dir=self.index_dir,
                read_only_reason=self.read_only_reason(),
                not_indexed=not_indexed,
                not_indexed_reason=why,
                watcher_errors=self._live_failures,
            )
        )

    def status(self) -> IndexStatus:
        """What a status line shows of the index (`stats`' counts of sessions, messages, notes and the vectors'
        backlog), read without the rest of the report."""
        return index_status(self.catalog, model=self.embedder.name if self.embedder else None, indexing=self.indexing())

    def fixes(self, error: str, *, limit: int = DEFAULT_FIXES, follow: int = DEFAULT_FOLLOW) -> FixesResponse:
        """Past tool results that match `error` (a pasted error or a question about one), the best of each of
        `limit` sessions, each with the `follow` messages after it: what was done about it (answers/fixes.py)."""
        return self._outbound(past_fixes(self, error, limit=limit, follow=follow))
