"""The cached vectors: one per distinct embedded text and model, keyed by the text's hash."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from memlens.engine.catalog.connection import CatalogConnection


class VectorTables(CatalogConnection):
    """Which units still need a vector, and storing the vectors the embedder made.

    The units still waiting for a vector are a queue: `units.vector_ready` is NULL until the unit's text has a
    vector for the model named in meta `vector_ready_model`, and a partial index holds exactly those units, so the
    backlog's count and each batch cost what is waiting, not a scan of every unit. A unit is inserted ready when its
    text already has a vector (files.py insert_units); storing vectors marks the units of those texts; another model
    starts the queue over (`keep_vector_queue_for`, once)."""

    def keep_vector_queue_for(self, model: str) -> None:
        """Make the queue follow `model` (a new model, or an index from before the queue: one pass over the units)."""
        if self.get_meta("vector_ready_model") == model:
            return
        with self.transaction() as db:
            db.execute("UPDATE units SET vector_ready = NULL WHERE vector_ready IS NOT NULL")
            db.execute(
                """UPDATE units SET vector_ready = 1 WHERE vector_ready IS NULL AND EXISTS
                   (SELECT 1 FROM vectors v WHERE v.hash = units.embed_text_hash AND v.model = ?)""",
                (model,),
            )
            self.set_meta(db, "vector_ready_model", model)

    def _waiting(self, model: str) -> str:
        """The condition that limits a units scan to the queue (none while the queue follows another model)."""
        return "u.vector_ready IS NULL AND" if self.get_meta("vector_ready_model") == model else ""

    def missing_vectors(self, model: str, limit: int) -> list[tuple[str, int]]:
        """(hash, unit id) of units whose text has no vector yet for `model`, newest first (by `queue_ts`: the
        message's time, else its file's mtime; units from before that column last), each hash once. The queue's
        partial index is read in that order and the walk stops after `limit` rows, so a batch costs O(limit); as
        each batch commits, its units leave the queue, so an interrupted run goes on where it stopped."""
        rows = self.db.execute(
            f"""SELECT u.embed_text_hash, u.id FROM units u
               LEFT JOIN vectors v ON v.hash = u.embed_text_hash AND v.model = ?
               WHERE {self._waiting(model)} v.hash IS NULL ORDER BY u.queue_ts DESC, u.id DESC LIMIT ?""",
            (model, limit),
        ).fetchall()
        first: dict[str, int] = {}
        for text_hash, unit_id in rows:
            first.setdefault(str(text_hash), int(unit_id))
        return list(first.items())

    def store_vectors(
        self, db: sqlite3.Connection, model: str, items: Sequence[tuple[str, bytes]], *, token: str | None = None
    ) -> None:
        """Store vectors and take their units off the queue; a new random vector token (`token`, or one made here)
        tells the vector file beside the catalog that it is stale unless it recorded the stamp with that token
        (`vector_stamp`) before this commit."""
        db.executemany(
            "INSERT OR REPLACE INTO vectors (hash, model, vec) VALUES (?, ?, ?)",
            [(h, model, blob) for h, blob in items],
        )
        if self.get_meta("vector_ready_model", db) == model:
            db.executemany(
                "UPDATE units SET vector_ready = 1 WHERE embed_text_hash = ? AND vector_ready IS NULL",
                [(h,) for h, _ in items],
            )
        self.set_meta(db, "vector_token", token or uuid.uuid4().hex)

    def vector_stamp(self, *, token: str | None = None) -> str:
        """What the vector file must record to be current: the generation (units), the vector token (vectors
        stored) and the unit count. A catalog started over has no token until its first vectors, so a file from
        an earlier catalog never matches it. `token`: the stamp the catalog will have once a commit stores vectors
        under that token and changes no unit."""
        token = token or self.get_meta("vector_token") or "none"
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
        """(text hash, blob: vector_snapshot.encode_vector's form) of every vector for `model`, in storage order."""
        yield from self.db.execute("SELECT hash, vec FROM vectors WHERE model = ?", (model,))

    def vector_units(self) -> Iterator[tuple[int, str, str, str, str, float | None, str, int | None]]:
        """(id, kind, format, role, session, ts, text hash, seq) of every unit, by id."""
        yield from self.db.execute(
            "SELECT id, kind, COALESCE(format, ''), COALESCE(role, ''), COALESCE(session_key, ''), ts,"
            " embed_text_hash, seq FROM units ORDER BY id"
        )

    def units_of_texts(
        self, hashes: Sequence[str]
    ) -> Iterator[tuple[int, str, str, str, str, float | None, str, int | None]]:
        """(id, kind, format, role, session, ts, text hash, seq), as `vector_units` gives them, of the units whose
        text hash is in `hashes`, by id within each batch of 500."""
        sql = """SELECT id, kind, COALESCE(format, ''), COALESCE(role, ''), COALESCE(session_key, ''), ts,
                        embed_text_hash, seq FROM units"""
        for start in range(0, len(hashes), 500):
            batch = hashes[start : start + 500]
            marks = ",".join("?" * len(batch))
            yield from self.db.execute(f"{sql} WHERE embed_text_hash IN ({marks}) ORDER BY id", batch)

    def vector_rows_where(
        self, model: str, column: str, values: Sequence[object]
    ) -> Iterator[tuple[int, str, str, str, str, float | None, bytes, int | None, str]]:
        """(id, kind, format, role, session, ts, vector, seq, text hash) of the units whose `column` ('id' or
        'embed_text_hash') is in `values` and whose text has a vector for `model`, by id within each batch."""
        if column not in ("id", "embed_text_hash"):
            raise ValueError(f"cannot select vector rows by {column}")
        sql = """SELECT u.id, u.kind, COALESCE(u.format, ''), COALESCE(u.role, ''), COALESCE(u.session_key, ''),
                        u.ts, v.vec, u.seq, u.embed_text_hash
                 FROM units u JOIN vectors v ON v.hash = u.embed_text_hash AND v.model = ?"""
        for start in range(0, len(values), 500):
            batch = values[start : start + 500]
            where = f" WHERE u.{column} IN ({','.join('?' * len(batch))}) ORDER BY u.id"
            yield from self.db.execute(sql + where, (model, *batch))

    def unused_vectors_possible(self) -> bool:
        """Whether units were deleted since vectors were last collected (their texts wait in `unused_hashes`)."""
        return bool(self.db.execute("SELECT EXISTS (SELECT 1 FROM unused_hashes)").fetchone()[0])

    def drop_unused_vectors(self, db: sqlite3.Connection) -> int:
        """Drop the vectors of texts no unit has any more. Only the texts of units deleted since the last time are
        looked at (a trigger on `units` lists them): the cost is the deletions', not the table's."""
        cursor = db.execute(
            """DELETE FROM vectors WHERE hash IN (SELECT hash FROM unused_hashes)
               AND NOT EXISTS (SELECT 1 FROM units u WHERE u.embed_text_hash = vectors.hash)"""
        )
        db.execute("DELETE FROM unused_hashes")
        return cursor.rowcount

    def embedding_backlog(self, model: str) -> tuple[int, int]:
        """(chunks with a unit lacking a vector for `model`, transcript units lacking one)."""
        rows = self.db.execute(
            f"""SELECT u.chunk_id, u.kind FROM units u LEFT JOIN vectors v
               ON v.hash = u.embed_text_hash AND v.model = ? WHERE {self._waiting(model)} v.hash IS NULL""",
            (model,),
        ).fetchall()
        return len({r[0] for r in rows}), sum(1 for r in rows if r[1] != "memory")

    def texts_without_vector(self, model: str, from_id: int = 0) -> int:
        """Distinct unit texts that have no vector for `model` yet, among the units from `from_id` on."""
        sql = f"""SELECT COUNT(DISTINCT u.embed_text_hash) FROM units u LEFT JOIN vectors v
                 ON v.hash = u.embed_text_hash AND v.model = ? WHERE {self._waiting(model)} v.hash IS NULL
                 AND u.id >= ?"""
        return int(self.db.execute(sql, (model, from_id)).fetchone()[0])
