"""A workspace's own settings file (.memlens.json) and whether the client trusts the workspace it sits in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memlens.settings.tree import TRUST_OPTION, WORKSPACE_CONFIG_FILE


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
