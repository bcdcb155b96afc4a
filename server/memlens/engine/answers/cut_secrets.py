"""Secrets cut between two stored messages, masked at the door when the index keeps text unmasked.

With ``privacy.redactIndex`` on, the indexer redacts a session's messages as a sequence, so a token whose first half
ends one message and whose rest starts the next is stored masked in both. With it off, the text is stored as it
was, and the door's pass sees one message (or an excerpt of one) at a time: neither half is a token alone. So for
every message an answer shows, its neighbours in the session are read back and the message is redacted together
with them; each piece of a secret found that way is masked wherever the answer shows that message's text.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar, cast

from memlens.engine.catalog import Catalog
from memlens.redaction import find_secrets_in_sequence, marker

T = TypeVar("T")
_SHORTEST_PIECE = 4  # a shorter piece of a secret would mask ordinary words wherever they occur
_LINES = re.compile(r"[ \t]*(?:\r?\n|(?:\\\\)*\\[nr])[ \t]*")

Pieces = list[tuple[str, str]]  # (text to mask, kind)


def mask_cut_secrets(response: T, catalog: Catalog) -> T:
    """A copy of the response in which every piece of a secret cut between two stored messages is masked."""
    cache: dict[tuple[str, str], Pieces] = {}
    return cast(T, _walk(response, catalog, cache, None))


def _walk(value: Any, catalog: Catalog, cache: dict[tuple[str, str], Pieces], session: str | None) -> Any:
    """``session``: the key of the session an enclosing dict names (a history's or an expanded summary's
    messages carry only their own ids)."""
    if isinstance(value, list | tuple):
        return [_walk(v, catalog, cache, session) for v in value]
    if not isinstance(value, dict):
        return value
    key, message_id = value.get("sessionKey", session), value.get("messageId")
    session = key if isinstance(key, str) else session
    pieces: Pieces = []
    if isinstance(key, str) and isinstance(message_id, str) and key and message_id:
        place = (key, message_id)
        if place not in cache:
            cache[place] = _pieces(catalog, key, message_id)
        pieces = cache[place]
    return {
        k: _masked(v, pieces) if isinstance(v, str) else _walk(v, catalog, cache, session) for k, v in value.items()
    }


def _masked(text: str, pieces: Pieces) -> str:
    for piece, kind in pieces:
        if piece in text:
            text = text.replace(piece, marker(kind))
    return text


def _pieces(catalog: Catalog, session_key: str, message_id: str) -> Pieces:
    """The pieces of secrets in this message that only its join with a neighbour shows (and any others)."""
    units = catalog.message_units(session_key, message_id)
    if not units:
        return []
    # its neighbours in its file, a copy another file keeps or not: the secret was cut between the file's lines
    before = catalog.session_units(session_key, before=int(units[0]["seq"]), count=1, copies=True)
    after = catalog.session_units(session_key, after=int(units[-1]["seq"]), count=1, copies=True)
    texts = [str(u["text"]) for u in [*before, *units, *after]]
    spans = find_secrets_in_sequence(texts)
    pieces: Pieces = []
    for index in range(len(before), len(before) + len(units)):
        text = texts[index]
        for span in spans[index]:
            piece = text[span.start : span.end]
            # an excerpt flattens a text's lines: each line of a key block's body is a piece of its own as well
            pieces += [(p, span.kind) for p in [piece, *_LINES.split(piece)] if len(p.strip()) >= _SHORTEST_PIECE]
    return sorted(set(pieces), key=lambda p: -len(p[0]))  # longest first: a piece inside another is not cut apart
