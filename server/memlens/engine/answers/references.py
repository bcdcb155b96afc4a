"""A search hit's reference, `SESSION:MESSAGE` (`5b0e7d3c:b93217ff`): the short name every front end prints for a
hit and `history` opens, and the reading of one back into a session and a message.

Why it exists: a reference built from fixed-length prefixes can name two things (two SpecStory sessions whose ids
are file names starting with the same date, both holding a message `L3`). As git abbreviates a hash, each part is
made here as short as the catalog allows at the time (at least eight characters, a UUIDv7's whole timestamp), and
checked with the very rule `resolve_session` opens it with. Sessions that share one id (a main session, its
subagents, copies of its file) are told apart by the message, else by the start of the rest of the key
(`258c7280/a8`); a session no short form names alone is named by its whole key. The engine makes references, so
the CLI, MCP and the editor show the same ones, and a session list names its sessions the same way.

A session indexed later may share a printed reference's prefix: the reference still opens its hit while its
message part tells the two apart; else `history` says it is ambiguous and names each candidate by its whole key
with the message (`KEY:MESSAGE`), which always opens, as does a whole session id.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence

from memlens.engine.answers.masked_references import MARKER, holds_secret, masked_message_id, masked_or_none
from memlens.engine.answers.message_ids import named_message_ids
from memlens.engine.answers.visibility import Visibility
from memlens.engine.catalog import Catalog, SessionsOfId
from memlens.engine.file_names import escape_name
from memlens.errors import InvalidRequest
from memlens.requests import FORMATS
from memlens.wire import SearchResult

SESSION_CHARS = 8  # a random uuid's first 8 hex digits: unique among a person's sessions in practice
# A UUIDv7 (Codex CLI's session ids) starts with its creation time in milliseconds, whose first 8 hex digits change
# only every 65 s: two sessions started in the same minute share them. Its reference keeps the whole timestamp, so
# that a session started later in the same minute does not make it ambiguous.
UUID7_SESSION_CHARS = 13  # `019e1625-789d`
MESSAGE_CHARS = 8
MESSAGE_CANDIDATES = 100  # sessions a short reference is checked against for its message, at most
_UUID7 = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", re.IGNORECASE)
# a prefix holding one of these could also match a session key (`format:id/agent-x`, `id~copy`) rather than an id
_KEY_CHARS = frozenset(":/~")
SUFFIX_MARKS = ("/", "~")  # what follows a session id in the key of a subagent (`/agent-…`) or a copy (`~name`)


def add_references(catalog: Catalog, results: Sequence[SearchResult], visibility: Visibility) -> None:
    """Give each hit of a session its `reference` (a memory note's hit has none: its `relPath:line` names it). What
    the references are made from is read for all the hits at once: two statements, not three to five a hit."""
    named = [r for r in results if r.get("sessionKey") and r.get("sessionId")]
    if not named:
        return
    ids = catalog.sessions_of_ids(sorted({str(r["sessionId"]) for r in named}))
    asked = [(str(r["sessionKey"]), m) for r in named if (m := r.get("messageId")) and _needs_reading(m)]
    shared = dict(zip(asked, catalog.prefixes_shared(asked, MESSAGE_CHARS), strict=True))
    for result in named:
        key, session_id = str(result["sessionKey"]), str(result["sessionId"])
        message = result.get("messageId")
        part = _message_part(catalog, key, message, shared=shared.get((key, message))) if message else None
        known = ids.get(session_id, SessionsOfId([], catalog.neighbour_session_ids(session_id)))
        result["reference"] = _join(
            session_reference(catalog, key, session_id, visibility, message=part, known=known), part
        )


def _join(session: str, message: str | None) -> str:
    return f"{session}:{message}" if message else session


def session_reference(
    catalog: Catalog,
    key: str,
    session_id: str,
    visibility: Visibility,
    *,
    message: str | None = None,
    whole_timestamp: bool = True,
    known: SessionsOfId | None = None,
) -> str:
    """The session part of a reference: the shortest prefix of the session id that no other id starts with (hidden
    sessions' ids count too: a longer prefix is still right), when `resolve_session` opens it (with `message`) as
    this very session; else that prefix and as much of the rest of the session's key as tells it from the others of
    its id (`258c7280/a8` for the subagent `…/agent-a881341`, `e9fb405b~t` for a copy `…~turn-2`); else the whole
    key. `whole_timestamp`: a UUIDv7's prefix keeps its timestamp (a session list, read at once and narrow, does
    without). `known`: the id's sessions and neighbours when they were read already (`Catalog.sessions_of_ids`).
    A session whose id or key holds a secret is named by a hash of its key (`masked_references`): a
    prefix would show the start of the secret, which no detector knows once it is cut."""
    if (masked := masked_or_none(key, session_id)) is not None:
        return masked
    if known is None:
        known = SessionsOfId(catalog.sessions_of_id(session_id), catalog.neighbour_session_ids(session_id))
    prefix = session_id[: _shortest(session_id, known.neighbours, whole_timestamp)]
    if _typed_back(prefix) and not _KEY_CHARS & set(prefix):
        # what the prefix matches: the visible sessions of this id (a main session, its subagents, copies)
        sharing = [r for r in known.rows if not visibility.hides_row(r)]
        chosen = chosen_session(catalog, sharing, message)
        if chosen is not None and str(chosen["key"]) == key:
            return prefix
        rest = _short(_rest(key, session_id))
        if rest[:1] in SUFFIX_MARKS and ":" not in rest and _typed_back(rest):
            for length in range(2, len(rest) + 1):
                named = sessions_named_by_rest(sharing, prefix + rest[:length])
                if len(named) == 1 and str(named[0]["key"]) == key:
                    return prefix + rest[:length]
    return key


def sessions_named_by_rest(rows: Sequence[sqlite3.Row], ref: str) -> list[sqlite3.Row]:
    """The sessions of `rows` that `ref`, a prefix of a session id then the start of the rest of its key, names
    (`258c7280/a8`: `/agent-` may be left out): the one whose rest it is whole, else all whose rest it starts."""
    cut = min((at for at in (ref.find(mark) for mark in SUFFIX_MARKS) if at > 0), default=-1)
    if cut < 0:
        return []
    head, tail = ref[:cut], ref[cut:]
    named = []
    for row in rows:
        session_id = str(row["session_id"])
        rest = _rest(str(row["key"]), session_id)
        if session_id.startswith(head) and rest and (rest.startswith(tail) or _short(rest).startswith(tail)):
            named.append((row, tail in (rest, _short(rest))))
    whole = [row for row, exact in named if exact]
    return whole if len(whole) == 1 else [row for row, _ in named]


def _rest(key: str, session_id: str) -> str:
    """What a session's key holds after its id: `/agent-a881341` (a subagent), `~turn-2` (a copy), or nothing."""
    inner = key.partition(":")[2]
    return inner[len(session_id) :] if inner.startswith(session_id) else ""


def _short(rest: str) -> str:
    """`/agent-a881341` as `/a881341`: every subagent's rest starts with `agent-`."""
    return "/" + rest.removeprefix("/agent-") if rest.startswith("/agent-") else rest


def _typed_back(text: str) -> bool:
    """Whether `text` reads back as typed: a shell keeps it, `resolve_session` does not strip or escape it."""
    return text.strip() == text and text.isprintable()


def _shortest(session_id: str, neighbours: list[str], whole_timestamp: bool) -> int:
    """How many characters of `session_id` tell it from every other id (as git abbreviates a hash: one more than it
    shares with either neighbour in sorted order, at least the usual length)."""
    usual = UUID7_SESSION_CHARS if whole_timestamp and _UUID7.fullmatch(session_id) else SESSION_CHARS
    return max([usual, *(_common(session_id, other) + 1 for other in neighbours)])


def _common(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _needs_reading(message_id: str) -> bool:
    """Whether a message id's reference is read from the catalog: one longer than a reference's part and holding no
    secret (`_message_part`)."""
    return len(message_id) > MESSAGE_CHARS and not holds_secret(message_id)


def _message_part(catalog: Catalog, key: str, message_id: str, *, shared: bool | None = None) -> str:
    """The shortest prefix (at least eight characters) that names this message alone in its session, as `history`
    reads it: not another message's whole id, the prefix of no other id. An id holding a secret is named by its
    masked form (`masked_references`): a prefix would show the start of the secret. `shared`: whether its first
    eight characters fail to name it alone, when that was read already (`Catalog.prefixes_shared`)."""
    if holds_secret(message_id):
        return masked_message_id(message_id)
    if shared is False and len(message_id) > MESSAGE_CHARS:
        return message_id[:MESSAGE_CHARS]
    for length in range(MESSAGE_CHARS + (shared is True), len(message_id)):
        part = message_id[:length]
        if catalog.message_seq(key, part) is None and catalog.message_ids_with_prefix(key, part) == [message_id]:
            return part
    return message_id


def split_reference(catalog: Catalog, ref: str) -> tuple[str, str | None]:
    """A reference as its session and message parts. A whole session key or id is taken whole, and one before a
    colon next (keys, ids and message ids may all hold colons: `specstory:<id>:L12:T1`); else a key `format:id`
    stays whole or is followed by its message, and anything else is `SESSION:MESSAGE` split at its first colon."""
    ref = ref.strip()
    if not ref.isprintable():  # raw bytes of a file name (a shell passes them as typed): keys hold them escaped
        ref = escape_name(ref)
    if _names_a_session(catalog, ref):
        return ref, None
    colons = _separators(ref)
    for at in colons:
        if _names_a_session(catalog, ref[:at]):
            return ref[:at], ref[at + 1 :] or None
    head, colon, rest = (ref[: colons[0]], ":", ref[colons[0] + 1 :]) if colons else (ref, "", "")
    if colon and head in FORMATS:
        return (ref[: colons[1]], ref[colons[1] + 1 :] or None) if len(colons) > 1 else (ref, None)
    if colon and not head.strip():  # `:b93217ff`, `::::`: a message of no session
        raise InvalidRequest(
            f"'{ref}' names no session before its ':' (give SESSION:MESSAGE as a hit shows it, a session key, a"
            " session id, or a unique prefix of one)"
        )
    return (head, rest or None) if colon else (ref, None)


def _separators(ref: str) -> list[int]:
    """Where `ref` may be split: its colons, but for those of a redaction marker (a key as an answer shows it, a
    secret in it masked: `claude-code:[REDACTED:github-token]`)."""
    masked = [(m.start(), m.end()) for m in MARKER.finditer(ref)]
    return [i for i, ch in enumerate(ref) if ch == ":" and not any(start < i < end for start, end in masked)]


def _names_a_session(catalog: Catalog, text: str) -> bool:
    return catalog.session(text) is not None or bool(catalog.sessions_of_id(text))


def chosen_session(catalog: Catalog, candidates: Sequence[sqlite3.Row], message: str | None) -> sqlite3.Row | None:
    """The one of several sessions a reference's prefix matched that it names, or None when it names none alone:
    the one holding `message`, else the main session of one id over its subagents and copies (they share it).
    `resolve_session` opens a reference by this rule, and `session_reference` makes one by it, so what is printed
    opens."""
    holding = _holding_message(catalog, candidates, message)
    if len(holding) == 1:  # a subagent's hit names its parent's id, and a short prefix may name two sessions
        return holding[0]
    if len({r["session_id"] for r in candidates}) == 1:
        main = [r for r in candidates if r["key"] == f"{r['format']}:{r['session_id']}"]
        if main:
            return main[0]
        if len(candidates) == 1:
            return candidates[0]
    return None


def _holding_message(catalog: Catalog, candidates: Sequence[sqlite3.Row], message: str | None) -> list[sqlite3.Row]:
    """The candidates that hold `message` (its id or a prefix of one); none asked when there is one candidate, no
    message, or more candidates than a reference could be meant to tell apart."""
    if not message or not 1 < len(candidates) <= MESSAGE_CANDIDATES:
        return []
    return [r for r in candidates if named_message_ids(catalog, str(r["key"]), message, limit=1)]
