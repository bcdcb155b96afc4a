"""A JSON-RPC message over the wire's bound (requests.MAX_MESSAGE_BYTES), read to its end and let go, and what is
said of it.

Why it exists: the stdio servers held a message whole before reading it (an MCP line, an LSP body of the length its
header declared), at any length: a pasted 2 GB selection, a broken client writing without newlines or a header
declaring 99,999,999,999 bytes made the server hold as much memory. A message over the bound is read chunk by chunk
and each chunk dropped as it is read; only its first and last few kilobytes are kept, to find the request's id, so
the client is answered with an error instead of waiting for an answer that never comes. The id is looked for where
clients write it: the MCP Python SDK before the params, the TypeScript SDKs (and vscode-languageclient) after them,
at the message's end.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from itertools import islice

GLIMPSE = 64 * 1024  # bytes kept of a skipped message's start and of its end
INVALID_REQUEST = -32600  # JSON-RPC's code for a message that is not a valid request
_TAIL_TRIES = 4  # the last `"id":` candidates of the end tried: a request's own id comes after any nested one

RequestId = int | str

_TOKEN = re.compile(rb'\s*(?:("(?:[^"\\]|\\.)*")|([{}\[\]:,])|(-?[0-9][0-9.eE+-]*|true|false|null))', re.S)
_ID_VALUE = re.compile(rb'\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")\s*[,}]', re.S)
_ID_KEY = re.compile(rb'"id"\s*:')


@dataclass(frozen=True)
class Skipped:
    """A message over the bound, read and let go: its size in bytes and its request's id, where one was found."""

    size: int
    request_id: RequestId | None
    limit: int

    def reason(self) -> str:
        """The error's text, as the client (or the log) reads it."""
        return (
            f"a message of {_megabytes(self.size)} is over the {_megabytes(self.limit)} bound on one "
            "message; it was not read"
        )


class MessageTooLong(ValueError):
    """A message over the bound was read to its end and let go (a ValueError, as asyncio's reader raises for a line
    over its own bound)."""

    def __init__(self, skipped: Skipped) -> None:
        super().__init__(skipped.reason())
        self.skipped = skipped


class Glimpse:
    """What is kept of a message while it is read and let go: its size, its first and its last GLIMPSE bytes."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._size = 0
        self._head = bytearray()
        self._tail = bytearray()

    def see(self, chunk: bytes | bytearray) -> None:
        self._size += len(chunk)
        if len(self._head) < GLIMPSE:
            self._head += chunk[: GLIMPSE - len(self._head)]
        self._tail += chunk[-GLIMPSE:]
        del self._tail[:-GLIMPSE]

    def skipped(self) -> Skipped:
        return Skipped(self._size, request_id(bytes(self._head), bytes(self._tail)), self._limit)


def request_id(head: bytes, tail: bytes) -> RequestId | None:
    """The id of a JSON-RPC request whose text starts with `head` and ends with `tail`: a key "id" of the outermost
    object with a whole number or a string, found in either; None when neither shows one."""
    found = _id_in_head(head)
    return found if found is not None else _id_in_tail(tail)


def _id_in_head(head: bytes) -> RequestId | None:
    """Reads `head` token by token, up to where it is cut (inside a string, most likely)."""
    depth = 0
    position = 0
    while (token := _TOKEN.match(head, position)) is not None:
        position = token.end()
        string, punctuation, _ = token.groups()
        if punctuation in (b"{", b"["):
            depth += 1
        elif punctuation in (b"}", b"]"):
            depth -= 1
        elif depth == 1 and string == b'"id"' and (value := _ID_VALUE.match(head, position)) is not None:
            return _id_value(value.group(1))
    return None


def _id_in_tail(tail: bytes) -> RequestId | None:
    """An `"id": …` in `tail` is the outermost object's when the text from it to the end, opened with a brace, is a
    whole object: a nested one leaves a brace unmatched, one inside a string leaves a quote unmatched."""
    end = tail.rstrip()
    starts = [key.start() for key in _ID_KEY.finditer(end)]
    for start in islice((start for start in reversed(starts) if not _escaped(end, start)), _TAIL_TRIES):
        try:
            rest = json.loads(b"{" + end[start:])
        except ValueError:
            continue
        if isinstance(rest, dict) and (found := _id_value(json.dumps(rest.get("id")).encode())) is not None:
            return found
    return None


def _escaped(text: bytes, quote: int) -> bool:
    """True when the quote at `quote` follows an odd run of backslashes (it is inside a string)."""
    before = quote
    while before > 0 and text[before - 1] == 0x5C:  # a backslash
        before -= 1
    return (quote - before) % 2 == 1


def _id_value(text: bytes) -> RequestId | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)) else None


def _megabytes(size: int) -> str:
    """A size in whole megabytes, or in bytes where that would hide what is over the bound."""
    return f"{size >> 20:,} MB" if size % (1 << 20) == 0 or size >= 10 << 20 else f"{size:,} bytes"
