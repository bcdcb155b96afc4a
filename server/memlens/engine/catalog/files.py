"""Writes of the `files` table and of one file's contents (its sessions, chunks and units)."""

from __future__ import annotations

import sqlite3
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from memlens.engine.catalog.connection import CatalogConnection
from memlens.engine.catalog.schema import (
    COUNTED_MESSAGES,
    FILE_COLUMNS,
    FILE_STATE_COLUMNS,
    MESSAGE_UNITS,
    FileRow,
    FileState,
)

# the key part a subagent's session adds to its session's (catalog_writer._store_session)
_AGENT_PART = "CASE WHEN COALESCE({alias}.agent_id, '') = '' THEN '' ELSE '/agent-' || {alias}.agent_id END"


class ChunkRow(NamedTuple):
    """A `chunks` row to insert (its id is chosen on insert)."""

    file_id: int
    kind: str
    session_key: str | None
    line_start: int | None
    line_end: int | None
    heading: str | None
    ts_start: float | None
    ts_end: float | None
    message_count: int


class UnitRow(NamedTuple):
    """A `units` row to insert, fields in the order `insert_units` names the columns (its id is chosen on insert;
    it waits for its vector: `vector_ready` NULL)."""

    file_id: int
    chunk_id: int
    kind: str
    format: str
    session_key: str | None
    message_id: str | None
    role: str | None
    ts: float | None
    seq: int
    position: int | None
    line_end: int | None
    uuid: str | None
    text: str
    embed_text_hash: str
    error: bool
    queue_ts: float | None
    part: int


_TEXT = UnitRow._fields.index("text")
_TS = UnitRow._fields.index("ts")
_HASH = UnitRow._fields.index("embed_text_hash")
# the plain_units view's columns as a catalog of this version holds them, in its order: what `inserted_units` gives
# back
INSERTED_COLUMNS = (
    "id",
    *UnitRow._fields[: _HASH + 1],
    "words",
    "tool",
    "dup_key",
    "question",
    "error",
    "vector_ready",
    "queue_ts",
    "part",
    "shadowed",
)


class FileTables(CatalogConnection):
    """The `files` rows: what was read of each file, and where an append is re-parsed from."""

    def files(self, paths: Sequence[str] | None = None) -> dict[str, FileRow]:
        """Every catalogued file by path, or only those of `paths` (a watcher event touches a few)."""
        return {row[1]: FileRow(*row) for row in self._file_rows(FILE_COLUMNS, paths)}

    def file_states(self, paths: Sequence[str] | None = None) -> dict[str, FileState]:
        """What a sync compares with each file's stat (FileState), by path: every file's, or those of `paths`."""
        return {row[0]: FileState(*row[1:]) for row in self._file_rows(f"path, {FILE_STATE_COLUMNS}", paths)}

    def _file_rows(self, columns: str, paths: Sequence[str] | None) -> list[Any]:
        select = f"SELECT {columns} FROM files"
        if paths is None:
            return self._tuples(select, ()).fetchall()
        rows = []
        for start in range(0, len(paths), 500):
            part = list(paths[start : start + 500])
            rows += self._tuples(f"{select} WHERE path IN ({','.join('?' * len(part))})", part).fetchall()
        return rows

    def files_fingerprint(self) -> str | None:
        """The fingerprint of the names and stats a whole sync found, kept while no file row changed since."""
        return self.get_meta("files_fingerprint")

    def keep_files_fingerprint(self, value: str) -> bool:
        """Keep `value` as the files' fingerprint when every file row is wholly read: none waits to be retried
        (size -1), to have its identity recorded, or for its unterminated last line (file_reader.tail_waiting) —
        a later sync that finds the same fingerprint has nothing to do. Returns whether it was kept."""
        with self.transaction() as db:
            unsettled = db.execute(
                """SELECT EXISTS (SELECT 1 FROM files WHERE size < 0 OR ctime_ns IS NULL
                   OR (kind = 'transcript' AND format != '' AND parsed_bytes > 0 AND parsed_bytes < size))"""
            ).fetchone()[0]
            if not unsettled:
                self.set_meta(db, "files_fingerprint", value)
            return not unsettled

    def upsert_file(self, db: sqlite3.Connection, path: str, kind: str, **values: Any) -> int:
        row = db.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()
        values["synced_at"] = time.time()
        if row is None:
            columns = ["path", "kind", *values]
            marks = ", ".join("?" for _ in columns)
            cursor = db.execute(
                f"INSERT INTO files ({', '.join(columns)}) VALUES ({marks})", (path, kind, *values.values())
            )
            return int(cursor.lastrowid or 0)
        assignments = ", ".join(f"{k} = ?" for k in values)
        db.execute(f"UPDATE files SET kind = ?, {assignments} WHERE id = ?", (kind, *values.values(), row[0]))
        return int(row[0])

    def files_with_identities(self, identities: Sequence[tuple[int, int]]) -> list[FileRow]:
        """The catalogued files that are one of these (device, inode) pairs (another name may reach them)."""
        rows: list[sqlite3.Row] = []
        for start in range(0, len(identities), 400):
            part = identities[start : start + 400]
            where = " OR ".join("(dev = ? AND ino = ?)" for _ in part)
            rows += self.db.execute(f"SELECT {FILE_COLUMNS} FROM files WHERE {where}", [v for p in part for v in p])
        return [FileRow(*row) for row in rows]

    def record_identities(self, db: sqlite3.Connection, identities: Sequence[tuple[int, int, int, int]]) -> None:
        """Fill in (file id, device, inode, ctime) of files read before the catalog kept them, without a re-read."""
        db.executemany(
            "UPDATE files SET dev = ?, ino = ?, ctime_ns = ? WHERE id = ?", [(*i[1:], i[0]) for i in identities]
        )

    # -- aliases: other names of indexed files --------------------------------------------------------------

    def aliases(self) -> dict[str, str]:
        """Every recorded alias: its path, and the indexed path it names."""
        return {str(r[0]): str(r[1]) for r in self.db.execute("SELECT path, source FROM aliases")}

    def replace_aliases(self, db: sqlite3.Connection, aliases: Sequence[tuple[str, str]]) -> None:
        """After a whole sync: exactly these (alias path, the indexed path it names) are the aliases."""
        db.execute("DELETE FROM aliases")
        db.executemany("INSERT OR REPLACE INTO aliases (path, source) VALUES (?, ?)", aliases)

    def update_aliases(
        self, db: sqlite3.Connection, aliases: Sequence[tuple[str, str]], sources: Sequence[str]
    ) -> None:
        """After a few files synced: these aliases (re)recorded, and these paths, indexed themselves, no alias."""
        db.executemany("DELETE FROM aliases WHERE path = ?", [(p,) for p in sources])
        db.executemany("INSERT OR REPLACE INTO aliases (path, source) VALUES (?, ?)", aliases)

    def forget_aliases(self, db: sqlite3.Connection, paths: Sequence[str]) -> None:
        """Drop the aliases that are, or name, these (removed) paths."""
        db.executemany("DELETE FROM aliases WHERE source = ? OR path = ?", [(p, p) for p in paths])

    def aliases_of(self, paths: Sequence[str]) -> list[str]:
        """The aliases naming these indexed paths (when one goes, its alias is to be indexed under its own name)."""
        found: list[str] = []
        for path in paths:
            found += [str(r[0]) for r in self.db.execute("SELECT path FROM aliases WHERE source = ?", (path,))]
        return found

    def purge_file_contents(self, db: sqlite3.Connection, file_id: int) -> list[int]:
        """Delete a file's chunks, units and sessions; return the deleted unit ids."""
        units = db.execute("SELECT id, format, kind FROM units WHERE file_id = ?", (file_id,)).fetchall()
        _count_units(db, Counter((r[1], r[2]) for r in units), sign=-1)
        db.execute("DELETE FROM units WHERE file_id = ?", (file_id,))
        unit_ids = [r[0] for r in units]
        db.execute("DELETE FROM chunks WHERE file_id = ?", (file_id,))
        db.execute("DELETE FROM sessions WHERE file_id = ?", (file_id,))
        return unit_ids

    def file_messages(self, db: sqlite3.Connection, file_id: int) -> int:
        """The messages (message_count.py) a file's units hold now and the index counts, in every session of the
        file: not those another file of their session keeps (catalog/copies.py)."""
        found = db.execute(f"SELECT COALESCE(SUM({COUNTED_MESSAGES}), 0) FROM units WHERE file_id = ?", (file_id,))
        return int(found.fetchone()[0])

    def file_chunks(self, db: sqlite3.Connection, file_id: int) -> int:
        """The chunks a file holds now, in every session of the file."""
        return int(db.execute("SELECT COUNT(*) FROM chunks WHERE file_id = ?", (file_id,)).fetchone()[0])

    def file_held_by_session(self, db: sqlite3.Connection, file_id: int) -> dict[str, tuple[int, int]]:
        """The messages (message_count.py) and the chunks a file holds now, by session key."""
        messages = f"""SELECT session_key, SUM({MESSAGE_UNITS}) FROM units
                       WHERE file_id = ? AND session_key IS NOT NULL GROUP BY session_key"""
        chunks = """SELECT session_key, COUNT(*) FROM chunks
                    WHERE file_id = ? AND session_key IS NOT NULL GROUP BY session_key"""
        held = {str(key): int(count) for key, count in db.execute(messages, (file_id,))}
        return {str(key): (held.get(str(key), 0), int(count)) for key, count in db.execute(chunks, (file_id,))}

    def file_note_chunks(self, db: sqlite3.Connection, file_id: int) -> list[str]:
        """The hashes of a memory note's embedded chunk texts (a note's chunk is one unit), as its rows hold them."""
        rows = db.execute("SELECT embed_text_hash FROM units WHERE file_id = ? AND kind = 'memory'", (file_id,))
        return [str(text_hash) for (text_hash,) in rows]

    def delete_file(self, db: sqlite3.Connection, file_id: int) -> list[int]:
        unit_ids = self.purge_file_contents(db, file_id)
        db.execute("DELETE FROM files WHERE id = ?", (file_id,))
        return unit_ids

    def mark_all_for_reparse(self, db: sqlite3.Connection) -> None:
        """Make the next sync read every file again from its first byte (reindex --full, redaction changes)."""
        db.execute("UPDATE files SET size = -1, parsed_bytes = 0")

    def mark_for_reparse(self, db: sqlite3.Connection, paths: Sequence[str]) -> None:
        """Make the next sync that is handed these files read them again from their first byte."""
        db.executemany("UPDATE files SET size = -1, parsed_bytes = 0 WHERE path = ?", [(path,) for path in paths])

    def stranded_session_files(self) -> list[str]:
        """The paths, in name order, of the files holding a session under a `~` key (the second file of a session:
        a copy, a rotated name) whose plain key no session holds any more: the file that held it went, was emptied
        or holds another session now. Read again, such a file takes the plain key, as a rebuild would give it."""
        plain = f"s.format || ':' || s.session_id || {_AGENT_PART.format(alias='s')}"
        sql = f"""SELECT DISTINCT f.path FROM sessions s JOIN files f ON f.id = s.file_id
                  WHERE s.key != {plain} AND NOT EXISTS (SELECT 1 FROM sessions p WHERE p.key = {plain})
                  ORDER BY f.path"""
        return [str(row[0]) for row in self.db.execute(sql)]

    def record_file_failure(
        self, db: sqlite3.Connection, path: str, kind: str, *, size: int, identity: dict[str, int], reason: str
    ) -> None:
        """Remember that a file could not be indexed (its earlier contents, if any, stay searchable). With size -1
        the next sync tries again; with the real size and `identity` (mtime_ns, dev, ino, ctime_ns) it waits until
        the file changes (nothing of it is left waiting to be read: parsed_bytes = size)."""
        if size < 0:
            self.upsert_file(db, path, kind, size=size, error=reason, **identity)
        else:
            self.upsert_file(db, path, kind, size=size, error=reason, parsed_bytes=size, **identity)

    # -- one file's contents ------------------------------------------------------------------------------

    def set_file_session(self, db: sqlite3.Connection, file_id: int, session_key: str | None) -> None:
        db.execute("UPDATE files SET session_key = ? WHERE id = ?", (session_key, file_id))

    def session_file(self, db: sqlite3.Connection, key: str) -> int | None:
        """The file a session key belongs to, or None when no session has that key."""
        row = db.execute("SELECT file_id FROM sessions WHERE key = ?", (key,)).fetchone()
        return None if row is None else int(row[0])

    def put_session(
        self,
        db: sqlite3.Connection,
        *,
        key: str,
        session_id: str,
        format_: str,
        file_id: int,
        parent_key: str | None,
        agent_id: str | None,
        cwd: str | None,
        title: str | None,
    ) -> None:
        db.execute(
            """INSERT OR REPLACE INTO sessions (key, session_id, format, file_id, parent_key, agent_id, cwd, title)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
            (key, session_id, format_, file_id, parent_key, agent_id, cwd, title),
        )

    def fill_session_cwd(self, db: sqlite3.Connection, key: str, cwd: str) -> None:
        """Give a session the folder an appended tail names when the lines read before named none (the first
        line that names one decides, as in one read of the whole file)."""
        db.execute("UPDATE sessions SET cwd = ? WHERE key = ? AND cwd IS NULL", (cwd, key))

    def refresh_session_activity(self, db: sqlite3.Connection, keys: Iterable[str | None] | None = None) -> None:
        """Work out again the messages and times of these sessions (`keys` None: of every session not worked out
        yet), from their units: what a write that added or removed some of their units must do before it commits.
        The units another file of the session keeps (catalog/copies.py) count there, not here."""
        if keys is None:
            parts = [[str(r[0]) for r in db.execute("SELECT key FROM sessions WHERE messages IS NULL")]]
        else:
            wanted = sorted({key for key in keys if key})
            parts = [wanted[start : start + 500] for start in range(0, len(wanted), 500)]
        for part in parts:
            if not part:
                continue
            marks = ",".join("?" * len(part))
            emptied = f"UPDATE sessions SET messages = 0, first_ts = NULL, last_ts = NULL WHERE key IN ({marks})"
            db.execute(emptied, part)  # those left without a unit keep no times
            db.execute(
                f"""UPDATE sessions SET messages = found.messages, first_ts = found.first, last_ts = found.last
                    FROM (SELECT session_key, SUM({COUNTED_MESSAGES}) AS messages, MIN(ts) AS first,
                                 MAX(ts) AS last
                          FROM units WHERE session_key IN ({marks}) AND kind != 'memory' AND shadowed = 0
                          GROUP BY session_key) AS found
                    WHERE sessions.key = found.session_key""",
                part,
            )

    def file_chunk_ids(self, db: sqlite3.Connection, file_id: int) -> list[int]:
        """A file's chunk ids in insertion (= file) order."""
        return [int(r[0]) for r in db.execute("SELECT id FROM chunks WHERE file_id = ? ORDER BY id", (file_id,))]

    def first_chunk_from(self, db: sqlite3.Connection, file_id: int, position: int) -> int | None:
        """The first chunk holding a unit at or after line `position` of the file."""
        sql = "SELECT MIN(chunk_id) FROM units WHERE file_id = ? AND position >= ?"
        found = db.execute(sql, (file_id, position)).fetchone()[0]
        return None if found is None else int(found)

    def last_seq(self, db: sqlite3.Connection, file_id: int) -> int:
        """The highest unit sequence number of a file (0 without units)."""
        return int(db.execute("SELECT COALESCE(MAX(seq), 0) FROM units WHERE file_id = ?", (file_id,)).fetchone()[0])

    def units_of_chunks(self, db: sqlite3.Connection, chunk_ids: Sequence[int]) -> list[sqlite3.Row]:
        """Every column of the units of these chunks, in sequence order."""
        marks = ",".join("?" * len(chunk_ids))
        return db.execute(
            f"SELECT * FROM plain_units WHERE chunk_id IN ({marks}) ORDER BY seq, id", list(chunk_ids)
        ).fetchall()

    def delete_chunks(self, db: sqlite3.Connection, chunk_ids: Sequence[int]) -> None:
        """Delete chunks and their units."""
        marks = ",".join("?" * len(chunk_ids))
        counted = f"SELECT format, kind, COUNT(*) FROM units WHERE chunk_id IN ({marks}) GROUP BY format, kind"
        _count_units(db, {(r[0], r[1]): r[2] for r in db.execute(counted, list(chunk_ids))}, sign=-1)
        db.execute(f"DELETE FROM units WHERE chunk_id IN ({marks})", list(chunk_ids))
        db.execute(f"DELETE FROM chunks WHERE id IN ({marks})", list(chunk_ids))

    def insert_chunks(self, db: sqlite3.Connection, rows: Sequence[ChunkRow]) -> list[int]:
        """Insert chunks in one statement; their ids, in order. The ids are the ones SQLite would give one row at a
        time (the highest id so far, plus one), chosen here so that a whole file is one `executemany`."""
        first = self._next_id(db, "chunks")
        db.executemany(
            """INSERT INTO chunks (id, file_id, kind, session_key, line_start, line_end, heading, ts_start, ts_end,
               message_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            [(first + i, *row) for i, row in enumerate(rows)],
        )
        return list(range(first, first + len(rows)))

    def insert_units(self, db: sqlite3.Connection, rows: Sequence[UnitRow]) -> list[int]:
        """Insert units in one statement (ids as `insert_chunks` gives them); their ids, in order."""
        first = self._next_id(db, "units")
        db.executemany(
            # waiting for a vector (vector_ready NULL) until the writer's mirror step gives it the row of its text,
            # if the vector file holds one (vector_writer.py), or it is embedded
            """INSERT INTO units (id, file_id, chunk_id, kind, format, session_key, message_id, role, ts, seq,
               position, line_end, uuid, text, embed_text_hash, error, queue_ts, part)
               VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)""",
            # the columns in UnitRow's order, the text as it is stored (compressed_text.py)
            [(first + i, *row[:_TEXT], self.texts.encode(row.text), *row[_TEXT + 1 :]) for i, row in enumerate(rows)],
        )
        _count_units(db, Counter((row.format, row.kind) for row in rows), sign=1)
        return list(range(first, first + len(rows)))

    def _next_id(self, db: sqlite3.Connection, table: str) -> int:
        return int(db.execute(f"SELECT COALESCE(MAX(id), 0) + 1 FROM {table}").fetchone()[0])


def as_read(unit_id: int, row: UnitRow, *, shadowed: bool = False) -> tuple[Any, ...]:
    """A unit just inserted as SQLite gives it back (INSERTED_COLUMNS): a REAL column's value a float (NaN is
    stored as NULL), `error` an integer, the derived facts and `vector_ready` not filled in yet (NULL), `shadowed` as
    the writer set it after the insert (catalog/copies.py)."""
    return (
        unit_id,
        *row[:_TS],
        _real(row.ts),
        *row[_TS + 1 : _HASH + 1],
        None,
        None,
        None,
        None,
        int(row.error),
        None,
        _real(row.queue_ts),
        row.part,
        int(shadowed),
    )


def _real(value: float | None) -> float | None:
    return None if value is None or value != value else float(value)


def _count_units(db: sqlite3.Connection, counted: Mapping[tuple[str, str], int], *, sign: int) -> None:
    """Add (sign 1) or take away (-1) units by (format, kind) in `unit_counts`, in the caller's transaction: a
    statement per kind written, where a trigger cost about 10 µs for each unit inserted (a tenth of a cold index)."""
    db.executemany(
        """INSERT INTO unit_counts (format, kind, units) VALUES (?, ?, ?)
           ON CONFLICT (format, kind) DO UPDATE SET units = units + excluded.units""",
        [(format_, kind, sign * n) for (format_, kind), n in counted.items()],
    )
