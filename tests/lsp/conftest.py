"""Fixtures for the language-server tests: one example workspace indexed once, an index copy per server."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from lsp.helpers import (
    EXAMPLE,
    SHARED_PICK,
    SHARED_TRANSCRIPTS,
    SYNTHETIC_PICK,
    SYNTHETIC_TRANSCRIPTS,
    Prebuilt,
    base_options,
)


@pytest.fixture(scope="session")
def lsp_prebuilt(tmp_path_factory: pytest.TempPathFactory) -> Prebuilt:
    """The example workspace and a few more transcripts (real ones from ../shared, else committed synthetic ones) in
    its `shared` folder, indexed with embeddings."""
    if not EXAMPLE.is_dir():
        pytest.skip(f"the example workspace is missing at {EXAMPLE}")
    root = tmp_path_factory.mktemp("lsp-prebuilt")
    workspace = root / "workspace"
    shutil.copytree(EXAMPLE, workspace)
    has_shared = SHARED_TRANSCRIPTS.is_dir()
    origin, picks = (SHARED_TRANSCRIPTS, SHARED_PICK) if has_shared else (SYNTHETIC_TRANSCRIPTS, SYNTHETIC_PICK)
    for pattern in picks:
        for source in origin.glob(pattern):
            target = workspace / "shared" / source.relative_to(origin)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
    index = root / "indexes" / "base"
    options = base_options(workspace, index, has_shared)
    settings_file = root / "settings.json"
    settings_file.write_text(json.dumps({k: v for k, v in options.items() if k != "indexDir"}))
    command = [sys.executable, "-m", "memlens", "index", "--workspace", str(workspace), "--index-dir", str(index)]
    subprocess.run([*command, "--settings", str(settings_file)], check=True, capture_output=True, timeout=600)
    return Prebuilt(root, workspace, index, options, has_shared)
