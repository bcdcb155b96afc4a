"""Bounded, redacted excerpts around the words a query matched."""

from __future__ import annotations

import re
import unicodedata

from memlens.engine.redact import redact


def fold(text: str) -> str:
    """Lowercase and strip diacritics, keeping string length aligned for ASCII-foldable characters."""
    if text.isascii():  # nothing to decompose: 0.3 µs instead of 7.5 for a 167-character message
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def make_excerpt(text: str, terms: list[str], max_chars: int) -> str:
    """A window of at most `max_chars` characters, centred on the first query term found, secrets redacted."""
    # whitespace runs as one space, as `\s+` → " " then strip() gave (the same characters): 4.3 → 0.9 µs for 166 chars
    flat = " ".join(redact(text).split())
    if len(flat) <= max_chars:
        return flat
    folded = fold(flat)
    aligned = len(folded) == len(flat)
    first = -1
    if aligned:
        for term in terms:
            match = re.search(r"\b" + re.escape(term), folded)
            if match and (first < 0 or match.start() < first):
                first = match.start()
    if first < 0:
        return flat[: max_chars - 1].rstrip() + "…"
    start = max(0, first - max_chars // 3)
    end = min(len(flat), start + max_chars)
    start = max(0, end - max_chars)
    if start > 0:
        space = flat.find(" ", start, start + 30)
        start = space + 1 if space >= 0 else start
    snippet = flat[start:end].strip()
    return ("…" if start > 0 else "") + snippet + ("…" if end < len(flat) else "")
