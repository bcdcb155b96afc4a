"""The vector-mode gate must not depend on the cosine's scale: MiniLM's cosines run lower on long coding-agent
messages than on LoCoMo's chat turns, and a gate on absolute cosines (fitted on LoCoMo) silenced most right answers on
real transcripts (bench/RESULTS.md, "round 2, third pass: fusion")."""

from __future__ import annotations

import pytest

from memlens.engine.ranking.calibration import DERIVED, FEATURES, expand, probability


def features(cosine: float, best: float, coverage: float) -> tuple[float, ...]:
    # score, fused, cosine, coverage, best_coverage, best_cosine, log_rank, bm25_share, matched_share, absent_share
    return (cosine, cosine, cosine, coverage, coverage, best, 0.0, 0.2, coverage, 0.0)


def test_expand_adds_the_relative_cosine() -> None:
    assert len(expand(features(0.3, 0.6, 0.5))) == len(FEATURES) + len(DERIVED)
    assert expand(features(0.3, 0.6, 0.5))[-1] == pytest.approx(0.5)
    assert expand(features(0.3, 0.0, 0.5))[-1] == 0.0


def test_vector_gate_ignores_the_cosine_scale_and_follows_coverage() -> None:
    chat = probability("vector", features(0.62, 0.62, 0.5))  # LoCoMo-like cosines
    code = probability("vector", features(0.31, 0.31, 0.5))  # the same hit with half the cosine
    assert code == pytest.approx(chat)
    assert probability("vector", features(0.31, 0.31, 0.0)) < code  # none of the query's words: less likely
