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
An append costs what it adds: each unit of a family of several files carries its message's identity, hashed
(`units.copy_identity`, behind a partial index), so an append reads only the units of the identities its new rows
(and the rows it replaced) hold, not every unit of the family's files (`settle_appended`).
"""

from __future__ import annotations

import hashlib
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
# what the choice reads of a unit, in this order (the indexes below)
_UNIT = (
    f"id, file_id, session_key, kind, message_id, role, ts, embed_text_hash, shadowed, {MESSAGE_UNITS}, copy_identity"
)
_ID, _FILE, _KEY, _KIND, _MESSAGE_ID, _SHADOWED, _COUNTED, _IDENTITY = 0, 1, 2, 3, 4, 8, 9, 10


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
            keys, order = self._family_files(db, family)
            if not keys:
                continue
            settled = self._unshadow(db, keys) if len(order) < 2 else self._choose(db, keys, order)
            changed.update(settled.keys)
            messages += settled.messages
        return Settled(sorted(changed), messages)

    def settle_appended(
        self, db: sqlite3.Connection, session_key: str, *, added: Sequence[int], replaced: Iterable[bytes | None]
    ) -> Settled:
        """`settle_copies` for an append to one session: `added`, the ids of the units it inserted; `replaced`, the
        identities (`units.copy_identity`) of the units it deleted to write them again. In a family of several files
        only the units of the identities these hold are read (through their partial index): which file keeps an
        identity the append did not touch is as it was, since an append changes neither the family's files nor its
        plain key. The whole family is chosen again where that index cannot answer: a unit of one of its other
        files without an identity, or a message told by its text whose first part the append did not write again."""
        families = self.key_families(db, [session_key])
        if len(families) != 1:
            return self.settle_copies(db, families)
        (family,) = families
        keys, order = self._family_files(db, family)
        if len(order) < 2:
            return self._unshadow(db, keys)
        new = self._unit_rows(db, "id IN ({marks}) ORDER BY session_key, seq, id", sorted(added))
        groups = _messages(new)
        if not self._identities_held(db, [key for key in keys if key != session_key]) or self._first_cut(
            db, session_key, groups
        ):
            return self._choose(db, keys, order)
        named = [(_digest(_identity(units)), units) for units in groups.values()]
        db.executemany(
            "UPDATE units SET copy_identity = ? WHERE id = ?",
            [(digest, int(unit[_ID])) for digest, units in named for unit in units],
        )
        family_keys = set(keys)
        wanted = sorted({digest for digest, _ in named} | {bytes(d) for d in replaced if d is not None})
        rows: list[sqlite3.Row] = []
        for start in range(0, len(wanted), 400):
            part = wanted[start : start + 400]
            sql = f"""SELECT {_UNIT} FROM units INDEXED BY units_copy_identity
                      WHERE copy_identity IS NOT NULL AND copy_identity IN ({",".join("?" * len(part))})"""
            found = db.execute(sql, part).fetchall()
            rows += [row for row in found if row[_KEY] in family_keys]  # another session's: a rare match
        return self._flip(
            db,
            [(bytes(units[0][_IDENTITY]), file_id, units) for (file_id, _), units in _by_identity(rows).items()],
            order,
        )

    def _family_files(self, db: sqlite3.Connection, family: Family) -> tuple[list[str], dict[int, tuple[bool, str]]]:
        """The family's session keys, and each of its files' place (first keeps): the file holding the plain key
        first, then by path."""
        sql = """SELECT s.key, s.file_id, f.path FROM sessions s JOIN files f ON f.id = s.file_id
                 WHERE s.session_id = ? AND s.format = ? AND IFNULL(s.agent_id, '') = ?"""
        sessions = db.execute(sql, (family.session_id, family.format, family.agent_id)).fetchall()
        order = {int(file_id): (key != family.plain_key, str(path)) for key, file_id, path in sessions}
        return [str(row[0]) for row in sessions], order

    def _unit_rows(self, db: sqlite3.Connection, where: str, values: Sequence[object]) -> list[sqlite3.Row]:
        """`_UNIT` of the units `where` (with `{marks}` for the values' places) names, 500 values a statement."""
        rows: list[sqlite3.Row] = []
        for start in range(0, len(values), 500):
            part = list(values[start : start + 500])
            sql = f"SELECT {_UNIT} FROM units WHERE " + where.format(marks=",".join("?" * len(part)))
            rows += db.execute(sql, part).fetchall()
        return rows

    def _identities_held(self, db: sqlite3.Connection, keys: Sequence[str]) -> bool:
        """Whether each of these sessions' first unit has its identity: the writer marks a family's units all at once
        (`_choose`), so a session without is of a catalog from before them, or was of a family of one file."""
        sql = "SELECT copy_identity IS NOT NULL FROM units WHERE session_key = ? ORDER BY seq, id LIMIT 1"
        return all((db.execute(sql, (key,)).fetchone() or (True,))[0] for key in keys)

    def _first_cut(
        self, db: sqlite3.Connection, session_key: str, groups: dict[tuple[int, str, str, str], list[sqlite3.Row]]
    ) -> bool:
        """Whether the first message the append wrote is one told by its text (`_LINE_ID`) whose earlier parts it did
        not write again: its identity holds every part's hash, which the new rows alone do not give."""
        if not groups:
            return False
        first = next(iter(groups.values()))[0]
        message_id = first[_MESSAGE_ID]
        if message_id and not _LINE_ID.fullmatch(str(message_id)):
            return False
        sql = "SELECT message_id FROM units WHERE session_key = ? AND seq < ? ORDER BY seq DESC, id DESC LIMIT 1"
        seq = db.execute("SELECT seq FROM units WHERE id = ?", (int(first[_ID]),)).fetchone()[0]
        before = db.execute(sql, (session_key, seq)).fetchone()
        return before is not None and message_id is not None and before[0] == message_id

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
        keeps), count again those no other file keeps before it, and mark each unit with its message's identity
        (what an append looks its copies up by)."""
        rows = self._unit_rows(db, "session_key IN ({marks}) ORDER BY session_key, seq, id", list(keys))
        identities = [(_digest(_identity(units)), file_id, units) for (file_id, *_), units in _messages(rows).items()]
        db.executemany(
            "UPDATE units SET copy_identity = ? WHERE id = ?",
            [
                (digest, int(unit[_ID]))
                for digest, _, units in identities
                for unit in units
                if unit[_IDENTITY] is None or bytes(unit[_IDENTITY]) != digest
            ],
        )
        return self._flip(db, identities, order)

    def _flip(
        self,
        db: sqlite3.Connection,
        identities: Sequence[tuple[bytes, int, Sequence[sqlite3.Row]]],
        order: dict[int, tuple[bool, str]],
    ) -> Settled:
        """Of each identity's messages (identity, file, units), the one in the first file by `order` keeps it; the
        units whose `shadowed` that changes are written, their sessions and the messages counted more returned."""
        keeper: dict[bytes, tuple[bool, str]] = {}
        for identity, file_id, _ in identities:
            place = order[file_id]
            if identity not in keeper or place < keeper[identity]:
                keeper[identity] = place
        flips: list[tuple[int, int]] = []
        touched: set[str] = set()
        messages = 0
        for identity, file_id, units in identities:
            shadowed = int(order[file_id] != keeper[identity])
            for unit in units:
                if int(unit[_SHADOWED]) != shadowed:
                    flips.append((shadowed, int(unit[_ID])))
                    touched.add(str(unit[_KEY]))
                    messages += int(unit[_COUNTED]) * (-1 if shadowed else 1)
        db.executemany("UPDATE units SET shadowed = ? WHERE id = ?", flips)
        return Settled(sorted(touched), messages)

    def copy_identities(self, db: sqlite3.Connection, unit_ids: Sequence[int]) -> list[bytes | None]:
        """The identities of these units (`units.copy_identity`; None where none is kept): what an append deletes
        to write again hands `settle_appended`."""
        found: list[bytes | None] = []
        for start in range(0, len(unit_ids), 500):
            part = list(unit_ids[start : start + 500])
            sql = f"SELECT copy_identity FROM units WHERE id IN ({','.join('?' * len(part))})"
            found += [None if row[0] is None else bytes(row[0]) for row in db.execute(sql, part)]
        return found

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


def _messages(rows: Iterable[sqlite3.Row]) -> dict[tuple[int, str, str, str], list[sqlite3.Row]]:
    """Units (read in order: by session, seq, id) by message: a message's parts (one id) together."""
    grouped: dict[tuple[int, str, str, str], list[sqlite3.Row]] = {}
    for row in rows:
        key = (int(row[_FILE]), str(row[_KEY]), str(row[_KIND]), str(row[_MESSAGE_ID] or f"#{row[_ID]}"))
        grouped.setdefault(key, []).append(row)
    return grouped


def _by_identity(rows: Iterable[sqlite3.Row]) -> dict[tuple[int, bytes], list[sqlite3.Row]]:
    """Units by (file, identity): a message's units in one file (an identity two messages of one file share is
    kept or shadowed with them alike, as `_choose` does)."""
    grouped: dict[tuple[int, bytes], list[sqlite3.Row]] = {}
    for row in rows:
        grouped.setdefault((int(row[_FILE]), bytes(row[_IDENTITY])), []).append(row)
    return grouped


def _digest(identity: tuple[object, ...]) -> bytes:
    """An identity as `units.copy_identity` stores it: 16 bytes of its hash."""
    return hashlib.blake2b(repr(identity).encode(), digest_size=16).digest()


def _identity(units: Sequence[sqlite3.Row]) -> tuple[object, ...]:
    """What makes a message (its units, its parts in order) the same message in another file of its session."""
    first = units[0]
    kind, message_id = str(first[3]), first[4]
    if message_id and not _LINE_ID.fullmatch(str(message_id)):
        return (kind, "id", str(message_id))
    return (kind, "text", first[5], first[6], tuple(str(unit[7]) for unit in units))
