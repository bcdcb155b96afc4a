"""The records on a JSON Lines line that is not JSON as a whole: every whole record kept, in order, none lost.

A writer that dies mid-write (a crash, a full disk, a killed process) leaves what it wrote without its newline, and
the next record it appends after a restart lands on the same line. What it left is a whole record whose newline was
lost (`{a}{b}`, `{a} {b}`, `{a}{b}{c}`), part of a record (a torn write: `/speci{"type":"session",…}`, a record's
start `{a}{"type":"assis` whose rest is lost), or both. Every whole record on the line is a record of the file, in
order, often one that matters (a session's first line names the session, its start and its folder); the torn parts
are skipped, and `LineRecords.problem` says the line's problem in one message.

An object nested inside a torn record is never read as a record of its own; where an object stands tells which it is.
An object that starts the line, or starts right after a record read from it, begins a write. One found past skipped
characters (from the next `{"`) is a record unless a comma or a closing bracket follows it, as one follows a value
inside its parent (`…"message":{"role":"user",…}}`); the line's end, another record's `{` or more torn bytes never
do. The tries in each stretch of skipped characters are bounded, and a try fails within its stretch and the record
after it (JSON never continues a value with `{`), so a long garbled line costs a few parses of itself at most.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

# starts that read no record, per stretch of skipped characters: a torn fragment rarely holds more than a few `{"`;
# a try that fails stops within its stretch and the object after it (JSON never continues a value with `{`)
MAX_TRIES = 8
_BLANK = " \t\r\n"  # what JSON reads as white space between values (Python's str.strip takes more)


@dataclass(slots=True)
class LineRecords:
    """The records read from one line, and how many characters of torn writes were skipped around them."""

    records: list[dict[str, Any]] = field(default_factory=list)
    skipped_before: int = 0  # before the first record
    skipped_after: int = 0  # between the records and after the last

    def problem(self) -> str:
        """The line's problem, said once: `2 records on one line (a newline lost)`, `6 characters of a torn write
        skipped before its record`."""
        skipped = self.skipped_before + self.skipped_after
        if len(self.records) > 1:
            said = f"{len(self.records)} records on one line (a newline lost)"
            return f"{said}, {skipped} characters of a torn write skipped" if skipped else said
        where = "around" if self.skipped_before and self.skipped_after else "after" if self.skipped_after else "before"
        return f"{skipped} characters of a torn write skipped {where} its record"


def records_on_line(line: str, decoder: json.JSONDecoder) -> LineRecords | None:
    """The whole JSON objects on `line`, which is not JSON as a whole, that are records (see the module's
    docstring); None when it holds none."""
    end = len(line.rstrip(_BLANK))
    found = LineRecords()
    after_record = 0  # where the text after the last record read (or the line) starts
    start = _past_blank(line, 0, end)
    begins_write = True  # `start` is where a write began: the line's start, or right after a record
    tries = 0
    while start < end:
        record, stop = _object_at(line, start, decoder)
        if record is not None and (begins_write or not _inside_a_parent(line, stop, end)):
            skipped = _torn(line, after_record, start)
            if found.records:
                found.skipped_after += skipped
            else:
                found.skipped_before += skipped
            found.records.append(record)
            after_record = stop
            start, begins_write, tries = _past_blank(line, stop, end), True, 0
            continue
        tries += 1
        start, begins_write = line.find('{"', start + 1, end), False
        if start < 0 or tries >= MAX_TRIES:
            break
    if not found.records:
        return None
    found.skipped_after += _torn(line, after_record, end)
    return found


def _object_at(line: str, start: int, decoder: json.JSONDecoder) -> tuple[dict[str, Any] | None, int]:
    """The JSON object that starts at `start` and where it ends; (None, -1) when none does."""
    try:
        value, stop = decoder.raw_decode(line, start)
    except (ValueError, RecursionError):
        return None, -1
    return (value, stop) if isinstance(value, dict) else (None, -1)


def _past_blank(line: str, start: int, end: int) -> int:
    """The first position at or after `start` that is not JSON white space (`end` at most)."""
    while start < end and line[start] in _BLANK:
        start += 1
    return start


def _inside_a_parent(line: str, stop: int, end: int) -> bool:
    """Whether what follows an object ending at `stop` is what follows a value inside an object or an array."""
    after = _past_blank(line, stop, end)
    return after < end and line[after] in ",}]"


def _torn(line: str, start: int, stop: int) -> int:
    """The characters of a torn write between two places: all of them when anything but white space is there."""
    return stop - start if line[start:stop].strip(_BLANK) else 0
