"""Find and mask secrets (API keys, tokens, private keys, passwords) in any text that leaves the engine.

``redact(text)`` replaces each secret with ``[REDACTED:<kind>]``; ``find_secrets(text)`` lists them as spans.
The detectors are Yelp detect-secrets' published plugin patterns (``library``) plus our own for contexts and
formats it lacks (``patterns``), all run on RE2 in linear time (``scanner``). Values after a key are kept when
they are plainly not secrets: placeholders, ``$VAR`` references, words such as ``required`` (``values``).
Redaction is idempotent: a marker is never itself taken for a secret.

``redact_sequence(texts)`` redacts consecutive messages together: a token cut in two, its first half ending one
message and the rest starting the next, is found over their join and masked in both.
"""

from __future__ import annotations

from memlens.engine.redaction.detector import Detector, Span
from memlens.engine.redaction.library import library_detectors
from memlens.engine.redaction.patterns import CONTEXT_DETECTORS, TOKEN_DETECTORS
from memlens.engine.redaction.scanner import Scanner, merge

__all__ = [
    "DETECTORS",
    "Detector",
    "Span",
    "find_secrets",
    "find_secrets_in_sequence",
    "marker",
    "redact",
    "redact_sequence",
    "redact_title",
]

# Token formats first: where a format and a context find the same span, the format names its kind.
DETECTORS: list[Detector] = [*TOKEN_DETECTORS, *library_detectors(), *CONTEXT_DETECTORS]
_SCANNER = Scanner(DETECTORS)


def marker(kind: str) -> str:
    """The text that replaces a secret of this kind."""
    return f"[REDACTED:{kind}]"


def find_secrets(text: str) -> list[Span]:
    """The secrets in ``text``: non-overlapping spans in order of position."""
    return _SCANNER.find(text)


# How much of each side of a cut between two messages is read together: more than the longest token format.
_JOIN_CHARS = 512
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-.~:@!%*#$&")


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``."""
    return _masked(text, _SCANNER.find(text))


def find_secrets_in_sequence(texts: list[str], cache: dict[str, list[Span]] | None = None) -> list[list[Span]]:
    """The secrets of each of these consecutive texts, including the parts of a secret cut between two of them.

    ``cache`` keeps each text's own spans: a message and the unit made of it are one text, scanned once (and the
    join of two messages is the join of the two units made of them)."""
    found = [_cached_find(text, cache) for text in texts]
    for index in range(len(texts) - 1):
        before, after = texts[index], texts[index + 1]
        # a secret cut in two has a character of a token on each side of the cut (no space, quote or bracket)
        if not before or not after or before[-1] not in _TOKEN_CHARS or after[0] not in _TOKEN_CHARS:
            continue
        tail = before[-_JOIN_CHARS:]
        cut = len(tail)
        for span in _cached_find(tail + after[:_JOIN_CHARS], cache):  # the units' joins repeat the messages'
            if span.start < cut < span.end:
                found[index].append(Span(span.kind, len(before) - cut + span.start, len(before)))
                found[index + 1].append(Span(span.kind, 0, span.end - cut))
    return [merge(spans) for spans in found]


def redact_sequence(texts: list[str], cache: dict[str, list[Span]] | None = None) -> list[str]:
    """Consecutive texts (a session's messages in order) redacted alone and across each cut between two of them."""
    spans = find_secrets_in_sequence(texts, cache)
    return [_masked(text, found) for text, found in zip(texts, spans, strict=True)]


def _cached_find(text: str, cache: dict[str, list[Span]] | None) -> list[Span]:
    if cache is None:
        return _SCANNER.find(text)
    spans = cache.get(text)
    if spans is None:
        spans = cache[text] = _SCANNER.find(text)
    return list(spans)


def redact_title(title: str) -> str:
    """A title redacted as text and as the file name it may come from: SpecStory names an export after its first
    prompt and its title turns the name's hyphens into spaces ("sk proj Ab3…"), which no token format matches."""
    hyphenated = title.replace(" ", "-")  # the same length: a span in one is the same span in the other
    spans = _SCANNER.find(title)
    if hyphenated != title:
        spans = merge([*spans, *_SCANNER.find(hyphenated)])
    return _masked(title, spans)


def _masked(text: str, spans: list[Span]) -> str:
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
