"""The last redaction pass: every response that leaves the engine goes through `redact_response`.

Text is redacted when it is stored (see `memlens.engine.redact`), and excerpts and windows redact the whole text
before they cut it; this pass is the door every surface shares (CLI, language server, hover, MCP), so a surface
added later, an index built with redaction turned off, or a secret kind learnt after the index was built can't
leak. It walks the response and redacts every string except the fields that only name things (ids, paths,
times, enums), which never hold free text and must stay exact for a client to use them.
"""

from __future__ import annotations

from typing import Any, TypeVar, cast

from memlens.engine.redact import redact

# Fields whose values are identifiers or enums, never free text: left exactly as they are.
_STRUCTURAL_KEYS = frozenset(
    {
        "id",
        "kind",
        "format",
        "mode",
        "fusion",
        "role",
        "path",
        "relPath",
        "unrecognisedFiles",  # paths
        "indexDir",
        "sessionKey",
        "sessionId",
        "parentSessionKey",
        "messageId",
        "anchor",
        "summaryId",
        "timestamp",
        "lastSync",
        "provider",
        "unitId",
    }
)

T = TypeVar("T")


def redact_response(value: T) -> T:
    """A copy of a JSON-like response with every free-text string redacted."""
    return cast(T, _walk(value, None))


_PLAIN = frozenset({int, float, bool, type(None)})  # values with no text in them


def _walk(value: Any, key: str | None) -> Any:
    if isinstance(value, str):
        return value if key in _STRUCTURAL_KEYS else redact(value)
    if isinstance(value, dict):
        # numbers and naming fields kept without a call: a search's response holds a hundred-odd of them
        return {
            k: v if type(v) in _PLAIN or (type(v) is str and k in _STRUCTURAL_KEYS) else _walk(v, k)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [_walk(v, key) for v in value]
    return value
