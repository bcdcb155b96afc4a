"""Every error the MCP server answers a request with passes the detector, whoever wrote it.

A tool's own errors are masked where the server makes them (`server._error`), but the SDK answers some requests
itself, quoting what the client sent: an unknown method is "Method not found" with the method's name as its data. A
client may put anything there, a token too, and the client shows the answer in its log. The SDK's middleware sees
every request's failure as an `MCPError` before it is written, on stdio and HTTP alike: masked there, once. Over
HTTP the SDK refuses a body that is no JSON-RPC message before any request is made of it, with pydantic's words,
which quote the body (cut in its middle, where no detector can tell a token's tail: that quote is left out); the
body of every refusal (a status of 400 or more) is masked as it is sent (`MaskedErrorBodies`). Answers that succeed
are not scanned again: the engine's door masked them.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError

from memlens.redaction import redact, redact_strings

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

# pydantic's quote of the value it refused (`input_value={'id': 1, 'key': ...Zt8Hb3Jd6Fy1'}, input_type=dict`): cut
# in its middle, a token's tail there has no shape a detector knows
_PYDANTIC_QUOTE = re.compile(r"input_value=.*?, (?=input_type=)")
REFUSED = 400  # a status from which an HTTP answer is a refusal, its body a few words about why


def _masked_text(text: str) -> str:
    return redact(_PYDANTIC_QUOTE.sub("", text))


async def masked_errors(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """The SDK's server middleware: the request answered as the rest of the chain answers it, an error masked."""
    try:
        return await call_next(ctx)
    except MCPError as error:
        raise MCPError(error.code, _masked_text(error.message), redact_strings(error.data, _masked_text)) from None


def masked_body(body: bytes) -> bytes:
    """A refusal's body with every string in it masked: JSON stays the same JSON (a marker never eats a quote)."""
    text = body.decode("utf-8", errors="replace")
    try:
        parsed = json.loads(text)
    except ValueError:
        return _masked_text(text).encode("utf-8")
    return json.dumps(redact_strings(parsed, _masked_text), ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class MaskedErrorBodies:
    """The HTTP app with the body of each refusal (status 400 or more) masked before it is sent (`masked_body`).

    A refusal's start is held until its body is whole, so its Content-Length says the masked body's length; every
    other answer (the event streams of tool calls, a success's JSON) passes as it is made, unread."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        start: Message | None = None
        parts: list[bytes] = []

        async def send_masked(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start" and message["status"] >= REFUSED:
                start = message
                return
            if start is None or message["type"] != "http.response.body":
                await send(message)
                return
            parts.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            body = masked_body(b"".join(parts))
            headers = [(name, value) for name, value in start.get("headers", []) if name.lower() != b"content-length"]
            await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body, "more_body": False})
            start = None

        await self._app(scope, receive, send_masked)
