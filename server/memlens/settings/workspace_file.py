"""A workspace's own settings file (.memlens.json) and whether the client trusts the workspace it sits in."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from memlens.settings.tree import TRUST_OPTION, WORKSPACE_CONFIG_FILE
from memlens.settings.values import cut_shown


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
        data = read_settings_json(path)
    except (OSError, ValueError) as exc:
        warnings.append(f"{path}: cannot read settings ({cut_shown(unreadable_cause(exc), 200)}); ignored")
        return {}
    if not isinstance(data, dict):
        warnings.append(f"{path}: settings must be a JSON object; ignored")
        return {}
    return data


def unreadable_cause(exc: OSError | ValueError) -> str:
    """Why a settings file could not be read, its path left out (the message names it once): `No such file or
    directory`, not Python's `[Errno 2] No such file or directory: '…'`."""
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc)


MAX_SETTINGS_BYTES = 1024 * 1024  # settings take a few hundred bytes: a bigger file is no settings file


def read_settings_json(path: Path) -> Any:
    """The JSON value in a settings file (`.memlens.json`, `--settings FILE`). Raises OSError when it cannot be
    read or is no regular file (a FIFO would block the read for ever, `/dev/zero` never ends), ValueError when it
    is not UTF-8 JSON, over MAX_SETTINGS_BYTES or nested deeper than the JSON reader goes."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # opening a FIFO for reading waits for a writer
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError("not a regular file")
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            data = handle.read(MAX_SETTINGS_BYTES + 1)
    finally:
        os.close(descriptor)
    if len(data) > MAX_SETTINGS_BYTES:
        raise ValueError(f"over {MAX_SETTINGS_BYTES:,} bytes: not a settings file")
    try:
        return json.loads(data.decode("utf-8"))
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
