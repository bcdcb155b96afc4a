"""Where to cut a text so that no secret is cut in two: a cut inside a token leaves a piece no detector knows.

A parser shortens what it keeps of a tool call or a long output line before the text is stored and redacted, so a
token the cut ran through would be stored as its first characters, past every later pass (`ghp_` and twenty
characters is no GitHub token). A cut that would fall inside a secret falls at its start instead: the piece
before the cut shows none of it.
"""

from __future__ import annotations

from memlens.redaction.scanner import Scanner

# How far on each side of a cut is read: more than the longest token format (as a join of two messages is read).
_AROUND_CHARS = 512


def clear_end(scanner: Scanner, text: str, end: int) -> int:
    """`end`, or the start of the secret of `text` that a cut at `end` would run through (the earlier of them)."""
    if end <= 0 or end >= len(text):
        return max(0, min(end, len(text)))
    start = max(0, end - _AROUND_CHARS)
    for span in scanner.find(text[start : end + _AROUND_CHARS]):
        if span.start + start < end < span.end + start:
            return span.start + start
    return end
