"""Merging layers of settings (defaults, editor, .memlens.json, CLI flags) into one valid tree.

Each layer's values are checked one by one (values.py), then the merged tree as a whole (`RULES`); what fails goes
back to the layer below, with one warning naming the setting, the value and what is kept."""

from __future__ import annotations

import dataclasses
import operator
import zoneinfo
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, get_type_hints

from memlens.near_names import did_you_mean
from memlens.settings.tree import CLIENT_ONLY, Settings
from memlens.settings.values import TRUST_PATHS, coerce, show, snake, wire_name


def known_time_zone(name: str) -> bool:
    """Empty (the machine's zone) or a zone the time zone database knows."""
    if not name:
        return True
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return True


@dataclass(frozen=True)
class Rule:
    """A cross-field check: `holds(*values)` must be true for the fields named (dotted snake_case paths)."""

    fields: tuple[str, ...]
    holds: Callable[..., bool]
    text: str  # "{0} must be less than {1}", formatted with the fields' wire names and values


RULES = (
    Rule(("chunking.markdown_min_chars", "chunking.markdown_max_chars"), operator.lt, "{0} must be less than {1}"),
    Rule(("search.excerpt_chars", "search.max_response_chars"), operator.le, "{0} must not exceed {1}"),
    Rule(("search.vector_weight", "search.text_weight"), lambda v, t: v + t > 0, "{0} and {1} must not both be 0"),
    Rule(("display.time_zone",), known_time_zone, "{0} must name an IANA time zone such as Europe/Berlin"),
)


@dataclass
class _Layer:
    """One merge call: where its values come from, whether location settings may apply, what it changed."""

    warnings: list[str]
    trusted: bool
    source: str
    changed: set[str] = field(default_factory=set)


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = get_type_hints(cls)
    return _HINTS[cls]


def _apply(target: Any, data: dict[str, Any], path: str, layer: _Layer) -> None:
    hints = _hints(type(target))
    fields = {f.name: f for f in dataclasses.fields(target)}
    for key, value in data.items():
        name = snake(key) if isinstance(key, str) else ""
        where = f"memlens.{path}{key}"
        if name not in fields:
            known = (wire_name(f"{path}{other}").rpartition(".")[2] for other in fields)
            guess = did_you_mean(key, known) if isinstance(key, str) else ""
            layer.warnings.append(f"{where}: unknown setting, ignored{guess}")
            continue
        current = getattr(target, name)
        if dataclasses.is_dataclass(current):
            if isinstance(value, dict):
                _apply(current, value, f"{path}{name}.", layer)
            else:
                layer.warnings.append(f"{where}: expected an object, got {show(value)}; keeping the defaults")
            continue
        dotted = f"{path}{name}"
        if not layer.trusted and dotted in TRUST_PATHS:
            layer.warnings.append(
                f"{wire_name(dotted)}: not applied from {layer.source or 'the workspace settings'}: "
                "the workspace is not trusted"
            )
            continue
        coerced, problem = coerce(value, hints[name], fields[name].metadata, wire_name(dotted))
        if problem is not None:
            layer.warnings.append(f"{problem}; keeping {_shown(current, fields[name].metadata)}")
            continue
        setattr(target, name, coerced)
        layer.changed.add(dotted)


def _shown(value: Any, metadata: Mapping[str, Any]) -> str:
    """A kept value as a warning says it: an empty one with what empty stands for ("'' (the machine's zone)")."""
    meaning = metadata.get("empty_means")
    return f"{show(value)} ({meaning})" if value == "" and meaning else show(value)


def _field(path: str) -> dataclasses.Field[Any]:
    """The settings tree's field at a dotted path ("display.time_zone")."""
    *parents, last = path.split(".")
    node: type = Settings
    for part in parents:
        node = _hints(node)[part]
    return next(f for f in dataclasses.fields(node) if f.name == last)


def _get(settings: Settings, path: str) -> Any:
    node: Any = settings
    for part in path.split("."):
        node = getattr(node, part)
    return node


def _set(settings: Settings, path: str, value: Any) -> None:
    *parents, last = path.split(".")
    node: Any = settings
    for part in parents:
        node = getattr(node, part)
    setattr(node, last, value)


def _leaf_fields(cls: type = Settings, prefix: str = "") -> list[tuple[str, Any, dataclasses.Field[Any]]]:
    """Every leaf setting as (dotted snake path, type hint, field)."""
    hints = get_type_hints(cls)
    out: list[tuple[str, Any, dataclasses.Field[Any]]] = []
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            out.extend(_leaf_fields(hint, f"{prefix}{f.name}."))
        else:
            out.append((f"{prefix}{f.name}", hint, f))
    return out


LEAVES = _leaf_fields()


def problems(settings: Settings) -> list[tuple[tuple[str, ...], str]]:
    """What is wrong with `settings` as a whole: (the fields concerned, why). Empty for valid settings."""
    found: list[tuple[tuple[str, ...], str]] = []
    for path, hint, f in LEAVES:
        value = _get(settings, path)
        _, problem = coerce(value, hint, f.metadata, wire_name(path))
        if problem is not None:
            found.append(((path,), problem))
    if found:
        return found  # rules compare values, which must first be of the right type
    for rule in RULES:
        values = [_get(settings, p) for p in rule.fields]
        if not rule.holds(*values):
            names = [f"{wire_name(p)} ({show(v)})" for p, v in zip(rule.fields, values, strict=True)]
            found.append((rule.fields, rule.text.format(*names)))
    return found


def _validate(result: Settings, base: Settings, layer: _Layer) -> None:
    """Fix every problem of the merged tree: what this layer changed goes back to the layer below, else default."""
    for _ in range(len(LEAVES) + len(RULES) + 1):
        found = problems(result)
        if not found:
            return
        defaults = Settings()
        for paths, text in found:
            changed = [p for p in paths if p in layer.changed]
            restore = changed or list(paths)
            source = base if changed else defaults
            for p in restore:
                _set(result, p, _copy(_get(source, p)))
                layer.changed.discard(p)
            kept = ", ".join(f"{wire_name(p)} = {_shown(_get(result, p), _field(p).metadata)}" for p in restore)
            layer.warnings.append(f"{text}; keeping {kept}")
    raise AssertionError("unreachable: the defaults are valid")  # pragma: no cover


def _copy(value: Any) -> Any:
    return list(value) if isinstance(value, list) else value


def _nest(data: dict[Any, Any], warnings: list[str]) -> dict[str, Any]:
    """Accept flat dotted keys (`"search.mode": "keyword"`, as VS Code may send them) beside nested objects."""
    nested: dict[str, Any] = {}
    for key, value in data.items():
        if not isinstance(key, str):
            warnings.append(f"memlens: {show(key)} is not a setting name, ignored")
            continue
        *parents, last = key.removeprefix("memlens.").split(".")
        node = nested
        for part in parents:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                warnings.append(f"memlens.{key}: conflicts with a value given for memlens.{part}, ignored")
                break
            node = child
        else:
            if isinstance(value, dict) and isinstance(node.get(last), dict):
                node[last] = {**node[last], **value}
            else:
                node[last] = value
    return nested


def merge(
    base: Settings,
    data: dict[str, Any] | None,
    warnings: list[str] | None = None,
    *,
    trusted: bool = True,
    source: str = "",
) -> Settings:
    """Return a copy of `base` with the camelCase (or snake_case) values in `data` applied, validated as a whole.

    `data` may be the `memlens` section itself or a whole settings object holding a `memlens` key.
    Flat dotted keys (`"search.mode": "keyword"`, as VS Code may send them) are accepted too. With `trusted`
    false (a `.memlens.json` of an untrusted workspace, named by `source`), `TRUST_SETTINGS` are dropped with a
    warning. A bad value warns and keeps the value of `base`; the result always passes `problems()`.
    """
    warnings = warnings if warnings is not None else []
    result = _deep_copy(base)
    layer = _Layer(warnings, trusted, source)
    if data is not None and not isinstance(data, dict):
        warnings.append(f"memlens: settings must be an object, got {show(data)}; keeping the defaults")
        data = None
    if data:
        if isinstance(data.get("memlens"), dict):
            data = data["memlens"]
        nested = _nest(data, warnings)
        for client_only in CLIENT_ONLY:  # the editor client's own settings: not the server's concern
            nested.pop(client_only, None)
        _apply(result, nested, "", layer)
    _validate(result, base, layer)
    return result


def _deep_copy(settings: Settings) -> Settings:
    result = dataclasses.replace(settings)
    for f in dataclasses.fields(result):  # the nested groups and lists are copied too
        value = getattr(result, f.name)
        if dataclasses.is_dataclass(value):
            group = dataclasses.replace(value)  # type: ignore[type-var]
            for g in dataclasses.fields(group):
                setattr(group, g.name, _copy(getattr(group, g.name)))
            setattr(result, f.name, group)
        else:
            setattr(result, f.name, _copy(value))
    return result
