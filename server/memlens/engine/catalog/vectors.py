"""Which units have a vector: the embedding queue, and the stamp the vector file beside the catalog must record.

The vectors themselves are in the vector file (vectors/vector_file.py, its log vector_log.py), each row keyed by its
unit and its text's hash; the catalog keeps, per unit, whether that file holds its row (`units.vector_ready`). A catalog
of schema 4 or older still has its `vectors` table (hash → the vector, quantized_rows.py's form) until the writer has
moved them into the file (`legacy_vectors`, `finish_vector_migration`)."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

from memlens.engine.catalog.connection import CatalogConnection
from memlens.engine.catalog.schema import LEGACY_VECTOR_TABLES, MESSAGE_UNITS, SCHEMA_VERSION

UnitColumns = tuple[int, str, str, str, str, float | None, str, int | None]  # id, kind, format, role, session, ts,
# text hash, seq


class VectorTables(CatalogConnection):
    """Which units still need a vector, and marking them once the vector file holds their rows.

    The units still waiting for a vector are a queue: `units.vector_ready` is NULL until the vector file of the
    model named in meta `vector_ready_model` holds the unit's row, and a partial index holds exactly those units, so
    the backlog's count and each batch cost what is waiting, not a scan of every unit. A unit is inserted waiting;
    the writer marks it once its row is on disk (vector_writer.py: durable before ready); another model starts the
    queue over (`keep_vector_queue_for`, once)."""

    def keep_vector_queue_for(self, model: str) -> bool:
        """Make the queue follow `model` (a new model, or an index from before the queue: every unit waits, and a
        new vector token makes any vector file disagree, so the next load marks the units its rows hold).
        True when it changed."""
        if self.get_meta("vector_ready_model") == model:
            return False
        with self.transaction() as db:
            db.execute("UPDATE units SET vector_ready = NULL WHERE vector_ready IS NOT NULL")
            self.set_meta(db, "vector_ready_model", model)
            self.set_meta(db, "vector_token", uuid.uuid4().hex)
        return True

    def missing_vectors(self, limit: int) -> list[tuple[str, int]]:
        """(hash, unit id) of units whose row the vector file lacks, newest first (by `queue_ts`: the message's
        time, else its file's mtime; units from before that column last), each hash once. The queue's partial index
        is read in that order and the walk stops after `limit` rows, so a batch costs O(limit); as each batch
        commits, its units leave the queue, so an interrupted run goes on where it stopped."""
        rows = self.db.execute(
            """SELECT embed_text_hash, id FROM units WHERE vector_ready IS NULL
               ORDER BY queue_ts DESC, id DESC LIMIT ?""",
            (limit,),
        ).fetchall()
        first: dict[str, int] = {}
        for text_hash, unit_id in rows:
            first.setdefault(str(text_hash), int(unit_id))
        return list(first.items())

    def mark_vectors_ready(
        self, db: sqlite3.Connection, *, token: str, texts: Sequence[str] = (), units: Sequence[int] = ()
    ) -> None:
        """Take off the queue the units of `texts` and the `units` whose rows the vector file now holds, under the
        vector `token` the file recorded its stamp with (`vector_stamp`)."""
        db.executemany(
            "UPDATE units SET vector_ready = 1 WHERE embed_text_hash = ? AND vector_ready IS NULL",
            [(h,) for h in texts],
        )
        db.executemany("UPDATE units SET vector_ready = 1 WHERE id = ? AND vector_ready IS NULL", [(u,) for u in units])
        self.set_meta(db, "vector_token", token)

    def vector_file_written(self, *, stamp: str, token: str, ready: Iterable[int], legacy: bool) -> bool:
        """The vector file was written afresh (and is on disk) with the rows of the units `ready` (ascending ids; a
        million of them are compared with the marked ones as two sorted streams, not sets), from the catalog
        at `stamp`: mark exactly those units, every other one waiting, under the vector `token` the file's stamp
        names, and with `legacy` drop the `vectors` table (`finish_vector_migration`). Done only when the catalog
        is still at `stamp` (a write since, by this writer's thread, would make the marks wrong: the next load
        repairs the file again instead); whether it was. Only the units whose mark changes are written."""
        with self.transaction() as db:
            if self.vector_stamp() != stamp:
                return False
            marked = (int(r[0]) for r in db.execute("SELECT id FROM units WHERE vector_ready IS NOT NULL ORDER BY id"))
            unmark, mark = _differences(marked, (int(u) for u in ready))
            db.executemany("UPDATE units SET vector_ready = NULL WHERE id = ?", ((u,) for u in unmark))
            db.executemany("UPDATE units SET vector_ready = 1 WHERE id = ?", ((u,) for u in mark))
            self.set_meta(db, "vector_token", token)
            if legacy:
                self.finish_vector_migration(db)
        return True

    def vector_stamp(self, *, token: str | None = None) -> str:
        """What the vector file must record to be current: the generation (units), the vector token (rows marked
        ready) and the unit count. A catalog started over has no token until its first vectors, so a file from an
        earlier catalog never matches it. `token`: the stamp the catalog will have once a commit marks units under
        that token and changes no unit."""
        token = token or self.get_meta("vector_token") or "none"
        return f"{self.generation()}:{token}:{self.unit_count()}"

    def unit_count(self) -> int:
        """Every unit, from the counts the writer keeps beside them (files.py `_count_units`): part of every vector
        stamp, which each append's commit and every open asks for, and a count of the units themselves read the
        whole of their smallest index (4-6 ms at a million)."""
        return int(self.db.execute("SELECT COALESCE(SUM(units), 0) FROM unit_counts").fetchone()[0])

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

    def vector_units(self) -> Iterator[UnitColumns]:
        """(id, kind, format, role, session, ts, text hash, seq) of every unit, by id."""
        yield from self.db.execute(
            "SELECT id, kind, COALESCE(format, ''), COALESCE(role, ''), COALESCE(session_key, ''), ts,"
            " embed_text_hash, seq FROM units ORDER BY id"
        )

    def units_of_texts(self, hashes: Sequence[str]) -> Iterator[UnitColumns]:
        """The units whose text hash is in `hashes`, as `vector_units` gives them, by id within each batch of 500."""
        sql = """SELECT id, kind, COALESCE(format, ''), COALESCE(role, ''), COALESCE(session_key, ''), ts,
                        embed_text_hash, seq FROM units"""
        for start in range(0, len(hashes), 500):
            batch = hashes[start : start + 500]
            marks = ",".join("?" * len(batch))
            yield from self.db.execute(f"{sql} WHERE embed_text_hash IN ({marks}) ORDER BY id", batch)

    def chunks_with_every_vector(self, unit_ids: Sequence[int]) -> set[int]:
        """The chunks of these units none of whose units waits for a vector any more (the chunks `stats` counts
        among those with embeddings)."""
        chunks: set[int] = set()
        for start in range(0, len(unit_ids), 500):
            batch = list(unit_ids[start : start + 500])
            marks = ",".join("?" * len(batch))
            rows = self.db.execute(f"SELECT DISTINCT chunk_id FROM units WHERE id IN ({marks})", batch)
            chunks.update(int(row[0]) for row in rows if row[0] is not None)
        waiting: set[int] = set()
        listed = sorted(chunks)
        for start in range(0, len(listed), 500):
            batch = listed[start : start + 500]
            marks = ",".join("?" * len(batch))
            sql = f"SELECT DISTINCT chunk_id FROM units WHERE chunk_id IN ({marks}) AND vector_ready IS NULL"
            waiting.update(int(row[0]) for row in self.db.execute(sql, batch))
        return chunks - waiting

    def embedding_backlog(self) -> tuple[int, int]:
        """(chunks with a unit lacking a vector, messages lacking one: counted as every count of messages is, by
        MESSAGE_UNITS)."""
        # `id >= 0` (every id) has SQLite read the index that holds these columns (units_waiting_for_vector), where
        # it chose the queue's and read a row of the table for each unit waiting
        waiting = "FROM units WHERE vector_ready IS NULL AND id >= 0"
        chunks = self.db.execute(f"SELECT COUNT(DISTINCT chunk_id) {waiting}").fetchone()[0]
        return int(chunks), int(self.db.execute(f"SELECT COUNT(*) {waiting} AND {MESSAGE_UNITS}").fetchone()[0])

    def any_text_without_vector(self) -> bool:
        """Whether any unit waits for a vector (one row of the queue's index read, however long the queue)."""
        return self.db.execute("SELECT 1 FROM units WHERE vector_ready IS NULL LIMIT 1").fetchone() is not None

    def texts_without_vector(self, from_id: int = 0) -> int:
        """Distinct unit texts still waiting for a vector, among the units from `from_id` on."""
        sql = "SELECT COUNT(DISTINCT embed_text_hash) FROM units WHERE vector_ready IS NULL AND id >= ?"
        return int(self.db.execute(sql, (from_id,)).fetchone()[0])

    # -- an older catalog, whose `vectors` table the writer moves into the vector file -------------------------

    def holds_legacy_vectors(self) -> bool:
        """Whether the catalog still has its `vectors` table (schema 4 or older, not yet moved into the vector file)."""
        return self._has_table(self.db, "vectors")

    def legacy_vectors(self, model: str) -> Iterator[tuple[str, bytes]]:
        """(text hash, blob: vector_snapshot.encode_vector's form) of every vector of `model` the `vectors` table
        holds, in storage order."""
        yield from self.db.execute("SELECT hash, vec FROM vectors WHERE model = ?", (model,))

    def finish_vector_migration(self, db: sqlite3.Connection) -> None:
        """Drop the `vectors` table (and what kept it small) and name the current schema: only once the vector file
        holding every vector is on disk."""
        for statement in LEGACY_VECTOR_TABLES.split(";"):
            if statement.strip():
                db.execute(statement)
        self.set_meta(db, "schema_version", str(SCHEMA_VERSION))


def _differences(was: Iterator[int], should: Iterator[int]) -> tuple[list[int], list[int]]:
    """(ids in `was` but not `should`, ids in `should` but not `was`), both ascending streams."""
    only_was: list[int] = []
    only_should: list[int] = []
    a, b = next(was, None), next(should, None)
    while a is not None and b is not None:
        if a < b:
            only_was.append(a)
            a = next(was, None)
        elif b < a:
            only_should.append(b)
            b = next(should, None)
        else:
            a, b = next(was, None), next(should, None)
    if a is not None:
        only_was += [a, *was]
    if b is not None:
        only_should += [b, *should]
    return only_was, only_should
