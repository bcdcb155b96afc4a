"""Ranking-quality floors per mode on one real LoCoMo conversation (../shared/datasets/locomo/30.json).

Each floor sits a few points under the value measured when it was set (bench/locomo.py through the real engine and
the bundled model), and above what the ranking gets once one of its signals is removed: without the neighbour
context (`search.neighborWeight` 0 or `_add_neighbors` deleted) every mode falls under its floor, and hybrid without
BM25 falls to the vector figure. Measured on conversation 30 (105 questions, 369 turns), turn recall@10, %:

| run | measured | floor | neighbour context off | BM25 off (textWeight 0) |
|---|---|---|---|---|
| keyword | 67.5 | 63 | 59.5 | – |
| vector | 49.1 | 45 | 41.8 | – |
| hybrid (weighted) | 71.0 | 66 | 63.1 | 49.1 |
| hybrid (rrf) | 60.4 | 56 | 53.1 | – |

A ranking change that moves a figure a lot either way should update this table (bench/RESULTS.md has the rest).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from memlens.engine.embedder import Embedder

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench import locomo  # noqa: E402

CONVERSATION = REPO.parent / "shared" / "datasets" / "locomo" / "30.json"
METRIC = "R@10"
FLOORS = {"keyword": 63.0, "vector": 45.0, "hybrid-weighted": 66.0, "hybrid-rrf": 56.0}
ABLATIONS = {"noctx": {"search": {"neighborWeight": 0}}, "nobm25": {"search": {"textWeight": 0}}}


@pytest.fixture(scope="module")
def report(embedder: Embedder) -> dict:
    if not CONVERSATION.is_file():
        pytest.skip(f"LoCoMo conversation not found at {CONVERSATION} (../shared is absent)")
    return locomo.evaluate([CONVERSATION], runs=tuple(FLOORS), variants=ABLATIONS, embedder=embedder)


@pytest.mark.parametrize("run", list(FLOORS))
def test_recall_floor(report: dict, run: str) -> None:
    summary = report["runs"][run]["all"]
    assert summary["questions"] == 105
    assert summary[METRIC] >= FLOORS[run], f"{run}: {METRIC} {summary[METRIC]} under its floor {FLOORS[run]}"


def test_each_signal_pulls_its_weight(report: dict) -> None:
    """The floors only mean something while the signals they guard still matter: switching one off costs points."""
    runs = report["runs"]

    def recall(label: str) -> float:
        return float(runs[label]["all"][METRIC])

    for run in FLOORS:
        assert recall(f"{run} noctx") < recall(run), f"{run}: neighbour context no longer helps"
    assert recall("hybrid-weighted noctx") <= recall("hybrid-weighted") - 2.0
    assert recall("hybrid-weighted nobm25") <= recall("hybrid-weighted") - 10.0  # BM25 carries hybrid
    assert recall("hybrid-weighted") > recall("vector") + 10.0 and recall("hybrid-weighted") >= recall("keyword")
