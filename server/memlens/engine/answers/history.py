"""A session's messages around an anchored message (or its newest tail), read from the catalog.

A session is one file's: its history shows every message that file holds, those another file of the session keeps
too (a hand copy, a rotation: catalog/copies.py), since whoever opens a copy's session opened that file. The list of
sessions and every count show each message once, by the file that keeps it; the file holding the session's plain
key keeps every message it holds, so its history is the session's."""

from __future__ import annotations

import sqlite3

from memlens.engine.answers.masked_references import shown_message_id
from memlens.engine.answers.message_ids import named_message_ids
from memlens.engine.answers.results import iso
from memlens.engine.answers.visibility import Visibility
from memlens.engine.catalog import Catalog
from memlens.engine.sources.tool_output import scored_text
from memlens.errors import NotFound
from memlens.requests import MAX_HISTORY
from memlens.wire import HistoryMessage, HistoryResponse


class HistoryError(NotFound):
    """An unknown session, or a message id that is not in the session."""


def history_message(row: sqlite3.Row) -> HistoryMessage:
    """A stored unit as a message of a history window (a tool result is a message of kind "tool", its header without
    the call it names: the call's own message, just above it, shows that)."""
    kind = row["kind"]
    return {
        "messageId": row["message_id"],
        "role": row["role"],
        "kind": "summary" if kind == "summary" else "tool" if kind == "tool" else "message",
        "timestamp": iso(row["ts"]),
        "text": scored_text(row["text"], kind),
        "position": row["position"],
    }


def _joined_parts(messages: list[HistoryMessage]) -> list[HistoryMessage]:
    """A message longer than the chunk limit is stored as several parts (units) with one id: show it whole."""
    joined: list[HistoryMessage] = []
    for message in messages:
        if joined and joined[-1]["messageId"] == message["messageId"] and message["messageId"]:
            joined[-1]["text"] += "\n" + message["text"]
        else:
            joined.append(message)
    return joined


def _whole_edges(catalog: Catalog, session_key: str, rows: list[sqlite3.Row]) -> list[sqlite3.Row]:
    """A window of units whose first or last message was split into parts and cut by the window's edge, completed
    with that message's other parts (they follow one another), so no message is shown in part."""
    if not rows:
        return rows
    before: list[sqlite3.Row] = []
    after: list[sqlite3.Row] = []
    for edge, step, out in ((rows[0], -1, before), (rows[-1], 1, after)):
        if not edge["message_id"]:
            continue
        parts = {r["seq"]: r for r in catalog.message_units(session_key, edge["message_id"], copies=True)}
        seq = edge["seq"] + step
        while seq in parts:
            out.append(parts[seq])
            seq += step
    return before[::-1] + rows + after


def _owner(catalog: Catalog, message_id: str, visibility: Visibility | None) -> str:
    """A hint naming the session that holds the message, if the caller may see it; an excluded or out-of-scope
    session is never named."""
    for session in catalog.sessions_with_message(message_id):
        hidden = visibility and visibility.hides_row(session)
        if not hidden:
            return f" (it belongs to {session['key']})"
    return ""


def _whole_message_id(catalog: Catalog, session_key: str, ref: str) -> str:
    """The id `ref` names in the session: itself, the id it is the masked form of, or the one id it is a prefix of
    (a search hit's short reference); a prefix of several ids is the user's error, said with two of them (as
    answers show them)."""
    found = named_message_ids(catalog, session_key, ref)
    if len(found) > 1:
        first, second = shown_message_id(found[0]), shown_message_id(found[1])
        raise HistoryError(f"message {ref!r} is a prefix of several messages ({first}, {second}…): give more")
    return found[0] if found else ref


def session_history(
    catalog: Catalog,
    session_key: str,
    message_id: str | None = None,
    limit: int = 20,
    visibility: Visibility | None = None,
) -> HistoryResponse:
    if not isinstance(session_key, str) or not session_key:
        raise HistoryError("sessionKey is required")
    limit = max(1, min(int(limit), MAX_HISTORY))
    session = catalog.session(session_key)
    if session is None or (visibility and visibility.hides_row(session, key=session_key)):
        raise HistoryError(f"unknown session {session_key!r}")
    anchor_seq: int | None = None
    if message_id:
        message_id = _whole_message_id(catalog, session_key, message_id)
        anchor_seq = catalog.message_seq(session_key, message_id, copies=True)
        if anchor_seq is None:
            raise HistoryError(
                f"message {message_id!r} is not in session {session_key!r}{_owner(catalog, message_id, visibility)}"
            )
    if anchor_seq is None:
        rows = catalog.session_units(session_key, before=None, count=limit, copies=True)
    else:
        rows = catalog.session_units(session_key, before=anchor_seq, count=(limit - 1) // 2, copies=True)
        rows += catalog.session_units(session_key, after=anchor_seq - 1, count=limit - len(rows), copies=True)
    rows = _whole_edges(catalog, session_key, rows)
    first = rows[0]["seq"] if rows else 0
    last = rows[-1]["seq"] if rows else 0
    more_before, more_after = catalog.units_outside(session_key, first, last, copies=True)
    return {
        "sessionKey": session_key,
        "sessionId": session["session_id"],
        "format": session["format"],
        "path": session["path"],
        "title": session["title"],
        "parentSessionKey": session["parent_key"],
        "anchor": message_id,
        "messages": _joined_parts([history_message(r) for r in rows]),
        "hasMoreBefore": more_before,
        "hasMoreAfter": more_after,
    }
