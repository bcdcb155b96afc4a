"""The message that a reference's message part names in a session: the whole id, the masked form that an answer
showed for an id holding a secret (`masked_references`), or a prefix of one id.

Why it exists: `history` opens a message by what a hit showed, and `resolve_session` picks among the sessions a
prefix matched by the one holding that message. Both read the part by this one rule, so whatever an answer shows
also opens.
"""

from __future__ import annotations

from memlens.engine.answers.masked_references import MASKED_PREFIX, masked_message_id
from memlens.engine.catalog import Catalog


def named_message_ids(catalog: Catalog, session_key: str, part: str, *, limit: int = 2) -> list[str]:
    """The ids of the session's messages that `part` names: itself when it is one, the id it is the masked form of,
    else up to `limit` ids it is a prefix of."""
    if catalog.message_seq(session_key, part) is not None:
        return [part]
    if part.startswith(MASKED_PREFIX):
        unmasked = [m for m in catalog.message_ids(session_key) if masked_message_id(m) == part]
        if unmasked:
            return unmasked[:1]
    return catalog.message_ids_with_prefix(session_key, part, limit=limit)
