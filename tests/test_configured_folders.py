"""A transcript folder the settings name (`transcripts.paths`) that is not there is said when the engine opens; the
folders memlens looks in by default (an agent's, a workspace's `.specstory/history`) stay quiet when absent."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from memlens.engine.engine import Engine
from memlens.settings import Settings, merge


def test_a_named_transcript_folder_that_is_not_there_is_said(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    workspace = tmp_path / "ws"
    (workspace / "logs").mkdir(parents=True)
    (tmp_path / "a-file.jsonl").write_text("{}\n", encoding="utf-8")
    named = ["logs", "trasncripts", str(tmp_path / "a-file.jsonl")]  # one folder, a typo, a file
    settings = merge(Settings(), {"transcripts": {"paths": named, "agentDefaults": True}})
    with caplog.at_level(logging.WARNING, logger="memlens"):
        Engine([workspace], settings, index_dir=tmp_path / "index", embedder=False).close()
    said = [r.getMessage() for r in caplog.records if "transcripts.paths" in r.getMessage()]
    assert said == [
        f"memlens.transcripts.paths: {workspace / 'trasncripts'} is not a folder; nothing is read from it",
        f"memlens.transcripts.paths: {tmp_path / 'a-file.jsonl'} is not a folder; nothing is read from it",
    ]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="memlens"):
        Engine([workspace], Settings(), index_dir=tmp_path / "index", embedder=False).close()
    assert not [r for r in caplog.records if "is not a folder" in r.getMessage()]  # the defaults: nothing said
