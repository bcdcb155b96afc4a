"""A JSON Lines record behind the bytes of a torn write: kept, not skipped with them.

An agent that dies mid-write (a crash, a full disk, a killed process) leaves part of a line without its newline, and
the next record it appends after a restart lands on the end of that fragment: `/speci{"type":"session",…}`. The
line is not JSON, but its tail is a whole record, often one that matters (a session's first line names the session,
its start and its folder). `record_after_torn_bytes` finds it: the earliest `{"` from which one JSON object runs to
the end of the line. Requiring the object to end the line keeps an object nested inside a torn record
(`…"message":{"role":"user",…}}`) from being read as a record of its own: its closing braces follow it. The tries are
bounded, so a long garbled line costs a few parses of itself at most.
"""

from __future__ import annotations

import json
from typing import Any

MAX_TRIES = 8  # starts tried per line: a torn fragment rarely holds more than a few `{"` before the record


def record_after_torn_bytes(line: str, decoder: json.JSONDecoder) -> tuple[dict[str, Any], int] | None:
    """(the record, how many characters before it were skipped) when `line`, which is not JSON as a whole, ends with
    one whole JSON object that opens with a key; None when it does not."""
    end = len(line.rstrip())
    start = line.find('{"', 1)
    for _ in range(MAX_TRIES):
        if start < 0:
            return None
        try:
            record, stop = decoder.raw_decode(line, start)
        except (ValueError, RecursionError):
            record, stop = None, -1
        if stop == end and isinstance(record, dict):
            return record, start
        start = line.find('{"', start + 1)
    return None
