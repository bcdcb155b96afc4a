"""The Node `vscode-jsonrpc` client (what the VS Code extension is built on) runs initialize, search, hover, exit."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from editors.common import EXAMPLE, PYTHON, REPO, client_env, make_workspace

NODE = shutil.which("node")
SCRIPT = Path(__file__).with_name("node_client.js")


def _jsonrpc_available() -> bool:
    if NODE is None:
        return False
    check = [NODE, "-e", "require('vscode-jsonrpc/node')"]
    return subprocess.run(check, cwd=SCRIPT.parent, capture_output=True, timeout=60).returncode == 0


pytestmark = [
    pytest.mark.slow,  # a real editor
    pytest.mark.skipif(NODE is None, reason="node is not installed"),
    pytest.mark.skipif(not EXAMPLE.is_dir(), reason="the example workspace is missing"),
    pytest.mark.skipif(not _jsonrpc_available(), reason=f"vscode-jsonrpc is not installed: run `npm ci` in {REPO}"),
]


def test_node_jsonrpc_round_trip(tmp_path: Path) -> None:
    workspace, options = make_workspace(tmp_path)
    config = {
        "cmd": [PYTHON, "-m", "memlens", "serve"],
        "workspace": str(workspace),
        "options": options,
        "file": str(workspace / "app.py"),
    }
    config_path = tmp_path / "config.json"
    config_path.write_text(json.dumps(config), encoding="utf-8")
    assert NODE is not None
    run = subprocess.run(
        [NODE, str(SCRIPT), str(config_path)],
        capture_output=True,
        text=True,
        timeout=180,
        env=client_env(tmp_path),
        cwd=SCRIPT.parent,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout)
    assert out["steps"] == ["initialized", "indexed", "search", "hover", "exited"]
    assert out["exitCode"] == 0
    assert {"memlens.search", "memlens.history", "memlens.summaries.grep"} <= set(out["commands"])
    assert out["search"]["results"] and "pgbouncer" in out["search"]["results"][0]["excerpt"].lower()
    assert out["badError"]["code"] == -32602 and "mode must be one of" in out["badError"]["message"]
    value = out["hover"]["contents"]["value"]
    assert "pgbouncer" in value and ("](memlens-transcript:/" in value or "](file://" in value)
    assert out["progress"][:1] == ["begin"] and "end" in out["progress"]
    assert out["statuses"] and any(not s["indexing"] for s in out["statuses"])
