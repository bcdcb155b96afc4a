"""Every error the MCP server answers a request with passes the detector, whoever wrote it.

A tool's own errors are masked where the server makes them (`server._error`), but the SDK answers some requests
itself, quoting what the client sent: an unknown method is "Method not found" with the method's name as its data. A
client may put anything there, a token too, and the client shows the answer in its log. The SDK's middleware sees
every request's failure as an `MCPError` before it is written, on stdio and HTTP alike: masked there, once.
Answers that succeed are not scanned again: the engine's door masked them.
"""

from __future__ import annotations

from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError

from memlens.redaction import redact


def _masked(value: Any) -> Any:
    """`value` (an error's data: text, or text in a list or a mapping) with every string masked."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: _masked(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_masked(item) for item in value]
    return value


async def masked_errors(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """The SDK's server middleware: the request answered as the rest of the chain answers it, an error masked."""
    try:
        return await call_next(ctx)
    except MCPError as error:
        raise MCPError(error.code, redact(error.message), _masked(error.data)) from None
