"""The hover and reconcile benchmarks run end to end on tiny corpora, so they never rot."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench import hover, reconcile  # noqa: E402


def test_hover_benchmark_on_a_tiny_corpus(tmp_path: Path) -> None:
    report = hover.main(["--chunks", "120", "--hovers", "6", "--work-dir", str(tmp_path), "--json"])
    assert report["totalChunks"] > 50
    for key in ("firstHoverMs", "repeatedHoverMs"):
        assert report[key]["n"] == 6
        assert 0 < report[key]["p50"] <= report[key]["p95"] <= report[key]["max"]
    assert 0 < report["hoversWithContent"] <= 6


def test_reconcile_benchmark_on_a_tiny_corpus() -> None:
    report = reconcile.main(["--chunks", "200", "--runs", "2", "--json"])
    assert report["files"] == report["unchanged"] > 3
    assert len(report["reconcileS"]) == 2 and report["totalP50S"] > 0
