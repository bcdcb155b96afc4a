"""The cached vectors: one per distinct embedded text and model, keyed by the text's hash."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

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
        db.executemany(
            "INSERT OR REPLACE INTO vectors (hash, model, vec) VALUES (?, ?, ?)",
            [(h, model, blob) for h, blob in items],
        )

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

    def texts_without_vector(self, model: str) -> int:
        """Distinct unit texts that have no vector for `model` yet."""
        sql = """SELECT COUNT(DISTINCT u.embed_text_hash) FROM units u LEFT JOIN vectors v
                 ON v.hash = u.embed_text_hash AND v.model = ? WHERE v.hash IS NULL"""
        return int(self.db.execute(sql, (model,)).fetchone()[0])
