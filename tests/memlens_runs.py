"""`memlens` run as a user runs it, in a process of its own, over a folder of Claude Code transcripts the test wrote:
what the tests of a stopped or interrupted command share."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def claude_folder_flags(tmp_path: Path) -> list[str]:
    """The flags that read `tmp_path/claude` whole into `tmp_path/index`, keyword-only."""
    folder = tmp_path / "claude"
    return ["--transcripts", str(folder), "--index-dir", str(tmp_path / "index"), "--no-embeddings", "--scope", "all"]


def run_memlens(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`memlens ARGS` run to its end, its output captured."""
    return subprocess.run(
        [sys.executable, "-m", "memlens", *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )
