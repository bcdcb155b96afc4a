"""Where memlens keeps the model files it makes once for every index (the bundled model gathered from its packages,
its int8 copy, fastembed's downloads): the user's cache folder, whichever index is open. An index given by
`--index-dir` or `memlens.indexDir` lives anywhere, so a folder found from the index's own place could land at the
file system's root (`/models` beside `--index-dir /tmp/x`) or where the user may not write, and cost each index its
own 70 MB copy."""

from __future__ import annotations

from pathlib import Path

import platformdirs


def model_cache_dir() -> Path:
    """The model cache: `<user cache>/memlens/models` (XDG_CACHE_HOME moves it on Linux)."""
    return Path(platformdirs.user_cache_dir("memlens")) / "models"
