"""One typed settings tree with defaults, read from LSP options, the workspace's .memlens.json and CLI flags.

Keys are camelCase on the wire (as VS Code's `memlens.*` settings) and snake_case in Python. Unknown keys and
values of the wrong type produce warnings and keep the default: a bad setting never stops the server.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args, get_origin, get_type_hints

DEFAULT_MEMORY_GLOBS = ["MEMORY.md", "USER.md", "IDENTITY.md", "memory/**/*.md", "bank/**/*.md"]
WORKSPACE_CONFIG_FILE = ".memlens.json"


@dataclass
class MemorySettings:
    include: list[str] = field(default_factory=lambda: list(DEFAULT_MEMORY_GLOBS))
    """Memory file globs, relative to each workspace folder."""
    extra_include: list[str] = field(default_factory=list)
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
    markdown_min_chars: int = 100
    markdown_max_chars: int = 800
    gap_seconds: float = 300.0
    max_messages: int = 8
    max_chars: int = 16000
    tool_input_max_chars: int = 500


@dataclass
class EmbeddingSettings:
    enabled: bool = True
    model: str = ""
    """A fastembed model name; empty = the bundled all-MiniLM-L6-v2 int8."""
    model_path: str = ""
    """A local folder holding a fastembed-loadable ONNX model (used with `model`, or alone for MiniLM-shaped models)."""
    batch_size: int = 32
    max_tokens: int = 256
    """Word pieces the model reads per text (longer texts are truncated; cost grows with the square)."""
    threads: int = 0
    """ONNX Runtime intra-op threads; 0 = all cores."""


Mode = Literal["hybrid", "keyword", "vector"]
Fusion = Literal["weighted", "rrf"]


@dataclass
class SearchSettings:
    mode: Mode = "hybrid"
    fusion: Fusion = "weighted"
    vector_weight: float = 0.7
    text_weight: float = 0.3
    min_score: float = 0.3
    max_results: int = 10
    rrf_k: int = 60
    candidates: int = 200
    """How many hits each retriever hands to fusion."""
    neighbor_weight: float = 0.8
    """A transcript message gains this share of its best-scoring neighbour's score (0 = off); see bench/RESULTS.md."""
    neighbor_window: int = 2
    """How many messages either side, in the same session, count as neighbours."""
    excerpt_chars: int = 320
    max_response_chars: int = 64000


@dataclass
class HoverSettings:
    enabled: bool = True
    min_score: float = 0.55
    max_results: int = 3


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
    hover: HoverSettings = field(default_factory=HoverSettings)
    privacy: PrivacySettings = field(default_factory=PrivacySettings)
    scope: Scope = "workspace"
    exclude_sessions: list[str] = field(default_factory=list)
    index_dir: str = ""
    """Where the index lives; empty = a folder per workspace in the user cache dir."""


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _coerce(value: Any, hint: Any, where: str, warnings: list[str]) -> tuple[bool, Any]:
    """Check `value` against a type hint; return (ok, value) with ints accepted for floats."""
    origin = get_origin(hint)
    if origin is Literal:
        allowed = get_args(hint)
        if value in allowed:
            return True, value
        warnings.append(f"{where}: {value!r} is not one of {', '.join(map(repr, allowed))}; using the default")
        return False, None
    if origin is list:
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return True, list(value)
        warnings.append(f"{where}: expected a list of strings; using the default")
        return False, None
    if hint is bool:
        if isinstance(value, bool):
            return True, value
    elif hint is int:
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return True, value
    elif hint is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
            return True, float(value)
    elif hint is str and isinstance(value, str):
        return True, value
    warnings.append(f"{where}: expected {getattr(hint, '__name__', hint)}, got {value!r}; using the default")
    return False, None


def _apply(target: Any, data: dict[str, Any], prefix: str, warnings: list[str]) -> None:
    hints = get_type_hints(type(target))
    fields = {f.name for f in dataclasses.fields(target)}
    for key, value in data.items():
        name = _snake(key)
        where = f"{prefix}{key}"
        if name not in fields:
            warnings.append(f"{where}: unknown setting, ignored")
            continue
        hint = hints[name]
        current = getattr(target, name)
        if dataclasses.is_dataclass(current):
            if isinstance(value, dict):
                _apply(current, value, where + ".", warnings)
            else:
                warnings.append(f"{where}: expected an object; using the defaults")
            continue
        ok, coerced = _coerce(value, hint, where, warnings)
        if ok:
            setattr(target, name, coerced)


def _validate(settings: Settings, warnings: list[str]) -> None:
    """Cross-field checks that types alone cannot express."""
    s = settings.search
    if not 0.0 <= s.min_score <= 1.0:
        warnings.append(f"memlens.search.minScore: {s.min_score} is outside 0..1; using 0.3")
        s.min_score = 0.3
    if s.max_results < 1:
        warnings.append("memlens.search.maxResults: must be at least 1; using 10")
        s.max_results = 10
    c = settings.chunking
    if c.markdown_max_chars < 1 or c.max_messages < 1 or c.max_chars < 1:
        warnings.append("memlens.chunking: sizes must be at least 1; using the defaults")
        settings.chunking = ChunkingSettings()


def merge(base: Settings, data: dict[str, Any] | None, warnings: list[str] | None = None) -> Settings:
    """Return a copy of `base` with the camelCase (or snake_case) values in `data` applied.

    `data` may be the `memlens` section itself or a whole settings object holding a `memlens` key.
    Flat dotted keys (`"search.mode": "keyword"`, as VS Code may send them) are accepted too.
    """
    warnings = warnings if warnings is not None else []
    result = dataclasses.replace(base)
    for f in dataclasses.fields(result):  # deep-copy the nested groups
        value = getattr(result, f.name)
        if dataclasses.is_dataclass(value):
            setattr(result, f.name, dataclasses.replace(value))  # type: ignore[type-var]
        elif isinstance(value, list):
            setattr(result, f.name, list(value))
    if not data:
        return result
    if not isinstance(data, dict):
        warnings.append("memlens: settings must be an object; using the defaults")
        return result
    if isinstance(data.get("memlens"), dict):
        data = data["memlens"]
    nested: dict[str, Any] = {}
    for key, value in data.items():
        parts = key.removeprefix("memlens.").split(".")
        node = nested
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                break
        else:
            node[parts[-1]] = value
    # client-only settings live under the same prefix; they are not the server's concern
    for client_only in ("server", "trace"):
        nested.pop(client_only, None)
    _apply(result, nested, "memlens.", warnings)
    _validate(result, warnings)
    return result


def load_workspace_file(folder: Path, warnings: list[str]) -> dict[str, Any]:
    """Read `<folder>/.memlens.json` if present (the same keys as the `memlens.*` settings)."""
    path = folder / WORKSPACE_CONFIG_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        warnings.append(f"{path}: cannot read settings ({exc}); ignored")
        return {}
    if not isinstance(data, dict):
        warnings.append(f"{path}: settings must be a JSON object; ignored")
        return {}
    return data


def to_wire(settings: Settings) -> dict[str, Any]:
    """The settings as camelCase JSON (what `memlens.*` looks like in an editor)."""

    def convert(value: Any) -> Any:
        if dataclasses.is_dataclass(value):
            return {_camel(f.name): convert(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return value

    return convert(settings)
