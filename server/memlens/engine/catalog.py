"""The SQLite catalog: the source of truth for files, sessions, chunks, search units and cached vectors.

A *unit* is what gets one BM25 document and one vector: a memory chunk, or one transcript message or summary.
A *chunk* is what a search result shows: a memory section, or a run of consecutive messages of one session.
tantivy and the in-memory vector matrix are derived from these tables and can always be rebuilt from them.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from memlens.errors import is_disk_full

log = logging.getLogger(__name__)

_TABLES = frozenset({"meta", "files", "sessions", "chunks", "units", "vectors"})
# summary units with their session's id, format and cwd and their file's path
_SUMMARY_SQL = """SELECT u.*, s.session_id AS session_id, s.format AS session_format, s.cwd AS cwd, f.path AS path
              FROM units u JOIN files f ON f.id = u.file_id LEFT JOIN sessions s ON s.key = u.session_key
              WHERE u.kind = 'summary'"""

SCHEMA_VERSION = 2  # 2: files rows keep where an appended tail is re-parsed from, and orphaned counts

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,               -- memory | transcript
    format TEXT NOT NULL DEFAULT '',  -- markdown | claude-code | codex | openclaw | specstory
    size INTEGER NOT NULL DEFAULT 0,
    mtime_ns INTEGER NOT NULL DEFAULT 0,
    head_hash TEXT NOT NULL DEFAULT '',
    parsed_bytes INTEGER NOT NULL DEFAULT 0,
    next_line INTEGER NOT NULL DEFAULT 1,
    session_key TEXT,
    leaf_uuid TEXT,
    bad_lines INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    synced_at REAL,
    resume_line INTEGER NOT NULL DEFAULT 1,   -- an append is parsed again from this line (it may continue a message)
    resume_bytes INTEGER NOT NULL DEFAULT 0,  -- ... at this byte offset; 0 = re-parse the whole file
    anchor_ids TEXT NOT NULL DEFAULT '[]',    -- JSON: parent ids an appended record may name (sources.base)
    orphaned INTEGER NOT NULL DEFAULT 0       -- messages kept by the broken-chain rule (sources.branches)
);
CREATE TABLE IF NOT EXISTS sessions (
    key TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    format TEXT NOT NULL,
    file_id INTEGER NOT NULL,
    parent_key TEXT,
    agent_id TEXT,
    cwd TEXT,
    title TEXT
);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    kind TEXT NOT NULL,               -- memory | transcript | summary
    session_key TEXT,
    line_start INTEGER,
    line_end INTEGER,
    heading TEXT,
    ts_start REAL,
    ts_end REAL,
    message_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_id);
CREATE TABLE IF NOT EXISTS units (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    chunk_id INTEGER NOT NULL,
    kind TEXT NOT NULL,               -- memory | transcript | summary
    format TEXT NOT NULL DEFAULT '',
    session_key TEXT,
    message_id TEXT,
    role TEXT,
    ts REAL,
    seq INTEGER NOT NULL DEFAULT 0,   -- order within the session (transcripts) or file (memory)
    position INTEGER,                 -- line in the source file
    line_end INTEGER,
    uuid TEXT,
    text TEXT NOT NULL,               -- what is shown and keyword-indexed
    embed_text_hash TEXT NOT NULL     -- key into vectors: sha1 of the embedded text
);
CREATE INDEX IF NOT EXISTS units_file ON units(file_id);
CREATE INDEX IF NOT EXISTS units_chunk ON units(chunk_id);
CREATE INDEX IF NOT EXISTS units_session ON units(session_key, seq);
CREATE INDEX IF NOT EXISTS units_hash ON units(embed_text_hash);
CREATE TABLE IF NOT EXISTS vectors (hash TEXT PRIMARY KEY, model TEXT NOT NULL, vec BLOB NOT NULL);
"""


@dataclass(slots=True)
class FileRow:
    """A `files` row (fields in `_FILE_COLUMNS` order)."""

    id: int
    path: str
    kind: str
    format: str
    size: int
    mtime_ns: int
    head_hash: str
    parsed_bytes: int
    next_line: int
    session_key: str | None
    leaf_uuid: str | None
    bad_lines: int
    error: str | None
    resume_line: int = 1
    resume_bytes: int = 0
    anchor_ids: str = "[]"
    orphaned: int = 0


_FILE_COLUMNS = ", ".join(f.name for f in fields(FileRow))


class Catalog:
    """Thread-safe access to the catalog database: one connection per thread, WAL so readers never block."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        try:
            self._open_schema()
        except sqlite3.DatabaseError as exc:  # not a database, or damaged: the files can always be indexed again
            if is_disk_full(exc):
                raise
            log.warning("catalog %s is unreadable (%s); starting a new one", path, exc)
            self.close()
            self._set_aside()
            self._open_schema()

    def _open_schema(self) -> None:
        """Create the tables, or start over when the catalog was written by another schema version."""
        self.db.executescript(_SCHEMA)  # executescript commits on its own: keep it outside a transaction
        version = self.get_meta("schema_version")
        if version is not None and version != str(SCHEMA_VERSION):
            log.warning("catalog %s has schema %s, not %s; rebuilding it", self.path, version, SCHEMA_VERSION)
            self.db.executescript(
                "DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS sessions;"
                "DROP TABLE IF EXISTS chunks; DROP TABLE IF EXISTS units; DROP TABLE IF EXISTS vectors;" + _SCHEMA
            )
        with self.transaction() as db:
            db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))

    def _set_aside(self) -> None:
        """Move a damaged catalog (and its WAL files) out of the way, keeping it for a post-mortem."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        for suffix in ("", "-wal", "-shm"):
            damaged = Path(f"{self.path}{suffix}")
            if damaged.exists():
                damaged.replace(Path(f"{self.path}.damaged-{stamp}{suffix}"))

    @property
    def db(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=OFF")
            self._local.conn = conn
            with self._connections_lock:
                self._connections.append(conn)
        return conn

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def close(self) -> None:
        """Close every thread's connection (threads that use the catalog later open a new one)."""
        with self._connections_lock:
            connections, self._connections = self._connections, []
        for conn in connections:
            conn.close()
        self._local = threading.local()

    # -- meta ---------------------------------------------------------------------------------------------

    def get_meta(self, key: str, db: sqlite3.Connection | None = None) -> str | None:
        row = (db or self.db).execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, db: sqlite3.Connection, key: str, value: str) -> None:
        db.execute(
            "INSERT INTO meta VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def generation(self) -> int:
        return int(self.get_meta("generation") or 0)

    def bump_generation(self, db: sqlite3.Connection) -> int:
        generation = int(self.get_meta("generation", db=db) or 0) + 1
        self.set_meta(db, "generation", str(generation))
        self.set_meta(db, "last_sync", str(time.time()))
        return generation

    # -- files --------------------------------------------------------------------------------------------

    def files(self, paths: Sequence[str] | None = None) -> dict[str, FileRow]:
        """Every catalogued file by path, or only those of `paths` (a watcher event touches a few)."""
        select = f"SELECT {_FILE_COLUMNS} FROM files"
        if paths is None:
            rows = self.db.execute(select).fetchall()
        else:
            rows = []
            for start in range(0, len(paths), 500):
                part = list(paths[start : start + 500])
                rows += self.db.execute(f"{select} WHERE path IN ({','.join('?' * len(part))})", part).fetchall()
        return {row[1]: FileRow(*row) for row in rows}

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

    def purge_file_contents(self, db: sqlite3.Connection, file_id: int) -> list[int]:
        """Delete a file's chunks, units and sessions; return the deleted unit ids."""
        unit_ids = [r[0] for r in db.execute("SELECT id FROM units WHERE file_id = ?", (file_id,))]
        db.execute("DELETE FROM units WHERE file_id = ?", (file_id,))
        db.execute("DELETE FROM chunks WHERE file_id = ?", (file_id,))
        db.execute("DELETE FROM sessions WHERE file_id = ?", (file_id,))
        return unit_ids

    def delete_file(self, db: sqlite3.Connection, file_id: int) -> list[int]:
        unit_ids = self.purge_file_contents(db, file_id)
        db.execute("DELETE FROM files WHERE id = ?", (file_id,))
        return unit_ids

    def mark_all_for_reparse(self, db: sqlite3.Connection) -> None:
        """Make the next sync read every file again from its first byte (reindex --full, redaction changes)."""
        db.execute("UPDATE files SET size = -1, parsed_bytes = 0")

    def drop_unused_vectors(self, db: sqlite3.Connection) -> int:
        cursor = db.execute("DELETE FROM vectors WHERE hash NOT IN (SELECT embed_text_hash FROM units)")
        return cursor.rowcount

    # -- vectors ------------------------------------------------------------------------------------------

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

    # -- reading ------------------------------------------------------------------------------------------

    def units_by_id(self, ids: Sequence[int]) -> dict[int, sqlite3.Row]:
        if not ids:
            return {}
        rows: dict[int, sqlite3.Row] = {}
        for start in range(0, len(ids), 500):
            part = list(ids[start : start + 500])
            marks = ",".join("?" * len(part))
            for row in self.db.execute(f"SELECT * FROM units WHERE id IN ({marks})", part):
                rows[int(row["id"])] = row
        return rows

    def chunks_by_id(self, ids: Sequence[int]) -> dict[int, sqlite3.Row]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        sql = f"""SELECT c.*, f.path AS path, f.format AS file_format FROM chunks c
                  JOIN files f ON f.id = c.file_id WHERE c.id IN ({marks})"""
        return {int(r["id"]): r for r in self.db.execute(sql, list(ids))}

    def result_rows(self, unit_ids: Sequence[int]) -> dict[int, sqlite3.Row]:
        """What a search result shows of each unit, with its chunk, file and session, in one query. Columns: the
        unit's (`unit_id`, text, message_id, role, ts, position), the chunk's (`id`, kind, session_key, line_start,
        line_end, heading, message_count), the file's (`path`, `file_format`) and the session's (`session_found`,
        NULL without a session row; session_id, cwd, parent_key)."""
        rows: dict[int, sqlite3.Row] = {}
        for start in range(0, len(unit_ids), 500):
            part = list(unit_ids[start : start + 500])
            marks = ",".join("?" * len(part))
            sql = f"""SELECT u.id AS unit_id, u.text, u.message_id, u.role, u.ts, u.position,
                             c.id, c.kind, c.session_key, c.line_start, c.line_end, c.heading, c.message_count,
                             f.path, f.format AS file_format,
                             s.key AS session_found, s.session_id, s.cwd, s.parent_key
                      FROM units u JOIN chunks c ON c.id = u.chunk_id JOIN files f ON f.id = c.file_id
                      LEFT JOIN sessions s ON s.key = c.session_key
                      WHERE u.id IN ({marks})"""
            rows.update((int(r["unit_id"]), r) for r in self.db.execute(sql, part))
        return rows

    def count(self, table: str) -> int:
        """Rows in one of the catalog's tables."""
        if table not in _TABLES:
            raise ValueError(f"not a catalog table: {table!r}")
        return int(self.db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])

    def session_cwds(self) -> dict[str, str]:
        """The cwd each indexed session recorded, by its file's path."""
        sql = "SELECT f.path, s.cwd FROM files f JOIN sessions s ON s.file_id = f.id WHERE s.cwd IS NOT NULL"
        return {str(row[0]): str(row[1]) for row in self.db.execute(sql)}

    def embedding_backlog(self, model: str) -> tuple[int, int]:
        """(chunks with a unit lacking a vector for `model`, transcript units lacking one)."""
        rows = self.db.execute(
            """SELECT u.chunk_id, u.kind FROM units u LEFT JOIN vectors v
               ON v.hash = u.embed_text_hash AND v.model = ? WHERE v.hash IS NULL""",
            (model,),
        ).fetchall()
        return len({r[0] for r in rows}), sum(1 for r in rows if r[1] != "memory")

    def files_by_format(self) -> dict[str, int]:
        return {str(k): int(v) for k, v in self.db.execute("SELECT format, COUNT(*) FROM files GROUP BY format")}

    def messages_by_format(self) -> dict[str, int]:
        sql = "SELECT format, COUNT(*) FROM units WHERE kind != 'memory' GROUP BY format"
        return {str(k): int(v) for k, v in self.db.execute(sql)}

    def total_bad_lines(self) -> int:
        return int(self.db.execute("SELECT COALESCE(SUM(bad_lines), 0) FROM files").fetchone()[0])

    def total_orphaned(self) -> int:
        """Messages kept only by the broken-chain rule (their parent link led nowhere)."""
        return int(self.db.execute("SELECT COALESCE(SUM(orphaned), 0) FROM files").fetchone()[0])

    def file_problems(self, limit: int) -> list[dict[str, Any]]:
        """Files with skipped lines or a failure, most skipped lines first: what `stats` lists as `fileErrors`."""
        rows = self.db.execute(
            """SELECT path, bad_lines, error FROM files WHERE error IS NOT NULL OR bad_lines > 0
               ORDER BY bad_lines DESC, path LIMIT ?""",
            (limit,),
        ).fetchall()
        return [
            {"path": row[0], "badLines": int(row[1]), "reasons": str(row[2]).split("\n") if row[2] else []}
            for row in rows
        ]

    def count_file_problems(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM files WHERE error IS NOT NULL OR bad_lines > 0").fetchone()[0])

    def record_file_failure(
        self, db: sqlite3.Connection, path: str, kind: str, *, size: int, mtime_ns: int, reason: str
    ) -> None:
        """Remember that a file could not be indexed (its earlier contents, if any, stay searchable). With size -1
        the next sync tries again; with the real size and mtime it waits until the file changes."""
        self.upsert_file(db, path, kind, size=size, mtime_ns=mtime_ns, error=reason)

    def chunk_texts(self, chunk_id: int) -> list[str]:
        """The texts of a chunk's units, in order."""
        rows = self.db.execute("SELECT text FROM units WHERE chunk_id = ? ORDER BY seq", (chunk_id,))
        return [str(r[0]) for r in rows]

    def message_seq(self, session_key: str, message_id: str) -> int | None:
        """Where a message sits in its session (its first unit), or None when it is not in that session."""
        row = self.db.execute(
            "SELECT MIN(seq) FROM units WHERE session_key = ? AND message_id = ?", (session_key, message_id)
        ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def session_units(
        self, session_key: str, *, before: int | None = None, after: int | None = None, count: int
    ) -> list[sqlite3.Row]:
        """Up to `count` units of a session in order: the last ones before `before` (None: the session's end),
        or with `after` the first ones after it."""
        if count <= 0:
            return []
        if after is not None:
            sql = "SELECT * FROM units WHERE session_key = ? AND seq > ? ORDER BY seq LIMIT ?"
            return self.db.execute(sql, (session_key, after, count)).fetchall()
        bound = before if before is not None else 2**62
        sql = "SELECT * FROM units WHERE session_key = ? AND seq < ? ORDER BY seq DESC LIMIT ?"
        return self.db.execute(sql, (session_key, bound, count)).fetchall()[::-1]

    def units_outside(self, session_key: str, first: int, last: int) -> tuple[bool, bool]:
        """Whether the session has units before `first` and after `last`."""
        row = self.db.execute(
            "SELECT SUM(seq < ?), SUM(seq > ?) FROM units WHERE session_key = ?", (first, last, session_key)
        ).fetchone()
        return bool(row[0]), bool(row[1])

    def sessions_with_message(self, message_id: str) -> list[sqlite3.Row]:
        """The sessions holding a message id (ids are unique per session, rarely across sessions)."""
        sql = """SELECT s.*, f.path AS path FROM sessions s JOIN files f ON f.id = s.file_id
                 WHERE s.key IN (SELECT DISTINCT session_key FROM units WHERE message_id = ? LIMIT 5)"""
        return self.db.execute(sql, (message_id,)).fetchall()

    def summary_units(self) -> list[sqlite3.Row]:
        """Every summary unit with its session's id, format and cwd and its file's path, newest first."""
        return self.db.execute(_SUMMARY_SQL + " ORDER BY u.ts IS NULL, u.ts DESC, u.id DESC").fetchall()

    def summary_unit(self, chunk_id: int) -> sqlite3.Row | None:
        """The summary unit of a chunk (as `summary_units` gives it), or None."""
        row: sqlite3.Row | None = self.db.execute(
            _SUMMARY_SQL + " AND u.chunk_id = ? ORDER BY u.seq LIMIT 1", (chunk_id,)
        ).fetchone()
        return row

    def messages_before_summary(self, session_key: str, seq: int) -> list[sqlite3.Row]:
        """A session's messages between its previous summary (exclusive) and the one at `seq`, oldest first."""
        previous = self.db.execute(
            "SELECT MAX(seq) FROM units WHERE session_key = ? AND kind = 'summary' AND seq < ?", (session_key, seq)
        ).fetchone()[0]
        sql = "SELECT * FROM units WHERE session_key = ? AND kind != 'summary' AND seq < ? AND seq > ? ORDER BY seq"
        return self.db.execute(sql, (session_key, seq, -1 if previous is None else int(previous))).fetchall()

    def session(self, key: str) -> sqlite3.Row | None:
        sql = "SELECT s.*, f.path AS path FROM sessions s JOIN files f ON f.id = s.file_id WHERE s.key = ?"
        row: sqlite3.Row | None = self.db.execute(sql, (key,)).fetchone()
        return row

    def sessions(self, keys: Sequence[str]) -> dict[str, sqlite3.Row]:
        """Several sessions in one query (result building), by key."""
        rows: dict[str, sqlite3.Row] = {}
        for start in range(0, len(keys), 500):
            part = list(keys[start : start + 500])
            marks = ",".join("?" * len(part))
            sql = f"""SELECT s.*, f.path AS path FROM sessions s JOIN files f ON f.id = s.file_id
                      WHERE s.key IN ({marks})"""
            rows.update((str(r["key"]), r) for r in self.db.execute(sql, part))
        return rows

    # -- session overviews (engine.sessions) ------------------------------------------------------------------

    def all_sessions(self) -> list[sqlite3.Row]:
        """Every session with its file's path (visibility is applied by the caller)."""
        sql = "SELECT s.*, f.path AS path FROM sessions s JOIN files f ON f.id = s.file_id"
        return list(self.db.execute(sql).fetchall())

    def session_activity(self) -> dict[str, tuple[int, float | None, float | None]]:
        """Per session key: (messages, first time, last time), counting transcript messages (not summaries)."""
        rows = self.db.execute(
            """SELECT session_key, SUM(kind = 'transcript'), MIN(ts), MAX(ts) FROM units
               WHERE session_key IS NOT NULL AND kind != 'memory' GROUP BY session_key"""
        )
        return {str(r[0]): (int(r[1] or 0), r[2], r[3]) for r in rows}

    def first_user_texts(self, keys: Sequence[str], max_chars: int = 400) -> dict[str, str]:
        """The beginning of each session's first non-empty user message."""
        found: dict[str, str] = {}
        for start in range(0, len(keys), 500):
            part = list(keys[start : start + 500])
            marks = ",".join("?" * len(part))
            sql = f"""WITH firsts AS (
                          SELECT session_key, MIN(seq) AS seq FROM units
                          WHERE session_key IN ({marks}) AND role = 'user' AND kind = 'transcript'
                                AND length(trim(text)) > 0
                          GROUP BY session_key)
                      SELECT u.session_key, substr(u.text, 1, ?) FROM units u
                      JOIN firsts f ON u.session_key = f.session_key AND u.seq = f.seq"""
            found.update((str(r[0]), str(r[1])) for r in self.db.execute(sql, [*part, max_chars]))
        return found

    def short_summaries(self, keys: Sequence[str], max_chars: int = 200) -> dict[str, str]:
        """Each session's first one-line summary no longer than `max_chars` (Claude Code's `summary` titles, not
        multi-paragraph compaction summaries)."""
        found: dict[str, str] = {}
        for start in range(0, len(keys), 500):
            part = list(keys[start : start + 500])
            marks = ",".join("?" * len(part))
            sql = f"""SELECT session_key, text FROM units
                      WHERE session_key IN ({marks}) AND kind = 'summary' AND length(text) <= ?
                            AND instr(trim(text), char(10)) = 0 AND length(trim(text)) > 0
                      ORDER BY session_key, seq"""
            for row in self.db.execute(sql, [*part, max_chars]):
                found.setdefault(str(row[0]), str(row[1]).strip())
        return found

    def tool_call_texts(self, key: str, limit: int = 5000) -> list[str]:
        """The texts of a session's assistant messages that carry tool calls (`[Name] input` lines), oldest first."""
        rows = self.db.execute(
            """SELECT text FROM units WHERE session_key = ? AND role = 'assistant' AND kind = 'transcript'
                   AND (text LIKE '[%' OR instr(text, char(10) || '[') > 0)
               ORDER BY seq LIMIT ?""",
            (key, limit),
        )
        return [str(r[0]) for r in rows]
