"""The one index writer: syncs files into the catalog, then the keyword index, then embeds what has no vector
(vector_writer.py).

Order of writes makes crashes harmless: the catalog commits first (one transaction per batch of files); tantivy
then records which catalog generation it reflects, and is rebuilt from the catalog when the two disagree.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from memlens.counted import counted
from memlens.engine.answers.results import display_path
from memlens.engine.catalog import Catalog, Family, FileRow, FileState, RootRow
from memlens.engine.collection_pause import collection_paused
from memlens.engine.file_names import disk_path, stored_path
from memlens.engine.indexing.catalog_writer import CatalogWriter, PendingChanges
from memlens.engine.indexing.discovery import SourceFile
from memlens.engine.indexing.file_identity import (
    Named,
    changed,
    choose_names,
    identity_values,
    needs_identity,
)
from memlens.engine.indexing.file_names_found import other_names, record_aliases, stat_all
from memlens.engine.indexing.file_reader import FileReader, is_quiet, tail_waiting
from memlens.engine.indexing.files_fingerprint import files_fingerprint
from memlens.engine.indexing.ingest import FileContent
from memlens.engine.indexing.memory_trim import release_freed_memory
from memlens.engine.indexing.read_order import BATCH_FILES, batches, newest_first
from memlens.engine.indexing.reading_progress import ReadingProgress
from memlens.engine.indexing.removed_sessions import Stored
from memlens.engine.indexing.stored_text import cut_across_append, redact_content
from memlens.engine.indexing.text_compression import compress_stored_texts
from memlens.engine.indexing.vector_writer import VectorWriter
from memlens.engine.keyword.keyword_docs import keyword_docs, neighbours_of, write_afresh
from memlens.engine.keyword.keyword_index import KeywordIndex
from memlens.engine.keyword.vocabulary import backfill_words, collect_words, drop_unheld_words, link_words
from memlens.engine.progress import Progress
from memlens.engine.ranking.unit_facts import DerivedFacts, backfill_unit_facts, facts_rows, fill_facts_from_analysed
from memlens.engine.sources.tool_output import scored_text
from memlens.engine.vectors.embedder import Embedder
from memlens.engine.vectors.vector_index import VectorIndex
from memlens.errors import environmental_cause, is_disk_full
from memlens.redaction import redact
from memlens.settings import Settings, camel_case
from memlens.wire import EmptyIndex, ReindexReport

log = logging.getLogger(__name__)

# A large first build writes this many keyword documents batch by batch before it leaves the rest to the one rewrite
# at its end (`Indexer._defer_keyword`): what a keyword search finds while the build runs (a few seconds of writing)
SEARCHABLE_FIRST = 10_000


@dataclass(frozen=True, slots=True)
class Failure:
    """A file that could not be indexed this time: the reason, and the size to record (-1 = retry next sync)."""

    reason: str
    size: int


@dataclass
class SyncVolume:
    """What a whole sync has to read (the sizes of its changed files) and, so far, what it read and the units that
    made: enough to project how many units the whole sync adds (`Indexer._defer_keyword`)."""

    total_bytes: int = 0
    held: int = 0  # the keyword index's documents when the sync began
    read_bytes: int = 0
    units: int = 0

    def projected_units(self) -> int:
        """The units read so far, scaled to all the bytes to read (at least the units read so far)."""
        if self.read_bytes <= 0:
            return self.units
        return int(self.units * max(1.0, self.total_bytes / self.read_bytes))


@dataclass
class SyncReport:
    files_seen: int = 0
    files_parsed: int = 0
    files_appended: int = 0
    files_unchanged: int = 0
    files_deleted: int = 0
    files_failed: int = 0
    # transcripts that held a session and now hold nothing (truncated, emptied): their messages left the index; said
    # once, at the sync that found them so, and `stats` lists them among the empty files while they stay so
    files_emptied: int = 0
    aliases: int = 0  # names of files also found under another name: not indexed again
    messages_added: int = 0
    chunks_added: int = 0
    units_embedded: int = 0  # unit texts given a vector (units sharing a text share it): the embedding's own count
    chunks_embedded: int = 0  # chunks this sync gave their last missing vector: the chunks `stats` counts
    bad_lines: int = 0
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    cancelled: bool = False
    files_left: int = 0  # changed files a cancelled sync left for the next one (about: those it had not looked at)
    # of the files read, those a cancel stopped part-way (a huge transcript read a slice at a time), kept as far as
    # they were read: those bytes of their sizes
    files_partly: int = 0
    partly_read_bytes: int = 0
    partly_size_bytes: int = 0
    empty: EmptyIndex | None = None  # the index holds nothing after this sync: set by the Engine (empty_index.py)
    # of `errors`, those the log has already said as they were met (a file skipped: its path and reason): a face that
    # lists the errors after the sync leaves these out, so each problem is said once a run (not in the wire answer)
    said: set[str] = field(default_factory=set)

    def merge(self, other: SyncReport) -> None:
        for name in self.__dataclass_fields__:
            value = getattr(other, name)
            if isinstance(value, bool):
                setattr(self, name, getattr(self, name) or value)
            elif isinstance(value, (int, float)):
                setattr(self, name, getattr(self, name) + value)
        self.errors.extend(other.errors[: max(0, 50 - len(self.errors))])
        self.said |= other.said

    def to_wire(self) -> ReindexReport:
        """The report as the language server and MCP answer it: camelCase, like every other answer (every field;
        tests/test_wire_types.py holds the keys to `wire.ReindexReport`)."""
        fields = {camel_case(name): getattr(self, name) for name in self.__dataclass_fields__}
        if fields["empty"] is None:  # said only of an empty index
            del fields["empty"]
        del fields["said"]  # the log's business in this process, not the answer's
        return cast(ReindexReport, fields)


class Indexer:
    def __init__(
        self,
        catalog: Catalog,
        keyword: KeywordIndex,
        vectors: VectorIndex,
        embedder: Embedder | None,
        settings: Settings,
    ) -> None:
        self.catalog = catalog
        self.keyword = keyword
        self.vectors = vectors
        self.settings = settings
        self.writer = CatalogWriter(catalog, settings.chunking)
        self.reader = FileReader(settings.chunking)
        self.lock = threading.RLock()  # one writer at a time within this process
        self._settled = False  # this sync reads unterminated last lines of files that are not growing (reindex)
        self.waiting_tails: dict[Path, float] = {}  # transcripts whose unterminated last line waits: path -> mtime
        self.guard: Callable[[], None] | None = None  # raises when this process may no longer write
        # tantivy left behind the catalog on purpose: a sync whose additions make the index one that compaction
        # writes afresh stops writing it batch by batch and writes it afresh once, when its files are in
        # (`_defer_keyword`); until then its generation lags the catalog's, as after a crash between the two commits
        self.keyword_behind = False
        self._whole_sync = False  # a sync of every source (not a watcher's few files): the only kind that defers
        self._volume = SyncVolume()  # what this sync reads, to foresee the units it adds (`_defer_keyword`)
        vectors.may_write = self._may_write  # the vector file beside the catalog is written by this writer only
        self.embedding = VectorWriter(  # units without a vector, the vocabulary's words, the vector file
            catalog, vectors, embedder, lock=self.lock, writing=self._writing, may_write=self._may_write
        )

    # -- public ---------------------------------------------------------------------------------------------

    def sync(
        self,
        sources: list[SourceFile],
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
        embed: bool = True,
        prune: bool = True,
        settled: bool = False,
    ) -> SyncReport:
        """Bring the index in line with `sources`; with `prune`, files no longer among them are purged. A file
        reached by several names is indexed under one (file_identity.py); the others are recorded as its aliases.
        With `settled` (reindex), a last line without a newline is read now in every file that is not growing, not
        only in those quiet for file_reader.QUIET_SECONDS."""
        with self._writing():
            self._settled, self._whole_sync = settled, prune
            started = time.perf_counter()
            began = self.writer.removed.now()
            report = SyncReport(files_seen=len(sources))
            backfill_unit_facts(self.catalog, self.keyword, cancel)  # before this sync's units are filled in
            backfill_words(self.catalog, self.keyword, cancel)  # a catalog from before the vocabulary: once
            compress_stored_texts(self.catalog, cancel)  # a catalog from before compressed texts: once
            with self.catalog.transaction() as db:  # and one from before the sessions' activity was kept
                self.catalog.refresh_session_activity(db)
            self.embedding.forget_words()  # (what it collected waits for vectors)
            with collection_paused():
                fingerprint = files_fingerprint(sources) if prune else None
            if fingerprint is not None and fingerprint == self.catalog.files_fingerprint():
                report.files_unchanged = len(sources)  # what each row would have said (files_fingerprint.py)
            else:
                with collection_paused():
                    found, kept = stat_all(sources, cancel, lambda path, why: self._note_error(report, path, why))
                self._record_unlisted(sources)
                self._sync_files(found, kept, report, progress=progress, cancel=cancel, prune=prune, settled=settled)
                # (a watcher's few files: changed_files settles them, with the files its events did not name)
                if prune and not report.cancelled and (report.files_parsed or report.files_deleted):
                    by_name = {stored_path(source.name): source for source in sources}
                    self.settle_stranded_keys(lambda path: by_name.get(stored_path(path)), report)
                if fingerprint is not None and not (kept or report.cancelled or report.errors or report.aliases):
                    self.catalog.keep_files_fingerprint(fingerprint)
            # every file read: one removed before that did not move
            self.collect_garbage(read_all_since=began if prune and not report.cancelled else None)
            if report.files_parsed or report.files_appended or report.files_deleted:
                release_freed_memory()  # what parsing freed, before the embedding's working set is added on top
            if self.keyword_behind and not report.cancelled:  # (a cancelled sync leaves it for the next one)
                self._catch_up_keyword(report, progress=progress, cancel=cancel)  # (its buffer, too)
            if embed and not report.cancelled:
                before = self.embedding.chunks_embedded
                report.units_embedded = self.embedding.embed_pending(progress=progress, cancel=cancel)
                report.chunks_embedded = self.embedding.chunks_embedded - before
                report.cancelled = bool(cancel is not None and cancel.is_set())
                if report.units_embedded:
                    release_freed_memory()
            self.embedding.persist()
            report.seconds = time.perf_counter() - started
            return report

    def settle_stranded_keys(self, source_of: Callable[[Path], SourceFile | None], report: SyncReport) -> None:
        """Read again the files whose session's plain key went with another file (`stranded_session_files`), so
        each takes it, as a rebuild would give it: a rotated transcript's new name kept `KEY~name` for ever once the
        old one was deleted, and `memlens history KEY` found nothing. `source_of`: the source a path is now (None:
        not one, left as it is). Only their problems join `report`: no message is added or removed."""
        with self._writing():
            stranded = [(name, source_of(disk_path(name))) for name in self.catalog.stranded_session_files()]
            sources = [source for _, source in stranded if source is not None]
            if not sources:
                return
            with self.catalog.transaction() as db:
                self.catalog.mark_for_reparse(db, [name for name, source in stranded if source is not None])
            again = SyncReport()
            found, kept = stat_all(sources, None, lambda path, why: self._note_error(again, path, why))
            self._sync_files(found, kept, again, progress=None, cancel=None, prune=False, settled=self._settled)
            report.files_failed += again.files_failed
            report.errors.extend(again.errors[: max(0, 50 - len(report.errors))])
            report.said |= again.said

    def _not_below_missing_roots(self, gone: list[str]) -> list[str]:
        """The stored paths of `gone` that are not below a remembered folder missing as a whole. A folder that is
        gone (an unmounted disk, a share not yet connected, a folder renamed) keeps its files as last read: only
        `memlens sources remove` forgets a folder, and a disk plugged in again would be read and embedded anew."""
        missing = [root.path for root in self.catalog.roots() if not os.path.isdir(disk_path(root.path))]
        if not gone or not missing:
            return gone
        kept: dict[str, int] = {}
        left: list[str] = []
        for path in gone:
            root = next((r for r in missing if path.startswith(r.rstrip(os.sep) + os.sep)), None)
            if root is None:
                left.append(path)
            else:
                kept[root] = kept.get(root, 0) + 1
        for root, files in kept.items():
            log.warning(
                "%s is missing: %s indexed as last read (`memlens sources remove` forgets them)",
                display_path(root, []),
                "its file stays" if files == 1 else f"its {files:,} files stay",
            )
        return left

    def _record_unlisted(self, sources: list[SourceFile]) -> None:
        """Record each folder the walk could not list as a file that could not be indexed (tried again at every
        sync): `stats` lists it with its reason among the files with problems, as long as it stays unlisted."""
        unlisted = [s for s in sources if s.problem is not None]
        if not unlisted:
            return
        with self.catalog.transaction() as db:
            for source in unlisted:
                reason = source.problem or ""
                self.catalog.record_file_failure(
                    db, stored_path(source.name), source.kind, size=-1, identity={}, reason=reason
                )

    def _sync_files(
        self,
        found: list[Named],
        kept: set[str],
        report: SyncReport,
        *,
        progress: Progress | None,
        cancel: threading.Event | None,
        prune: bool,
        settled: bool,
    ) -> None:
        """Read the files of `found` that changed since their rows were written; with `prune`, purge the rows of
        files no longer found (but those of `kept`: not stat'd this time)."""
        with collection_paused():
            # what each file was when last read, to compare with its stat (whole rows only for changed files)
            known = self.catalog.file_states(None if prune else [n.key for n in found])
            if not prune:
                found += other_names(self.catalog, found, known)
            choice = choose_names(found)
        report.aliases = len(choice.aliases)
        if prune:  # (only a whole sync defers its keyword writes)
            to_read = sum(n.stat.st_size for n in choice.sources if changed(known.get(n.key), n.stat))
            self._volume = SyncVolume(total_bytes=to_read, held=self.keyword.num_docs())
        if prune:
            wanted = {n.key for n in choice.sources} | kept
            # a folder the walk could not list (its permission taken away) holds its files as last read: unread is
            # not deleted (kept names it; the files below it are kept with it)
            gone = [p for p in known if p not in wanted and not _below_any(p, kept)]
            gone = self._not_below_missing_roots(gone)  # as stored
            report.files_deleted = self._remove_stored(gone).files_deleted
        else:
            losers = [a.source.path for a, _ in choice.aliases if a.key in known]
            report.files_deleted = self.remove_paths(losers).files_deleted
        record_aliases(self.catalog, choice, whole=prune)
        reading: list[tuple[Named, FileState | None]] = []  # the changed files
        identified: list[tuple[int, int, int, int]] = []
        looked_at = 0
        for named in choice.sources:
            if cancel is not None and cancel.is_set():
                report.cancelled = True
                break
            looked_at += 1
            source, stat = named.source, named.stat
            row = known.get(named.key)
            unchanged = not changed(row, stat)
            if unchanged and row is not None and tail_waiting(row, stat):
                unchanged = not (settled or is_quiet(stat))
                if unchanged:
                    self.waiting_tails[source.path] = stat.st_mtime
            if not unchanged:
                reading.append((named, row))
            else:
                report.files_unchanged += 1
                if row is not None and needs_identity(row):
                    identified.append((row.id, stat.st_dev, stat.st_ino, stat.st_ctime_ns))
        reading_progress = ReadingProgress(
            progress,
            files=len(choice.sources) - report.files_unchanged,
            already=report.files_unchanged,
            total_bytes=sum(_bytes_to_read(item) for item in reading),
        )
        read = 0

        def read_one(to_read: int) -> None:
            nonlocal read
            read += 1
            reading_progress.file_read(to_read)

        for batch in batches(newest_first(reading), to_read=_bytes_to_read, max_files=BATCH_FILES):
            if report.cancelled or (cancel is not None and cancel.is_set()):
                report.cancelled = True
                break
            self._apply_batch(
                self._whole_rows(batch), report, cancel=cancel, read_one=read_one, within=reading_progress.within_file
            )
        if report.cancelled:  # what the next sync reads: the changed files not read, and those not looked at
            report.files_left = len(reading) - read + len(choice.sources) - looked_at
        if choice.sources and not report.cancelled:
            reading_progress.finish()
        if identified:
            with self.catalog.transaction() as db:
                self.catalog.record_identities(db, identified)

    def count_unindexed(self, sources: list[SourceFile]) -> int:
        """How many of `sources` the index does not hold as they are now (new, or changed since the last sync)."""
        count = 0
        with collection_paused():
            fingerprint = files_fingerprint(sources)
            if fingerprint is not None and fingerprint == self.catalog.files_fingerprint():
                return 0  # every file as its row says (files_fingerprint.py)
            found, _ = stat_all(sources, None, lambda path, why: None)  # one gone since discovery: nothing to index
            known = self.catalog.file_states(None)
            for named in found:
                row = known.get(named.key)
                if row is not None and row.size < 0:
                    continue  # it failed to read and waits for the next sync: stats lists it under fileErrors
                count += changed(row, named.stat)
        return count

    def collect_garbage(self, *, read_all_since: float | None = None) -> None:
        """Forget what removed files left for a file that moved (their rows' vectors: VectorWriter.mirror; their
        sessions' counts: removed_sessions.py) once past its bounds (recently_removed.py). After a whole sync
        (`read_all_since`: when it began), every file was read: the counts removed before it began go, and the
        vectors all go (a file moved while it ran is embedded again: up to 58 MB are not held on for that). Run
        after a sync, never between its parts."""
        with self._writing():
            if read_all_since is None:
                self.embedding.forget_removed()
            else:
                self.embedding.forget_all_removed()
                self.writer.removed.forget_before(read_all_since)

    def remove_paths(self, paths: Iterable[Path]) -> SyncReport:
        """Purge files that disappeared (watcher events); what their rows held is kept a while for a file that moved
        (`collect_garbage`)."""
        return self._remove_stored([stored_path(p) for p in paths])

    def remove_deleted(self, paths: Iterable[Path]) -> SyncReport:
        """Purge files a watcher saw deleted, but those below a remembered folder that is missing as a whole (an
        unmounted disk's files are not deleted: they stay as last read, as a whole sync keeps them)."""
        return self._remove_stored(self._not_below_missing_roots([stored_path(p) for p in paths]))

    def _remove_stored(self, wanted: list[str]) -> SyncReport:
        """Purge these files, named as the catalog holds them."""
        with self._writing():
            report = SyncReport()
            for name in wanted:
                self.waiting_tails.pop(disk_path(name), None)
            if not wanted:
                return report
            known = self.catalog.files(wanted)
            rows = [known[p] for p in wanted if p in known]
            if not rows:
                return report
            self.embedding.hold_rows_before_deleting()  # their vectors kept for a file that moved (`mirror`)
            pending = PendingChanges()
            by_session: list[dict[str, tuple[int, int]]] = []
            note_chunks: list[str] = []
            with self.catalog.transaction() as db:
                self.catalog.forget_aliases(db, [row.path for row in rows])
                families: set[Family] = set()
                for row in rows:
                    by_session.append(self.catalog.file_held_by_session(db, row.id))
                    if row.kind == "memory":  # a note has no session: its chunks are kept by their texts
                        note_chunks += self.catalog.file_note_chunks(db, row.id)
                    families |= self.catalog.file_families(db, row.id)
                    pending.deleted_units += self.catalog.delete_file(db, row.id)
                # a session's other files now keep the messages these held too (catalog/copies.py)
                self.catalog.refresh_session_activity(db, self.catalog.settle_copies(db, families).keys)
                generation = self.catalog.bump_generation(db)
            for held in by_session:  # once the removal has committed: a file still stored did not move
                self.writer.removed.remember({key: Stored(*counts) for key, counts in held.items()})
            self.writer.removed.remember_note_chunks(note_chunks)
            self._mirror(generation, pending)
            report.files_deleted = len(rows)
            return report

    def remember_roots(self, roots: Sequence[RootRow]) -> None:
        """Record the folders a sync walks (catalog `roots`; source_roots.py says why)."""
        with self._writing():
            with self.catalog.transaction() as db:
                self.catalog.remember_roots(db, roots)
            self.catalog.save_roots_copy()

    def restore_roots(self) -> list[RootRow]:
        """A catalog started anew (the old one was damaged) takes back the folders of the copy beside it."""
        with self._writing():
            with self.catalog.transaction() as db:
                restored = self.catalog.restore_roots_copy(db)
            return restored

    def forget_root(self, path: str, files: Iterable[Path]) -> SyncReport:
        """Forget one remembered folder and purge `files` (its files no other folder holds) from the catalog,
        tantivy and the vectors."""
        with self._writing():
            with self.catalog.transaction() as db:
                self.catalog.forget_root(db, path)
            self.catalog.save_roots_copy()
            report = self.remove_paths(files)
            if self.keyword.deleted_docs() and not self.keyword_behind:  # answers as a fresh build of what is left
                self._write_keyword_afresh()
            if self.embedding.pending() == 0:  # the words whose form left with the folder: embedded again at once
                self.embedding.embed_pending()
            self.writer.removed.clear()  # a folder forgotten: none of its files moved, and one added back is new
            self.embedding.forget_all_removed()
            self.embedding.persist()
            return report

    def _may_write(self) -> bool:
        try:
            if self.guard is not None:
                self.guard()
        except Exception:
            return False
        return True

    def compact_keyword_index(self, cancel: threading.Event | None = None, progress: Progress | None = None) -> bool:
        """Write tantivy afresh when its segments have piled up (`KeywordIndex.needs_compaction`); returns whether
        it did. One commit: searches see the old index until the new one is whole; `cancel` keeps the old one."""
        with self._writing():
            if not self.keyword.needs_compaction():
                return False
            segments, used = self.keyword.num_segments(), time.process_time()
            if not self._write_keyword_afresh(cancel, progress):
                return False
            after, cpu = self.keyword.num_segments(), time.process_time() - used
            log.info("keyword index written afresh: %d segments -> %d, %.1f s of CPU", segments, after, cpu)
            return True

    def _write_keyword_afresh(self, cancel: threading.Event | None = None, progress: Progress | None = None) -> bool:
        """Write tantivy afresh from the catalog (no deleted documents left in its statistics), then forget the
        vocabulary's words no document holds any more and link again the words that listed them: what a fresh build
        of the same files holds. Returns False when cancelled (the old index kept)."""
        if not write_afresh(self.catalog, self.keyword, cancel, progress):
            return False
        self.keyword_behind = False
        if drop_unheld_words(self.catalog, self.keyword) and self.catalog.count_words_without_vectors() == 0:
            link_words(self.catalog, cancel)  # (with words still to embed, the sync's embedding links them all)
        self.embedding.forget_words()
        return True

    def rebuild_keyword_index(self) -> None:
        """Re-create tantivy from the catalog (after a crash between the two commits, or damage)."""
        with self._writing():
            self.keyword.reset()
            write_afresh(self.catalog, self.keyword)
            self.keyword_behind = False
            backfill_unit_facts(self.catalog, self.keyword)  # FACTS_VERSION names the analyser's version too

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """The writer's lock, with this thread's catalog reads off the memory map (`Catalog.unmapped`)."""
        with self.lock, self.catalog.unmapped():
            yield

    # -- batches ----------------------------------------------------------------------------------------------

    def _whole_rows(
        self, batch: list[tuple[Named, FileState | None]]
    ) -> list[tuple[SourceFile, FileRow | None, os.stat_result]]:
        """The changed files of a batch with their whole `files` rows (the sync compared only their FileState)."""
        rows = self.catalog.files([named.key for named, state in batch if state is not None])
        return [(named.source, rows.get(named.key), named.stat) for named, _ in batch]

    def _apply_batch(
        self,
        batch: list[tuple[SourceFile, FileRow | None, os.stat_result]],
        report: SyncReport,
        *,
        cancel: threading.Event | None = None,
        read_one: Callable[[int], None] | None = None,
        within: Callable[[int, int, int], None] | None = None,
    ) -> None:
        """Parse a batch of changed files and commit them in one transaction. A file that fails is recorded with
        its reason (each file writes inside its own savepoint) and never keeps the others from committing. `cancel`
        is looked at before each file: the files read until then commit (a batch can be 64 MB of reading). A huge
        transcript is read a slice at a time (file_reader.SLICE_BYTES): each slice commits, with the files read
        before it, and `cancel` is looked at between slices, so a cancel waits for one slice at most and what was
        read is kept, the file recorded as that long (the next sync reads the rest as an append). `read_one` is
        told of each file read (the bytes reading it took), `within` of each slice of a huge file (the bytes of it
        read so far, the bytes reading it takes, its size)."""
        prepared: list[_Prepared] = []
        for source, row, stat in batch:
            if cancel is not None and cancel.is_set():
                report.cancelled = True
                break
            tally = _Tally()
            to_read = _bytes_to_read_of(row, stat)
            start = stat.st_size - to_read  # where the bytes to read start: a grown file's old end, else 0
            item = _Prepared(source, row, stat, self._read(source, row, stat, report), tally)
            while item.cut is not None:  # a slice of a huge transcript: it commits before the next is read
                self._commit([*prepared, item], report)
                prepared = []
                done = item.cut.parsed_bytes
                if tally.failed:
                    break
                if within is not None:
                    within(done - start, to_read, stat.st_size)
                if cancel is not None and cancel.is_set():  # stopped part-way: kept as far as it was read
                    report.cancelled = True
                    report.files_partly += 1
                    report.partly_read_bytes += done
                    report.partly_size_bytes += stat.st_size
                    tally.count(report, source.path)
                    if read_one is not None:
                        read_one(to_read)
                    return
                row = self.catalog.files([stored_path(source.path)]).get(stored_path(source.path))
                outcome = self._read(source, row, stat, report)
                if isinstance(outcome, tuple) and outcome[0].cut and outcome[0].parsed_bytes <= done:
                    outcome = self._read(source, row, stat, report, whole=True)  # no nearer its end: all of it
                item = _Prepared(source, row, stat, outcome, tally)
            else:  # (the file's last slice, or its one read: it commits with the batch)
                prepared.append(item)
            if read_one is not None:
                read_one(to_read)
        if prepared:
            self._commit(prepared, report)

    def _commit(self, prepared: list[_Prepared], report: SyncReport) -> None:
        """Write the files read (or the reasons they could not be) in one transaction, then mirror it."""
        if self.guard is not None:
            self.guard()  # still the writer? (checked before every commit)
        pending = PendingChanges()
        with self.catalog.transaction() as db:
            for item in prepared:
                source, row, stat, outcome = item.source, item.row, item.stat, item.outcome
                if isinstance(outcome, Failure):
                    self.catalog.record_file_failure(
                        db,
                        stored_path(source.path),
                        source.kind,
                        size=outcome.size,
                        identity=identity_values(stat),
                        reason=outcome.reason,
                    )
                    item.tally.failed = True
                    continue
                content, appended = outcome
                mark = (len(pending.deleted_units), len(pending.added_units), len(pending.added_rows))
                claimed = dict(pending.claimed)
                try:
                    with self.catalog.savepoint(db):
                        added = self.writer.write(
                            db, source=source, row=row, stat=stat, content=content, appended=appended, pending=pending
                        )
                except Exception as exc:  # this file's rows only: the batch's other files still commit
                    if environmental_cause(exc):  # the whole write fails, not this file: nothing of it commits
                        raise
                    del pending.deleted_units[mark[0] :], pending.added_units[mark[1] :], pending.added_rows[mark[2] :]
                    pending.claimed = claimed  # this file's rows were rolled back: so is what it claimed
                    reason = f"cannot store: {type(exc).__name__}: {exc}"
                    log.debug("storing %s failed", source.path, exc_info=True)
                    self._note_error(report, source.path, reason)
                    self.catalog.record_file_failure(
                        db,
                        stored_path(source.path),
                        source.kind,
                        size=stat.st_size,
                        identity=identity_values(stat),
                        reason=reason,
                    )
                    item.tally.failed = True
                    continue
                item.tally.add(content, appended, added)
                if content.empty and row is not None and row.session_key is not None:
                    report.files_emptied += 1
                    gone = counted(-added.messages, "message", grouped=True) if added.messages < 0 else "its messages"
                    log.warning("emptied %s: %s no longer searchable", redact(stored_path(source.path)), gone)
                if not content.cut:
                    item.tally.count(report, source.path)
            generation = self.catalog.bump_generation(db)
        self.writer.removed.settle(pending.claimed)  # committed: a write that failed left them for the next
        self._volume.read_bytes += sum(item.bytes_read for item in prepared)
        self._volume.units += len(pending.added_units)
        self._defer_keyword(len(pending.added_units))
        self._mirror(generation, pending)

    def _defer_keyword(self, adding: int) -> None:
        """Stop writing tantivy batch by batch once this sync's additions make it an index that compaction writes
        afresh (`KeywordIndex.rewrite_due`): the batches' writes would be thrown away by that rewrite, which at
        66,672 messages cost a quarter of a cold build's CPU. What it holds so far stays searchable meanwhile. A
        watcher's few files never defer: they are searchable at once.

        A first build (an empty index) looks ahead once it has written its first SEARCHABLE_FIRST documents batch
        by batch (so a large first build answers keyword searches within its first seconds, not only at its end):
        the units this sync will add, projected from the units per byte of the files read so far, so one that ends
        past the size writes the rest once (65,365 messages: 29.5-30.8 s CPU -> 23.0-23.9 looking ahead from the
        first batch). A projection too high costs little there: what the batches would have written is this sync's
        documents alone, and the rewrite writes them once. A sync into an index that held documents defers only on
        what it has added: a projection too high would rewrite all it held."""
        if not self._whole_sync or self.keyword_behind:
            return
        held = self.keyword.num_docs()
        docs = held + adding
        if self._volume.held == 0 and held >= SEARCHABLE_FIRST:
            docs = max(docs, self._volume.projected_units())
        if self.keyword.rewrite_due(docs):
            self.keyword_behind = True
            log.info("keyword index: written afresh once this sync's files are in, not batch by batch")

    def _catch_up_keyword(
        self, report: SyncReport, *, progress: Progress | None, cancel: threading.Event | None
    ) -> None:
        """Write tantivy afresh from the catalog after a sync that left it behind (`_defer_keyword`)."""
        used = time.process_time()

        def fill_facts(rows: list[sqlite3.Row], words_of: Callable[[str], str]) -> None:
            fill_facts_from_analysed(self.catalog, self.keyword, rows, words_of)

        if write_afresh(self.catalog, self.keyword, cancel, progress, fill_facts):
            self.keyword_behind = False
            log.info(
                "keyword index written afresh: %d documents, %.1f s of CPU",
                self.keyword.num_docs(),
                time.process_time() - used,
            )
        else:
            report.cancelled = True

    def _read(
        self, source: SourceFile, row: FileRow | None, stat: os.stat_result, report: SyncReport, *, whole: bool = False
    ) -> tuple[FileContent, bool] | Failure:
        """Parse a changed file (a huge transcript one slice at a time, unless `whole`); returns (content, appended),
        or the Failure to record when it cannot be indexed."""
        path = source.path
        try:
            outcome = self.reader.read(source, row, stat, settled=self._settled, whole=whole)
            content, appended = outcome
            enabled = self.settings.privacy.redact_index
            session_key = row.session_key if row is not None and appended and enabled else None
            if session_key and cut_across_append(self.catalog, session_key, content):
                # the whole file: both parts of the secret masked
                outcome = self.reader.read(source, None, stat, settled=self._settled, whole=True)
                content = outcome[0]
            redact_content(content, enabled=enabled)
        except OSError as exc:  # vanished, unreadable, not a file: recorded, and tried again at the next sync
            self.waiting_tails.pop(path, None)
            if is_disk_full(exc):
                raise
            return Failure(self._note_error(report, path, f"cannot read: {exc.strerror or exc}"), size=-1)
        except Exception as exc:  # a parser bug or content nobody foresaw: this file waits until it changes
            self.waiting_tails.pop(path, None)
            log.debug("parsing %s failed", path, exc_info=True)
            return Failure(self._note_error(report, path, f"cannot parse: {type(exc).__name__}: {exc}"), stat.st_size)
        if content.kind == "transcript" and content.format and content.parsed_bytes < stat.st_size and not content.cut:
            self.waiting_tails[path] = stat.st_mtime
        else:
            self.waiting_tails.pop(path, None)
        return outcome

    def _mirror(self, generation: int, pending: PendingChanges) -> None:
        """After a catalog commit, apply the same changes to the keyword index and the vector matrix."""
        added = self.catalog.inserted_units(pending.added_units, pending.added_rows) if pending.added_units else {}
        if not self.keyword_behind:  # (behind: the whole index is written afresh at the sync's end)
            # a new message changes its older neighbours' context field: those are written again too
            touched = neighbours_of(self.catalog, added.values(), set(added))
            facts: list[tuple[int, DerivedFacts]] = []

            def facts_of_added(rows: list[sqlite3.Row], words_of: Callable[[str], str]) -> None:
                # from the words analysed for tantivy: each text analysed once, not again for its facts
                units = ((int(row["id"]), row["text"], row["kind"]) for row in rows if int(row["id"]) in added)
                facts.extend(facts_rows(self.keyword, units, words_of))

            # deletes go first in the same commit: SQLite may hand a deleted unit's id to a new unit
            docs = list(keyword_docs(self.catalog, self.keyword, [*added.values(), *touched], facts_of_added))
            deleted = [*pending.deleted_units, *(int(r["id"]) for r in touched)]
            self.keyword.write(generation, delete_units=deleted, add=docs)
            if facts:
                self.catalog.set_unit_facts(facts)
        # (behind: the rewrite fills in the units' facts from the words it analyses; a search works out those of a
        # unit that has none meanwhile, and the next sync's backfill those a cancelled sync left)
        collect_words(self.catalog, self.keyword, (scored_text(row["text"], row["kind"]) for row in added.values()))
        if added and self.catalog.texts.newest is None:  # a first build: its dictionary as soon as it has texts enough
            compress_stored_texts(self.catalog)
        self.embedding.mirror(added=added, deleted=pending.deleted_units)

    def _note_error(self, report: SyncReport, path: Path, reason: str) -> str:
        """Count a file that could not be indexed; returns the reason (bounded) to record with it."""
        reason = reason[:300]
        report.files_failed += 1
        shown = redact(f"{stored_path(path)}: {reason}")  # said on a terminal and in logs: a name may hold a secret
        row = self.catalog.files([stored_path(path)]).get(stored_path(path))
        # said once: a file the last sync skipped for the same reason is counted (and listed in the report) again,
        # not said again at every search's sync or watcher's poll
        level = logging.INFO if row is not None and row.error == reason else logging.WARNING
        log.log(level, "skipped %s", shown)
        if len(report.errors) < 50:
            report.errors.append(shown)
            if log.isEnabledFor(level):  # (a known one at INFO only under -v: else `memlens index` lists it once)
                report.said.add(shown)
        return reason


def _below_any(path: str, folders: set[str]) -> bool:
    """Whether a stored path is below one of `folders` (stored paths too): a lookup per folder above it, so a
    sync cancelled while it looked at a large tree's names (all kept) costs no more per file gone."""
    parent = path
    while True:
        parent, sep, _ = parent.rpartition(os.sep)
        if not sep or not parent:
            return False
        if parent in folders:
            return True


def _bytes_to_read(item: tuple[Named, FileState | None]) -> int:
    """What reading a changed file reads, about: its new tail when it grew, else all of it."""
    named, row = item
    return _bytes_to_read_of(row, named.stat)


def _bytes_to_read_of(row: FileState | FileRow | None, stat: os.stat_result) -> int:
    """`_bytes_to_read` of a file whose row is `row` (None: a new file) and whose stat is `stat`."""
    size = stat.st_size
    return size - row.size if row is not None and 0 <= row.size < size else size


@dataclass
class _Tally:
    """What one file's read added, over the slices a huge transcript is read in: the report counts the file once,
    as read whole or appended to as its first slice was, and the messages its slices added together (a file read
    again whole adds what it holds beyond what its rows held, not each slice's messages)."""

    appended: bool | None = None  # of the first slice; None until one is stored
    added: Stored = field(default_factory=Stored)
    bad_lines: int = 0
    errors: list[str] = field(default_factory=list)
    failed: bool = False  # a slice could not be read or stored: the file is recorded with its reason, not read on
    sliced: bool = False  # read in more than one slice

    def add(self, content: FileContent, appended: bool, added: Stored) -> None:
        if self.appended is None:
            self.appended = appended
        self.sliced = self.sliced or content.cut
        self.added += added
        self.bad_lines += content.bad_lines
        self.errors.extend(content.errors[: max(0, 50 - len(self.errors))])

    def count(self, report: SyncReport, path: Path) -> None:
        if self.appended:
            report.files_appended += 1
        else:
            report.files_parsed += 1
        # what the file's row holds changes by this (a torn last line made whole takes back the bad line it was
        # counted as); a report says the bad lines this sync met, never fewer than none
        report.bad_lines += max(0, self.bad_lines)
        shown = self.errors[: max(0, 50 - len(report.errors))]
        report.errors.extend(redact(f"{stored_path(path)}: {e}") for e in shown)
        # what `stats` and the sessions count as messages (message_count.py), as the writer stored them: not a tool's
        # output (it counted 336 where stats then said 157), not a compaction summary, a message in parts once, and
        # not again the message an append parsed again because the new lines might continue it
        report.messages_added += max(0, self.added.messages)
        # the chunks the index holds more than before, as the messages: a chunk an append writes again (the last
        # one, which the new messages join) or a re-read file writes anew is not one more (it counted every chunk
        # written)
        report.chunks_added += max(0, self.added.chunks)


@dataclass
class _Prepared:
    """A changed file as read, waiting for its batch's commit: the content (or why it could not be read) and the
    tally of its slices."""

    source: SourceFile
    row: FileRow | None
    stat: os.stat_result
    outcome: tuple[FileContent, bool] | Failure
    tally: _Tally

    @property
    def cut(self) -> FileContent | None:
        """The content when it is a slice a later one continues."""
        if isinstance(self.outcome, Failure) or not self.outcome[0].cut:
            return None
        return self.outcome[0]

    @property
    def bytes_read(self) -> int:
        """What this read took of the file, for the sync's projection (`SyncVolume`): a slice its bytes past what
        was stored before it, any other read the file's size."""
        if isinstance(self.outcome, Failure) or not self.tally.sliced:
            return self.stat.st_size
        before = self.row.parsed_bytes if self.row is not None and self.outcome[1] else 0
        return max(0, self.outcome[0].parsed_bytes - before)
