"""The `roots` table: the folders an index was built from (workspaces, transcript folders, agent folders).

They are remembered so that a command naming fewer folders neither removes nor hides the files of the others; only
an explicit removal forgets one (engine/indexing/source_roots.py decides what is named and what is remembered)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass

from memlens.engine.catalog.connection import CatalogConnection


@dataclass(frozen=True, slots=True)
class RootRow:
    """One remembered folder: `kind` memory (a workspace's notes), transcripts (a folder read whole) or agent (an
    agent's default folder; `whole` False = only sessions run in the workspace were taken)."""

    path: str
    kind: str
    whole: bool
    added_from: str


@dataclass(frozen=True, slots=True)
class RootCounts:
    files: int
    units: int


class RootTables(CatalogConnection):
    """Reads and writes of the remembered folders."""

    def roots(self) -> list[RootRow]:
        rows = self._tuples("SELECT path, kind, whole, added_from FROM roots ORDER BY path", ())
        return [RootRow(str(r[0]), str(r[1]), bool(r[2]), str(r[3])) for r in rows]

    def remember_roots(self, db: sqlite3.Connection, roots: Sequence[RootRow]) -> None:
        """Record each folder once: a folder already known keeps where it was first added from, and an agent
        folder once read whole stays whole (a narrower scope hides sessions, it does not remove them)."""
        now = time.time()
        for root in roots:
            db.execute(
                """INSERT INTO roots (path, kind, whole, added_from, added_at) VALUES (?, ?, ?, ?, ?)
                   ON CONFLICT(path) DO UPDATE SET whole = MAX(whole, excluded.whole)""",
                (root.path, root.kind, int(root.whole), root.added_from, now),
            )

    def forget_root(self, db: sqlite3.Connection, path: str) -> bool:
        return db.execute("DELETE FROM roots WHERE path = ?", (path,)).rowcount > 0

    def files_under(self, folder: str) -> list[str]:
        """The catalogued files below `folder`, by path."""
        low, high = _prefix_range(folder)
        return [str(r[0]) for r in self._tuples("SELECT path FROM files WHERE path >= ? AND path < ?", (low, high))]

    def counts_under(self, folder: str) -> RootCounts:
        """How many files, and search units, the index holds below `folder`."""
        low, high = _prefix_range(folder)
        row = self._tuples(
            """SELECT COUNT(*), COALESCE(SUM((SELECT COUNT(*) FROM units u WHERE u.file_id = f.id)), 0)
               FROM files f WHERE f.path >= ? AND f.path < ?""",
            (low, high),
        ).fetchone()
        return RootCounts(int(row[0]), int(row[1]))


def _prefix_range(folder: str) -> tuple[str, str]:
    """The range of path strings below `folder` ('/' sorts just before '0')."""
    base = folder.rstrip("/")
    return base + "/", base + "0"
