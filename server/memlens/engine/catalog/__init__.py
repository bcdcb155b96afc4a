"""The SQLite catalog: the source of truth for files, sessions, chunks and search units (the units' vectors are the
vector file's: vectors/vector_file.py; the catalog marks which units it holds a row of).

A *unit* is what gets one BM25 document and one vector: a memory chunk, or one transcript message or summary.
A *chunk* is what a search result shows: a memory section, or a run of consecutive messages of one session.
tantivy is derived from these tables and can always be rebuilt from them.

Every SQL statement of memlens lives in this package, one module per group of tables; `Catalog` joins them.
"""

from __future__ import annotations

from typing import NamedTuple

from memlens.engine.catalog.copies import CopyTables, Family, Settled
from memlens.engine.catalog.files import ChunkRow, FileTables, UnitRow
from memlens.engine.catalog.published import PublishReads, PublishRow
from memlens.engine.catalog.roots import RootCounts, RootRow, RootTables
from memlens.engine.catalog.schema import SCHEMA_VERSION, FileRow, FileState
from memlens.engine.catalog.sessions import SessionReads, SessionsOfId
from memlens.engine.catalog.stats import CatalogStats
from memlens.engine.catalog.texts import TextTables
from memlens.engine.catalog.units import UNIT_FACTS_KEYS, PeriodUnit, ResultRow, UnitReads, unit_facts_state
from memlens.engine.catalog.vectors import VectorTables
from memlens.engine.catalog.words import VOCABULARY_KEYS, WordTables, vocabulary_state

__all__ = [
    "SCHEMA_VERSION",
    "Catalog",
    "ChunkRow",
    "FileRow",
    "Family",
    "FileState",
    "PeriodUnit",
    "PublishRow",
    "ResultRow",
    "RootCounts",
    "RootRow",
    "SearchState",
    "SessionsOfId",
    "Settled",
    "UnitRow",
]


class SearchState(NamedTuple):
    """What the caches a search consults check against the catalog, read once per search."""

    facts: tuple[int, str | None]  # Catalog.unit_facts_state()
    vocabulary: tuple[str, str]  # Catalog.vocabulary_state()


class Catalog(
    FileTables,
    CopyTables,
    RootTables,
    VectorTables,
    WordTables,
    UnitReads,
    SessionReads,
    CatalogStats,
    PublishReads,
    TextTables,
):
    """The catalog database (see the package docstring); thread-safe, one connection per thread."""

    def search_state(self) -> SearchState:
        """`unit_facts_state` and `vocabulary_state` in one statement: a search otherwise read them two or three
        times, and right after its other work a statement costs it 12 µs (`SELECT 1`) to 37 µs (these keys), against
        3 and 11 µs in a tight loop: the other work has pushed SQLite out of the CPU's caches."""
        meta = self.meta_values(UNIT_FACTS_KEYS + VOCABULARY_KEYS)
        return SearchState(unit_facts_state(meta), vocabulary_state(meta))
