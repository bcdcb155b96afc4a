"""The requests: one schema per command, each field's type, bounds and default declared once.

Why it exists: a request reaches the engine through four doors (the CLI, the local socket, the language server, the
MCP server), and each used to check its own arguments, or none: a `--limit` of 10^12 reached tantivy and aborted the
process. Here each command's request is a frozen dataclass whose fields carry their bounds (`arg`); constructing one
checks every field (`__post_init__`), so a request object is valid by construction, whoever builds it. The doors
read from it: `parse` turns a raw JSON object (camelCase keys, as on the wire) into a request, `json_schema` is the
MCP tool's input schema, `add_flags` makes the CLI's flags and their help; `Engine` builds the same objects from its
keyword arguments, so no path bypasses the bounds. memlens.wire holds the answers (and the `*Params` TypedDicts the
TypeScript client mirrors; tests/test_requests.py holds those to these schemas).

Like memlens.wire this imports nothing engine-internal, so every face can import it (the CLI before any engine).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import re
import types
from collections.abc import Mapping
from dataclasses import MISSING, dataclass
from datetime import UTC, datetime
from typing import Any, Literal, Self, TypeVar, Union, get_args, get_origin, get_type_hints

from memlens.errors import InvalidRequest
from memlens.settings import Settings, camel_case, wire_name
from memlens.settings.values import show
from memlens.wire import AgentFormat, FusionMode, HitKind, SearchMode

Role = Literal["user", "assistant"]
KINDS: tuple[str, ...] = get_args(HitKind)
FORMATS: tuple[str, ...] = get_args(AgentFormat)
ROLES: tuple[str, ...] = get_args(Role)
MODES: tuple[str, ...] = get_args(SearchMode)
FUSIONS: tuple[str, ...] = get_args(FusionMode)

# -- the bounds (named, because the engine's answers clamp to the same figures) --------------------------------------

MAX_RESULTS = 100
"""Search hits, context items: a page a person or an agent reads."""
MAX_HISTORY = 500
"""Messages of one history window."""
DEFAULT_HISTORY = 20
MAX_SESSIONS = 500
"""Sessions per page (the editor's sessions view asks for the largest page)."""
DEFAULT_SESSIONS = 50
AGENT_SESSIONS = 20
"""The MCP tool's default page: an agent reads a page; programs page on with nextCursor."""
MAX_GREP = 200
DEFAULT_GREP = 20
MAX_BUDGET = 200_000
"""Tokens of a context pack or an expanded summary."""
DEFAULT_EXPAND_BUDGET = 2000
DEFAULT_CONTEXT_BUDGET = 2000
MIN_CONTEXT_BUDGET = 50
MAX_QUERY_CHARS = 4000
"""A query is a question or a few keywords; its cost grows with its length (a megabyte took a minute of CPU)."""
MAX_PATTERN_CHARS = 1000
MAX_KEY_CHARS = 1000
"""Session keys, message ids, summary ids, cursors: a key is `<format>:<id>`, an id at most a path's length."""
MAX_DATE_CHARS = 64
MAX_DEPTH = 32
"""Nesting of a raw JSON request: the deepest a valid one goes is 3 (params → filters → value)."""

T = TypeVar("T")


def arg(
    help: str,
    *,
    required: bool = False,
    default: Any = None,
    low: float | None = None,
    high: float | None = None,
    max_chars: int | None = None,
    date: bool = False,
    flag: str | None = None,
    setting: str | None = None,
) -> Any:
    """One request field: its help, whether it is required, its default, inclusive bounds for a number, at most
    `max_chars` for a string, `date` for an ISO date, `flag` for a CLI flag other than `--<kebab-name>`, `setting`
    (a dotted snake_case path in memlens.settings) when an absent value means that setting."""
    metadata = {
        "help": help,
        "low": low,
        "high": high,
        "max_chars": max_chars,
        "date": date,
        "flag": flag,
        "setting": setting,
    }
    return dataclasses.field(default=MISSING if required else default, metadata=metadata)


# -- one field, described -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldSpec:
    """A request field as the doors see it (read once from the dataclass)."""

    name: str  # snake_case (Python, CLI dest)
    wire: str  # camelCase (JSON)
    base: Any  # str, int, float, bool, a Literal, or a nested request class
    optional: bool  # None is a value (absent)
    required: bool
    default: Any
    help: str
    low: float | None
    high: float | None
    max_chars: int | None
    date: bool
    flag: str | None
    setting: str | None

    @property
    def default_text(self) -> str | None:
        """What an absent value means, for help texts: `search.maxResults (10)`, or the default itself."""
        if self.setting:
            value: Any = Settings()
            for part in self.setting.split("."):
                value = getattr(value, part)
            return f"{wire_name(self.setting).removeprefix('memlens.')} ({value})"
        return None if self.default in (None, False) or dataclasses.is_dataclass(self.default) else str(self.default)

    @property
    def nested(self) -> type[Request] | None:
        """The request class of a nested object (`filters`), else None."""
        return self.base if isinstance(self.base, type) and issubclass(self.base, Request) else None

    @property
    def choices(self) -> tuple[str, ...]:
        return get_args(self.base) if get_origin(self.base) is Literal else ()

    def bounds_text(self) -> str:
        if self.low is not None and self.high is not None:
            return f"{_number(self.low)}..{_number(self.high)}"
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.max_chars is not None:
            return f"at most {self.max_chars:,} characters"
        return ""


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _base(hint: Any) -> tuple[Any, bool]:
    """`int | None` → (int, True)."""
    if get_origin(hint) in (Union, types.UnionType):
        members = [m for m in get_args(hint) if m is not type(None)]
        assert len(members) == 1, f"a request field of several types: {hint}"
        return members[0], True
    return hint, False


_SPECS: dict[type, tuple[FieldSpec, ...]] = {}


def specs(cls: type) -> tuple[FieldSpec, ...]:
    """The fields of request class `cls`, in declaration order (read once)."""
    if cls not in _SPECS:
        _SPECS[cls] = _read_specs(cls)
    return _SPECS[cls]


def _read_specs(cls: type) -> tuple[FieldSpec, ...]:
    hints = get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        base, optional = _base(hints[f.name])
        meta = f.metadata
        default = f.default
        if f.default_factory is not MISSING:
            default = f.default_factory()
        out.append(
            FieldSpec(
                name=f.name,
                wire=camel_case(f.name),
                base=base,
                optional=optional,
                required=default is MISSING,
                default=None if default is MISSING else default,
                help=meta.get("help", ""),
                low=meta.get("low"),
                high=meta.get("high"),
                max_chars=meta.get("max_chars"),
                date=bool(meta.get("date")),
                flag=meta.get("flag"),
                setting=meta.get("setting"),
            )
        )
    return tuple(out)


def wire_names(cls: type) -> tuple[str, ...]:
    return tuple(spec.wire for spec in specs(cls))


# -- checking one value -------------------------------------------------------------------------------------------


def _fail(where: str, what: str, value: Any) -> InvalidRequest:
    return InvalidRequest(f"{where} must be {what}, got {show(value)}")


def check_value(spec: FieldSpec, value: Any, where: str) -> Any:
    """`value` checked against `spec` (the value to keep, whole numbers as int); InvalidRequest names `where`."""
    if value is None:
        if spec.optional or not spec.required:
            return None
        raise InvalidRequest(f"{where} is required")
    base = spec.base
    if spec.choices:
        if not isinstance(value, str) or value not in spec.choices:
            raise _fail(where, spec.bounds_text(), value)
        return value
    if base is bool:
        if not isinstance(value, bool):
            raise _fail(where, "true or false", value)
        return value
    if base is str:
        return _check_text(spec, value, where)
    if base in (int, float):
        return _check_number(spec, value, where)
    if spec.nested is not None:
        return value if isinstance(value, spec.nested) else parse(spec.nested, value, where=f"{where}.")
    raise AssertionError(f"a request field of type {base!r}")  # pragma: no cover (specs() allows no other)


def _check_text(spec: FieldSpec, value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise _fail(where, "a string", value)
    if spec.max_chars is not None and len(value) > spec.max_chars:
        raise InvalidRequest(f"{where} must be at most {spec.max_chars:,} characters, got {len(value):,}")
    if "\x00" in value:
        raise InvalidRequest(f"{where} must not contain a NUL character")
    if spec.required and not value.strip():
        raise InvalidRequest(f"{where} must not be empty")
    if spec.date and value:
        parse_time(value, where)
    return value


def _check_number(spec: FieldSpec, value: Any, where: str) -> int | float:
    kind = "an integer" if spec.base is int else "a number"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _fail(where, f"{kind} {spec.bounds_text()}".strip(), value)
    if isinstance(value, float) and not math.isfinite(value):
        raise _fail(where, f"a finite number {spec.bounds_text()}".strip(), value)
    if spec.base is int and isinstance(value, float):
        if not value.is_integer():
            raise _fail(where, f"a whole number {spec.bounds_text()}".strip(), value)
        value = int(value)
    low, high = spec.low, spec.high
    if low is not None and high is not None and not low <= value <= high:  # exact for ints of any size
        raise _fail(where, spec.bounds_text(), value)
    return float(value) if spec.base is float else value


def validate(request: Any) -> None:
    """Check every field of a request object (its classes call this from `__post_init__`)."""
    for spec in specs(type(request)):
        value = getattr(request, spec.name)
        checked = check_value(spec, value, spec.wire)
        if checked is not value:
            object.__setattr__(request, spec.name, checked)


# -- a raw request into a request object --------------------------------------------------------------------------

R = TypeVar("R")


def parse(cls: type[R], raw: object, *, where: str = "", defaults: Mapping[str, Any] | None = None) -> R:
    """A JSON object (camelCase keys) as a request of `cls`; None means no arguments; `defaults` (snake_case) stand
    in for declared ones where a door has its own. InvalidRequest names the first field that is wrong and what it
    allows."""
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise InvalidRequest(f"{where.rstrip('.') or 'the arguments'} must be an object, got {show(raw)}")
    by_wire = {spec.wire: spec for spec in specs(cls)}
    unknown = sorted(str(key) for key in raw if key not in by_wire)
    if unknown:
        shown = ", ".join(repr(key[:40]) for key in unknown[:5])
        inside = f" in {where.rstrip('.')}" if where else ""
        raise InvalidRequest(f"unknown field(s){inside}: {shown}; expected {', '.join(by_wire) or 'none'}")
    values: dict[str, Any] = {}
    for spec in by_wire.values():
        value = raw.get(spec.wire)
        if value is None and defaults and spec.name in defaults:
            value = defaults[spec.name]
        if value is None and not spec.required:
            continue  # the dataclass default
        values[spec.name] = check_value(spec, value, f"{where}{spec.wire}")
    try:
        return cls(**values)
    except InvalidRequest as exc:  # a rule across fields (since/until): name the object it sits in
        raise InvalidRequest(f"{where}{exc}") from None


def checked(cls: type[R], **values: Any) -> R:
    """A request of `cls` from Python values (the engine's keyword arguments), each checked as a parsed one is."""
    return cls(**values)


def to_wire(request: Any) -> dict[str, Any]:
    """A request object as the JSON the doors exchange (absent fields left out)."""
    out: dict[str, Any] = {}
    for spec in specs(type(request)):
        value = getattr(request, spec.name)
        if dataclasses.is_dataclass(value):
            value = to_wire(value)
            if not value:
                continue
        if value is not None:
            out[spec.wire] = value
    return out


def load_json(data: bytes | str) -> object:
    """Parse a raw request, refusing nesting deeper than MAX_DEPTH before the parser recurses into it."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError:
        raise InvalidRequest("the request is not UTF-8 text") from None
    depth = deepest = 0
    for bracket in _BRACKETS.findall(_STRINGS.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            raise InvalidRequest(f"the request is nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise InvalidRequest(f"the request is not JSON ({str(exc)[:80]})") from None


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKETS = re.compile(r"[\[\]{}]")


# -- dates --------------------------------------------------------------------------------------------------------


def parse_time(value: str, where: str, end_of_day: bool = False) -> float:
    """ISO 8601 date or date-time (naive = UTC) → epoch seconds; a bare date with `end_of_day` means that day's end."""
    text = value.strip()
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidRequest(f"{where} must be an ISO date or date-time (e.g. 2026-02-10), got {show(value)}") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    seconds = parsed.timestamp()
    if end_of_day and len(text) == 10:
        seconds += 86400 - 0.001
    return seconds


def check_range(since: str | None, until: str | None) -> None:
    """`since` must not come after `until` (a bare `until` date includes its whole day)."""
    if since and until and parse_time(since, "since") > parse_time(until, "until", end_of_day=True):
        raise InvalidRequest(f"since ({since}) must not be after until ({until})")


# -- the requests -------------------------------------------------------------------------------------------------

_DATE_HELP = "ISO date or date-time, e.g. 2026-02-10 (UTC unless an offset is given)"
_SESSION_REF = "a session key (claude-code:<uuid>), a bare session id, or a unique prefix of one (≥ 4 characters)"


class Request:
    """The base of every request: checked on construction; `parse` reads one from JSON."""

    def __post_init__(self) -> None:
        validate(self)
        self.check()

    def check(self) -> None:
        """Rules across fields (none by default)."""

    @classmethod
    def parse(cls, raw: object, *, defaults: Mapping[str, Any] | None = None) -> Self:
        return parse(cls, raw, defaults=defaults)


@dataclass(frozen=True, kw_only=True)
class SearchFilterRequest(Request):
    """`SearchParams.filters` (wire.SearchFilterParams, TS `SearchFilters`)."""

    kind: HitKind | None = arg("only hits of this kind")
    format: AgentFormat | None = arg("only this agent's transcripts")
    session: str | None = arg("a session key", max_chars=MAX_KEY_CHARS)
    session_key: str | None = arg("an alias of `session`", max_chars=MAX_KEY_CHARS)
    role: Role | None = arg("only this speaker's messages")
    since: str | None = arg(_DATE_HELP, max_chars=MAX_DATE_CHARS, date=True)
    until: str | None = arg(
        "ISO date or date-time; a bare date includes that whole day", max_chars=MAX_DATE_CHARS, date=True
    )

    def check(self) -> None:
        check_range(self.since, self.until)


@dataclass(frozen=True, kw_only=True)
class SearchRequest(Request):
    """`memlens.search`, `memlens search`, the local socket's `search`."""

    query: str = arg("what to look for, in natural language or keywords", max_chars=MAX_QUERY_CHARS, required=True)
    limit: int | None = arg("how many results", low=1, high=MAX_RESULTS, setting="search.max_results")
    mode: SearchMode | None = arg("hybrid, keyword (BM25) or vector", setting="search.mode")
    fusion: FusionMode | None = arg("how keyword and vector scores combine", setting="search.fusion")
    filters: SearchFilterRequest = dataclasses.field(default_factory=SearchFilterRequest, metadata={"help": "filters"})
    explain: bool = arg("show the component scores", default=False)
    min_score: float | None = arg(
        "the least calibrated score the best hit needs", low=0, high=1, setting="search.min_score"
    )


@dataclass(frozen=True, kw_only=True)
class McpSearchRequest(Request):
    """The MCP tool `search` (wire.McpSearchParams): the filters flat, `sessionKey` a key, an id or a prefix."""

    query: str = arg("what to look for, in natural language or keywords", max_chars=MAX_QUERY_CHARS, required=True)
    limit: int | None = arg("how many results", low=1, high=MAX_RESULTS, setting="search.max_results")
    mode: SearchMode | None = arg("hybrid (default), keyword (BM25) or vector")
    kind: HitKind | None = arg("only hits of this kind")
    format: AgentFormat | None = arg("only this agent's transcripts")
    role: Role | None = arg("only this speaker's messages")
    since: str | None = arg(_DATE_HELP, max_chars=MAX_DATE_CHARS, date=True)
    until: str | None = arg(
        "ISO date or date-time; a bare date includes that whole day", max_chars=MAX_DATE_CHARS, date=True
    )
    session_key: str | None = arg("only this session (key, id or unique prefix)", max_chars=MAX_KEY_CHARS)

    def check(self) -> None:
        check_range(self.since, self.until)

    def filter_request(self, session: str | None) -> SearchFilterRequest:
        """The filters nested, as `memlens.search` takes them; `session` the key `session_key` resolved to."""
        return SearchFilterRequest(
            kind=self.kind, format=self.format, role=self.role, since=self.since, until=self.until, session=session
        )


@dataclass(frozen=True, kw_only=True)
class HistoryRequest(Request):
    """`memlens.history`, `memlens history`, the MCP tool `history`."""

    session_key: str = arg(_SESSION_REF, max_chars=MAX_KEY_CHARS, required=True)
    message_id: str | None = arg("anchor the window on this message", max_chars=MAX_KEY_CHARS, flag="--message")
    limit: int = arg("how many messages", default=DEFAULT_HISTORY, low=1, high=MAX_HISTORY)


@dataclass(frozen=True, kw_only=True)
class SessionsRequest(Request):
    """`memlens.sessions`, `memlens sessions`, the MCP tool `sessions`."""

    query: str | None = arg("words that must all appear in the title, folder or session key", max_chars=MAX_QUERY_CHARS)
    format: AgentFormat | None = arg("only this agent's sessions")
    since: str | None = arg("sessions active on or after this ISO date", max_chars=MAX_DATE_CHARS, date=True)
    until: str | None = arg(
        "sessions active on or before this ISO date (a bare date: that day)", max_chars=MAX_DATE_CHARS, date=True
    )
    limit: int = arg("sessions per page", default=DEFAULT_SESSIONS, low=1, high=MAX_SESSIONS)
    cursor: str | None = arg("nextCursor of the previous page", max_chars=MAX_KEY_CHARS)

    def check(self) -> None:
        check_range(self.since, self.until)


@dataclass(frozen=True, kw_only=True)
class StatsRequest(Request):
    """`memlens.stats`, `memlens stats`, the MCP tool `stats`: no arguments."""


@dataclass(frozen=True, kw_only=True)
class ReindexRequest(Request):
    """`memlens.reindex`, `memlens reindex`."""

    full: bool = arg("re-read every file", default=False)


@dataclass(frozen=True, kw_only=True)
class SummariesGrepRequest(Request):
    """`memlens.summaries.grep`, the MCP tool `summaries_grep`."""

    pattern: str = arg("a regular expression (linear-time) or literal text", max_chars=MAX_PATTERN_CHARS, required=True)
    limit: int = arg("how many summaries", default=DEFAULT_GREP, low=1, high=MAX_GREP)


@dataclass(frozen=True, kw_only=True)
class SummariesDescribeRequest(Request):
    """`memlens.summaries.describe`, the MCP tool `summaries_describe`."""

    summary_id: str = arg(
        "chunk:<n>, from summaries_grep or a summary search hit", max_chars=MAX_KEY_CHARS, required=True
    )


@dataclass(frozen=True, kw_only=True)
class SummariesExpandRequest(Request):
    """`memlens.summaries.expand`, the MCP tool `summaries_expand`."""

    summary_id: str = arg("chunk:<n>", max_chars=MAX_KEY_CHARS, required=True)
    token_budget: int = arg("at most this many tokens", default=DEFAULT_EXPAND_BUDGET, low=1, high=MAX_BUDGET)


@dataclass(frozen=True, kw_only=True)
class ContextRequest(Request):
    """`memlens.context`, the MCP tool `context`."""

    question: str = arg("the task or question to gather context for", max_chars=MAX_QUERY_CHARS, required=True)
    token_budget: int = arg(
        "at most this many tokens", default=DEFAULT_CONTEXT_BUDGET, low=MIN_CONTEXT_BUDGET, high=MAX_BUDGET
    )
    limit: int | None = arg("at most this many items", low=1, high=MAX_RESULTS)


COMMANDS: dict[str, type[Request]] = {
    "memlens.search": SearchRequest,
    "memlens.history": HistoryRequest,
    "memlens.sessions": SessionsRequest,
    "memlens.stats": StatsRequest,
    "memlens.reindex": ReindexRequest,
    "memlens.summaries.grep": SummariesGrepRequest,
    "memlens.summaries.describe": SummariesDescribeRequest,
    "memlens.summaries.expand": SummariesExpandRequest,
    "memlens.context": ContextRequest,
}
"""The language server's commands and the request each one takes."""


# -- the doors' forms: an MCP input schema, CLI flags -----------------------------------------------------------


def json_schema(cls: type, *, defaults: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The JSON Schema of request class `cls` (MCP tools' `inputSchema`); `defaults` overrides declared ones."""
    properties = {spec.wire: _property(spec, (defaults or {}).get(spec.name, spec.default)) for spec in specs(cls)}
    required = [spec.wire for spec in specs(cls) if spec.required]
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def _property(spec: FieldSpec, default: Any) -> dict[str, Any]:
    schema: dict[str, Any]
    if spec.choices:
        schema = {"enum": list(spec.choices)}
    elif spec.nested is not None:
        schema = json_schema(spec.nested)
    elif spec.base is bool:
        schema = {"type": "boolean"}
    elif spec.base in (int, float):
        schema = {"type": "integer" if spec.base is int else "number"}
        if spec.low is not None and spec.high is not None:
            schema |= {"minimum": spec.low, "maximum": spec.high}
    else:
        schema = {"type": "string"}
        if spec.required:
            schema |= {"minLength": 1, "pattern": r"\S"}
        if spec.max_chars is not None:
            schema["maxLength"] = spec.max_chars
    description = spec.help + (f" (default: {spec.default_text})" if spec.setting else "")
    if description:
        schema["description"] = description
    if default is not None and not dataclasses.is_dataclass(default) and default is not False:
        schema["default"] = default
    return schema


def add_flags(
    parser: argparse.ArgumentParser,
    cls: type,
    *,
    positional: tuple[str, ...] = (),
    skip: tuple[str, ...] = (),
    help_overrides: Mapping[str, str] | None = None,
) -> None:
    """A flag for each field of `cls` (`--kebab-name`, or its `flag`), its help saying the bounds and default.
    Values stay text: `from_flags` checks them, so a bad one is the CLI's usual one error line."""
    for spec in specs(cls):
        if spec.name in skip:
            continue
        if spec.nested is not None:
            add_flags(parser, spec.nested, skip=skip, help_overrides=help_overrides)
            continue
        help_text = _flag_help(spec, (help_overrides or {}).get(spec.name))
        if spec.name in positional:
            parser.add_argument(spec.name, help=help_text)
        elif spec.base is bool:
            parser.add_argument(f"--{spec.name.replace('_', '-')}", action="store_true", help=help_text)
        else:
            flag = spec.flag or f"--{spec.name.replace('_', '-')}"
            parser.add_argument(
                flag, dest=spec.name, choices=spec.choices or None, help=help_text, metavar=_metavar(spec)
            )


def _metavar(spec: FieldSpec) -> str | None:
    if spec.choices:
        return None
    return {int: "N", float: "X"}.get(spec.base, spec.wire.upper() if spec.date else None)


def _flag_help(spec: FieldSpec, override: str | None) -> str:
    parts = [override or spec.help]
    if spec.low is not None and spec.high is not None:
        parts.append(spec.bounds_text())
    default = spec.default_text
    if default:
        parts.append(f"default: {default}")
    return "; ".join(parts)


def from_flags(cls: type[R], args: argparse.Namespace, *, skip: tuple[str, ...] = ()) -> R:
    """The request the CLI's flags (made by `add_flags`) describe, each value checked as the other doors check it."""
    values: dict[str, Any] = {}
    for spec in specs(cls):
        if spec.name in skip:
            continue
        if spec.nested is not None:
            values[spec.name] = from_flags(spec.nested, args, skip=skip)
            continue
        value = getattr(args, spec.name, None)
        if value is None:
            continue
        values[spec.name] = _from_text(spec, value) if isinstance(value, str) else value
    try:
        return cls(**values)
    except InvalidRequest as exc:
        raise InvalidRequest(_as_flag(str(exc), cls)) from None


def _as_flag(message: str, cls: type) -> str:
    """A message that opens with a field's wire name, opened with its flag instead (`limit` → `--limit`)."""
    for spec in _flat_specs(cls):
        if re.match(rf"{spec.wire}\b(?! \()", message):
            return (spec.flag or f"--{spec.name.replace('_', '-')}") + message[len(spec.wire) :]
    return message


def _flat_specs(cls: type) -> list[FieldSpec]:
    out: list[FieldSpec] = []
    for spec in specs(cls):
        out.extend(_flat_specs(spec.nested) if spec.nested is not None else [spec])
    return out


def _from_text(spec: FieldSpec, text: str) -> Any:
    """A flag's text as the field's type (the field's own check follows on construction)."""
    if spec.base not in (int, float):
        return text
    try:
        return int(text) if spec.base is int else float(text)
    except ValueError:
        kind = "an integer" if spec.base is int else "a number"
        flag = spec.flag or f"--{spec.name.replace('_', '-')}"
        raise InvalidRequest(f"{flag} must be {kind} {spec.bounds_text()}, got {show(text)}") from None
