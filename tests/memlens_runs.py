"""`memlens` run as a user runs it, in a process of its own, over a folder of Claude Code transcripts the test wrote:
what the tests of a stopped or interrupted command share."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from claude_lines import claude_line


def write_claude_session(folder: Path, n: int) -> Path:
    """Session `n`: four messages (two prompts, two answers) about "the quokka migration", in a file of its own."""
    session = f"6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a{n:02d}"
    rows = []
    for m in range(4):
        kind = "user" if m % 2 == 0 else "assistant"
        text = f"session {n} message {m}: the quokka migration step {m} for service {n}"
        parent = f"s{n}u{m - 1}" if m else None
        row = claude_line(kind, f"s{n}u{m}", parent, text, session=session, timestamp=f"2026-03-01T1{m}:00:00Z")
        rows.append(json.dumps(row) + "\n")
    path = folder / f"{session}.jsonl"
    path.write_text("".join(rows))
    return path


def claude_folder_flags(tmp_path: Path) -> list[str]:
    """The flags that read `tmp_path/claude` whole into `tmp_path/index`, keyword-only."""
    folder = tmp_path / "claude"
    return ["--transcripts", str(folder), "--index-dir", str(tmp_path / "index"), "--no-embeddings", "--scope", "all"]


def run_memlens(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`memlens ARGS` run to its end, its output captured."""
    return subprocess.run(
        [sys.executable, "-m", "memlens", *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )
