"""A search hit's reference, `SESSION:MESSAGE` (`5b0e7d3c:b93217ff`): the short name every front end prints for a
hit and `history` opens, and the reading of one back into a session and a message.

Why it exists: a reference built from fixed-length prefixes can name two things (two SpecStory sessions whose ids
are file names starting with the same date, both holding a message `L3`). As git abbreviates a hash, each part is
made here as short as the catalog allows at the time (at least eight characters, a UUIDv7's whole timestamp), and
checked with the very rule `resolve_session` opens it with; a hit it cannot name short is named by its whole
session key. The engine makes it once, so the CLI, MCP and the editor show the same one.

A session indexed later may share a printed reference's prefix: the reference still opens its hit while its
message part tells the two apart; else `history` says it is ambiguous and names each candidate by its whole key
with the message (`KEY:MESSAGE`), which always opens, as does a whole session id.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memlens.engine.answers.sessions import chosen_session
from memlens.engine.answers.visibility import Visibility
from memlens.engine.catalog import Catalog
from memlens.requests import FORMATS
from memlens.wire import SearchResult

SESSION_CHARS = 8  # a random uuid's first 8 hex digits: unique among a person's sessions in practice
# A UUIDv7 (Codex CLI's session ids) starts with its creation time in milliseconds, whose first 8 hex digits change
# only every 65 s: two sessions started in the same minute share them. Its reference keeps the whole timestamp, so
# that a session started later in the same minute does not make it ambiguous.
UUID7_SESSION_CHARS = 13  # `019e1625-789d`
MESSAGE_CHARS = 8
_UUID7 = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", re.IGNORECASE)
# a prefix holding one of these could also match a session key (`format:id/agent-x`, `id~copy`) rather than an id
_KEY_CHARS = frozenset(":/~")


def add_references(catalog: Catalog, results: Sequence[SearchResult], visibility: Visibility) -> None:
    """Give each hit of a session its `reference` (a memory note's hit has none: its `relPath:line` names it)."""
    for result in results:
        key, session_id = result.get("sessionKey"), result.get("sessionId")
        if not key or not session_id:
            continue
        message = result.get("messageId")
        part = _message_part(catalog, key, message) if message else None
        result["reference"] = _join(_session_part(catalog, key, session_id, visibility, part), part)


def _join(session: str, message: str | None) -> str:
    return f"{session}:{message}" if message else session


def _session_part(catalog: Catalog, key: str, session_id: str, visibility: Visibility, message: str | None) -> str:
    """The shortest prefix of the session id that no other id starts with (hidden sessions' ids count too: a longer
    prefix is still right), when `resolve_session` opens it (with `message`) as this very session; else the
    session's whole key."""
    prefix = session_id[: _shortest(session_id, catalog.neighbour_session_ids(session_id))]
    typed_back = prefix.strip() == prefix and prefix.isprintable() and not _KEY_CHARS & set(prefix)
    if typed_back:
        # what the prefix matches: the visible sessions of this id (a main session, its subagents, copies)
        sharing = [r for r in catalog.sessions_of_id(session_id) if not visibility.hides_row(r)]
        chosen = chosen_session(catalog, sharing, message)
        if chosen is not None and str(chosen["key"]) == key:
            return prefix
    return key


def _shortest(session_id: str, neighbours: list[str]) -> int:
    """How many characters of `session_id` tell it from every other id (as git abbreviates a hash: one more than it
    shares with either neighbour in sorted order, at least the usual length)."""
    usual = UUID7_SESSION_CHARS if _UUID7.fullmatch(session_id) else SESSION_CHARS
    return max([usual, *(_common(session_id, other) + 1 for other in neighbours)])


def _common(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _message_part(catalog: Catalog, key: str, message_id: str) -> str:
    """The shortest prefix (at least eight characters) that names this message alone in its session, as `history`
    reads it: not another message's whole id, the prefix of no other id."""
    for length in range(MESSAGE_CHARS, len(message_id)):
        part = message_id[:length]
        if catalog.message_seq(key, part) is None and catalog.message_ids_with_prefix(key, part) == [message_id]:
            return part
    return message_id


def split_reference(catalog: Catalog, ref: str) -> tuple[str, str | None]:
    """A reference as its session and message parts. A whole session key before a colon (keys and message ids may
    both hold colons: `specstory:<id>:L12:T1`) is taken first; else a key `format:id` stays whole or is followed by
    its message, and anything else is `SESSION:MESSAGE` split at its first colon."""
    if catalog.session(ref) is not None:
        return ref, None
    for at in (i for i, ch in enumerate(ref) if ch == ":"):
        if catalog.session(ref[:at]) is not None:
            return ref[:at], ref[at + 1 :] or None
    head, colon, rest = ref.partition(":")
    if colon and head in FORMATS:
        inner, colon, message = rest.partition(":")
        return (f"{head}:{inner}", message or None) if colon else (ref, None)
    return (head, rest or None) if colon else (ref, None)
