"""Fixtures for the MCP tests: indexes built by the real CLI, of the example workspace and of transcripts (the shared
real ones when present, else the committed synthetic ones)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
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


REPO = EXAMPLE_WORKSPACE.parents[1]
# the committed synthetic transcripts: every format, and the sessions kept outside that tree (a failed test run and
# the fix that followed it)
SYNTHETIC_TRANSCRIPTS = [REPO / "tests" / "fixtures" / "transcripts", REPO / "tests" / "fixtures" / "extra"]


@dataclass(frozen=True)
class Corpus:
    """An index of transcripts built by `memlens index`, and what a test may expect of it: the real transcripts in
    ../shared when present, else the committed synthetic ones."""

    name: str
    flags: list[str]
    index_dir: Path


@pytest.fixture(params=["real"] if SHARED_TRANSCRIPTS.is_dir() else ["synthetic"])
def transcript_index(request: pytest.FixtureRequest, tmp_path: Path) -> Corpus:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    index_dir = tmp_path / "index"
    folders = [SHARED_TRANSCRIPTS] if request.param == "real" else SYNTHETIC_TRANSCRIPTS
    flags = ["--workspace", str(workspace), "--index-dir", str(index_dir)]
    for folder in folders:
        flags += ["--transcripts", str(folder)]
    memlens("index", *flags, "--no-embeddings")
    return Corpus(request.param, flags, index_dir)
