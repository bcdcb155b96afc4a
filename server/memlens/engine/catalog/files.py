"""Writes of the `files` table and of one file's contents (its sessions, chunks and units)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from typing import Any

from memlens.engine.catalog.connection import CatalogConnection
from memlens.engine.catalog.schema import FILE_COLUMNS, FileRow


class FileTables(CatalogConnection):
    """The `files` rows: what was read of each file, and where an append is re-parsed from."""

    def files(self, paths: Sequence[str] | None = None) -> dict[str, FileRow]:
        """Every catalogued file by path, or only those of `paths` (a watcher event touches a few)."""
        select = f"SELECT {FILE_COLUMNS} FROM files"
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

    def record_file_failure(
        self, db: sqlite3.Connection, path: str, kind: str, *, size: int, mtime_ns: int, reason: str
    ) -> None:
        """Remember that a file could not be indexed (its earlier contents, if any, stay searchable). With size -1
        the next sync tries again; with the real size and mtime it waits until the file changes."""
        self.upsert_file(db, path, kind, size=size, mtime_ns=mtime_ns, error=reason)
