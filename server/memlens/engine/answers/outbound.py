"""The last redaction pass: every response that leaves the engine goes through `redact_response`.

Text is redacted when it is stored (see `memlens.redaction`), and excerpts and windows redact the whole text
before they cut it; this pass is the door every surface shares (CLI, language server, hover, MCP), so a surface
added later, an index built with redaction turned off, or a secret kind learnt after the index was built can't
leak. It walks the response and redacts every string except the fields that are generated (ids, times, enums).

Paths and session keys name files, and a file may be named after a prompt (SpecStory names an export after its
first one): they pass the detector too, through a cache since a response repeats the same few. A path with a
secret in it is shown masked, and so cannot be opened from the answer; that is the price of not showing the secret.
Titles are checked as text and as the file name they may come from (``redact_title``). A message id that holds a
secret is shown by its masked form, which `history` opens (``masked_references``). A list of messages is
redacted as a sequence, so a token cut between two consecutive messages is masked in both.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, TypeVar, cast

from memlens.engine.answers.masked_references import shown_message_id
from memlens.redaction import redact, redact_sequence, redact_title

# Fields whose values memlens or an agent generates (ids, enums, times), never text a person wrote: left exact.
_STRUCTURAL_KEYS = frozenset(
    {
        "id",
        "kind",
        "format",
        "mode",
        "fusion",
        "role",
        "summaryId",
        "timestamp",
        "lastSync",
        "provider",
        "unitId",
        "confidence",  # strong, possible or weak (answers/confidence.py): one per result, never scanned
    }
)
# Fields that name a file or a session: usually clean and repeated across a response, so checked through a cache.
_NAME_KEYS = frozenset({"path", "relPath", "indexDir", "sessionKey", "sessionId", "parentSessionKey", "cwd", "project"})
_TITLE_KEYS = frozenset({"title"})
# Fields holding a message id as the transcript wrote it, which may be a token: shown masked (`masked_references`).
_MESSAGE_ID_KEYS = frozenset({"messageId", "anchor", "firstMessageId", "lastMessageId"})
# A hit's reference is two names joined, `SESSION:MESSAGE`: each is checked alone, as the session key and the message
# id are. Read together, an all-digit session prefix, the colon and a long message id make a Telegram bot token's
# shape (`55604662:aaaaaaaa-0000-…`), and the reference was masked, so it could not be opened.
_JOINED_KEYS = frozenset({"reference"})
_MESSAGE_TEXT = "text"  # a list of dicts with this field is a sequence of messages

T = TypeVar("T")


def redact_response(value: T) -> T:
    """A copy of a JSON-like response with every free-text string redacted."""
    return cast(T, _walk(value, None))


_PLAIN = frozenset({int, float, bool, type(None)})  # values with no text in them


@lru_cache(maxsize=4096)
def _redacted_name(name: str) -> str:
    return redact_title(name)


def _walk(value: Any, key: str | None) -> Any:
    if isinstance(value, str):
        if key in _STRUCTURAL_KEYS:
            return value
        if key in _MESSAGE_ID_KEYS:
            return shown_message_id(value)
        if key in _JOINED_KEYS:
            session, colon, message = value.rpartition(":")
            return _redacted_name(session) + colon + _redacted_name(message) if colon else _redacted_name(value)
        if key in _NAME_KEYS or key in _TITLE_KEYS:
            return _redacted_name(value)
        return redact(value)
    if isinstance(value, dict):
        # numbers and generated fields kept without a call: a search's response holds a hundred-odd of them
        return {
            k: v if type(v) in _PLAIN or (type(v) is str and k in _STRUCTURAL_KEYS) else _walk(v, k)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        if len(value) > 1 and all(isinstance(v, dict) and isinstance(v.get(_MESSAGE_TEXT), str) for v in value):
            return _message_sequence(value, key)
        return [_walk(v, key) for v in value]
    return value


def _message_sequence(messages: Any, key: str | None) -> list[Any]:
    """Consecutive messages: each walked, its text redacted together with its neighbours'."""
    texts = redact_sequence([m[_MESSAGE_TEXT] for m in messages])
    return [
        {k: text if k == _MESSAGE_TEXT else _walk(v, k) for k, v in message.items()}
        for message, text in zip(messages, texts, strict=True)
    ]
