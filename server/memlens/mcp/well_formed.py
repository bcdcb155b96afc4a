"""A JSON-RPC line (stdio) or request body (HTTP) whose string escapes name half a character (`\\ud83d` alone) made
well-formed before the SDK reads it.

Why it exists: JavaScript strings are UTF-16, so a client that cuts a query at a length can cut an emoji in two, and
`JSON.stringify` writes the half left as the escape `\\ud83d`. The SDK's JSON parser refuses it: on stdio the line is
dropped without an answer and the client waits for a reply that never comes; over HTTP the POST was refused (400, a
parse error without the request's id). Each lone surrogate escape is written as U+FFFD instead (as memlens reads an
invalid byte in a transcript), so the call is answered on either transport; a pair that makes a whole character is
left alone.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memlens.requests import MAX_MESSAGE_BYTES

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

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


def well_formed_body(body: bytes) -> bytes:
    """An HTTP request's body as the stdio transport reads a line: UTF-8, a byte that is not replaced, and each lone
    surrogate escape written as `\\ufffd`."""
    text = body.decode("utf-8", errors="replace")
    fixed = lone_surrogates_replaced(text)
    return body if fixed == text and text.encode("utf-8") == body else fixed.encode("utf-8")


class WellFormedBodies:
    """The HTTP app with each request's body made well-formed before the SDK reads it (`well_formed_body`).

    The body is read only when the app asks for it, as the SDK does once its checks (bearer token, Host, Origin)
    have passed, and whole, as the SDK reads it: a request refused before that is never read here either. The SDK
    reads the body and never its Content-Length, which an invalid byte's replacement lengthens. A body past the SDK's
    bound (`limit`) is handed on as it came, as soon as it passes it, for the SDK to refuse (413): held whole here, a
    body sent in chunks without a Content-Length would be held in memory at any length."""

    def __init__(self, app: ASGIApp, *, limit: int = MAX_MESSAGE_BYTES) -> None:
        self._app = app
        self._limit = limit  # the SDK's bound on a body (app_options gives it the same)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        read = False

        async def receive_well_formed() -> Message:
            nonlocal read
            if read:
                return await receive()
            read = True
            parts: list[bytes] = []
            size = 0
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    return message  # the client went away: the app hears so
                parts.append(message.get("body", b""))
                size += len(parts[-1])
                if size > self._limit:  # the SDK's own bound answers 413 on this; nothing more is read or held
                    return {"type": "http.request", "body": b"".join(parts), "more_body": True}
                if not message.get("more_body", False):
                    break
            return {"type": "http.request", "body": well_formed_body(b"".join(parts)), "more_body": False}

        await self._app(scope, receive_well_formed, send)
