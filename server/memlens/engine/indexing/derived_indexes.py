"""Keeping tantivy and the vector matrix in line with the catalog, the source of truth of the units (the vectors are
the vector file's): at open, after a write that failed between them (a full disk), and for a reader after the
writer's commits."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator

from memlens.engine.catalog import Catalog
from memlens.engine.indexing.indexer import Indexer
from memlens.engine.indexing.stored_text import reparse_if_redaction_changed
from memlens.engine.indexing.write_access import WriteAccess
from memlens.engine.keyword.keyword_index import KeywordIndex
from memlens.engine.vectors.embedder import Embedder
from memlens.engine.vectors.vector_index import VectorIndex
from memlens.errors import IndexWriteFailed, environmental_cause
from memlens.settings import Settings

log = logging.getLogger(__name__)


class DerivedIndexes:
    def __init__(self, indexer: Indexer, embedder: Embedder | None, *, access: WriteAccess, settings: Settings) -> None:
        self.catalog: Catalog = indexer.catalog
        self.keyword: KeywordIndex = indexer.keyword
        self.vectors: VectorIndex = indexer.vectors
        self.indexer = indexer
        self.embedder = embedder
        self.access = access
        self.settings = settings
        self.seen_generation = -1
        self.stale = False  # a write failed between the catalog and the derived indexes

    def open(self, adopt: Callable[[], None]) -> None:
        """Align them at open (and, as the writer, `adopt` an older index's folders); a full disk while realigning
        opens anyway, serves what is there, and retries at the next write."""
        try:
            self.align()
            if self.access.writable:
                adopt()
        except Exception as exc:
            cause = environmental_cause(exc, self.access.index_dir)
            if cause is None:
                raise
            log.warning(
                "could not update the index at %s: %s; answering from the last update", self.access.index_dir, cause
            )
            self.stale = True
            self.reload_vectors(self.catalog.generation())

    def align(self) -> None:
        """Make tantivy and the vector matrix agree with the catalog, rebuilding what disagrees or is damaged."""
        writable = self.access.writable
        if writable:
            self.catalog.reparse_after_parser_change()  # a reader that became the writer opened it unchecked
            self.catalog.reparse_bad_lines_after_parser_change()
            reparse_if_redaction_changed(self.catalog, enabled=self.settings.privacy.redact_index)
        generation = self.catalog.generation()
        if writable and self.keyword.generation() != generation:
            log.info(
                "keyword index is behind the catalog (%s != %s); rebuilding",
                self.keyword.generation(),
                generation,
            )
            self.indexer.rebuild_keyword_index()
        elif writable and self.keyword.num_docs() != self.catalog.count("units"):
            log.warning("keyword index disagrees with the catalog; rebuilding")
            self.indexer.rebuild_keyword_index()
        self.reload_vectors(generation)

    def reload_vectors(self, generation: int) -> None:
        self.indexer.embedding.forget_counts()
        if self.embedder is not None:
            self.vectors.load(self.catalog, self.embedder.name)
        self.seen_generation = generation

    def follow(self) -> bool:
        """A reader follows the writer's commits: reload what changed since it last looked; whether anything did."""
        generation = self.catalog.generation()
        if generation == self.seen_generation:
            return False
        self.keyword.index.reload()
        self.reload_vectors(generation)
        return True

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Around every write: a full disk becomes one clear error, and the derived indexes are realigned with
        the catalog's last commit, so searches keep answering and the next sync, once space is back, recovers."""
        try:
            if self.stale:
                self.align()
                self.stale = False
            yield
        except Exception as exc:
            cause = environmental_cause(exc, self.access.index_dir)
            if cause is None:
                raise
            self.stale = True
            self.access.failed(cause)
            raise IndexWriteFailed(cause, self.access.index_dir) from exc
        self.access.succeeded()
