"""A text read by its end: a query or a pasted error longer than its field's `read_end` bound keeps its first line
and its last lines within it, and says what was left out between them.

Why its end: a pasted traceback is often longer than a query's bound, and in Python's the part that tells (the
exception line, the frames nearest it) is at its end; a log pasted whole ends where it failed. Why its first line
too: a Java, JavaScript, Go or Rust trace opens with its exception and follows with frames, so its end alone would be
frames. The first line is kept whole up to a quarter of the bound (its start beyond that). The cut before the end
falls at a line's start, so no line of the end is read in part, except the last one when it alone is over the room
left: then its tail is read (an exception line ends with what failed), from a word's start when a space is within it
(a word cut in two is a word no text holds: a query of a phrase repeated past the bound read as asking for something
absent, and found nothing). Python strings are code points, so no cut splits a character; a combining mark is kept
with the letter before it (the cut moves past it)."""

from __future__ import annotations

import re
import unicodedata

from memlens.counted import counted
from memlens.requests.fields import specs
from memlens.wire import LeftOut

FIRST_LINE_SHARE = 4  # the first line kept takes at most 1/4 of the bound
GAP = "\n…\n"  # where the left-out lines were, between the first line and the end
_SPACES = re.compile(r"\s+")


def text_end(text: str, limit: int) -> tuple[str, LeftOut | None]:
    """`text` itself when it fits in `limit` characters (its trailing blank space aside), else its first line and its
    end within them, and what was left out. No copy of `text` but what is kept; counting the lines left out is one
    pass in C (10 MB: about 3 ms)."""
    if len(text) <= limit:
        return text, None
    end = len(text)
    while end and text[end - 1].isspace():
        end -= 1
    if end <= limit:
        return text[:end], None
    begin = 0
    while text[begin].isspace():  # blank lines before the first (end > limit: something follows)
        begin += 1
    first_end = text.find("\n", begin, end)
    if first_end < 0:  # one line: its tail
        return _tail(text, start=begin, end=end, limit=limit, first="")
    first = text[begin : min(first_end, begin + limit // FIRST_LINE_SHARE)].rstrip()
    return _tail(text, start=first_end + 1, end=end, limit=limit - len(first) - len(GAP), first=first)


def _tail(text: str, *, start: int, end: int, limit: int, first: str) -> tuple[str, LeftOut]:
    """`first` (the first line kept, or "") and the end of `text[start:end]` within `limit`, from a line's start."""
    begin = end - limit
    newline = text.find("\n", begin - 1, end - 1)  # the first line that starts within the room
    cut = newline + 1 if newline >= 0 else _word_start(text, begin, end)  # none: the last line's tail
    while cut < end and _joins_before(text[cut]):
        cut += 1
    lines = text.count("\n", start, cut) + (0 if text[cut - 1] == "\n" else 1)
    kept = f"{first}{GAP}{text[cut:end]}" if first else text[cut:end]
    return kept, {"chars": cut - start, "lines": lines, "readChars": len(kept), "firstLine": bool(first)}


def _word_start(text: str, begin: int, end: int) -> int:
    """`begin`, or past the word it falls in and the spaces after it when a word follows within `end`."""
    if text[begin - 1].isspace():
        return begin
    spaces = _SPACES.search(text, begin, end)
    return spaces.end() if spaces is not None and spaces.end() < end else begin


def _joins_before(char: str) -> bool:
    """A code point that belongs to the one before it (a combining accent, a joiner, a variation selector)."""
    return bool(unicodedata.combining(char)) or char in "\u200d\ufe0f\ufe0e"


def read_end(cls: type, field: str, text: str) -> tuple[str, LeftOut | None]:
    """The part of request field `field` of `cls` that is read: its first line and its end within the field's
    `read_end` bound."""
    spec = next(spec for spec in specs(cls) if spec.name == field)
    if spec.read_end is None:
        return text, None
    return text_end(text, spec.read_end)


def left_out_note(left_out: LeftOut, what: str) -> str:
    """`212 lines of the error after its first were left out (15,320 characters): its first line and its end were
    read (3,987 characters)`; of one long line, `the first 1,000 characters of the query were left out: …`."""
    read = f"({left_out['readChars']:,} characters)"
    if left_out["firstLine"]:
        lines = counted(left_out["lines"], "line", grouped=True)
        were = "was" if left_out["lines"] == 1 else "were"
        return (
            f"{lines} of the {what} after its first {were} left out ({left_out['chars']:,} characters): its first line "
            f"and its end were read {read}"
        )
    return f"the first {left_out['chars']:,} characters of the {what} were left out: its end was read {read}"
