"""Asking a running server: connect to the index folder's socket, send one request, read one answer. The standard
library and the request schema's bounds only, so the CLI's fast path imports nothing of the engine."""

from __future__ import annotations

import contextlib
import json
import socket
from pathlib import Path
from typing import Any

from memlens.local_api.protocol import MAX_ANSWER, Request, encode, read_line, socket_path
from memlens.requests import MAX_MESSAGE_BYTES

CONNECT_SECONDS = 0.5
ANSWER_SECONDS = 10.0  # a hybrid search on a busy server takes a second or two; past this the CLI answers itself


class ServerDeclined(Exception):
    """The server indexes with other settings or folders than the asker: the message says the difference."""


class ServerError(Exception):
    """The server answered with an error a user caused (a bad filter, an empty query): the message says which."""


def ask(index_dir: Path, request: Request) -> dict[str, Any] | None:
    """The server's result, or None when no server answers for `index_dir` (no socket, a stale one, a server whose
    index is not open, a broken answer): the caller then opens the index itself. Raises ServerError for a request
    the server refused as invalid. A request longer than a message may be (a query read by its end, many transcript
    folders) is not sent: the server would refuse it, and the asker's own engine answers it."""
    path = socket_path(index_dir)
    if path is None or not path.exists():
        return None
    try:
        line = encode(request)
    except UnicodeEncodeError:  # a folder or query holding bytes that are not UTF-8 (kept as surrogates): no JSON
        return None
    if len(line) > MAX_MESSAGE_BYTES:
        return None
    with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(CONNECT_SECONDS)
        conn.connect(str(path))
        conn.settimeout(ANSWER_SECONDS)
        conn.sendall(line)
        conn.shutdown(socket.SHUT_WR)
        return _answer(read_line(conn, MAX_ANSWER, ANSWER_SECONDS))
    return None


def _answer(line: bytes) -> dict[str, Any] | None:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict):
        return None
    failure = message.get("error")
    if isinstance(failure, dict):
        if failure.get("code") == "invalid":
            raise ServerError(str(failure.get("message", "the server refused the request")))
        if failure.get("code") == "declined":
            raise ServerDeclined(str(failure.get("message", "the server indexes otherwise")))
        return None  # unavailable or internal: the caller answers itself
    result = message.get("result")
    return result if isinstance(result, dict) else None
