"""Reads of search units and chunks: result rows, session neighbours, summaries; the units' derived facts."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from memlens.engine.catalog.connection import CatalogConnection
from memlens.engine.catalog.files import INSERTED_COLUMNS, UnitRow, as_read
from memlens.engine.catalog.schema import OTHER_TIMES, TRANSCRIPT_TIMES

# summary units with their session's id, format and cwd and their file's path
SUMMARY_SQL = """SELECT u.*, s.session_id AS session_id, s.format AS session_format, s.cwd AS cwd, f.path AS path
              FROM plain_units u JOIN files f ON f.id = u.file_id LEFT JOIN sessions s ON s.key = u.session_key
              WHERE u.kind = 'summary' AND u.shadowed = 0"""

# id, text, kind, ts, session (its key, else "file:<file id>"), then the derived facts: words, tool, dup_key, question
# (see unit_facts_rows), and whether another file of its session keeps the message (catalog/copies.py)
UnitFactsRow = tuple[int, str, str, float | None, str, str | None, float | None, str | None, float | None, int]


UNIT_FACTS_KEYS = ("generation", "unit_facts_version")  # what unit_facts_state reads


def unit_facts_state(meta: dict[str, str | None]) -> tuple[int, str | None]:
    """`UnitReads.unit_facts_state` from meta values read with UNIT_FACTS_KEYS among them."""
    return int(meta["generation"] or 0), meta["unit_facts_version"]


class TimeSpan(NamedTuple):
    """When the index's units were written (`UnitReads.time_span`)."""

    first: float | None
    last: float | None
    untimed: bool  # whether any unit has no time: any `since` or `until` leaves it out


class ResultRow(NamedTuple):
    """What a search result shows of a unit (`UnitReads.result_rows`): a typed tuple, since a search reads a dozen and
    asks each for a dozen fields (an sqlite3.Row's lookup by name cost several times an attribute's)."""

    unit_id: int
    text: str
    message_id: str | None
    role: str | None
    ts: float | None
    position: int | None
    chunk_id: int
    kind: str  # the chunk's (memory | transcript | summary), or tool for a tool result
    session_key: str | None  # the chunk's
    line_start: int | None
    line_end: int | None
    heading: str | None
    message_count: int
    path: str  # the file's
    file_format: str
    session_id: str | None  # the session row's (None without one, as cwd and parent_key)
    cwd: str | None
    parent_key: str | None


class PeriodUnit(NamedTuple):
    """A message unit written in a period (`UnitReads.units_between`), with the start of its text."""

    unit_id: int
    session_key: str
    seq: int
    role: str | None
    ts: float
    head: str
    length: int


class UnitReads(CatalogConnection):
    """What search results, history and summaries read of units and chunks."""

    def units_by_id(self, ids: Sequence[int]) -> dict[int, sqlite3.Row]:
        if not ids:
            return {}
        rows: dict[int, sqlite3.Row] = {}
        for start in range(0, len(ids), 500):
            part = list(ids[start : start + 500])
            marks = ",".join("?" * len(part))
            for row in self.db.execute(f"SELECT * FROM plain_units WHERE id IN ({marks})", part):
                rows[int(row["id"])] = row
        return rows

    def inserted_units(self, ids: Sequence[int], rows: Sequence[UnitRow]) -> dict[int, sqlite3.Row]:
        """What `units_by_id(ids)` reads of units just inserted (`insert_units` gave `rows` the `ids`), made from the
        rows instead of read back and their texts decoded again (12 µs a unit of a cold build, bench/RESULTS.md).
        Read back after all from a catalog whose units table has other columns, or another order."""
        cursor = self.db.execute("SELECT * FROM plain_units LIMIT 0")  # what names the rows' columns
        if tuple(column[0] for column in cursor.description) != INSERTED_COLUMNS:
            return self.units_by_id(ids)
        copies = self._shadowed_between(min(ids), max(ids)) if ids else set()  # set by the writer after the insert
        return {
            unit_id: sqlite3.Row(cursor, as_read(unit_id, row, shadowed=unit_id in copies))
            for unit_id, row in zip(ids, rows, strict=True)
        }

    def _shadowed_between(self, first: int, last: int) -> set[int]:
        """The ids in [first, last] of units another file of their session keeps (catalog/copies.py): read from the
        partial index of those few, not from a row per id."""
        sql = "SELECT id FROM units INDEXED BY units_shadowed WHERE shadowed = 1 AND id BETWEEN ? AND ?"
        return {int(row[0]) for row in self._tuples(sql, (first, last))}

    def result_rows(self, unit_ids: Sequence[int]) -> dict[int, ResultRow]:
        """What a search result shows of each unit, with its chunk, file and session, in one query (see ResultRow)."""
        rows: dict[int, ResultRow] = {}
        for start in range(0, len(unit_ids), 500):
            part = list(unit_ids[start : start + 500])
            marks = ",".join("?" * len(part))
            sql = f"""SELECT u.id, u.text, u.message_id, u.role, u.ts, u.position,
                             c.id, CASE WHEN u.kind = 'tool' THEN 'tool' ELSE c.kind END,
                             c.session_key, c.line_start, c.line_end, c.heading, c.message_count,
                             f.path, f.format, s.session_id, s.cwd, s.parent_key
                      FROM plain_units u JOIN chunks c ON c.id = u.chunk_id JOIN files f ON f.id = c.file_id
                      LEFT JOIN sessions s ON s.key = c.session_key
                      WHERE u.id IN ({marks})"""
            rows.update((row[0], ResultRow._make(row)) for row in self._tuples(sql, part))
        return rows

    def units_between(self, since: float, until: float, *, head_chars: int = 300) -> list[PeriodUnit]:
        """Every transcript message unit written in [since, until] (epoch seconds), by session and place, with the
        start of its text: what a question about a period picks its sessions' telling messages from."""
        # the text read once and cut here: `substr` and `length` in SQL would each decode a compressed one
        sql = """SELECT id, session_key, seq, role, ts, text FROM plain_units
                 WHERE kind = 'transcript' AND session_key IS NOT NULL AND ts BETWEEN ? AND ? AND shadowed = 0
                 ORDER BY session_key, seq"""
        rows = self._tuples(sql, [since, until])
        return [
            PeriodUnit(unit_id, key, seq, role, ts, text[:head_chars], len(text))
            for unit_id, key, seq, role, ts, text in rows
        ]

    def notes_between(self, since: float, until: float, *, head_chars: int = 300) -> list[PeriodUnit]:
        """Every memory note unit dated in [since, until] (a daily note, `memory/2026-02-12.md`, is dated by its
        name), by file and place, each with its file's path in place of a session key: a day's note is what a
        question about that day is answered with first."""
        sql = f"""SELECT id, (SELECT path FROM files WHERE files.id = file_id) AS path, seq, ts, text FROM plain_units
                  WHERE kind = 'memory' AND {OTHER_TIMES} AND ts BETWEEN ? AND ?
                  ORDER BY path, seq"""
        rows = self._tuples(sql, [since, until])
        return [
            PeriodUnit(unit_id, path, seq, None, ts, text[:head_chars], len(text))
            for unit_id, path, seq, ts, text in rows
        ]

    def time_span(self) -> TimeSpan:
        """When the index's units were written, first and last (epoch seconds; None when it holds none), and whether
        any has no time: what a `since`/`until` outside it leaves out (only those). Read from the two indexes that
        hold every unit's time (schema.py: units_transcript_time, units_other_time), the ends of each: one
        aggregate a statement, since SQLite reads MIN or MAX from an index only alone (with both, or a count, it
        scans every unit)."""
        firsts, lasts, untimed = [], [], False
        for where in (TRANSCRIPT_TIMES, OTHER_TIMES):
            firsts.append(self.db.execute(f"SELECT MIN(ts) FROM units WHERE {where}").fetchone()[0])
            lasts.append(self.db.execute(f"SELECT MAX(ts) FROM units WHERE {where}").fetchone()[0])
            sql = f"SELECT EXISTS (SELECT 1 FROM units WHERE {where} AND ts IS NULL)"
            untimed = untimed or bool(self.db.execute(sql).fetchone()[0])
        first = min((t for t in firsts if t is not None), default=None)
        last = max((t for t in lasts if t is not None), default=None)
        return TimeSpan(first, last, untimed)

    def holds_units_between(self, since: float | None, until: float | None) -> bool:
        """Whether any unit was written in [since, until] (epoch seconds; None: unbounded on that side): whether a
        search's date window leaves anything to search. A range read of each of the two time indexes."""
        bounds = [(">=", since), ("<=", until)]
        within = " AND ".join(f"ts {op} ?" for op, value in bounds if value is not None) or "ts IS NOT NULL"
        values = [value for _, value in bounds if value is not None]
        sql = f"""SELECT EXISTS (SELECT 1 FROM units WHERE {TRANSCRIPT_TIMES} AND {within})
                  OR EXISTS (SELECT 1 FROM units WHERE {OTHER_TIMES} AND {within})"""
        return bool(self.db.execute(sql, values + values).fetchone()[0])

    def units_nearest(self, *, before: float, after: float, limit: int) -> tuple[list[int], list[int]]:
        """The ids of the transcript message units written last before `before` and first after `after` (epoch
        seconds), at most `limit` each, nearest first: where a question about days that holds none can point."""
        where = f"{TRANSCRIPT_TIMES} AND shadowed = 0"  # units_transcript_time's own condition, less the copies
        earlier = self.db.execute(
            f"SELECT id FROM units WHERE {where} AND ts < ? ORDER BY ts DESC LIMIT ?", (before, limit)
        )
        later = self.db.execute(f"SELECT id FROM units WHERE {where} AND ts > ? ORDER BY ts LIMIT ?", (after, limit))
        return [int(r[0]) for r in earlier], [int(r[0]) for r in later]

    def chunk_texts(self, chunk_id: int) -> list[str]:
        """The texts of a chunk's units, in order."""
        rows = self.db.execute("SELECT text FROM plain_units WHERE chunk_id = ? ORDER BY seq, id", (chunk_id,))
        return [str(r[0]) for r in rows]

    def message_seq(self, session_key: str, message_id: str, *, copies: bool = False) -> int | None:
        """Where a message sits in its session (its first unit), or None when it is not in that session (or another
        file of the session keeps it, unless `copies`: see `session_units`)."""
        own = "" if copies else " AND shadowed = 0"
        row = self.db.execute(
            f"SELECT MIN(seq) FROM units WHERE session_key = ? AND message_id = ?{own}", (session_key, message_id)
        ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def message_ids_with_prefix(self, session_key: str, prefix: str, *, limit: int = 2) -> list[str]:
        """Up to `limit` distinct message ids of a session that start with `prefix` (a hit's short reference)."""
        pattern = _like_prefix(prefix)
        rows = self.db.execute(
            "SELECT DISTINCT message_id FROM units WHERE session_key = ? AND message_id LIKE ? ESCAPE '\\' LIMIT ?",
            (session_key, pattern, limit),
        ).fetchall()
        return [str(row[0]) for row in rows]

    def prefixes_shared(self, messages: Sequence[tuple[str, str]], length: int) -> list[bool]:
        """For each (session key, message id): whether the id's first `length` characters fail to name it alone in
        its session, as `message_ids_with_prefix` matches them (ASCII case ignored): another id there starts with
        them, or the session holds no message of that id. One statement for them all (a search's results)."""
        shared: list[bool] = []
        for start in range(0, len(messages), 200):
            part = messages[start : start + 200]
            params: list[object] = []
            for at, (key, message_id) in enumerate(part):
                params += [at, key, _like_prefix(message_id[:length]), message_id]
            sql = f"""WITH asked(at, key, pattern, message_id) AS (VALUES {",".join(["(?, ?, ?, ?)"] * len(part))})
                      SELECT at FROM asked a WHERE EXISTS (SELECT 1 FROM units u WHERE u.session_key = a.key
                        AND u.message_id LIKE a.pattern ESCAPE '\\' AND u.message_id != a.message_id)
                      OR NOT EXISTS (SELECT 1 FROM units u WHERE u.session_key = a.key
                        AND u.message_id = a.message_id)"""
            found = {int(row[0]) for row in self._tuples(sql, params)}
            shared += [at in found for at in range(len(part))]
        return shared

    def message_ids(self, session_key: str) -> list[str]:
        """The distinct message ids of a session."""
        rows = self.db.execute(
            "SELECT DISTINCT message_id FROM units WHERE session_key = ? AND message_id IS NOT NULL", (session_key,)
        ).fetchall()
        return [str(row[0]) for row in rows]

    def session_units(
        self,
        session_key: str,
        *,
        before: int | None = None,
        after: int | None = None,
        count: int,
        copies: bool = False,
    ) -> list[sqlite3.Row]:
        """Up to `count` units of a session in order: the last ones before `before` (None: the session's end),
        or with `after` the first ones after it; not those another file of the session keeps (catalog/copies.py)
        unless `copies` (every unit the file holds: what a benchmark's targets name, what a view of that file shows)."""
        if count <= 0:
            return []
        own = "" if copies else " AND shadowed = 0"
        if after is not None:
            sql = f"SELECT * FROM plain_units WHERE session_key = ? AND seq > ?{own} ORDER BY seq, id LIMIT ?"
            return self.db.execute(sql, (session_key, after, count)).fetchall()
        bound = before if before is not None else 2**62
        sql = f"SELECT * FROM plain_units WHERE session_key = ? AND seq < ?{own} ORDER BY seq DESC, id DESC LIMIT ?"
        return self.db.execute(sql, (session_key, bound, count)).fetchall()[::-1]

    def message_units(self, session_key: str, message_id: str, *, copies: bool = False) -> list[sqlite3.Row]:
        """Every unit of a message in a session (its parts, when it was split), in order (`copies`: see
        `session_units`)."""
        own = "" if copies else " AND shadowed = 0"
        sql = f"SELECT * FROM plain_units WHERE session_key = ? AND message_id = ?{own} ORDER BY seq"
        return self.db.execute(sql, (session_key, message_id)).fetchall()

    def units_outside(self, session_key: str, first: int, last: int, *, copies: bool = False) -> tuple[bool, bool]:
        """Whether the session has units before `first` and after `last` (`copies`: see `session_units`)."""
        own = "" if copies else " AND shadowed = 0"
        row = self.db.execute(
            f"SELECT SUM(seq < ?), SUM(seq > ?) FROM units WHERE session_key = ?{own}", (first, last, session_key)
        ).fetchone()
        return bool(row[0]), bool(row[1])

    def sessions_with_message(self, message_id: str) -> list[sqlite3.Row]:
        """The sessions holding a message id (ids are unique per session, rarely across sessions)."""
        sql = """SELECT s.*, f.path AS path FROM sessions s JOIN files f ON f.id = s.file_id
                 WHERE s.key IN (SELECT DISTINCT session_key FROM units WHERE message_id = ? AND shadowed = 0
                                 LIMIT 5)"""
        return self.db.execute(sql, (message_id,)).fetchall()

    def summary_units(self) -> list[sqlite3.Row]:
        """Every summary unit with its session's id, format and cwd and its file's path, newest first."""
        return self.db.execute(SUMMARY_SQL + " ORDER BY u.ts IS NULL, u.ts DESC, u.id DESC").fetchall()

    def summary_unit(self, chunk_id: int) -> sqlite3.Row | None:
        """The summary unit of a chunk (as `summary_units` gives it), or None."""
        row: sqlite3.Row | None = self.db.execute(
            SUMMARY_SQL + " AND u.chunk_id = ? ORDER BY u.seq LIMIT 1", (chunk_id,)
        ).fetchone()
        return row

    def messages_before_summary(self, session_key: str, seq: int) -> list[sqlite3.Row]:
        """A session's messages between its previous summary (exclusive) and the one at `seq`, oldest first."""
        previous = self.db.execute(
            "SELECT MAX(seq) FROM units WHERE session_key = ? AND kind = 'summary' AND seq < ?", (session_key, seq)
        ).fetchone()[0]
        sql = """SELECT * FROM plain_units WHERE session_key = ? AND kind != 'summary' AND seq < ? AND seq > ?
                 ORDER BY seq, id"""
        return self.db.execute(sql, (session_key, seq, -1 if previous is None else int(previous))).fetchall()

    def all_units(self, page: int = 2_000) -> Iterator[sqlite3.Row]:
        """Every unit in id order, with the columns the keyword index is written from (to rebuild it): not the
        analysed words, whose decoding costs as much as the rest of the row. Read
        `page` units at a time, each read finished before they are handed on: whoever iterates may write the
        catalog meanwhile (a rewrite fills in the units' facts as it goes)."""
        sql = """SELECT id, file_id, kind, format, session_key, role, ts, seq, text FROM plain_units
                 WHERE id > ? ORDER BY id LIMIT ?"""
        after = -1
        while True:
            rows = self.db.execute(sql, (after, page)).fetchall()
            yield from rows
            if len(rows) < page:
                return
            after = int(rows[-1]["id"])

    def session_messages_between(self, session_key: str, first: int, last: int) -> list[sqlite3.Row]:
        """A session's transcript units with sequence numbers in [first, last], by sequence number then id."""
        sql = """SELECT * FROM plain_units WHERE session_key = ? AND seq BETWEEN ? AND ? AND kind = 'transcript'
                 ORDER BY seq, id"""
        return self.db.execute(sql, (session_key, first, last)).fetchall()

    def session_message_places_between(self, session_key: str, first: int, last: int) -> list[tuple[int, int]]:
        """(id, seq) of the units `session_messages_between` gives, in its order, without reading their texts."""
        sql = """SELECT id, seq FROM units WHERE session_key = ? AND seq BETWEEN ? AND ? AND kind = 'transcript'
                 ORDER BY seq, id"""
        return [(int(i), int(seq)) for i, seq in self._tuples(sql, (session_key, first, last))]

    def unit_texts(self, unit_ids: Sequence[int]) -> dict[int, str]:
        """The plain text of each of these units that exists."""
        texts: dict[int, str] = {}
        for start in range(0, len(unit_ids), 500):
            part = list(unit_ids[start : start + 500])
            marks = ",".join("?" * len(part))
            texts.update(self._tuples(f"SELECT id, text FROM plain_units WHERE id IN ({marks})", part))
        return texts

    def message_places(self, unit_ids: Sequence[int]) -> dict[int, tuple[str, int]]:
        """(session key, sequence number) of each of these units that is a transcript message. Read as plain tuples,
        converted by SQLite, since every keyword search asks this of all its candidates. A transcript without a
        session (NULL key) is placed in session 'None', as str(None) placed it before."""
        places: dict[int, tuple[str, int]] = {}
        for start in range(0, len(unit_ids), 500):
            part = list(unit_ids[start : start + 500])
            marks = ",".join("?" * len(part))
            sql = f"""SELECT id, IFNULL(session_key, 'None'), seq FROM units
                      WHERE id IN ({marks}) AND kind = 'transcript'"""
            places.update({unit_id: (session, seq) for unit_id, session, seq in self._tuples(sql, part)})
        return places

    def message_neighbours(self, places: Iterable[tuple[str, int]], window: int) -> list[int]:
        """The ids of the transcript messages up to `window` places either side of each (session key, sequence
        number), those places included. Each session's ranges are merged first, then read in one statement (an OR
        of ranges that the (session_key, seq) index answers one by one). Places in session 'None' (a transcript
        without a session, see `message_places`) have no neighbours to find."""
        ranges: dict[str, list[list[int]]] = {}
        for session, seq in sorted(set(places)):
            if session == "None":
                continue
            merged = ranges.setdefault(session, [])
            if merged and seq - window <= merged[-1][1] + 1:
                merged[-1][1] = seq + window
            else:
                merged.append([seq - window, seq + window])
        pairs = [(session, first, last) for session, spans in ranges.items() for first, last in spans]
        ids: list[int] = []
        for start in range(0, len(pairs), 300):  # three variables a range: under SQLite's 999
            part = pairs[start : start + 300]
            where = " OR ".join(["(session_key = ? AND seq BETWEEN ? AND ?)"] * len(part))
            sql = f"SELECT id FROM units WHERE ({where}) AND kind = 'transcript'"
            ids.extend(unit_id for (unit_id,) in self._tuples(sql, [v for p in part for v in p]))
        return ids

    def unit_facts_rows(self, unit_ids: Sequence[int]) -> list[UnitFactsRow]:
        """(id, text, kind, ts, session, words, tool, dup_key, question, shadowed) of each of these units that exists:
        what the last ranking pass reads of a hit (unit_facts.py; words to question NULL until the writer fills them
        in; shadowed: another file of its session keeps the message, catalog/copies.py). The
        session is what the per-session cap counts: the unit's session key, else "file:<its file id>". Only those
        columns, as plain tuples and converted by SQLite: a search reads dozens of them."""
        rows: list[UnitFactsRow] = []
        for start in range(0, len(unit_ids), 500):
            part = list(unit_ids[start : start + 500])
            marks = ",".join("?" * len(part))
            sql = f"""SELECT id, text, kind, CAST(ts AS REAL), IFNULL(session_key, 'file:' || file_id),
                             words, tool, dup_key, question, shadowed
                      FROM plain_units WHERE id IN ({marks})"""
            rows.extend(self._tuples(sql, part))
        return rows

    def units_lacking_facts(self, unit_ids: Sequence[int]) -> set[int]:
        """Those of these units whose derived facts are not filled in."""
        lacking: set[int] = set()
        for start in range(0, len(unit_ids), 500):
            part = list(unit_ids[start : start + 500])
            marks = ",".join("?" * len(part))
            sql = f"SELECT id FROM units WHERE id IN ({marks}) AND words IS NULL"
            lacking.update(int(unit_id) for (unit_id,) in self._tuples(sql, part))
        return lacking

    def units_without_facts(self, limit: int) -> list[tuple[int, str, str]]:
        """(id, text, kind) of up to `limit` units whose derived facts are not filled in yet, lowest id first."""
        # plain() on the column, not the view: the condition must stay on the stored column for its partial index
        sql = "SELECT id, plain(text), kind FROM units WHERE words IS NULL ORDER BY id LIMIT ?"
        return list(self._tuples(sql, (limit,)))

    def set_unit_facts(self, rows: Iterable[tuple[int, tuple[str, float, str, float]]]) -> None:
        """Fill in units' derived facts, (id, (words, tool, dup_key, question)); one transaction. Not a change of
        content: the generation stays, since a reader that worked the facts out from the text has the same ones."""
        with self.transaction() as db:
            db.executemany(
                "UPDATE units SET words = ?, tool = ?, dup_key = ?, question = ? WHERE id = ?",
                ((self.texts.encode(words), *rest, unit_id) for unit_id, (words, *rest) in rows),
            )

    def forget_unit_facts(self, version: str) -> None:
        """Clear every unit's derived facts, to be worked out again by `version` (what unit_facts_state gives)."""
        with self.transaction() as db:
            db.execute("UPDATE units SET words = NULL WHERE words IS NOT NULL")  # NULL words: to be filled in
            self.set_meta(db, "unit_facts_version", version)

    def unit_facts_state(self) -> tuple[int, str | None]:
        """(the generation, the version of `derived_facts` that worked out the stored facts), in one read."""
        return unit_facts_state(self.meta_values(UNIT_FACTS_KEYS))


def _like_prefix(prefix: str) -> str:
    """A LIKE pattern (ESCAPE '\\') matching what starts with `prefix`."""
    return prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
