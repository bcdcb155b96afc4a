"""The machinery of a request schema: a field's declaration (`arg`), its description (`FieldSpec`), the check of one
value against it, and a raw JSON object parsed into a request object (`parse`), which checks itself on construction
(`Request`)."""

from __future__ import annotations

import dataclasses
import json
import math
import re
import types
from collections.abc import Mapping
from dataclasses import MISSING, dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any, Literal, Self, TypeVar, Union, get_args, get_origin, get_type_hints

from memlens.errors import InvalidRequest
from memlens.near_names import did_you_mean
from memlens.requests.calendar_days import why_not_iso_day
from memlens.requests.relative_dates import absolute_date
from memlens.settings import Settings, camel_case, wire_name
from memlens.settings.values import cut_shown, show

MAX_DEPTH = 32
"""Nesting of a raw JSON request: the deepest a valid one goes is 3 (params → filters → value)."""
MAX_MESSAGE_BYTES = 4 * 1024 * 1024
"""A whole JSON-RPC message on the wire, in bytes (an MCP stdio line, an LSP message body, an MCP HTTP body): a door
holds a message whole before anything reads it, so one without a bound could hold any amount of memory. The MCP
SDK's HTTP app is given it too (its own default is the same 4 MB). It holds MAX_PASTE_CHARS written plainly."""


def arg(
    help: str,
    *,
    required: bool = False,
    default: Any = None,
    low: float | None = None,
    high: float | None = None,
    max_chars: int | None = None,
    read_end: int | None = None,
    date: bool = False,
    flag: str | None = None,
    setting: str | None = None,
    example: str | None = None,
) -> Any:
    """One request field: its help, whether it is required, its default, inclusive bounds for a number, at most
    `max_chars` for a string (`read_end`: a longer one than this is read by its end, pasted_text.py), `date` for an
    ISO date, `flag` for a CLI flag other than `--<kebab-name>`, `setting`
    (a dotted snake_case path in memlens.settings) when an absent value means that setting, `example` a value the
    CLI's help shows."""
    metadata = {
        "help": help,
        "low": low,
        "high": high,
        "max_chars": max_chars,
        "read_end": read_end,
        "date": date,
        "flag": flag,
        "setting": setting,
        "example": example,
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
    example: str | None = None
    read_end: int | None = None  # a longer text is read by its first line and last lines within this many characters

    @property
    def default_text(self) -> str | None:
        """What an absent value means, for help texts: `search.maxResults (10)`, or the default itself."""
        if self.setting:
            value: Any = Settings()
            for part in self.setting.split("."):
                value = getattr(value, part)
            return f"{wire_name(self.setting).removeprefix('memlens.')} ({'none' if value in (None, '') else value})"
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
                example=meta.get("example"),
                read_end=meta.get("read_end"),
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
    if value is None and spec.optional:
        return None
    if value is None and spec.required:
        raise InvalidRequest(f"{where} is required")
    base = spec.base
    if spec.choices:
        if not isinstance(value, str) or value not in spec.choices:
            typo = did_you_mean(value, spec.choices) if isinstance(value, str) else ""
            raise InvalidRequest(f"{where} must be {spec.bounds_text()}, got {show(value)}{typo}")
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
        # a text read by its end is bounded too: what a door holds and passes on whole
        end = f"; over {spec.read_end:,} only its first line and end are read: paste those" if spec.read_end else ""
        raise InvalidRequest(f"{where} must be at most {spec.max_chars:,} characters, got {len(value):,}{end}")
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
        shown = ", ".join(repr(cut_shown(key, 40)) for key in unknown[:5])
        inside = f" in {where.rstrip('.')}" if where else ""
        typo = did_you_mean(unknown[0], by_wire) if len(unknown) == 1 else ""
        raise InvalidRequest(f"unknown field(s){inside}: {shown}; expected {', '.join(by_wire) or 'none'}{typo}")
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


def parse_time(value: str, where: str, end_of_day: bool = False, *, zone: tzinfo = UTC) -> float:
    """ISO 8601 date or date-time (naive = UTC), or a relative date (`7d`, `yesterday`: relative_dates; a day word is
    a day of `zone`, the answers' display zone) → epoch seconds; a bare date with `end_of_day` means that day's end."""
    try:
        day_word = absolute_date(value, zone=zone, end=end_of_day)
        text = day_word or value.strip()
    except OverflowError:  # a duration ago that reaches before the calendar's first day
        raise InvalidRequest(f"{where} must not reach back before the year 1, got {show(value)}") from None
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        why = why_not_iso_day(text)
        if why is not None:  # written as a date, but of a day no calendar has
            raise InvalidRequest(f"{where} must be a day that exists, got {show(value)} ({why})") from None
        raise InvalidRequest(
            f"{where} must be an ISO date (e.g. 2026-02-10), a duration ago (7d, 12h, 2w, 3m, 1y), today, yesterday, "
            f"a weekday (monday, last tue), a part of a day (this morning, last night) or a time (14:00, yesterday "
            f"9am), got {show(value)}"
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=zone if day_word else UTC)
    if end_of_day and len(text) == 10:
        return (parsed + timedelta(days=1)).timestamp() - 0.001  # the next midnight of the zone (a DST day: 23 or 25 h)
    return parsed.timestamp()


def check_range(since: str | None, until: str | None) -> None:
    """`since` must not come after `until` (a bare `until` date includes its whole day)."""
    if since and until and parse_time(since, "since") > parse_time(until, "until", end_of_day=True):
        raise InvalidRequest(f"since ({since}) must not be after until ({until})")


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
