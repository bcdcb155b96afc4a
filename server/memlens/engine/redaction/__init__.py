"""Find and mask secrets (API keys, tokens, private keys, passwords) in any text that leaves the engine.

``redact(text)`` replaces each secret with ``[REDACTED:<kind>]``; ``find_secrets(text)`` lists them as spans.
The detectors are Yelp detect-secrets' published plugin patterns (``library``) plus our own for contexts and
formats it lacks (``patterns``), all run on RE2 in linear time (``scanner``). Values after a key are kept when
they are plainly not secrets: placeholders, ``$VAR`` references, words such as ``required`` (``values``).
Redaction is idempotent: a marker is never itself taken for a secret.
"""

from __future__ import annotations

from memlens.engine.redaction.detector import Detector, Span
from memlens.engine.redaction.library import library_detectors
from memlens.engine.redaction.patterns import CONTEXT_DETECTORS, TOKEN_DETECTORS
from memlens.engine.redaction.scanner import Scanner

__all__ = ["DETECTORS", "Detector", "Span", "find_secrets", "marker", "redact"]

# Token formats first: where a format and a context find the same span, the format names its kind.
DETECTORS: list[Detector] = [*TOKEN_DETECTORS, *library_detectors(), *CONTEXT_DETECTORS]
_SCANNER = Scanner(DETECTORS)


def marker(kind: str) -> str:
    """The text that replaces a secret of this kind."""
    return f"[REDACTED:{kind}]"


def find_secrets(text: str) -> list[Span]:
    """The secrets in ``text``: non-overlapping spans in order of position."""
    return _SCANNER.find(text)


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``."""
    spans = _SCANNER.find(text)
    if not spans:
        return text
    parts: list[str] = []
    position = 0
    for span in spans:
        parts.append(text[position : span.start])
        parts.append(marker(span.kind))
        position = span.end
    parts.append(text[position:])
    return "".join(parts)
