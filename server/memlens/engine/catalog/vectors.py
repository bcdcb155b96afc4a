"""The cached vectors: one per distinct embedded text and model, keyed by the text's hash."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from memlens.engine.catalog.connection import CatalogConnection


class VectorTables(CatalogConnection):
    """Which units still need a vector, and storing the vectors the embedder made."""

    def missing_vectors(self, model: str, limit: int, after_id: int = 0) -> list[tuple[str, int]]:
        """(hash, unit id) of units after `after_id` whose text has no vector yet for `model`, oldest first, each
        hash once. Walks the units in id order and stops after `limit` rows, so a batch costs O(limit), not a scan."""
        rows = self.db.execute(
            """SELECT u.embed_text_hash, u.id FROM units u
               LEFT JOIN vectors v ON v.hash = u.embed_text_hash AND v.model = ?
               WHERE v.hash IS NULL AND u.id > ? ORDER BY u.id LIMIT ?""",
            (model, after_id, limit),
        ).fetchall()
        first: dict[str, int] = {}
        for text_hash, unit_id in rows:
            first.setdefault(str(text_hash), int(unit_id))
        return list(first.items())

    def store_vectors(self, db: sqlite3.Connection, model: str, items: Sequence[tuple[str, bytes]]) -> None:
        """Store vectors; a new random vector token tells the vector file beside the catalog that it is stale."""
        db.executemany(
            "INSERT OR REPLACE INTO vectors (hash, model, vec) VALUES (?, ?, ?)",
            [(h, model, blob) for h, blob in items],
        )
        self.set_meta(db, "vector_token", uuid.uuid4().hex)

    def vector_stamp(self) -> str:
        """What the vector file must record to be current: the generation (units), the vector token (vectors
        stored) and the unit count. A catalog started over has no token until its first vectors, so a file from
        an earlier catalog never matches it."""
        token = self.get_meta("vector_token") or "none"
        return f"{self.generation()}:{token}:{self.unit_count()}"

    def unit_count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM units").fetchone()[0])

    @contextmanager
    def read_snapshot(self) -> Iterator[None]:
        """Reads inside see one committed state (a read transaction on this thread's connection)."""
        db = self.db
        if db.in_transaction:
            yield
            return
        db.execute("BEGIN")
        try:
            yield
        finally:
            db.execute("COMMIT")

    def cached_vectors(self, model: str) -> Iterator[tuple[str, bytes]]:
        """(text hash, float32 blob) of every vector for `model`, in storage order."""
        yield from self.db.execute("SELECT hash, vec FROM vectors WHERE model = ?", (model,))

    def vector_units(self) -> Iterator[tuple[int, str, str, str, str, float | None, str, int | None]]:
        """(id, kind, format, role, session, ts, text hash, seq) of every unit, by id."""
        yield from self.db.execute(
            "SELECT id, kind, COALESCE(format, ''), COALESCE(role, ''), COALESCE(session_key, ''), ts,"
            " embed_text_hash, seq FROM units ORDER BY id"
        )

    def vector_rows_where(
        self, model: str, column: str, values: Sequence[object]
    ) -> Iterator[tuple[int, str, str, str, str, float | None, bytes, int | None]]:
        """(id, kind, format, role, session, ts, vector, seq) of the units whose `column` ('id' or
        'embed_text_hash') is in `values` and whose text has a vector for `model`, by id within each batch."""
        if column not in ("id", "embed_text_hash"):
            raise ValueError(f"cannot select vector rows by {column}")
        sql = """SELECT u.id, u.kind, COALESCE(u.format, ''), COALESCE(u.role, ''), COALESCE(u.session_key, ''),
                        u.ts, v.vec, u.seq
                 FROM units u JOIN vectors v ON v.hash = u.embed_text_hash AND v.model = ?"""
        for start in range(0, len(values), 500):
            batch = values[start : start + 500]
            where = f" WHERE u.{column} IN ({','.join('?' * len(batch))}) ORDER BY u.id"
            yield from self.db.execute(sql + where, (model, *batch))

    def drop_unused_vectors(self, db: sqlite3.Connection) -> int:
        cursor = db.execute("DELETE FROM vectors WHERE hash NOT IN (SELECT embed_text_hash FROM units)")
        return cursor.rowcount

    def embedding_backlog(self, model: str) -> tuple[int, int]:
        """(chunks with a unit lacking a vector for `model`, transcript units lacking one)."""
        rows = self.db.execute(
            """SELECT u.chunk_id, u.kind FROM units u LEFT JOIN vectors v
               ON v.hash = u.embed_text_hash AND v.model = ? WHERE v.hash IS NULL""",
            (model,),
        ).fetchall()
        return len({r[0] for r in rows}), sum(1 for r in rows if r[1] != "memory")

    def texts_without_vector(self, model: str, from_id: int = 0) -> int:
        """Distinct unit texts that have no vector for `model` yet, among the units from `from_id` on (the caller
        knows every unit before it has one)."""
        sql = """SELECT COUNT(DISTINCT u.embed_text_hash) FROM units u LEFT JOIN vectors v
                 ON v.hash = u.embed_text_hash AND v.model = ? WHERE v.hash IS NULL AND u.id >= ?"""
        return int(self.db.execute(sql, (model, from_id)).fetchone()[0])

    def unit_ids(self) -> list[int]:
        """Every unit's id, in order."""
        return [int(r[0]) for r in self.db.execute("SELECT id FROM units ORDER BY id")]
