"""The figures a sync reports (`memlens index`'s line, the editor's progress) count what `memlens stats` then shows:
its "+N messages" counted tool outputs too, 336 for a session of which stats then showed 157, as if half were lost."""

from __future__ import annotations

from pathlib import Path

from memlens.engine.engine import Engine
from memlens.settings import Settings, merge


def test_a_sync_reports_the_messages_stats_then_counts(tmp_path: Path) -> None:
    transcripts = Path(__file__).parent / "fixtures" / "transcripts"
    settings = merge(Settings(), {"transcripts": {"agentDefaults": False, "paths": [str(transcripts)]}})
    (tmp_path / "ws").mkdir()
    with Engine([tmp_path / "ws"], settings, index_dir=tmp_path / "index", embedder=None) as engine:
        report = engine.sync()
        counted = sum(engine.stats()["messages"].values())
    assert report.messages_added == counted > 0
