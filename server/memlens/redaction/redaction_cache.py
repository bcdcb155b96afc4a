"""The detect-secrets patterns, converted for RE2, kept on disk so a command need not import detect-secrets.

Importing the library's plugins imports ``requests`` and ``urllib3``: about 60 ms of CPU that every ``search``,
``stats`` or ``history`` paid before it could redact its first line. The conversion's result depends only on
the installed detect-secrets, on re2 (which patterns it accepts) and on the converting module's own code, so
the cache file is named by a digest of exactly those: the detect-secrets version and the size and modification
time of each of its plugin files, re2's module file, and the converter's source. Any change there gives a new
key, and the patterns are converted afresh from the library. A file that is missing, unreadable, malformed or
holds no pattern is treated as absent, so a broken cache can only cost time, never a detector.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

import platformdirs
import re2

log = logging.getLogger(__name__)

# Bump when the cache file's layout changes.
_FORMAT = 1


def cache_dir() -> Path:
    """Where the converted patterns are kept (the user's cache folder; XDG_CACHE_HOME moves it)."""
    return Path(platformdirs.user_cache_dir("memlens")) / "redaction"


def cache_key(converter_file: str) -> str:
    """A digest of everything the converted patterns depend on; ``converter_file`` is the converting module."""
    parts: list[str] = [f"format {_FORMAT}", hashlib.sha256(Path(converter_file).read_bytes()).hexdigest()]
    spec = importlib.util.find_spec("detect_secrets")  # finds the package without importing it
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    if not locations:
        parts.append("detect-secrets absent")
    for location in locations:
        package = Path(location)
        version = package / "__version__.py"
        parts.append(version.read_text(encoding="utf-8") if version.is_file() else "no version")
        plugins = package / "plugins"
        if plugins.is_dir():
            for entry in sorted(os.scandir(plugins), key=lambda e: e.name):
                if entry.name.endswith(".py"):
                    stat = entry.stat()
                    parts.append(f"{entry.name} {stat.st_size} {stat.st_mtime_ns}")
    re2_file = getattr(re2, "__file__", None)
    if re2_file:
        stat = os.stat(re2_file)
        parts.append(f"re2 {re2_file} {stat.st_size} {stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:32]


def _path(key: str) -> Path:
    return cache_dir() / f"library-{key}.json"


def load(key: str) -> tuple[list[tuple[str, str]], list[str]] | None:
    """The cached (kind, pattern) pairs and skipped patterns for this key, or None when there is no usable file."""
    try:
        data: Any = json.loads(_path(key).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    patterns, skipped = data.get("patterns"), data.get("skipped")
    if not isinstance(patterns, list) or not patterns or not isinstance(skipped, list):
        return None
    pairs: list[tuple[str, str]] = []
    for item in patterns:
        if not (isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) and x for x in item)):
            return None
        pairs.append((item[0], item[1]))
    if not all(isinstance(x, str) for x in skipped):
        return None
    return pairs, list(skipped)


def store(key: str, patterns: list[tuple[str, str]], skipped: list[str]) -> None:
    """Write the cache file atomically; a failure to write only means the next command converts again."""
    path = _path(key)
    payload = json.dumps({"key": key, "patterns": [list(p) for p in patterns], "skipped": skipped})
    temporary: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.stem, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(payload)
        os.replace(temporary, path)
    except OSError as exc:
        log.debug("redaction pattern cache not written to %s: %s", path, exc)
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
