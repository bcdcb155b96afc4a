"""The huge-transcript stop benchmark's session (bench/big_transcript_stop.py) is what it says: one Claude Code
session of about the size asked, every line a message of it, so the figures it gives are of a real parse."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.big_transcript_stop import make_transcript  # noqa: E402

from memlens.engine.sources import parse_file  # noqa: E402


def test_the_benchmarks_session_is_one_session_of_the_size_asked(tmp_path: Path) -> None:
    path = tmp_path / "claude" / "0b7f6a52-0c1d-4e2f-9a8b-7c6d5e4f3a21.jsonl"
    path.parent.mkdir()
    lines = make_transcript(path, 0.2)
    assert 200_000 <= path.stat().st_size < 210_000
    parsed = parse_file(path)
    assert parsed is not None and parsed.format == "claude-code" and not parsed.bad_lines
    assert len(parsed.records) == lines and parsed.cwd == "/work/big"
    assert {r.role for r in parsed.records} == {"user", "assistant"}
