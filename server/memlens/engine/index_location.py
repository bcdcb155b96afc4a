"""Where an index lives: the one rule the engine opens by and the CLI finds a running server by, importable without
the engine (a CLI call that a running server answers should not pay for tantivy, SQLite and numpy)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

import platformdirs

from memlens.engine.file_names import stored_path
from memlens.errors import IndexUnavailable


def default_index_dir(workspaces: list[Path]) -> Path:
    """A folder in the user's cache, named after the first workspace and keyed by all of them."""
    key = "\n".join(sorted(str(w) for w in workspaces))
    digest = hashlib.sha1(key.encode("utf-8", "surrogateescape")).hexdigest()[:12]  # a name is bytes
    name = workspaces[0].name if workspaces else "default"
    name = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")  # tantivy opens UTF-8 paths only
    return Path(platformdirs.user_cache_dir("memlens")) / "indexes" / f"{name}-{digest}"


def resolve_workspaces(workspaces: Iterable[Path]) -> list[Path]:
    return [Path(w).expanduser().resolve() for w in workspaces]


def index_dir_for(*, workspaces: list[Path], configured: str | None, explicit: Path | None) -> Path:
    """The index folder: `explicit` (--index-dir), else the `indexDir` setting, else the default for the (resolved)
    workspaces."""
    chosen = explicit or (Path(configured).expanduser() if configured else None)
    folder = (chosen or default_index_dir(workspaces)).resolve()
    try:
        str(folder).encode("utf-8")
    except UnicodeEncodeError:
        raise IndexUnavailable(
            f"the index folder {stored_path(folder)} has bytes in its path that are not UTF-8, which the keyword "
            "index cannot open: choose another with --index-dir or memlens.indexDir"
        ) from None
    return folder
