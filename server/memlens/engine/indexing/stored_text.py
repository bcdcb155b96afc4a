"""Redaction before storage: the index must not become a second copy of the secrets it was given.

The indexer runs `redact_content` on every parsed file before any of it reaches the catalog, tantivy or the
embedding model, so what is stored, keyword-indexed and embedded is already masked. `REDACTION_VERSION` names
the detector generation an index was built with; when it (or the setting) changes, the engine re-parses every
file once so old unmasked text does not linger.
"""

from __future__ import annotations

import logging
import re

from memlens.engine.catalog import Catalog
from memlens.engine.indexing.ingest import FileContent
from memlens.engine.sources.tool_output import scored_text
from memlens.redaction import Span, find_secrets, find_secrets_in_sequence, redact, redact_sequence, redact_title

log = logging.getLogger(__name__)

# Bump when the detector learns new kinds or masks differently: indexes built with an older one are re-parsed on open.
REDACTION_VERSION = 13


def redaction_stamp(enabled: bool) -> str:
    """What the catalog records about how its text was redacted."""
    return f"v{REDACTION_VERSION}" if enabled else "off"


def reparse_if_redaction_changed(catalog: Catalog, *, enabled: bool) -> None:
    """An index built by another detector (or with redaction switched) has every file read again at the next sync, so
    text stored unmasked does not linger. The writer calls it when it opens the index."""
    stamp = redaction_stamp(enabled)
    if catalog.get_meta("redaction") == stamp:
        return
    with catalog.transaction() as db:
        if catalog.get_meta("redaction", db=db) is not None or catalog.get_meta("generation", db=db):
            log.info("the index was built with other redaction rules; every file will be read again")
            catalog.mark_all_for_reparse(db)
        catalog.set_meta(db, "redaction", stamp)


# The stored message before an appended tail ends with a mask: the secret may go on in the tail.
_MASK_AT_END = re.compile(r"\[REDACTED:[a-z0-9-]+\]$")
_UNITS_LOOKED_BACK = 16  # stored units of a session read to find the one before an appended tail


def cut_across_append(catalog: Catalog, session_key: str, content: FileContent) -> bool:
    """Whether an appended tail's first message may finish a secret cut at the end of the stored message before
    it. The tail alone cannot mask the stored part, so the caller reads the whole file again, as a rebuild would."""
    new = [r for r in content.records if r.agent_id is None]
    if not new or not new[0].text:
        return False
    replace_from = content.replace_from_line
    # the file's own last messages, those another file of the session keeps too (catalog/copies.py): the tail
    # continues this file, whichever file counts them
    stored = catalog.session_units(session_key, count=_UNITS_LOOKED_BACK, copies=True)
    before = [u for u in stored if replace_from is None or u["position"] is None or u["position"] < replace_from]
    if not before:
        return False
    previous, first = str(before[-1]["text"]), new[0].text
    if _MASK_AT_END.search(previous) and not first[0].isspace():
        return True
    together = find_secrets_in_sequence([previous, first])
    return together[1] != find_secrets(first)


def redact_content(content: FileContent, *, enabled: bool) -> None:
    """Mask secrets in a parsed file in place: message texts, unit texts and what gets embedded, titles, headings."""
    if not enabled:
        return
    cache: dict[str, str] = {}
    spans: dict[str, list[Span]] = {}  # a message and the unit made of it are scanned once

    def masked(text: str) -> str:
        result = cache.get(text)
        if result is None:
            result = cache[text] = redact(text)
        return result

    # consecutive messages (and the parts of one long message) are redacted together: a secret cut between two
    records = content.records
    for record, text in zip(records, redact_sequence([r.text for r in records], spans), strict=True):
        record.text = text
    units = [unit for chunk in content.chunks for unit in chunk.units]
    embedded_prefix = [scored_text(unit.text, unit.kind).startswith(unit.embed_text) for unit in units]
    # a note's chunks are cut between lines and each starts with its heading: no token runs on from one to the
    # next, and read together a token ending one chunk ran on into the next one's heading and masked its first word
    unit_texts = [u.text for u in units]
    texts = [masked(t) for t in unit_texts] if content.kind == "memory" else redact_sequence(unit_texts, spans)
    for unit, text, prefix in zip(units, texts, embedded_prefix, strict=True):
        length = len(unit.embed_text)
        # the embedded text is a prefix of the unit's text (as scored: a tool output's without its header's call):
        # cut it from the masked whole, so a secret that straddled the cut is masked too rather than embedded in part
        unit.embed_text = scored_text(text, unit.kind)[:length] if prefix else masked(unit.embed_text)
        unit.text = text
    for chunk in content.chunks:
        if chunk.heading:
            chunk.heading = masked(chunk.heading)
    for session in [content.session, *content.subsessions]:
        if session is not None and session.title:
            session.title = redact_title(session.title)
