"""Counts for `memlens stats`: rows, formats, skipped lines and files with problems."""

from __future__ import annotations

from memlens.engine.catalog.connection import CatalogConnection
from memlens.engine.catalog.schema import TABLES
from memlens.wire import FileError

NO_FORMAT = "kind = 'transcript' AND format = '' AND error IS NULL"  # read, and no parser recognised it
EMPTY = "(empty = 1 OR size = 0)"


class CatalogStats(CatalogConnection):
    """What the index holds, counted."""

    def count(self, table: str) -> int:
        """Rows in one of the catalog's tables."""
        if table not in TABLES:
            raise ValueError(f"not a catalog table: {table!r}")
        return int(self.db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])

    def session_cwds(self) -> dict[str, str]:
        """The cwd each indexed session recorded, by its file's path."""
        sql = "SELECT f.path, s.cwd FROM files f JOIN sessions s ON s.file_id = f.id WHERE s.cwd IS NOT NULL"
        return {str(row[0]): str(row[1]) for row in self.db.execute(sql)}

    def session_cwd(self, path: str) -> str | None:
        """The cwd the session of one indexed file recorded (None: none recorded, or not indexed)."""
        sql = """SELECT s.cwd FROM files f JOIN sessions s ON s.file_id = f.id
                 WHERE f.path = ? AND s.cwd IS NOT NULL ORDER BY s.rowid DESC LIMIT 1"""
        row = self.db.execute(sql, (path,)).fetchone()
        return None if row is None else str(row[0])

    def files_by_format(self) -> dict[str, int]:
        return {str(k): int(v) for k, v in self.db.execute("SELECT format, COUNT(*) FROM files GROUP BY format")}

    def count_files_of_format(self, format_: str) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM files WHERE format = ?", (format_,)).fetchone()[0])

    def total_bad_lines(self) -> int:
        return int(self.db.execute("SELECT COALESCE(SUM(bad_lines), 0) FROM files").fetchone()[0])

    def total_replaced(self) -> int:
        """Characters read as U+FFFD (invalid bytes, NULs, lone surrogates) in the messages and notes kept."""
        return int(self.db.execute("SELECT COALESCE(SUM(replaced), 0) FROM files").fetchone()[0])

    def total_orphaned(self) -> int:
        """Messages kept only by the broken-chain rule (their parent link led nowhere)."""
        return int(self.db.execute("SELECT COALESCE(SUM(orphaned), 0) FROM files").fetchone()[0])

    def file_problems(self, limit: int) -> list[FileError]:
        """Files with skipped lines, replaced bytes or a failure, most skipped lines first: what `stats` lists as
        `fileErrors`."""
        rows = self.db.execute(
            """SELECT path, bad_lines, error, replaced FROM files WHERE error IS NOT NULL OR bad_lines > 0
               OR replaced > 0 ORDER BY bad_lines DESC, replaced DESC, path LIMIT ?""",
            (limit,),
        ).fetchall()
        return [
            {
                "path": row[0],
                "badLines": int(row[1]),
                "replaced": int(row[3]),
                "reasons": str(row[2]).split("\n") if row[2] else [],
            }
            for row in rows
        ]

    def unrecognised_files(self, limit: int) -> tuple[int, list[str]]:
        """(how many, the first `limit` paths by name) of the files found among transcripts that no parser recognised:
        they hold nothing searchable, and a transcript written by a tool version memlens does not know yet would
        otherwise vanish without a word. A file that could not be read at all is a problem (`file_problems`), not one
        of these."""
        where = f"FROM files WHERE {NO_FORMAT} AND NOT {EMPTY}"
        count = int(self.db.execute(f"SELECT COUNT(*) {where}").fetchone()[0])
        paths = [str(r[0]) for r in self.db.execute(f"SELECT path {where} ORDER BY path LIMIT ?", (limit,))]
        return count, paths

    def empty_files(self, limit: int) -> tuple[int, list[str]]:
        """(how many, the first `limit` paths by name) of the transcripts that hold nothing yet (no bytes, blank
        space, the start of a first line): what a truncation or an agent that has not written yet leaves, not a
        format memlens cannot read. A row from before the column counts when it recorded no bytes."""
        where = f"FROM files WHERE {NO_FORMAT} AND {EMPTY}"
        count = int(self.db.execute(f"SELECT COUNT(*) {where}").fetchone()[0])
        paths = [str(r[0]) for r in self.db.execute(f"SELECT path {where} ORDER BY path LIMIT ?", (limit,))]
        return count, paths

    def count_file_problems(self) -> int:
        sql = "SELECT COUNT(*) FROM files WHERE error IS NOT NULL OR bad_lines > 0 OR replaced > 0"
        return int(self.db.execute(sql).fetchone()[0])
