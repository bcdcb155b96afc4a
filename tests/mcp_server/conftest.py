"""Fixtures for the MCP tests: indexes built by the real CLI, of the example workspace and the shared transcripts."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mcp_server.helpers import EXAMPLE_WORKSPACE, SHARED_TRANSCRIPTS, memlens


@pytest.fixture()
def example_copy(tmp_path: Path) -> tuple[Path, Path]:
    """A writable copy of the example workspace and an index of it built by `memlens index` (keyword only)."""
    workspace = tmp_path / "workspace"
    shutil.copytree(EXAMPLE_WORKSPACE, workspace)
    index_dir = tmp_path / "index"
    memlens("index", "--workspace", workspace, "--index-dir", index_dir, "--no-embeddings")
    return workspace, index_dir


@pytest.fixture()
def shared_index(tmp_path: Path) -> tuple[list[str], Path]:
    """Location flags and an index of the shared real transcripts; skips when ../shared is absent."""
    if not SHARED_TRANSCRIPTS.is_dir():
        pytest.skip(f"shared real transcripts not found at {SHARED_TRANSCRIPTS}")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    index_dir = tmp_path / "index"
    flags = ["--workspace", str(workspace), "--transcripts", str(SHARED_TRANSCRIPTS), "--index-dir", str(index_dir)]
    memlens("index", *flags, "--no-embeddings")
    return flags, index_dir
