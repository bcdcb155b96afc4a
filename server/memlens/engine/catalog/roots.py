"""The `roots` table: the folders an index was built from (workspaces, transcript folders, agent folders).

They are remembered so that a command naming fewer folders neither removes nor hides the files of the others; only
an explicit removal forgets one (engine/indexing/source_roots.py decides what is named and what is remembered)."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from memlens.engine.catalog.connection import CatalogConnection

log = logging.getLogger(__name__)

ROOTS_COPY = "roots.json"


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

    def save_roots_copy(self) -> None:
        """Write the table to `roots.json` beside the catalog (after each change): a damaged catalog is set aside and
        started anew (connection.py), and the folders it was built from must outlive it."""
        copy = self._roots_copy()
        try:
            staged = copy.with_name(copy.name + ".tmp")
            staged.write_text(json.dumps([asdict(root) for root in self.roots()]), encoding="utf-8")
            os.replace(staged, copy)
        except OSError as exc:  # a full disk: the table itself holds them; the copy follows at the next change
            log.warning("cannot write %s: %s", copy, exc)

    def restore_roots_copy(self, db: sqlite3.Connection) -> list[RootRow]:
        """Into an empty table (a catalog started anew), the folders of `roots.json`, if there is one to read."""
        if db.execute("SELECT 1 FROM roots LIMIT 1").fetchone() is not None:
            return []
        try:
            saved = json.loads(self._roots_copy().read_text(encoding="utf-8"))
            rows = [RootRow(str(r["path"]), str(r["kind"]), bool(r["whole"]), str(r["added_from"])) for r in saved]
        except (OSError, ValueError, TypeError, KeyError) as exc:
            if not isinstance(exc, FileNotFoundError):
                log.warning("cannot read %s (%s); folders named from now on are remembered", self._roots_copy(), exc)
            return []
        self.remember_roots(db, rows)
        return rows

    def _roots_copy(self) -> Path:
        return self.path.with_name(ROOTS_COPY)

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
