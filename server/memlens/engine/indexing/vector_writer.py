"""The index writer's vector half: units that have no vector yet are embedded batch by batch (each batch committed and
searchable at once), then the index's new words (vocabulary.py), and the vector file beside the catalog is kept up
to the rows in memory.

Apart from the Indexer (indexer.py), which owns it and calls it under its lock, because embedding is a job of its own:
the Indexer's sync parses files into the catalog and the keyword index in seconds; the embedding backlog it leaves
can take minutes, runs in budgets of batches between watcher events, and is the only part that needs the model.
"""

from __future__ import annotations

import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager

from memlens.engine.catalog import Catalog
from memlens.engine.indexing.ingest import EMBED_TEXT_CHARS
from memlens.engine.indexing.recently_removed import RecentlyRemoved
from memlens.engine.keyword.vocabulary import embed_words, link_words
from memlens.engine.progress import Progress, RateMeter
from memlens.engine.sources.tool_output import scored_text
from memlens.engine.vectors.embedder import Embedder
from memlens.engine.vectors.vector_file import text_hash_bytes
from memlens.engine.vectors.vector_index import VectorIndex
from memlens.engine.vectors.vector_snapshot import VectorRow, decode_vector, encode_vector, unit_vector_row

EMBED_BATCH = 256
REMEMBERED_ROWS = 100_000  # at most this many removed rows are kept for a moved file (580 bytes each), the newest


class VectorWriter:
    def __init__(
        self,
        catalog: Catalog,
        vectors: VectorIndex,
        embedder: Embedder | None,
        *,
        lock: threading.RLock,
        writing: Callable[[], AbstractContextManager[None]],
        may_write: Callable[[], bool],
    ) -> None:
        """`lock`: the writer's lock; `writing`: that lock with the catalog's reads off the memory map (what every
        write takes, Indexer._writing); `may_write`: whether this process is still the writer."""
        self.catalog = catalog
        self.vectors = vectors
        self.embedder = embedder
        self.lock = lock
        self.writing = writing
        self.may_write = may_write
        vectors.marks_changed = self.forget_counts  # a load that queued units again (on any thread)
        self._pending: int | None = None  # cached count of texts without a vector
        self._pending_words: int | None = None  # cached count of words without a vector or nearest words
        self._words_epoch = 0  # bumped by every change to the words (see pending_words)
        # the chunks whose last unit waiting for a vector this writer embedded, counted since it started: a sync's
        # report says the difference, in the chunks `stats` counts (its texts embedded are another count)
        self.chunks_embedded = 0
        # the vectors (vector_snapshot.encode_vector's form) of the rows removed lately, by text hash: a file that
        # moved is deleted before its new name is read, in another commit or another sync (`mirror`; the bounds:
        # recently_removed.py)
        self._removed: RecentlyRemoved[bytes, bytes] = RecentlyRemoved(most=REMEMBERED_ROWS)

    def has_pending(self) -> bool:
        """Whether any unit text waits for a vector: `pending() > 0` without counting them, which costs about a second
        of CPU with 440,000 texts waiting (a first build's of 300,000 messages): every search answer and status
        line asks (`Engine.indexing`), most often right after a commit, when the cached count is stale."""
        if self.embedder is None:
            return False
        if self._pending is not None:
            return self._pending > 0
        with self.lock:
            self._queue_what_the_file_lost()
            return self.catalog.any_text_without_vector()

    def _queue_what_the_file_lost(self) -> None:
        """Before the queue is read: a new model queues every unit, and the vector file's rows are loaded first
        when it may have lost some, since loading finds their units and queues them. Under the writer's lock."""
        assert self.embedder is not None
        model = self.embedder.name
        if self.may_write():
            if self.catalog.keep_vector_queue_for(model):
                self.vectors.load(self.catalog, model)  # its rows are matched to the units again
            if not self.vectors.held_as_marked(self.catalog, model):
                len(self.vectors)

    def embed_pending(
        self,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
        max_batches: int | None = None,
        *,
        words: bool = True,
    ) -> int:
        """Embed unit texts that have no vector yet, in batches; each batch is committed and searchable at once. Once
        every unit has its vector, the index's new words are embedded (vocabulary.py) within the same batch budget
        (not with `words` False: a benchmark's stand-in vectors are the units' only). Returns how many units were
        embedded."""
        if self.embedder is None:
            return 0
        with self.writing():
            done, batches = self._embed_units(progress, cancel, max_batches)
            if words and self.pending() == 0 and (max_batches is None or batches < max_batches):
                left = None if max_batches is None else max_batches - batches
                try:
                    embed_words(self.catalog, self.embedder, cancel=cancel, progress=progress, max_batches=left)
                    if self.catalog.count_words_without_vectors() == 0:  # once every word has its vector: one
                        link_words(self.catalog, cancel)  # pass over the vocabulary links them all (and older lists')
                finally:
                    self.forget_words()
            return done

    def pending_words(self) -> int:
        """Words of the index still waiting for a vector or for their nearest words (0 without a model): until they
        have them, query expansion finds less and answers change. Cached until the words change, since every search
        answer asks (`Engine.indexing`); counted without the writer's lock, which a batch of words holds for a while,
        and kept only when no change landed during the count."""
        if self.embedder is None:
            return 0
        pending = self._pending_words
        if pending is None:
            epoch = self._words_epoch
            pending = self.catalog.count_words_without_neighbours()
            if epoch == self._words_epoch:
                self._pending_words = pending
        return pending

    def forget_words(self) -> None:
        """The words changed (new ones collected, some embedded or linked): the cached count is stale."""
        self._words_epoch += 1
        self._pending_words = None

    def _embed_units(
        self, progress: Progress | None, cancel: threading.Event | None, max_batches: int | None
    ) -> tuple[int, int]:
        """(units embedded, batches run): embed_pending's unit part, run under the writer's lock it holds."""
        assert self.embedder is not None
        total = self.pending()
        if total == 0:
            return 0, 0
        done = batches = 0
        meter = RateMeter()
        previous: set[int] = set()
        while not (cancel is not None and cancel.is_set()) and (max_batches is None or batches < max_batches):
            missing = self.catalog.missing_vectors(EMBED_BATCH)
            if not missing or previous.intersection(unit_id for _, unit_id in missing):
                break  # an empty queue, or a batch that did not leave it (never expected): stop rather than loop
            previous = {unit_id for _, unit_id in missing}
            units = self.catalog.units_by_id([unit_id for _, unit_id in missing])
            texts = [scored_text(units[unit_id]["text"], units[unit_id]["kind"]) for _, unit_id in missing]
            matrix = self.embedder.embed([text[:EMBED_TEXT_CHARS] for text in texts])  # what embed_text_hash is of
            hashes = [h for h, _ in missing]
            vector_of = dict(zip(hashes, matrix, strict=True))
            rows = [unit_vector_row(unit, vector_of[unit[6]]) for unit in self.catalog.units_of_texts(hashes)]
            if not self._commit_rows(add=rows, texts=hashes):
                break  # this process may no longer write: the units wait, searchable here meanwhile
            # (a chunk is counted at the batch that gives its last unit a vector: none of its units is in a later one)
            self.chunks_embedded += len(self.catalog.chunks_with_every_vector([row.unit_id for row in rows]))
            done += len(missing)
            batches += 1
            if progress is not None:
                # named: these are texts (a message in parts is several), not the chunks `stats` and the sync count
                progress(done, max(total, done), "embedding texts " + meter.status(done, total))
        if done:
            self.persist()
        return done, batches

    def _commit_rows(
        self,
        *,
        add: list[VectorRow],
        remove: Iterable[int] = (),
        texts: Sequence[str] = (),
        units: Sequence[int] = (),
    ) -> bool:
        """Durable before ready: the rows change in memory, then in the vector file (its log appended and fsynced,
        or the file written afresh once it grew by an eighth: `grown`) under the stamp the catalog's next commit
        gives it, and only then does that commit take off the queue the units of `texts` and the `units`. A crash
        between the two leaves rows the catalog does not count: the stamps disagree, and the next load matches
        the file's rows to the units by id and text hash (VectorIndex) and marks those it holds: at worst a unit is
        embedded again, never given a wrong vector. When the rows cannot be written nothing is marked: the file's
        OSError is raised (Engine's writes report it as IndexWriteFailed), or False."""
        assert self.embedder is not None
        if not add:  # rows removed only: they reach the file with the next rows, or the sync's closing `persist`
            self.vectors.update(remove=remove)  # (a crash before leaves rows of deleted units: never given again)
            return True
        token = uuid.uuid4().hex
        with self.catalog.read_snapshot():
            stamp = self.catalog.vector_stamp(token=token)
        self.vectors.update(remove=remove, add=add)
        if not self.may_write():
            return False
        self.vectors.persist(self.catalog, self.embedder.name, force=self.vectors.grown(), stamp=stamp)
        if not self.vectors.on_disk(stamp):
            if self.vectors.write_failure is not None:  # a full disk...: the caller's write fails as a catalog's would
                raise self.vectors.write_failure
            return False
        with self.catalog.transaction() as db:
            self.catalog.mark_vectors_ready(db, token=token, texts=texts, units=units)
        # the texts came off the queue (each waited: missing_vectors), so the cached count stays right without a
        # count of the whole queue, which at a million texts waiting cost more than embedding a batch
        pending = self._pending
        self._pending = None if units or pending is None else max(0, pending - len(set(texts)))
        return True

    def persist(self, force: bool = False) -> bool:
        """Bring the vector file beside the catalog up to the rows in memory, when due (see VectorIndex.persist)."""
        if self.embedder is None or not self.may_write():
            return False
        with self.writing():
            return self.vectors.persist(self.catalog, self.embedder.name, force=force)

    def compact(self) -> bool:
        """Write the vector file afresh when enough changed since (VectorIndex.compact): after a whole sync."""
        if self.embedder is None or not self.may_write():
            return False
        with self.writing():
            return self.vectors.compact(self.catalog, self.embedder.name)

    def mirror(self, *, added: Mapping[int, sqlite3.Row], deleted: Iterable[int]) -> None:
        """After a catalog commit: the vector rows follow its units (`_commit_rows`), and the cached backlog counts
        are dropped (the commit may have collected new words). An added unit whose text a row holds gets that
        row's vector: a re-parsed file's units find theirs among the rows of the units it replaced (removed in the
        same update), a file that moved among the rows removed lately (`_removed`). The others wait to
        be embedded."""
        self.forget_counts()
        deleted = list(deleted)
        if self.embedder is None:
            self.vectors.update(remove=deleted)
            return
        units = [
            (unit_id, row["kind"], row["format"] or "", row["role"] or "", row["session_key"] or "", row["ts"],
             str(row["embed_text_hash"]), row["seq"])
            for unit_id, row in added.items()
        ]  # fmt: skip
        held = self.vectors.vectors_of_texts(text_hash_bytes(unit[6]) for unit in units)
        rows: list[VectorRow] = []
        for unit in units:
            text_hash = text_hash_bytes(unit[6])
            vector = held.get(text_hash)
            if vector is None and (removed := self._removed.get(text_hash)) is not None:
                vector = decode_vector(removed, self.vectors.dim)
            if vector is not None:
                rows.append(unit_vector_row(unit, vector))
        if deleted:
            for text_hash, vector in self.vectors.vectors_of_units(deleted).items():
                self._removed.put(text_hash, encode_vector(vector))
        self._commit_rows(remove=deleted, add=rows, units=[row.unit_id for row in rows])

    def hold_rows_before_deleting(self) -> None:
        """Load the vector rows now if `VectorIndex.load` deferred them, before a commit that deletes units. Loaded
        after it, they are matched to the units the catalog has left (`reconciled`), which drops the deleted units'
        rows before `mirror` can keep them for a file that moved: a folder moved or renamed between two runs was
        embedded again whole."""
        if self.embedder is not None:
            len(self.vectors)

    def forget_removed(self) -> None:
        """Forget the removed rows' vectors past their bounds (recently_removed.py)."""
        self._removed.forget_expired()

    def forget_all_removed(self) -> None:
        """After a whole sync (every file read: a moved one found its rows) or a folder forgotten (none moved)."""
        self._removed.clear()

    def forget_counts(self) -> None:
        """The catalog changed (this writer's commit, or another process's): the cached counts are stale."""
        self._pending = None
        self.forget_words()

    def pending(self) -> int:
        """Distinct unit texts still waiting for a vector (cached until the next write): the queue's length
        (catalog/vectors.py), so an append at a million units counts what waits, not every unit."""
        if self.embedder is None:
            return 0
        pending = self._pending
        if pending is None:
            with self.lock:
                self._queue_what_the_file_lost()
                pending = self.catalog.texts_without_vector()
                # cached under the lock: a write that lands right after it resets the cache, never the other way
                # round (set after the lock, a count from before a write outlived it: the backlog looked empty,
                # nothing was embedded and `indexing` read false with texts still waiting)
                self._pending = pending
        return pending
