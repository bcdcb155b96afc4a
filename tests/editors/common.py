"""Shared setup for the editor-client tests: a copy of the example workspace and keyword-only server options."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "workspace"
PYTHON = sys.executable
# the same source line in both clients: hover at (line 1, character 8) lands on "pgbouncer"
SOURCE = "def configure_pool():\n    # pgbouncer sits between the lambdas and postgres\n    return None\n"


def make_workspace(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """A private copy of the example workspace and initializationOptions (keyword search: no model to load)."""
    workspace = tmp_path / "workspace"
    shutil.copytree(EXAMPLE, workspace)
    (workspace / "app.py").write_text(SOURCE, encoding="utf-8")
    options = {
        "indexDir": str(tmp_path / "index"),
        "embedding": {"enabled": False},
        "transcripts": {"paths": ["transcripts", ".specstory/history"], "agentDefaults": False},
    }
    return workspace, options


def client_env(tmp_path: Path) -> dict[str, str]:
    """The environment for an editor process: its state and logs go under `tmp_path`, never the user's folders."""
    env = dict(os.environ)
    for name in ("XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        env[name] = str(tmp_path / name.lower())
    return env
