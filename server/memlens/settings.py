"""One typed settings tree with defaults, read from LSP options, the workspace's .memlens.json and CLI flags.

Keys are camelCase on the wire (as VS Code's `memlens.*` settings) and snake_case in Python. The tree is validated
as a whole: every number is range-checked against the bounds its field declares (`between`), pairs of fields are
cross-checked (`RULES`), and settings that change where memlens reads or writes apply from a workspace's
`.memlens.json` only when the workspace is trusted (`TRUST_SETTINGS`). A bad value produces one warning naming the
setting, the value and what is kept instead: a bad setting never stops the server or the CLI.
"""

from __future__ import annotations

import dataclasses
import json
import math
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Literal, get_args, get_origin, get_type_hints

DEFAULT_MEMORY_GLOBS = ["MEMORY.md", "USER.md", "IDENTITY.md", "memory/**/*.md", "bank/**/*.md"]
WORKSPACE_CONFIG_FILE = ".memlens.json"
MAX_STRING_CHARS = 4096
TRUST_OPTION = "workspaceTrusted"
"""The initializationOptions key by which a client says whether the workspace is trusted (absent = trusted)."""
CLIENT_ONLY = ("server", "trace", TRUST_OPTION)
"""Keys under `memlens.` that belong to the editor client, not to the server's tree: ignored without a warning."""
TRUST_SETTINGS = (
    "indexDir",
    "scope",
    "followExternalSymlinks",
    "transcripts.paths",
    "embedding.model",
    "embedding.modelPath",
    "reranker.model",
    "reranker.modelPath",
    "privacy.redactIndex",
)
"""Settings that change where memlens reads or writes, what it downloads and loads, or whether secrets are written
to disk: from a workspace's `.memlens.json` they apply only in a trusted workspace. The VS Code manifest's
`restrictedConfigurations` lists these too (plus the client's own `server.pythonPath`)."""


def between(low: float, high: float) -> dict[str, float]:
    """Field metadata: the inclusive range a number must lie in (checked on every merge)."""
    return {"min": low, "max": high}


def relative_globs() -> dict[str, bool]:
    """Field metadata: a list of globs relative to a workspace folder (never absolute, never `..`)."""
    return {"relative_globs": True}


@dataclass
class MemorySettings:
    include: list[str] = field(default_factory=lambda: list(DEFAULT_MEMORY_GLOBS), metadata=relative_globs())
    """Memory file globs, relative to each workspace folder."""
    extra_include: list[str] = field(default_factory=list, metadata=relative_globs())
    """Extra globs (relative to a workspace folder) added to the default memory files."""
    exclude: list[str] = field(default_factory=list)


@dataclass
class TranscriptSettings:
    paths: list[str] = field(default_factory=list)
    """Extra folders (absolute, or relative to the workspace) scanned for transcripts of any format."""
    agent_defaults: bool = True
    """Also read the agents' default folders (~/.claude/projects, ~/.codex/sessions, ~/.openclaw, .specstory)."""
    exclude: list[str] = field(default_factory=list)
    """Globs of transcript paths never indexed or returned."""


@dataclass
class ChunkingSettings:
    markdown_min_chars: int = field(default=100, metadata=between(0, 100_000))
    markdown_max_chars: int = field(default=800, metadata=between(1, 1_000_000))
    gap_seconds: float = field(default=300.0, metadata=between(0, 10 * 365 * 86400))
    max_messages: int = field(default=8, metadata=between(1, 10_000))
    max_chars: int = field(default=16000, metadata=between(1, 10_000_000))
    tool_input_max_chars: int = field(default=500, metadata=between(0, 1_000_000))


@dataclass
class EmbeddingSettings:
    enabled: bool = True
    model: str = ""
    """A fastembed model name; empty = the bundled all-MiniLM-L6-v2 int8."""
    model_path: str = ""
    """A local folder holding a fastembed-loadable ONNX model (used with `model`, or alone for MiniLM-shaped models)."""
    batch_size: int = field(default=32, metadata=between(1, 4096))
    max_tokens: int = field(default=256, metadata=between(1, 32_768))
    """Word pieces the model reads per text (longer texts are truncated; cost grows with the square)."""
    threads: int = field(default=0, metadata=between(0, 1024))
    """Embedding workers (each runs one ONNX Runtime thread); 0 = one per core. A query always runs one thread."""
    quantize: bool = False
    """The bundled model computes in int8 (dynamic quantisation, made once in the model cache); false = fp32."""


@dataclass
class RerankerSettings:
    """The optional cross-encoder pass over the top hits (engine/cross_encoder.py); off unless a model is named."""

    model: str = ""
    """A fastembed cross-encoder model name (e.g. Xenova/ms-marco-MiniLM-L-6-v2); empty = no reranking."""
    model_path: str = ""
    """A local folder holding the cross-encoder's files (with `model`, or alone for a folder holding model.onnx)."""
    top_n: int = field(default=30, metadata=between(2, 200))
    """How many of the top hits the cross-encoder reads and re-orders (its cost grows with this)."""
    threads: int = field(default=1, metadata=between(1, 64))
    """ONNX Runtime threads for one reranking."""


Mode = Literal["hybrid", "keyword", "vector"]
Fusion = Literal["weighted", "rrf", "rescue"]


@dataclass
class SearchSettings:
    mode: Mode = "hybrid"
    fusion: Fusion = "rescue"
    """How BM25 and cosine combine in hybrid mode (see engine/search.py `_fuse`)."""
    rescue_weight: float = field(default=0.55, metadata=between(0, 1))
    """fusion "rescue": a hit scores at least this × (its cosine / the query's best cosine) ^ rescuePower."""
    rescue_power: float = field(default=20.0, metadata=between(1, 1000))
    """fusion "rescue": how close to the query's best cosine a hit must be to be rescued (higher = closer)."""
    vector_weight: float = field(default=0.6, metadata=between(0, 1))
    text_weight: float = field(default=0.4, metadata=between(0, 1))
    min_score: float = field(default=0.035, metadata=between(0, 1))
    """Nothing is returned unless the best hit scores this much (a calibrated chance of relevance); then hits
    down to a fifth of it."""
    max_results: int = field(default=10, metadata=between(1, 10_000))
    rrf_k: int = field(default=60, metadata=between(1, 100_000))
    candidates: int = field(default=200, metadata=between(1, 100_000))
    """How many hits each retriever hands to fusion."""
    neighbor_weight: float = field(default=0.8, metadata=between(0, 1))
    """A transcript message gains this share of its best-scoring neighbour's score (0 = off); see bench/RESULTS.md."""
    neighbor_window: int = field(default=2, metadata=between(0, 100))
    """How many messages either side, in the same session, count as neighbours."""
    context_weight: float = field(default=0.5, metadata=between(0, 1))
    """Share of the keyword signal from BM25 over each message together with its ±2 neighbours (0 = off)."""
    date_boost: float = field(default=0.3, metadata=between(0, 1))
    """A message on a date the query names (absolute or relative) gains this share of its missing score."""
    event_mentions: int = field(default=2, metadata=between(0, 20))
    """A date named from an event ("two days before the demo") is read from the days of the event's best this many
    keyword matches (0 = such dates are ignored)."""
    tool_penalty: float = field(default=0.3, metadata=between(0, 1))
    """Tool-call inputs lose this share of their score unless the query looks like a command, path or identifier."""
    session_cap: int = field(default=0, metadata=between(0, 1000))
    """At most this many hits per session before hits from other sessions (0 = no cap)."""
    merge_duplicates: bool = True
    """Show identical texts once."""
    calibrated: bool = True
    """Scores are calibrated chances of relevance (minScore applies to them); false = the raw fused score."""
    excerpt_chars: int = field(default=320, metadata=between(1, 1_000_000))
    max_response_chars: int = field(default=64000, metadata=between(1, 100_000_000))


@dataclass
class HoverSettings:
    enabled: bool = True
    min_score: float = field(default=0.1, metadata=between(0, 1))
    max_results: int = field(default=3, metadata=between(1, 100))


@dataclass
class PrivacySettings:
    redact_index: bool = True
    """Redact secrets before text is stored and embedded (false: the index keeps them, every answer still masks
    them)."""


Scope = Literal["workspace", "all"]


@dataclass
class Settings:
    memory: MemorySettings = field(default_factory=MemorySettings)
    transcripts: TranscriptSettings = field(default_factory=TranscriptSettings)
    chunking: ChunkingSettings = field(default_factory=ChunkingSettings)
    embedding: EmbeddingSettings = field(default_factory=EmbeddingSettings)
    search: SearchSettings = field(default_factory=SearchSettings)
    reranker: RerankerSettings = field(default_factory=RerankerSettings)
    hover: HoverSettings = field(default_factory=HoverSettings)
    privacy: PrivacySettings = field(default_factory=PrivacySettings)
    scope: Scope = "workspace"
    exclude_sessions: list[str] = field(default_factory=list)
    index_dir: str = ""
    """Where the index lives; empty = a folder per workspace in the user cache dir."""
    follow_external_symlinks: bool = False
    """Index a symlinked file or folder whose target lies outside its workspace or transcript folder."""


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
)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def camel_case(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def wire_name(path: str) -> str:
    """`search.min_score` → `memlens.search.minScore`."""
    return "memlens." + ".".join(camel_case(part) for part in path.split("."))


TRUST_PATHS = frozenset(".".join(_snake(p) for p in key.split(".")) for key in TRUST_SETTINGS)


def _show(value: Any) -> str:
    """A short, safe description of a value from a settings file (never a 4,000-digit repr or a deep recursion)."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return str(value) if abs(value) < 10**18 else f"an integer of {value.bit_length()} bits"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return repr(value) if len(value) <= 60 else repr(value[:57] + "...")
    if isinstance(value, dict):
        return f"an object of {len(value)} keys"
    if isinstance(value, list):
        if all(isinstance(v, str) for v in value) and sum(len(v) + 4 for v in value) <= 80:
            return json.dumps(value)
        return f"a list of {len(value)} items"
    return type(value).__name__


def _bad_glob(pattern: str) -> bool:
    path = PurePosixPath(pattern.replace("\\", "/"))
    return not pattern.strip() or path.is_absolute() or ".." in path.parts or pattern.startswith("~")


def _check_string(value: str, where: str) -> str | None:
    if "\x00" in value:
        return f"{where}: {_show(value)} contains a NUL character"
    if len(value) > MAX_STRING_CHARS:
        return f"{where}: a string of {len(value)} characters is too long (at most {MAX_STRING_CHARS})"
    return None


def _coerce(value: Any, hint: Any, meta: Mapping[str, Any], where: str) -> tuple[Any, str | None]:
    """Check `value` against a field's type hint and metadata: (the value to store, None) or (None, the problem)."""
    origin = get_origin(hint)
    if origin is Literal:
        allowed = get_args(hint)
        if isinstance(value, str) and value in allowed:
            return value, None
        return None, f"{where}: {_show(value)} is not one of {', '.join(map(repr, allowed))}"
    if origin is list:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return None, f"{where}: expected a list of strings, got {_show(value)}"
        for item in value:
            problem = _check_string(item, where)
            if problem:
                return None, problem
            if meta.get("relative_globs") and _bad_glob(item):
                return None, f"{where}: {_show(item)} must be a non-empty glob relative to the workspace folder"
        return list(value), None
    if hint is bool:
        if isinstance(value, bool):
            return value, None
    elif hint is str:
        if isinstance(value, str):
            return value, _check_string(value, where)
    elif hint in (int, float) and isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, float) and not math.isfinite(value):
            return None, f"{where}: {_show(value)} is not a finite number"
        low, high = meta["min"], meta["max"]
        if not low <= value <= high:  # exact for ints of any size: no float conversion before the check
            return None, f"{where}: {_show(value)} is outside {low}..{high}"
        if hint is float:
            return float(value), None
        if isinstance(value, float) and not value.is_integer():
            return None, f"{where}: {_show(value)} is not a whole number"
        return int(value), None
    return None, f"{where}: expected {getattr(hint, '__name__', hint)}, got {_show(value)}"


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
        name = _snake(key) if isinstance(key, str) else ""
        where = f"memlens.{path}{key}"
        if name not in fields:
            layer.warnings.append(f"{where}: unknown setting, ignored")
            continue
        current = getattr(target, name)
        if dataclasses.is_dataclass(current):
            if isinstance(value, dict):
                _apply(current, value, f"{path}{name}.", layer)
            else:
                layer.warnings.append(f"{where}: expected an object, got {_show(value)}; keeping the defaults")
            continue
        dotted = f"{path}{name}"
        if not layer.trusted and dotted in TRUST_PATHS:
            layer.warnings.append(
                f"{wire_name(dotted)}: not applied from {layer.source or 'the workspace settings'}: "
                "the workspace is not trusted"
            )
            continue
        coerced, problem = _coerce(value, hints[name], fields[name].metadata, wire_name(dotted))
        if problem is not None:
            layer.warnings.append(f"{problem}; keeping {_show(current)}")
            continue
        setattr(target, name, coerced)
        layer.changed.add(dotted)


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
        _, problem = _coerce(value, hint, f.metadata, wire_name(path))
        if problem is not None:
            found.append(((path,), problem))
    if found:
        return found  # rules compare values, which must first be of the right type
    for rule in RULES:
        values = [_get(settings, p) for p in rule.fields]
        if not rule.holds(*values):
            names = [f"{wire_name(p)} ({_show(v)})" for p, v in zip(rule.fields, values, strict=True)]
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
            kept = ", ".join(f"{wire_name(p)} = {_show(_get(result, p))}" for p in restore)
            layer.warnings.append(f"{text}; keeping {kept}")
    raise AssertionError("unreachable: the defaults are valid")  # pragma: no cover


def _copy(value: Any) -> Any:
    return list(value) if isinstance(value, list) else value


def _nest(data: dict[Any, Any], warnings: list[str]) -> dict[str, Any]:
    """Accept flat dotted keys (`"search.mode": "keyword"`, as VS Code may send them) beside nested objects."""
    nested: dict[str, Any] = {}
    for key, value in data.items():
        if not isinstance(key, str):
            warnings.append(f"memlens: {_show(key)} is not a setting name, ignored")
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
        warnings.append(f"memlens: settings must be an object, got {_show(data)}; keeping the defaults")
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


def workspace_trusted(init_options: Any) -> bool:
    """Whether the client says the workspace is trusted (`{"workspaceTrusted": false}` in initializationOptions).

    Absent means trusted: an editor without a workspace-trust model (Neovim, Helix, Emacs …) opened this folder
    at the user's request, like the CLI run in it. The VS Code client always sends the flag.
    """
    if not isinstance(init_options, dict) or TRUST_OPTION not in init_options:
        return True
    return init_options[TRUST_OPTION] is True  # anything but true (e.g. "yes") fails closed


def load_workspace_file(folder: Path, warnings: list[str]) -> dict[str, Any]:
    """Read `<folder>/.memlens.json` if present (the same keys as the `memlens.*` settings)."""
    path = folder / WORKSPACE_CONFIG_FILE
    try:
        if not path.is_file():
            return {}
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        warnings.append(f"{path}: cannot read settings ({str(exc)[:200]}); ignored")
        return {}
    if not isinstance(data, dict):
        warnings.append(f"{path}: settings must be a JSON object; ignored")
        return {}
    return data


def to_wire(settings: Settings) -> dict[str, Any]:
    """The settings as camelCase JSON (what `memlens.*` looks like in an editor)."""

    def convert(value: Any) -> Any:
        if dataclasses.is_dataclass(value):
            return {camel_case(f.name): convert(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return value

    wire: dict[str, Any] = convert(settings)
    return wire
