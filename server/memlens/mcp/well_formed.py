"""A JSON-RPC line whose string escapes name half a character (`\\ud83d` alone) made well-formed before the SDK
reads it.

Why it exists: JavaScript strings are UTF-16, so a client that cuts a query at a length can cut an emoji in two, and
`JSON.stringify` writes the half left as the escape `\\ud83d`. The SDK's JSON parser refuses such a line and drops
it without an answer: the client then waits for a reply that never comes. Each lone surrogate escape is written as
U+FFFD instead (as memlens reads an invalid byte in a transcript), so the call is answered; a pair that makes a
whole character is left alone.
"""

from __future__ import annotations

import re

_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)", re.S)  # every escape in order, so `\\\\ud800` is no escape
_MAY_HOLD_ONE = re.compile(r"\\u[dD][89a-fA-F]")
_REPLACEMENT = "\\ufffd"


def _half(code: str | None) -> str | None:
    """ "high" or "low" for a surrogate's hex code, else None."""
    if code is None:
        return None
    value = int(code, 16)
    return "high" if 0xD800 <= value <= 0xDBFF else "low" if 0xDC00 <= value <= 0xDFFF else None


def lone_surrogates_replaced(line: str) -> str:
    """`line` with each `\\uXXXX` escape of a surrogate that is not half of a pair written as `\\ufffd`."""
    if _MAY_HOLD_ONE.search(line) is None:
        return line
    escapes = list(_ESCAPE.finditer(line))
    lone: list[tuple[int, int]] = []
    index = 0
    while index < len(escapes):
        escape = escapes[index]
        half = _half(escape.group(1))
        after = escapes[index + 1] if index + 1 < len(escapes) else None
        if half == "high" and after is not None and after.start() == escape.end() and _half(after.group(1)) == "low":
            index += 2  # a whole character
            continue
        if half is not None:
            lone.append(escape.span())
        index += 1
    if not lone:
        return line
    parts: list[str] = []
    last = 0
    for start, end in lone:
        parts += [line[last:start], _REPLACEMENT]
        last = end
    parts.append(line[last:])
    return "".join(parts)
