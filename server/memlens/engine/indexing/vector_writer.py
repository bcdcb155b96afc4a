"""The index writer's vector half: units that have no vector yet are embedded batch by batch (each batch committed and
searchable at once), then the index's new words (vocabulary.py), and the vector file beside the catalog is kept up
to the rows in memory.

Apart from the Indexer (indexer.py), which owns it and calls it under its lock, because embedding is a job of its own:
the Indexer's sync parses files into the catalog and the keyword index in seconds; the embedding backlog it leaves
can take minutes, runs in budgets of batches between watcher events, and is the only part that needs the model.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager

from memlens.engine.catalog import Catalog
from memlens.engine.indexing.ingest import EMBED_TEXT_CHARS
from memlens.engine.keyword.vocabulary import embed_words, link_words
from memlens.engine.progress import Progress, RateMeter
from memlens.engine.vectors.embedder import Embedder
from memlens.engine.vectors.vector_index import VectorIndex
from memlens.engine.vectors.vector_snapshot import encode_vectors, vector_rows

EMBED_BATCH = 256


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
        self._pending: int | None = None  # cached count of texts without a vector
        self._pending_words: int | None = None  # cached count of words without a vector or nearest words
        self._words_epoch = 0  # bumped by every change to the words (see pending_words)

    def embed_pending(
        self,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
        max_batches: int | None = None,
    ) -> int:
        """Embed unit texts that have no vector yet, in batches; each batch is committed and searchable at once. Once
        every unit has its vector, the index's new words are embedded (vocabulary.py) within the same batch budget.
        Returns how many units were embedded."""
        if self.embedder is None:
            return 0
        with self.writing():
            done, batches = self._embed_units(progress, cancel, max_batches)
            if self.pending() == 0 and (max_batches is None or batches < max_batches):
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
        model = self.embedder.name
        total = self.pending()
        if total == 0:
            return 0, 0
        done = batches = 0
        meter = RateMeter()
        previous: set[int] = set()
        while not (cancel is not None and cancel.is_set()) and (max_batches is None or batches < max_batches):
            missing = self.catalog.missing_vectors(model, EMBED_BATCH)
            if not missing or previous.intersection(unit_id for _, unit_id in missing):
                break  # an empty queue, or a batch that did not leave it (never expected): stop rather than loop
            previous = {unit_id for _, unit_id in missing}
            units = self.catalog.units_by_id([unit_id for _, unit_id in missing])
            matrix = self.embedder.embed([units[unit_id]["text"][:EMBED_TEXT_CHARS] for _, unit_id in missing])
            hashes = [h for h, _ in missing]
            with self.catalog.transaction() as db:
                blobs = list(zip(hashes, encode_vectors(matrix), strict=True))
                self.catalog.store_vectors(db, model, blobs)
            self._pending = None
            self.vectors.update(add=vector_rows(self.catalog, model, "embed_text_hash", hashes, dim=self.vectors.dim))
            if self.vectors.grown():  # a long run: fold the rows added so far into the mapped vector file
                self.persist(force=True)
            done += len(missing)
            batches += 1
            if progress is not None:
                progress(done, max(total, done), "embedding " + meter.status(done, total))
        if done:
            self.persist()
        return done, batches

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

    def mirror(self, *, added: Iterable[int], deleted: Iterable[int]) -> None:
        """After a catalog commit: the vector rows follow its units (added units whose text already has a vector get
        it now), and the cached backlog counts are dropped (the commit may have collected new words)."""
        self.forget_counts()
        model = self.embedder.name if self.embedder else None
        cached = vector_rows(self.catalog, model, "id", list(added), dim=self.vectors.dim) if model else []
        self.vectors.update(remove=deleted, add=cached)

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
                if self.may_write():
                    self.catalog.keep_vector_queue_for(self.embedder.name)
                pending = self.catalog.texts_without_vector(self.embedder.name)
                # cached under the lock: a write that lands right after it resets the cache, never the other way
                # round (set after the lock, a count from before a write outlived it: the backlog looked empty,
                # nothing was embedded and `indexing` read false with texts still waiting)
                self._pending = pending
        return pending
