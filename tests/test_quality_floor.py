"""Ranking-quality floors per mode on one real LoCoMo conversation (../shared/datasets/locomo/30.json).

Each floor sits a few points under the value measured when it was set (bench/locomo.py through the real engine and
the bundled model), and above what the ranking gets once one of its signals is removed: without the neighbour
context (`search.neighborWeight` and `search.contextWeight` 0, or `_add_neighbors` and the context-field BM25
deleted) every mode falls under its floor, and hybrid without BM25 falls to the vector figure. Measured on
conversation 30 (105 questions, 369 turns) after ranking round 2 with English stems and dateBoost 0.3, turn
recall@10, %:

| run | measured | floor | neighbour context off | BM25 off (textWeight 0) |
|---|---|---|---|---|
| keyword | 84.3 | 79 | 71.2 | – |
| vector | 49.1 | 45 | 41.8 | – |
| hybrid (weighted) | 83.0 | 78 | 72.7 | 49.1 |
| hybrid (rrf) | 65.3 | 60 | 56.1 | – |

On this conversation keyword alone edges hybrid at R@10 (84.3 vs 83.0), not at R@5 (74.2 vs 75.4); over the three
tune conversations hybrid leads both (bench/RESULTS.md).

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
FLOORS = {"keyword": 79.0, "vector": 45.0, "hybrid-weighted": 78.0, "hybrid-rrf": 60.0}
ABLATIONS = {
    "noctx": {"search": {"neighborWeight": 0, "contextWeight": 0}},
    "nobm25": {"search": {"textWeight": 0}},
}


def test_recall_floors_and_ablations(embedder: Embedder) -> None:
    """Every mode reaches its floor, and the signals the floors guard still pull their weight (switching one off
    costs points). One test, so that a clone without ../shared skips it once."""
    if not CONVERSATION.is_file():
        pytest.skip(f"LoCoMo conversation not found at {CONVERSATION} (../shared is absent)")
    report = locomo.evaluate([CONVERSATION], runs=tuple(FLOORS), variants=ABLATIONS, embedder=embedder)
    runs = report["runs"]

    def recall(label: str) -> float:
        return float(runs[label]["all"][METRIC])

    assert runs["keyword"]["all"]["questions"] == 105
    under = {run: recall(run) for run in FLOORS if recall(run) < FLOORS[run]}
    assert not under, f"{METRIC} under its floor: {under} (floors {FLOORS})"
    for run in FLOORS:
        assert recall(f"{run} noctx") < recall(run), f"{run}: neighbour context no longer helps"
    assert recall("hybrid-weighted noctx") <= recall("hybrid-weighted") - 2.0
    assert recall("hybrid-weighted nobm25") <= recall("hybrid-weighted") - 10.0  # BM25 carries hybrid
    assert recall("hybrid-weighted") > recall("vector") + 10.0
    assert runs["hybrid-weighted"]["all"]["R@5"] >= runs["keyword"]["all"]["R@5"]
