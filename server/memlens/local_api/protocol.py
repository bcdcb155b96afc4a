"""The local socket's place and framing: one request line of JSON, one answer line of JSON, camelCase keys.

Request: {"method": "search", "params": <memlens.requests.SearchRequest as JSON: query, limit, mode, fusion, minScore,
explain, filters>}, at most memlens.requests.MAX_MESSAGE_BYTES (the one bound of a message on any of memlens's
wires), sent within the server's read deadline; a client whose request is longer answers itself.
Answer: {"result": <the search response, as `memlens search --json` prints it>} or {"error": {"message", "code"}},
where code "unavailable" means "ask your own engine" (the server's index is not open) and "invalid" is the user's
error, said as the CLI would say it. A request may carry "terms" (same_index.terms: the asker's settings and
transcript folders); a server that indexes otherwise answers code "declined", its message saying the difference."""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import Any, Literal, NotRequired, TypedDict

SOCKET_NAME = "search.sock"
MAX_ANSWER = 64 << 20  # an answer longer than this is not read
MAX_PATH = 100  # sun_path holds 104–108 bytes: a longer socket path is not used
ErrorCode = Literal["unavailable", "invalid", "internal", "declined"]


class Request(TypedDict):
    method: Literal["search"]
    params: dict[str, Any]  # memlens.requests.to_wire(a SearchRequest)
    terms: NotRequired[dict[str, Any]]  # same_index.terms of the asker


def socket_path(index_dir: Path) -> Path | None:
    """Where the server of `index_dir` listens; None where no Unix socket can be used (Windows, a long path)."""
    path = index_dir / SOCKET_NAME
    if sys.platform == "win32" or len(os.fsencode(path)) > MAX_PATH:
        return None
    return path


def encode(message: object) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def error(message: str, code: ErrorCode) -> dict[str, Any]:
    return {"error": {"message": message, "code": code}}


def read_line(conn: socket.socket, limit: int, seconds: float) -> bytes:
    """What the peer sends up to its first newline (or until it closes), at most about `limit` bytes, within
    `seconds` in all (a peer trickling a byte at a time cannot stretch it); TimeoutError past that."""
    deadline = time.monotonic() + seconds
    parts: list[bytes] = []
    size = 0
    while size <= limit:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(f"no whole line within {seconds:g} s")
        conn.settimeout(remaining)
        block = conn.recv(1 << 16)
        if not block:
            break
        parts.append(block)
        size += len(block)
        if b"\n" in block:
            break
    return b"".join(parts)
