"""The SQLite catalog: the source of truth for files, sessions, chunks, search units and cached vectors.

A *unit* is what gets one BM25 document and one vector: a memory chunk, or one transcript message or summary.
A *chunk* is what a search result shows: a memory section, or a run of consecutive messages of one session.
tantivy and the in-memory vector matrix are derived from these tables and can always be rebuilt from them.

Every SQL statement of memlens lives in this package, one module per group of tables; `Catalog` joins them.
"""

from __future__ import annotations

from memlens.engine.catalog.files import FileTables
from memlens.engine.catalog.schema import SCHEMA_VERSION, FileRow
from memlens.engine.catalog.sessions import SessionReads
from memlens.engine.catalog.stats import CatalogStats
from memlens.engine.catalog.units import UnitReads
from memlens.engine.catalog.vectors import VectorTables
from memlens.engine.catalog.words import WordTables

__all__ = ["SCHEMA_VERSION", "Catalog", "FileRow"]


class Catalog(FileTables, VectorTables, WordTables, UnitReads, SessionReads, CatalogStats):
    """The catalog database (see the package docstring); thread-safe, one connection per thread."""
