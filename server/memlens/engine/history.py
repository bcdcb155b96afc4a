"""A session's messages around an anchored message (or its newest tail), read from the catalog."""

from __future__ import annotations

from typing import Any

from memlens.engine.catalog import Catalog
from memlens.engine.results import Visibility, iso
from memlens.errors import NotFound

MAX_HISTORY = 500


class HistoryError(NotFound):
    """An unknown session, or a message id that is not in the session."""


def _message(row: Any) -> dict[str, Any]:
    return {
        "messageId": row["message_id"],
        "role": row["role"],
        "kind": "summary" if row["kind"] == "summary" else "message",
        "timestamp": iso(row["ts"]),
        "text": row["text"],
        "position": row["position"],
    }


def session_history(
    catalog: Catalog,
    session_key: str,
    message_id: str | None = None,
    limit: int = 20,
    visibility: Visibility | None = None,
) -> dict[str, Any]:
    if not isinstance(session_key, str) or not session_key:
        raise HistoryError("sessionKey is required")
    limit = max(1, min(int(limit), MAX_HISTORY))
    session = catalog.session(session_key)
    if session is None or (visibility and visibility.hides(session_key, session["session_id"], session["path"])):
        raise HistoryError(f"unknown session {session_key!r}")
    db = catalog.db
    anchor_seq: int | None = None
    if message_id:
        row = db.execute(
            "SELECT seq FROM units WHERE session_key = ? AND message_id = ?", (session_key, message_id)
        ).fetchone()
        if row is None:  # where it does belong is not said: that session may be one the caller must not see
            raise HistoryError(f"message {message_id!r} is not in session {session_key!r}")
        anchor_seq = int(row[0])
    if anchor_seq is None:
        rows = db.execute(
            "SELECT * FROM units WHERE session_key = ? ORDER BY seq DESC LIMIT ?", (session_key, limit)
        ).fetchall()[::-1]
    else:
        before = (limit - 1) // 2
        rows = db.execute(
            "SELECT * FROM units WHERE session_key = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
            (session_key, anchor_seq, before),
        ).fetchall()[::-1]
        rows += db.execute(
            "SELECT * FROM units WHERE session_key = ? AND seq >= ? ORDER BY seq LIMIT ?",
            (session_key, anchor_seq, limit - len(rows)),
        ).fetchall()
    first = rows[0]["seq"] if rows else 0
    last = rows[-1]["seq"] if rows else 0
    count = db.execute(
        "SELECT SUM(seq < ?), SUM(seq > ?) FROM units WHERE session_key = ?", (first, last, session_key)
    ).fetchone()
    return {
        "sessionKey": session_key,
        "sessionId": session["session_id"],
        "format": session["format"],
        "path": session["path"],
        "title": session["title"],
        "parentSessionKey": session["parent_key"],
        "anchor": message_id,
        "messages": [_message(r) for r in rows],
        "hasMoreBefore": bool(count[0]),
        "hasMoreAfter": bool(count[1]),
    }
