"""Groups a session's consecutive messages into chunks (split on a time gap, a message count or a size limit), and
cuts a message longer than one chunk into parts, so every part fits in a chunk and all of its text is searchable."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Timed(Protocol):
    @property
    def timestamp(self) -> float | None: ...

    @property
    def text(self) -> str: ...

    @property
    def kind(self) -> str: ...


def group_messages(
    records: Sequence[Timed],
    gap_seconds: float = 300.0,
    max_messages: int = 8,
    max_chars: int = 16000,
) -> list[list[int]]:
    """Return groups of indices into `records`. Summaries always stand alone; a tool result joins the group of the
    message before it.

    A message joins the current group when it comes at most `gap_seconds` after the previous one (an unknown
    time never splits), the group has fewer than `max_messages`, and its text still fits in `max_chars`.
    """
    groups: list[list[int]] = []
    current: list[int] = []
    chars = 0
    messages = 0  # in `current`, tool results not counted
    last: Timed | None = None
    for index, record in enumerate(records):
        if record.kind == "summary":
            if current:
                groups.append(current)
            groups.append([index])
            current, chars, messages, last = [], 0, 0, None
            continue
        if record.kind == "tool" and current:
            # a tool result rides with the message before it and counts toward no limit: chunks (one search hit
            # each) stay the messages' chunks, and a session's output does not split its talk into more hits
            current.append(index)
            continue
        length = len(record.text)
        gap = (
            last is not None
            and record.timestamp is not None
            and last.timestamp is not None
            and record.timestamp - last.timestamp > gap_seconds
        )
        full = messages >= max_messages or chars + length > max_chars
        if current and (gap or full):
            groups.append(current)
            current, chars, messages = [], 0, 0
        current.append(index)
        chars += length
        messages += 1
        last = record
    if current:
        groups.append(current)
    return groups


def split_text(text: str, max_chars: int) -> list[str]:
    """Cut a long text into parts of at most `max_chars`, preferring paragraph, then line, then word boundaries
    (a cut is never made in the first half of a part, so parts stay large)."""
    parts: list[str] = []
    rest = text
    while len(rest) > max_chars:
        cut = -1
        for separator in ("\n\n", "\n", " "):
            cut = rest.rfind(separator, max_chars // 2, max_chars)
            if cut > 0:
                break
        if cut <= 0:
            cut = max_chars
        part, rest = rest[:cut].rstrip(), rest[cut:].lstrip()
        if part:
            parts.append(part)
    if rest.strip():
        parts.append(rest)
    return parts
