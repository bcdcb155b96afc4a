"""What a watcher's sync of a few files asks the catalog is asked per file, and gives what the whole-index answer
gives: the cwd a session recorded decides whether an agent folder's file belongs to the workspace."""

from __future__ import annotations

import shutil
from pathlib import Path

from memlens.engine.engine import Engine
from memlens.settings import Settings


def test_each_files_recorded_cwd_is_what_the_whole_table_says(transcript_folder: Path, tmp_path: Path) -> None:
    transcripts = tmp_path / "transcripts"
    shutil.copytree(transcript_folder, transcripts)
    settings = Settings()
    settings.transcripts.agent_defaults = False
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with Engine([workspace], settings, extra_transcripts=[transcripts], index_dir=tmp_path / "i", embedder=False) as e:
        e.sync()
        every = e.catalog.session_cwds()
        assert every  # the transcripts record their cwd
        paths = [str(r[0]) for r in e.catalog.db.execute("SELECT path FROM files")]
        assert {p: e.catalog.session_cwd(p) for p in paths if e.catalog.session_cwd(p)} == every
        assert e.catalog.session_cwd(str(tmp_path / "not-indexed.jsonl")) is None
