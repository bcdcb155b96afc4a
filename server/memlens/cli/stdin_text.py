"""A search's query or a pasted error given as `-`: read from standard input, as ripgrep and git read `-`, so a
copied error or a log's end is piped in (`pbpaste | memlens fixes -`, `tail -n 40 app.log | memlens search -`)
instead of quoted on the command line, where its quotes and `$` would need escaping.

Bytes that are no UTF-8 are replaced (a log may hold any), and at most the request's bound plus one character is
read: a longer input is refused with how to pipe its end, never held whole (a `cat` of a 2 GB log)."""

from __future__ import annotations

import io
import sys

from memlens.errors import InvalidRequest
from memlens.requests import MAX_PASTE_CHARS


def read_stdin_text(field: str, command: str) -> str:
    """Standard input's text, for request field `field` of `memlens COMMAND` (both named in the errors)."""
    if sys.stdin is None:
        raise InvalidRequest(f"{field} '-' reads standard input, and there is none")
    if sys.stdin.isatty():
        print(f"memlens: reading the {field} from standard input (Ctrl-D ends it)", file=sys.stderr, flush=True)
    stream = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace", newline=None)
    text = stream.read(MAX_PASTE_CHARS + 1)
    stream.detach()  # sys.stdin keeps its buffer
    if len(text) > MAX_PASTE_CHARS:
        raise InvalidRequest(
            f"standard input holds more than {MAX_PASTE_CHARS:,} characters, too long to read as the {field}: pipe"
            f" its end instead (tail -n 40 FILE | memlens {command} -)"
        )
    if not text.strip():
        said = "was empty" if not text else "held only blank space"
        raise InvalidRequest(f"standard input {said}: no {field} to search for")
    return text
