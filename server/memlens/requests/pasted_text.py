"""A text read by its end: a query or a pasted error longer than its field's `read_end` bound keeps its last lines
within it, and says what of its start was left out.

Why its end: a pasted traceback is often longer than a query's bound, and the part that tells (the exception line,
the frames nearest it) is at its end; a log pasted whole ends where it failed. The cut falls at a line's start, so no
line is read in part, except the last one when it alone is over the bound: then its tail is read (an exception line
ends with what failed). Python strings are code points, so no cut splits a character; a combining mark is kept with
the letter before it (the cut moves past it)."""

from __future__ import annotations

import unicodedata

from memlens.requests.fields import specs
from memlens.wire import LeftOut


def text_end(text: str, limit: int) -> tuple[str, LeftOut | None]:
    """`text` itself when it fits in `limit` characters (its trailing blank space aside), else its end within them and
    what was left out. No copy of `text` but the end kept; counting the lines left out is one pass in C (10 MB:
    about 3 ms)."""
    if len(text) <= limit:
        return text, None
    end = len(text)
    while end and text[end - 1].isspace():
        end -= 1
    if end <= limit:
        return text[:end], None
    start = end - limit
    newline = text.find("\n", start - 1, end - 1)  # the first line that starts within the bound
    cut = newline + 1 if newline >= 0 else start  # none: the last line alone is over, its tail is read
    while cut < end and _joins_before(text[cut]):
        cut += 1
    lines = text.count("\n", 0, cut) + (0 if text[cut - 1] == "\n" else 1)
    return text[cut:end], {"chars": cut, "lines": lines, "readChars": end - cut}


def _joins_before(char: str) -> bool:
    """A code point that belongs to the one before it (a combining accent, a joiner, a variation selector)."""
    return bool(unicodedata.combining(char)) or char in "\u200d\ufe0f\ufe0e"


def read_end(cls: type, field: str, text: str) -> tuple[str, LeftOut | None]:
    """The part of request field `field` of `cls` that is read: its end within the field's `read_end` bound."""
    spec = next(spec for spec in specs(cls) if spec.name == field)
    if spec.read_end is None:
        return text, None
    return text_end(text, spec.read_end)


def left_out_note(left_out: LeftOut, what: str) -> str:
    """`the first 212 lines (15,320 characters) of the error were left out: its last 3,987 characters were read`;
    of one long line, `the first 1,000 characters of the query were left out: …`."""
    read = f"its last {left_out['readChars']:,} characters were read"
    chars = f"{left_out['chars']:,} characters"
    first = f"{left_out['lines']:,} lines ({chars})" if left_out["lines"] > 1 else chars
    return f"the first {first} of the {what} were left out: {read}"
