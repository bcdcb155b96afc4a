"""What a sync says about a file (`memlens index`'s "problem:" lines, the log's warnings) names it by its path, and a
path can hold a secret (a SpecStory export is named after its first prompt): those lines pass the detector too."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from planted_secrets import NAMED, leaked
from planted_secrets import Planted as PlantedSecret


def test_skipped_lines_mask_a_secret_in_the_file_name(tmp_path: Path) -> None:
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    named = [PlantedSecret(item.kind, item.secret, item.file_stem, "heading") for item in NAMED]
    for item in NAMED:
        # a Claude Code transcript with one good line and one broken one: the broken line is reported by path
        good = '{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-03-02T09:00:00Z",'
        good += '"message":{"role":"user","content":"hello there"}}'
        (transcripts / f"{item.file_stem}.jsonl").write_text(f"{good}\n{{not json\n", encoding="utf-8")
    env = {**os.environ, "HOME": str(tmp_path / "home")}
    command = [sys.executable, "-m", "memlens", "-v", "index", "--workspace", str(tmp_path), "--transcripts"]
    command += [str(transcripts), "--index-dir", str(tmp_path / "index"), "--no-embeddings"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env, check=False)
    assert result.returncode == 0, result.stderr
    said = result.stdout + result.stderr
    assert "not JSON" in said or "skipped" in said, said  # the broken lines were reported
    assert "[REDACTED" in said
    assert leaked(said, named) == []
