"""One setting's value: its wire name, a safe description for warnings, and the check against its field's type and
bounds (the tree as a whole is checked in layers.py)."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any, Literal, get_args, get_origin

from memlens.counted import counted
from memlens.settings.tree import MAX_STRING_CHARS, TRUST_SETTINGS, Settings


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def camel_case(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def wire_name(path: str) -> str:
    """`search.min_score` → `memlens.search.minScore`."""
    return "memlens." + ".".join(camel_case(part) for part in path.split("."))


TRUST_PATHS = frozenset(".".join(snake(p) for p in key.split(".")) for key in TRUST_SETTINGS)


def cut_shown(text: str, end: int) -> str:
    """The first `end` characters of `text` for a message, cut before a secret the cut would run through: a message
    is masked when it is shown, and a token cut short (or ending in "...", an elided example) is masked no more."""
    from memlens.redaction import clear_cut  # loaded only when a long value is shown, not by every import of this

    return text[: clear_cut(text, end)]


def show(value: Any) -> str:
    """A short, safe description of a value from a settings file (never a 4,000-digit repr or a deep recursion)."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return str(value) if abs(value) < 10**18 else f"an integer of {value.bit_length()} bits"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return repr(value) if len(value) <= 60 else repr(cut_shown(value, 57) + "...")
    if isinstance(value, dict):
        return f"an object of {counted(len(value), 'key')}"
    if isinstance(value, list):
        if all(isinstance(v, str) for v in value) and sum(len(v) + 4 for v in value) <= 80:
            return json.dumps(value)
        return f"a list of {counted(len(value), 'item')}"
    return type(value).__name__


def _bad_glob(pattern: str) -> bool:
    path = PurePosixPath(pattern.replace("\\", "/"))
    return not pattern.strip() or path.is_absolute() or ".." in path.parts or pattern.startswith("~")


def _check_string(value: str, where: str) -> str | None:
    if "\x00" in value:
        return f"{where}: {show(value)} contains a NUL character"
    if len(value) > MAX_STRING_CHARS:
        return f"{where}: a string of {len(value)} characters is too long (at most {MAX_STRING_CHARS})"
    return None


def coerce(value: Any, hint: Any, meta: Mapping[str, Any], where: str) -> tuple[Any, str | None]:
    """Check `value` against a field's type hint and metadata: (the value to store, None) or (None, the problem)."""
    origin = get_origin(hint)
    if origin is Literal:
        allowed = get_args(hint)
        if isinstance(value, str) and value in allowed:
            return value, None
        return None, f"{where}: {show(value)} is not one of {', '.join(map(repr, allowed))}"
    if origin is list:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return None, f"{where}: expected a list of strings, got {show(value)}"
        for item in value:
            problem = _check_string(item, where)
            if problem:
                return None, problem
            if meta.get("relative_globs") and _bad_glob(item):
                return None, f"{where}: {show(item)} must be a non-empty glob relative to the workspace folder"
        return list(value), None
    if hint is bool:
        if isinstance(value, bool):
            return value, None
    elif hint is str:
        if isinstance(value, str):
            return value, _check_string(value, where)
    elif hint in (int, float) and isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, float) and not math.isfinite(value):
            return None, f"{where}: {show(value)} is not a finite number"
        low, high = meta["min"], meta["max"]
        if not low <= value <= high:  # exact for ints of any size: no float conversion before the check
            return None, f"{where}: {show(value)} is outside {low}..{high}"
        if hint is float:
            return float(value), None
        if isinstance(value, float) and not value.is_integer():
            return None, f"{where}: {show(value)} is not a whole number"
        return int(value), None
    return None, f"{where}: expected {getattr(hint, '__name__', hint)}, got {show(value)}"


def to_wire(settings: Settings) -> dict[str, Any]:
    """The settings as camelCase JSON (what `memlens.*` looks like in an editor)."""

    def convert(value: Any) -> Any:
        if dataclasses.is_dataclass(value):
            return {camel_case(f.name): convert(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return value

    wire: dict[str, Any] = convert(settings)
    return wire
