"""The hover benchmark runs end to end on a tiny corpus (through a real `memlens serve`), so it never rots."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench import hover  # noqa: E402


def test_hover_benchmark_on_a_tiny_corpus(tmp_path: Path) -> None:
    report = hover.main(["--chunks", "120", "--hovers", "6", "--work-dir", str(tmp_path), "--json"])
    assert report["totalChunks"] > 50
    for key in ("firstHoverMs", "repeatedHoverMs"):
        assert report[key]["n"] == 6
        assert 0 < report[key]["p50"] <= report[key]["p95"] <= report[key]["max"]
    assert 0 < report["hoversWithContent"] <= 6
