"""A session's messages held by more than one of its files, counted and shown once (`units.shadowed`).

Why it exists: a session can be held by several files (a hand copy `s.jsonl.bak` beside the live transcript, a
rotated name, the session copied to another project folder, a Claude Code session resumed into a new file that replays
the earlier messages). Each file keeps its own rows (deleting one of them must lose nothing the other holds), so the
same message is stored twice; every count and every view of a session reads `shadowed = 0` and sees it once.

A session's files are its *family*: the sessions of one format, session id and subagent (`KEY` and its `KEY~name`
keys). Two units are the same message when they are of one family and one identity: the message id the agent gave it
(Claude Code's uuid, OpenClaw's entry id), or, where the id is only the line it was read from (Codex, SpecStory:
`L<line>`), its role, time and the hashes of its text's parts. Of the files holding a message, the one that holds the
family's plain key (the session `memlens history KEY` opens) keeps it, else the file whose path sorts first; the
others' units of that message are shadowed. The choice is made again, for the families a write touched, by the writer
before it commits: only a family of several files reads its units (one file: a look at the few units still shadowed).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from memlens.engine.catalog.connection import CatalogConnection
from memlens.engine.catalog.schema import MESSAGE_UNITS

# a message id that only says which line (and which record of it) the message was read from: no identity across files
_LINE_ID = re.compile(r"L\d+(?:\.\d+)?(?::T\d+)?")


class Family(NamedTuple):
    """The sessions of one format, session id and subagent ("" for none): one session, whatever files hold it."""

    format: str
    session_id: str
    agent_id: str

    @property
    def plain_key(self) -> str:
        """The key the first file of the session takes (catalog_writer._store_session)."""
        return f"{self.format}:{self.session_id}" + (f"/agent-{self.agent_id}" if self.agent_id else "")


_FAMILY = "format, session_id, IFNULL(agent_id, '')"


class Settled(NamedTuple):
    """What choosing again changed (`settle_copies`): the sessions whose units changed, and the messages the index
    counts more (fewer than none: less) for it."""

    keys: list[str]
    messages: int


class CopyTables(CatalogConnection):
    """Which units are another file's copy of a message of their session (`units.shadowed`), kept by the writer."""

    def file_families(self, db: sqlite3.Connection, file_id: int) -> set[Family]:
        """The families of the sessions a file holds (read before its rows are replaced or deleted)."""
        rows = db.execute(f"SELECT DISTINCT {_FAMILY} FROM sessions WHERE file_id = ?", (file_id,))
        return {Family(*row) for row in rows}

    def key_families(self, db: sqlite3.Connection, keys: Iterable[str | None]) -> set[Family]:
        """The families of these sessions."""
        wanted = sorted({key for key in keys if key})
        found: set[Family] = set()
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            sql = f"SELECT DISTINCT {_FAMILY} FROM sessions WHERE key IN ({','.join('?' * len(part))})"
            found.update(Family(*row) for row in db.execute(sql, part))
        return found

    def settle_copies(self, db: sqlite3.Connection, families: Iterable[Family]) -> Settled:
        """Choose again which file keeps each message of these families (see the module docstring), in the caller's
        transaction: the session keys whose units changed (their counts are to be worked out again) and the messages
        the index counts more for it."""
        changed: set[str] = set()
        messages = 0
        for family in sorted(set(families)):
            sql = """SELECT s.key, s.file_id, f.path FROM sessions s JOIN files f ON f.id = s.file_id
                     WHERE s.session_id = ? AND s.format = ? AND IFNULL(s.agent_id, '') = ?"""
            sessions = db.execute(sql, (family.session_id, family.format, family.agent_id)).fetchall()
            keys = [str(row[0]) for row in sessions]
            if not keys:
                continue
            if len({row[1] for row in sessions}) < 2:  # one file: it keeps all it holds
                settled = self._unshadow(db, keys)
            else:
                order = {int(file_id): (key != family.plain_key, str(path)) for key, file_id, path in sessions}
                settled = self._choose(db, keys, order)
            changed.update(settled.keys)
            messages += settled.messages
        return Settled(sorted(changed), messages)

    def _unshadow(self, db: sqlite3.Connection, keys: Sequence[str]) -> Settled:
        """Count every unit of these sessions again (through the partial index of the shadowed ones: a few rows)."""
        marks = ",".join("?" * len(keys))
        sql = f"""SELECT session_key, SUM({MESSAGE_UNITS}) FROM units WHERE shadowed = 1 AND session_key IN ({marks})
                  GROUP BY session_key"""
        found = db.execute(sql, keys).fetchall()
        if found:
            db.execute(f"UPDATE units SET shadowed = 0 WHERE shadowed = 1 AND session_key IN ({marks})", keys)
        return Settled([str(row[0]) for row in found], sum(int(row[1]) for row in found))

    def _choose(self, db: sqlite3.Connection, keys: Sequence[str], order: dict[int, tuple[bool, str]]) -> Settled:
        """Shadow the units of the messages another file of the family keeps (`order`: each file's place, first
        keeps), and count again those no other file keeps before it."""
        marks = ",".join("?" * len(keys))
        sql = f"""SELECT id, file_id, session_key, kind, message_id, role, ts, embed_text_hash, shadowed,
                         {MESSAGE_UNITS}
                  FROM units WHERE session_key IN ({marks}) ORDER BY session_key, seq, id"""
        rows = db.execute(sql, list(keys)).fetchall()
        grouped: dict[tuple[int, str, str, str], list[sqlite3.Row]] = {}
        for row in rows:  # a message's parts (one id) together
            grouped.setdefault((int(row[1]), str(row[2]), str(row[3]), str(row[4] or f"#{row[0]}")), []).append(row)
        keeper: dict[tuple[object, ...], tuple[bool, str]] = {}
        identities: list[tuple[tuple[object, ...], int, list[sqlite3.Row]]] = []
        for (file_id, *_), units in grouped.items():
            identity = _identity(units)
            identities.append((identity, file_id, units))
            place = order[file_id]
            if identity not in keeper or place < keeper[identity]:
                keeper[identity] = place
        flips: list[tuple[int, int]] = []
        touched: set[str] = set()
        messages = 0
        for identity, file_id, units in identities:
            shadowed = int(order[file_id] != keeper[identity])
            for unit in units:
                if int(unit[8]) != shadowed:
                    flips.append((shadowed, int(unit[0])))
                    touched.add(str(unit[2]))
                    messages += int(unit[9]) * (-1 if shadowed else 1)
        db.executemany("UPDATE units SET shadowed = ? WHERE id = ?", flips)
        return Settled(sorted(touched), messages)

    def copied_sessions(self) -> set[str]:
        """The sessions every unit of which another file of the session holds (a whole copy): listed and counted
        as sessions only once, through the file that keeps their messages. Read through the partial index of the
        shadowed units: only the sessions that hold one are looked at."""
        sql = """SELECT k.key FROM (SELECT DISTINCT session_key AS key FROM units WHERE shadowed = 1) k
                 WHERE NOT EXISTS (SELECT 1 FROM units u WHERE u.session_key = k.key AND u.shadowed = 0)"""
        return {str(row[0]) for row in self.db.execute(sql)}

    def session_count(self) -> int:
        """The sessions `memlens stats` counts: every session row but the whole copies (`copied_sessions`)."""
        rows = int(self.db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0])
        return rows - len(self.copied_sessions())


def _identity(units: Sequence[sqlite3.Row]) -> tuple[object, ...]:
    """What makes a message (its units, its parts in order) the same message in another file of its session."""
    first = units[0]
    kind, message_id = str(first[3]), first[4]
    if message_id and not _LINE_ID.fullmatch(str(message_id)):
        return (kind, "id", str(message_id))
    return (kind, "text", first[5], first[6], tuple(str(unit[7]) for unit in units))
