"""The catalog's connections: one per thread, WAL so readers never block; transactions; the meta table.

A catalog that is not a database is set aside (kept beside it for a post-mortem) and a new one started; one written
by another schema version is rebuilt. Either way the source files can always be indexed again. Only the index's
writer does any of it: a reader (`writable=False`) changes nothing on disk, and raises `IndexNotReady` for a catalog
that is missing, half-made, unreadable or of another version (the writer is creating, repairing or rebuilding it).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from memlens.engine.catalog.compressed_text import TextCodec, plain_units_view
from memlens.engine.catalog.schema import (
    ADDED_COLUMNS,
    AFTER_ADDED_COLUMNS,
    BAD_LINE_VERSION,
    LEGACY_VECTOR_TABLES,
    LEGACY_VECTORS_VERSION,
    MIGRATED_VERSIONS,
    ON_COLUMN_ADDED,
    PARSE_VERSION,
    SCHEMA,
    SCHEMA_VERSION,
)
from memlens.errors import (
    IndexNotReady,
    IndexUnavailable,
    environmental_cause,
    unwritable_folder_cause,
    what_to_do,
)

log = logging.getLogger(__name__)

# Searches read a catalog of up to MMAP_BYTES through a memory map, not a read() and a copy per page: a first-pass
# keyword search at 150k units costs about 4 % less CPU. Mapped pages a search touched stay in the process's RSS
# (file-backed, but counted), and a search's rows lie anywhere in the file: mapped whole, a 980,000-message catalog
# (2.3 GB) left a process that searched it at 1.7 GB, and with its first 256 MB mapped the map served about a ninth
# of the reads and still held 207 MB of it resident. So a catalog larger than the map is not mapped at all: its
# pages are read into SQLite's own small cache and the OS's page cache, which no process is charged for. A
# connection decides when it opens (and when `unmapped()` ends), so one opened on a small catalog keeps at most
# MMAP_BYTES mapped as the catalog grows. The writer's bulk reads go `unmapped()`.
MMAP_BYTES = 256 << 20


def map_bytes(path: Path) -> int:
    """How much of the catalog at `path` a connection maps: all of it while it fits in MMAP_BYTES, else none."""
    try:
        size = path.stat().st_size
    except OSError:  # not created yet: SQLite makes it on connecting
        size = 0
    return MMAP_BYTES if size <= MMAP_BYTES else 0


class CatalogConnection:
    """Thread-safe access to the catalog database; the table groups in this package build on it."""

    def __init__(self, path: Path, *, writable: bool = True, read_only_folder: bool = False) -> None:
        """`writable`: this process holds the index's writer lock (write_access.py); a reader writes nothing.
        `read_only_folder` (a reader's): the index folder cannot be written (a read-only mount, a backup snapshot, a
        folder this user may only read): SQLite opens the catalog read-only, and immutable when it must (below)."""
        self.path = path
        self.writable = writable
        self._read_only = read_only_folder and not writable
        self._immutable = False
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._unit_columns: list[str] | None = None  # known once the schema is: the plain_units view lists them
        if not writable:
            self._open_as_reader()
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._open_schema()
        except sqlite3.DatabaseError as exc:  # not a database, or damaged: the files can always be indexed again
            # a folder SQLite may not write in, a full or failing disk: nothing is damaged, keep the catalog
            cause = unwritable_folder_cause(path.parent) or environmental_cause(exc)
            if cause is not None:
                raise IndexUnavailable(f"cannot open the index at {path.parent}: {cause}; {what_to_do(cause)}") from exc
            log.warning("catalog %s is unreadable (%s); starting a new one", path, exc)
            self.close()
            self._set_aside()
            self._open_schema()

    def _open_as_reader(self) -> None:
        """Open a catalog the writer made, as it is: one not made yet, half-made, unreadable or of another schema
        version raises `IndexNotReady` (SQLite would otherwise create the file, and the schema's statements write)."""
        try:  # a folder this user may not read: the OSError says so (errors.environmental_cause)
            if self.path.stat().st_size == 0:
                raise IndexNotReady("its catalog is being created")
        except FileNotFoundError:
            raise IndexNotReady("it has no catalog yet") from None
        try:
            self.texts = TextCodec(self._stored_dictionaries)
            version = self._first_read()
            if version != str(SCHEMA_VERSION):
                said = "is being created" if version is None else f"has schema {version}, not {SCHEMA_VERSION}"
                raise IndexNotReady(f"its catalog {said}")
            self._unit_columns = [str(row[1]) for row in self.db.execute("PRAGMA table_info(units)")]
            if any(name not in self._columns(table) for table, columns in ADDED_COLUMNS.items() for name, _ in columns):
                raise IndexNotReady("its catalog is being upgraded")
            self.db.execute(plain_units_view(self._unit_columns))
            self.texts.refresh(self.db.execute("SELECT id, data FROM text_dictionaries"))
        except sqlite3.DatabaseError as exc:  # not a database (yet), or a table not made yet: the writer's to repair
            self.close()
            cause = environmental_cause(exc)
            if cause is not None:
                where = self.path.parent
                raise IndexUnavailable(f"cannot open the index at {where}: {cause}; {what_to_do(cause)}") from exc
            raise IndexNotReady(f"its catalog is half-made or unreadable ({exc})") from exc
        except IndexNotReady:
            self.close()
            raise

    def _first_read(self) -> str | None:
        """The schema version; in a folder that cannot be written, read immutable when a read-only connection cannot
        open the catalog (a WAL catalog whose shared-memory file is missing and cannot be made: one its writer closed
        cleanly). Nothing writes the folder meanwhile; a commit left in a WAL file by a writer that did not close may
        go unseen."""
        try:
            return self.get_meta("schema_version")
        except sqlite3.OperationalError:
            if not self._read_only or self._immutable:
                raise
            self.close()
            self._immutable = True
            return self.get_meta("schema_version")

    def _columns(self, table: str) -> set[str]:
        return {str(row[1]) for row in self.db.execute(f"PRAGMA table_info({table})")}

    def _open_schema(self) -> None:
        """Create the tables, or start over when the catalog was written by another schema version."""
        # the dictionaries of compressed texts (compressed_text.py); a catalog started over must not keep another's
        self.texts = TextCodec(self._stored_dictionaries)
        self.db.executescript(SCHEMA)  # executescript commits on its own: keep it outside a transaction
        version = self.get_meta("schema_version")
        if version in MIGRATED_VERSIONS:  # what changed since needs no rewrite at open (schema.py)
            with self.transaction() as db:
                if version != str(LEGACY_VECTORS_VERSION):  # from before the units were counted (schema 4)
                    db.execute("DELETE FROM unit_counts")
                    db.execute(
                        "INSERT INTO unit_counts (format, kind, units)"
                        " SELECT format, kind, COUNT(*) FROM units GROUP BY format, kind"
                    )
                # a catalog whose vectors are still in its `vectors` table says so until they are moved
                legacy = self._has_table(db, "vectors")
                self.set_meta(db, "schema_version", str(LEGACY_VECTORS_VERSION if legacy else SCHEMA_VERSION))
        elif version is not None and version != str(SCHEMA_VERSION):
            log.warning("catalog %s has schema %s, not %s; rebuilding it", self.path, version, SCHEMA_VERSION)
            self.db.executescript(
                "DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS sessions;"
                "DROP TABLE IF EXISTS chunks; DROP TABLE IF EXISTS units; DROP TABLE IF EXISTS words;"
                "DROP TABLE IF EXISTS aliases; DROP TABLE IF EXISTS text_dictionaries;"
                "DROP TABLE IF EXISTS unit_counts; DROP TABLE IF EXISTS word_forms; DROP TABLE IF EXISTS words_leaving;"
                + LEGACY_VECTOR_TABLES
                + SCHEMA
            )
        with self.transaction() as db:
            db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            for table, columns in ADDED_COLUMNS.items():
                present = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
                for name, sql_type in columns:
                    if name not in present:
                        db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {sql_type}")
                        if (table, name) in ON_COLUMN_ADDED:
                            db.execute(ON_COLUMN_ADDED[table, name])
        self.db.executescript(AFTER_ADDED_COLUMNS)
        self._unit_columns = [str(row[1]) for row in self.db.execute("PRAGMA table_info(units)")]
        self.db.execute(plain_units_view(self._unit_columns))
        self.texts.refresh(self.db.execute("SELECT id, data FROM text_dictionaries"))
        self.reparse_after_parser_change()
        self.reparse_bad_lines_after_parser_change()

    @staticmethod
    def _has_table(db: sqlite3.Connection, name: str) -> bool:
        return (
            db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None
        )

    def _stored_dictionaries(self) -> list[tuple[int, bytes]]:
        """(number, bytes) of every stored text dictionary, read on a connection of its own: asked while a
        statement of this thread's connection runs (the `plain` function met a dictionary it did not know)."""
        conn = self._connect()
        try:
            return [(int(n), bytes(d)) for n, d in conn.execute("SELECT id, data FROM text_dictionaries")]
        finally:
            conn.close()

    def reparse_after_parser_change(self) -> None:
        """Files parsed by other parsers (PARSE_VERSION) read as changed, so the next sync parses each whole again."""
        if self.get_meta("parse_version") == str(PARSE_VERSION):
            return
        with self.transaction() as db:
            db.execute("UPDATE files SET mtime_ns = 0, head_hash = '', resume_bytes = 0, resume_line = 1")
            self.set_meta(db, "parse_version", str(PARSE_VERSION))
            self.set_meta(db, "bad_line_version", str(BAD_LINE_VERSION))

    def reparse_bad_lines_after_parser_change(self) -> None:
        """Files whose parse said a problem of a line (a skipped line, a torn write: `files.error` keeps the reasons)
        read as changed when the parsers read more of a line that is not JSON as a whole (BAD_LINE_VERSION): only
        those files can hold what is read now, so an index re-reads them alone, not every file."""
        if self.get_meta("bad_line_version") == str(BAD_LINE_VERSION):
            return
        with self.transaction() as db:
            db.execute(
                "UPDATE files SET mtime_ns = 0, head_hash = '', resume_bytes = 0, resume_line = 1"
                " WHERE bad_lines > 0 OR error IS NOT NULL"
            )
            self.set_meta(db, "bad_line_version", str(BAD_LINE_VERSION))

    def _set_aside(self) -> None:
        """Move a damaged catalog (and its WAL files) out of the way, keeping it for a post-mortem."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        for suffix in ("", "-wal", "-shm"):
            damaged = Path(f"{self.path}{suffix}")
            if damaged.exists():
                damaged.replace(Path(f"{self.path}.damaged-{stamp}{suffix}"))

    def _connect(self, *, shared: bool = False) -> sqlite3.Connection:
        """A connection to the catalog (`shared`: a thread's, autocommit, any thread may close it); a reader's
        never creates the file (gone since it looked: set aside by the writer)."""
        target = str(self.path) if self.writable else f"{self.path.absolute().as_uri()}?{self._uri_options()}"
        if shared:
            return sqlite3.connect(
                target, timeout=30.0, uri=not self.writable, isolation_level=None, check_same_thread=False
            )
        return sqlite3.connect(target, timeout=30.0, uri=not self.writable)

    def _uri_options(self) -> str:
        if self._immutable:
            return "mode=ro&immutable=1"
        return "mode=ro" if self._read_only else "mode=rw"

    @property
    def db(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect(shared=True)
            conn.row_factory = sqlite3.Row
            if self.writable:  # the writer made the catalog WAL, which a database keeps: a reader's would be a write
                conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=OFF")
            conn.execute(f"PRAGMA mmap_size={map_bytes(self.path)}")
            conn.create_function("plain", 1, self.texts.decode, deterministic=True)
            if self._unit_columns is not None:
                conn.execute(plain_units_view(self._unit_columns))
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

    @contextmanager
    def unmapped(self) -> Iterator[None]:
        """This thread's reads come from the file, not the memory map, while a writer's bulk work runs: a rewrite
        reading every unit would otherwise hold every page it read as resident (file-backed) memory until the map
        is dropped. Nests; the map is back when the outermost one ends."""
        depth: int = getattr(self._local, "unmapped", 0)
        if depth == 0:
            self.db.execute("PRAGMA mmap_size=0")
        self._local.unmapped = depth + 1
        try:
            yield
        finally:
            self._local.unmapped = depth
            conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
            if depth == 0 and conn is not None:  # after close(), none: a connection opened later maps from the start
                conn.execute(f"PRAGMA mmap_size={map_bytes(self.path)}")

    @contextmanager
    def savepoint(self, db: sqlite3.Connection) -> Iterator[None]:
        """A nested transaction inside `transaction()`: an exception undoes only what was written inside it."""
        db.execute("SAVEPOINT part")
        try:
            yield
        except BaseException:
            db.execute("ROLLBACK TO part")
            db.execute("RELEASE part")
            raise
        db.execute("RELEASE part")

    def close(self) -> None:
        """Close every thread's connection (threads that use the catalog later open a new one)."""
        with self._connections_lock:
            connections, self._connections = self._connections, []
        for conn in connections:
            conn.close()
        self._local = threading.local()

    def get_meta(self, key: str, db: sqlite3.Connection | None = None) -> str | None:
        row = (db or self.db).execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def meta_values(self, keys: Sequence[str]) -> dict[str, str | None]:
        """Several meta values in one statement (None for a key not set); every search asks this."""
        marks = ",".join("?" * len(keys))
        found = dict(self._tuples(f"SELECT key, value FROM meta WHERE key IN ({marks})", list(keys)))
        return {key: found.get(key) for key in keys}

    def _tuples(self, sql: str, params: Sequence[object]) -> sqlite3.Cursor:
        """The rows of `sql` as plain tuples, for the per-search reads: an sqlite3.Row per row (the connection's
        row factory) costs more than reading the row."""
        cursor = self.db.cursor()
        cursor.row_factory = None
        return cursor.execute(sql, params)

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
