"""The reference of a session whose id or key holds a secret: `masked-` and a hash of the key, never a prefix of it.

Why it exists: a reference is the start of a session id (`5b0e7d3c`), and the door (`outbound`) masks names whole.
A transcript named after a token (`ghp_…`, a SpecStory export named after a prompt that pasted one) would show
the token's first characters in its reference, and a token cut short matches no detector, so the door lets the
piece through. Such a session is named instead by the first hex digits of a hash of its whole key: as stable as
the key (a reindex keeps it), one per session (a subagent's differs from its parent's), and telling nothing of the
secret. `resolve_session` reads one back by hashing the keys of the visible sessions; a session without a secret
keeps its usual reference.

A message id is the other half of a reference and is shown whole as `messageId` and a history's `anchor`; a
transcript may write a token there (a Claude Code line's `uuid`, an OpenClaw entry's `id`). Such an id is shown as
`masked-` and a hash of the id, everywhere an answer carries it; `message_ids` reads it back within its session.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

from memlens.redaction import redact_title

MASKED_PREFIX = "masked-"
MARKER = re.compile(r"\[REDACTED:[a-z0-9-]*\]")  # what the door put in place of a secret (`redaction.marker`)
MASKED_CHARS = 10  # 40 bits of the hash: two masked sessions of one index share it by chance never in practice


@lru_cache(maxsize=4096)
def holds_secret(name: str) -> bool:
    """Whether the door would mask part of `name` (a session id or key), checked as it checks a name."""
    return redact_title(name) != name


def masked_reference(key: str) -> str:
    """The reference of the session with this key when its id or key holds a secret: `masked-3f2a9c1b4e`."""
    return _masked(key)


def masked_message_id(message_id: str) -> str:
    """How a message id that holds a secret is shown: `masked-` and a hash of the id."""
    return _masked(message_id)


def shown_message_id(message_id: str) -> str:
    """A message id as answers show it: itself, or its masked form when it holds a secret."""
    return masked_message_id(message_id) if holds_secret(message_id) else message_id


def _masked(name: str) -> str:
    digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()
    return MASKED_PREFIX + digest[:MASKED_CHARS]


def shown_as(key: str, shown: str) -> bool:
    """Whether a session key is `shown` as an answer shows it, its secrets masked (the editor and an agent open a
    session by the `sessionKey` they were given)."""
    return MARKER.search(shown) is not None and redact_title(key) == shown


def masked_or_none(key: str, session_id: str) -> str | None:
    """The masked reference of a session whose key or id holds a secret, else None (its id's prefix names it)."""
    return masked_reference(key) if holds_secret(session_id) or holds_secret(key) else None
