"""Session overviews (engine.sessions): activity, early requests, summaries and tool calls per session."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import NamedTuple

from memlens.engine.catalog.connection import CatalogConnection
from memlens.engine.catalog.schema import COUNTED_MESSAGES


class SessionsOfId(NamedTuple):
    """What a reference to a session is made from: the sessions of its id (`sessions_of_id`) and the ids just before
    and after it in sorted order (`neighbour_session_ids`)."""

    rows: list[sqlite3.Row]
    neighbours: list[str]


class SessionReads(CatalogConnection):
    """The `sessions` rows and what a session list shows of each."""

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

    def sessions_of_id(self, session_id: str) -> list[sqlite3.Row]:
        """The sessions of one id (a main session, its subagents, copies of its file), with their files' paths."""
        sql = "SELECT s.*, f.path AS path FROM sessions s JOIN files f ON f.id = s.file_id WHERE s.session_id = ?"
        return list(self.db.execute(sql, (session_id,)).fetchall())

    def neighbour_session_ids(self, session_id: str) -> list[str]:
        """The other session ids just before and just after `session_id` in sorted order: the two that share the
        most of its first characters."""
        before = "SELECT session_id FROM sessions WHERE session_id < ? ORDER BY session_id DESC LIMIT 1"
        after = "SELECT session_id FROM sessions WHERE session_id > ? ORDER BY session_id LIMIT 1"
        found = [self.db.execute(sql, (session_id,)).fetchone() for sql in (before, after)]
        return [str(row[0]) for row in found if row is not None]

    def sessions_of_ids(self, session_ids: Sequence[str]) -> dict[str, SessionsOfId]:
        """`sessions_of_id` and `neighbour_session_ids` of several ids (a search's results) in one statement; an id
        no session has is left out."""
        found: dict[str, SessionsOfId] = {}
        for start in range(0, len(session_ids), 500):
            part = list(session_ids[start : start + 500])
            sql = f"""SELECT s.*, f.path AS path,
                        (SELECT n.session_id FROM sessions n WHERE n.session_id < s.session_id
                         ORDER BY n.session_id DESC LIMIT 1) AS id_before,
                        (SELECT n.session_id FROM sessions n WHERE n.session_id > s.session_id
                         ORDER BY n.session_id LIMIT 1) AS id_after
                      FROM sessions s JOIN files f ON f.id = s.file_id
                      WHERE s.session_id IN ({",".join("?" * len(part))})"""
            for row in self.db.execute(sql, part):
                session_id = str(row["session_id"])
                if session_id not in found:
                    neighbours = [str(n) for n in (row["id_before"], row["id_after"]) if n is not None]
                    found[session_id] = SessionsOfId([], neighbours)
                found[session_id].rows.append(row)
        return found

    def all_sessions(self) -> list[sqlite3.Row]:
        """Every session with its file's path (visibility is applied by the caller)."""
        sql = "SELECT s.*, f.path AS path FROM sessions s JOIN files f ON f.id = s.file_id"
        return list(self.db.execute(sql).fetchall())

    def session_activity(self) -> dict[str, tuple[int, float | None, float | None]]:
        """Per session key: (messages, first time, last time), counting transcript messages (not summaries). As the
        writer keeps them in the session rows; the few it has not worked out yet (a catalog from before them, until
        its next sync) are counted from their units here."""
        activity: dict[str, tuple[int, float | None, float | None]] = {}
        missing: list[str] = []
        for key, messages, first, last in self.db.execute("SELECT key, messages, first_ts, last_ts FROM sessions"):
            if messages is None:
                missing.append(str(key))
            else:
                activity[str(key)] = (int(messages), first, last)
        return activity | self._activity_from_units(missing)

    def _activity_from_units(self, keys: Sequence[str]) -> dict[str, tuple[int, float | None, float | None]]:
        """`session_activity` of the sessions `keys`, counted from their units."""
        activity: dict[str, tuple[int, float | None, float | None]] = {}
        for start in range(0, len(keys), 500):
            part = keys[start : start + 500]
            rows = self.db.execute(
                f"""SELECT session_key, SUM({COUNTED_MESSAGES}), MIN(ts), MAX(ts) FROM units
                    WHERE session_key IN ({",".join("?" * len(part))}) AND kind != 'memory' AND shadowed = 0
                    GROUP BY session_key""",
                part,
            )
            activity |= {str(r[0]): (int(r[1] or 0), r[2], r[3]) for r in rows}
        return activity

    def message_total(self) -> int:
        """Every session's messages, as `messages_by_format` sums them, read as one sum of the session rows' counts
        (a status line asks it often; a catalog's few sessions without their count yet are counted from units)."""
        known = int(self.db.execute("SELECT COALESCE(SUM(messages), 0) FROM sessions").fetchone()[0])
        missing = [str(row[0]) for row in self.db.execute("SELECT key FROM sessions WHERE messages IS NULL")]
        return known + sum(counted[0] for counted in self._activity_from_units(missing).values())

    def messages_by_format(self) -> dict[str, int]:
        """The sessions' messages summed by format (formats without one left out): `memlens stats` counts what the
        session list counts, from the counts the session rows keep, reading no unit."""
        activity = self.session_activity()
        by_format: dict[str, int] = {}
        for key, format_ in self.db.execute("SELECT key, format FROM sessions"):
            messages = activity.get(str(key), (0, None, None))[0]
            if messages:
                by_format[str(format_)] = by_format.get(str(format_), 0) + messages
        return by_format

    def early_user_texts(
        self, keys: Sequence[str], per_session: int = 8, max_chars: int = 2000
    ) -> dict[str, list[str]]:
        """The beginnings of each session's first `per_session` non-empty user messages, oldest first (a title is
        the first of them that holds a real request). A query per session, in the order of units(session_key, seq)
        and stopping at `per_session`: numbering every user message of the sessions in one query read all of them
        (0.40 against 0.14 ms for a search's eight sessions of a 980,000-message catalog). The blank ones are
        skipped here, not by SQL: a condition and a column on a compressed text would decode it twice (0.45 against
        0.31 ms)."""
        sql = """SELECT text FROM plain_units WHERE session_key = ? AND role = 'user' AND kind = 'transcript'
                 ORDER BY seq"""
        found: dict[str, list[str]] = {}
        for key in sorted(set(keys)):
            texts: list[str] = []
            rows = self._tuples(sql, (key,))
            for (text,) in rows:
                if text.strip(" "):  # SQLite's trim(): spaces only
                    texts.append(text[:max_chars])
                    if len(texts) == per_session:
                        break
            rows.close()
            if texts:
                found[key] = texts
        return found

    def spawning_call_text(self, key: str, parent_key: str) -> str | None:
        """The last message of the parent, in the subagent's own file and before the subagent's first message, that
        calls the Task/Agent tool: the call that spawned a subagent whose turns sit in its parent's file."""
        row = self.db.execute(
            """SELECT p.text FROM plain_units p
               JOIN (SELECT file_id, MIN(seq) AS seq FROM units WHERE session_key = ? GROUP BY file_id) s
                 ON p.file_id = s.file_id AND p.seq < s.seq
               WHERE p.session_key = ? AND p.role = 'assistant'
                     AND (instr(p.text, '[Task]') > 0 OR instr(p.text, '[Agent]') > 0)
               ORDER BY p.seq DESC LIMIT 1""",
            (key, parent_key),
        ).fetchone()
        return None if row is None else str(row[0])

    def short_summaries(self, keys: Sequence[str], max_chars: int = 200) -> dict[str, str]:
        """Each session's first one-line summary no longer than `max_chars` (Claude Code's `summary` titles, not
        multi-paragraph compaction summaries)."""
        found: dict[str, str] = {}
        for start in range(0, len(keys), 500):
            part = list(keys[start : start + 500])
            marks = ",".join("?" * len(part))
            sql = f"""SELECT session_key, text FROM plain_units
                      WHERE session_key IN ({marks}) AND kind = 'summary' AND length(text) <= ?
                            AND instr(trim(text), char(10)) = 0 AND length(trim(text)) > 0
                      ORDER BY session_key, seq"""
            for row in self.db.execute(sql, [*part, max_chars]):
                found.setdefault(str(row[0]), str(row[1]).strip())
        return found

    def tool_call_texts(self, key: str, limit: int = 5000) -> list[str]:
        """The texts of a session's assistant messages that carry tool calls (`[Name] input` lines), oldest first."""
        rows = self.db.execute(
            """SELECT text FROM plain_units WHERE session_key = ? AND role = 'assistant' AND kind = 'transcript'
                   AND (text LIKE '[%' OR instr(text, char(10) || '[') > 0)
               ORDER BY seq LIMIT ?""",
            (key, limit),
        )
        return [str(r[0]) for r in rows]
