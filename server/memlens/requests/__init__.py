"""The requests: one schema per command, each field's type, bounds and default declared once.

Why it exists: a request reaches the engine through four doors (the CLI, the local socket, the language server, the
MCP server), and each used to check its own arguments, or none: a `--limit` of 10^12 reached tantivy and aborted the
process. Here each command's request is a frozen dataclass whose fields carry their bounds (`arg`); constructing one
checks every field (`__post_init__`), so a request object is valid by construction, whoever builds it. The doors
read from it: `parse` turns a raw JSON object (camelCase keys, as on the wire) into a request, `json_schema` is the
MCP tool's input schema, `add_flags` makes the CLI's flags and their help; `Engine` builds the same objects from its
keyword arguments, so no path bypasses the bounds. memlens.wire holds the answers (and the `*Params` TypedDicts the
TypeScript client mirrors; tests/test_requests.py holds those to these schemas).

fields.py holds the machinery, schemas.py the requests, forms.py the JSON Schemas and CLI flags. Like memlens.wire this
imports nothing engine-internal, so every face can import it (the CLI before any engine).
"""

from memlens.requests.fields import (
    MAX_DEPTH,
    FieldSpec,
    Request,
    check_range,
    checked,
    load_json,
    parse,
    parse_time,
    specs,
    to_wire,
    wire_names,
)
from memlens.requests.forms import add_flags, from_flags, json_schema
from memlens.requests.schemas import (
    AGENT_SESSIONS,
    COMMANDS,
    DEFAULT_CONTEXT_BUDGET,
    DEFAULT_EXPAND_BUDGET,
    DEFAULT_GREP,
    DEFAULT_HISTORY,
    DEFAULT_SESSIONS,
    FORMATS,
    FUSIONS,
    KINDS,
    MAX_BUDGET,
    MAX_DATE_CHARS,
    MAX_GREP,
    MAX_HISTORY,
    MAX_KEY_CHARS,
    MAX_PATTERN_CHARS,
    MAX_QUERY_CHARS,
    MAX_RESULTS,
    MAX_SESSIONS,
    MIN_CONTEXT_BUDGET,
    MODES,
    ROLES,
    ContextRequest,
    HistoryRequest,
    McpSearchRequest,
    ReindexRequest,
    Role,
    SearchFilterRequest,
    SearchRequest,
    SessionsRequest,
    StatsRequest,
    SummariesDescribeRequest,
    SummariesExpandRequest,
    SummariesGrepRequest,
)

__all__ = [
    "FieldSpec",
    "Request",
    "add_flags",
    "check_range",
    "checked",
    "from_flags",
    "json_schema",
    "load_json",
    "parse",
    "parse_time",
    "specs",
    "to_wire",
    "wire_names",
    "Role",
    "KINDS",
    "FORMATS",
    "ROLES",
    "MODES",
    "FUSIONS",
    "MAX_RESULTS",
    "MAX_HISTORY",
    "DEFAULT_HISTORY",
    "MAX_SESSIONS",
    "DEFAULT_SESSIONS",
    "AGENT_SESSIONS",
    "MAX_GREP",
    "DEFAULT_GREP",
    "MAX_BUDGET",
    "DEFAULT_EXPAND_BUDGET",
    "DEFAULT_CONTEXT_BUDGET",
    "MIN_CONTEXT_BUDGET",
    "MAX_QUERY_CHARS",
    "MAX_PATTERN_CHARS",
    "MAX_KEY_CHARS",
    "MAX_DATE_CHARS",
    "MAX_DEPTH",
    "SearchFilterRequest",
    "SearchRequest",
    "McpSearchRequest",
    "HistoryRequest",
    "SessionsRequest",
    "StatsRequest",
    "ReindexRequest",
    "SummariesGrepRequest",
    "SummariesDescribeRequest",
    "SummariesExpandRequest",
    "ContextRequest",
    "COMMANDS",
]
