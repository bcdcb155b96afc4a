"""Keyword-mode abstention: the query-level answerable factor (calibration.ANSWERABLE) silences a question whose
distinctive words are nowhere in the index, while a question the notes do answer, and a one-word exact match, are
answered."""

from __future__ import annotations

from pathlib import Path

from conftest import notes_engine
from memlens.engine.engine import Engine
from memlens.engine.ranking.calibration import answerable

NOTES = {
    "dlq.md": "# DLQ\n\nThe orders DLQ backed up overnight; we added the missing route and redrove the queue.",
    "deploy.md": "# Deploys\n\nWe switched the checkout service to blue-green deploys with a manual rollback step.",
    "team.md": "# Team\n\nWe decided to move the weekly planning meeting to Tuesday mornings.",
}


def _engine(tmp_path: Path) -> Engine:
    return notes_engine(tmp_path, NOTES)


def test_absent_words_lower_the_chance_a_query_is_answerable() -> None:
    # best coverage, absent share, best bm25 share, best matched share, best learned score (none in keyword mode),
    # absent names
    assert answerable("keyword", (1.0, 0.0, 0.8, 1.0, 0.0, 0.0)) > 0.9
    assert answerable("keyword", (0.2, 0.8, 0.1, 0.3, 0.0, 0.0)) < 0.1
    assert answerable("hybrid", (0.2, 0.8, 0.1, 0.3, 0.0, 0.0)) == 1.0  # the rules' hybrid has no query-level factor


def test_keyword_mode_says_nothing_about_an_absent_topic(tmp_path: Path) -> None:
    with _engine(tmp_path) as engine:
        absent = "How did we tune the Kubernetes horizontal pod autoscaler for the checkout pods?"
        assert engine.search(absent, mode="keyword")["results"] == []
        assert engine.search(absent, mode="keyword", min_score=0)["results"]  # the gate, not an empty ranking
        assert engine.search("DLQ", mode="keyword")["results"]
        answered = engine.search("how did we roll back the blue-green deploys?", mode="keyword")["results"]
        assert answered and answered[0]["relPath"] == "memory/deploy.md"
