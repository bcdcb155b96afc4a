"""The forms a request takes at the doors that cannot read a dataclass: the MCP tools' JSON Schemas, the CLI's flags."""

from __future__ import annotations

import argparse
import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from memlens.errors import InvalidRequest
from memlens.requests.fields import FieldSpec, specs
from memlens.settings.values import show

R = TypeVar("R")


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
    description = spec.help + (f" (default: {spec.default_text})" if spec.setting else "") + _read_end_text(spec)
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
    words: str | None = None,
    aliases: Mapping[str, tuple[str, ...]] | None = None,
) -> None:
    """A flag for each field of `cls` (`--kebab-name`, or its `flag`), its help saying the bounds and default.
    Values stay text: `from_flags` checks them, so a bad one is the CLI's usual one error line. The positional
    `words` takes every word left on the command line (a list of words); `aliases` gives a field's flag other names
    (`-m`, `--max-count` for `--limit`), the short ones listed before it and the long ones after."""
    for spec in specs(cls):
        if spec.name in skip:
            continue
        if spec.nested is not None:
            add_flags(parser, spec.nested, skip=skip, help_overrides=help_overrides, aliases=aliases)
            continue
        help_text = _flag_help(spec, (help_overrides or {}).get(spec.name))
        if spec.name in positional:  # named in capitals in the usage line, as ripgrep's PATTERN and git's <commit>
            several = "+" if spec.name == words else None
            parser.add_argument(spec.name, nargs=several, help=help_text, metavar=spec.name.upper())
        elif spec.base is bool:
            parser.add_argument(f"--{spec.name.replace('_', '-')}", action="store_true", help=help_text)
        else:
            flag = spec.flag or f"--{spec.name.replace('_', '-')}"
            other = (aliases or {}).get(spec.name, ())
            names = [n for n in other if not n.startswith("--")] + [flag] + [n for n in other if n.startswith("--")]
            action = _TypedName if other else "store"
            parser.add_argument(*names, dest=spec.name, help=help_text, metavar=_metavar(spec), action=action)


TYPED_NAMES = "_typed_flag_names"
"""The namespace attribute where `_TypedName` keeps the name each aliased flag was typed as."""


class _TypedName(argparse.Action):
    """A flag with other names that keeps the name the user typed, so an error about `-m 0` says `-m`, not
    `--limit`: a user told about a flag they never typed has to find out it is the same one."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, values)
        if option_string is not None:
            typed = dict(getattr(namespace, TYPED_NAMES, {}))
            typed[self.dest] = option_string
            setattr(namespace, TYPED_NAMES, typed)


def _metavar(spec: FieldSpec) -> str | None:
    if spec.choices:  # listed, not argparse `choices`: a wrong one is then the schema's one line, as any bad value
        return "{" + ",".join(spec.choices) + "}"
    return {int: "N", float: "X"}.get(spec.base, spec.wire.upper() if spec.date else None)


def _read_end_text(spec: FieldSpec) -> str:
    """What a text read by its end says of it in a help or a schema."""
    return f"; over {spec.read_end:,} characters, its first line and last lines are read" if spec.read_end else ""


def _flag_help(spec: FieldSpec, override: str | None) -> str:
    parts = [(override or spec.help) + _read_end_text(spec)]
    if spec.low is not None and spec.high is not None:
        parts.append(spec.bounds_text())
    default = spec.default_text
    if default:
        parts.append(f"default: {default}")
    if spec.example:
        parts.append(f"e.g. {spec.example}")
    return "; ".join(parts)


def from_flags(
    cls: type[R], args: argparse.Namespace, *, positional: tuple[str, ...] = (), skip: tuple[str, ...] = ()
) -> R:
    """The request the CLI's arguments (made by `add_flags` with the same `positional` and `skip`) describe, each
    value checked as the other doors check it; an error names the flag (`--limit`) or the positional (as its usage
    does)."""
    values: dict[str, Any] = {}
    typed: Mapping[str, str] = getattr(args, TYPED_NAMES, {})
    for spec in specs(cls):
        if spec.name in skip:
            continue
        if spec.nested is not None:
            values[spec.name] = from_flags(spec.nested, args, skip=skip)
            continue
        value = getattr(args, spec.name, None)
        if value is None:
            continue
        values[spec.name] = _from_text(spec, value, typed.get(spec.name)) if isinstance(value, str) else value
    try:
        return cls(**values)
    except InvalidRequest as exc:
        raise InvalidRequest(_as_flag(str(exc), cls, positional, typed)) from None


def _as_flag(message: str, cls: type, positional: tuple[str, ...], typed: Mapping[str, str]) -> str:
    """A message that opens with a flag's wire name, opened with the flag as typed instead (`minScore` →
    `--min-score`, `limit` → `-m` when `-m` was typed), or with a positional's name as the usage line shows it
    (`sessionKey` → `SESSION_KEY`)."""
    for spec in _flat_specs(cls):
        if re.match(rf"{spec.wire}\b(?! \()", message):
            named = spec.name.upper() if spec.name in positional else _flag_name(spec, typed.get(spec.name))
            return named + message[len(spec.wire) :]
    return message


def _flag_name(spec: FieldSpec, typed: str | None) -> str:
    return typed or spec.flag or f"--{spec.name.replace('_', '-')}"


def _flat_specs(cls: type) -> list[FieldSpec]:
    out: list[FieldSpec] = []
    for spec in specs(cls):
        out.extend(_flat_specs(spec.nested) if spec.nested is not None else [spec])
    return out


def _from_text(spec: FieldSpec, text: str, typed: str | None) -> Any:
    """A flag's text as the field's type (the field's own check follows on construction)."""
    if spec.base not in (int, float):
        return text
    try:
        return int(text) if spec.base is int else float(text)
    except ValueError:
        kind = "an integer" if spec.base is int else "a number"
        raise InvalidRequest(
            f"{_flag_name(spec, typed)} must be {kind} {spec.bounds_text()}, got {show(text)}"
        ) from None
