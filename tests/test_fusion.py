"""Rescue fusion: the weighted sum, except that a hit nearly as close in meaning as the query's closest keeps a high
score. It exists because weighted fusion buried vector-only finds under messages sharing the query's ordinary words
(bench/RESULTS.md, "round 2, third pass: fusion")."""

from __future__ import annotations

import pytest

from memlens.engine.engine import Engine
from memlens.engine.ranking.hits import UnitHit
from memlens.engine.ranking.search import _fuse
from memlens.settings import SearchSettings


def test_rescue_lifts_the_closest_vector_hit_and_only_it() -> None:
    settings = SearchSettings()
    assert settings.fusion == "rescue"
    closest = UnitHit(1, vector=0.5, keyword=0.0)  # the query's best cosine, no keyword match at all
    wordy = UnitHit(2, vector=0.3, keyword=1.0)  # the best BM25, from ordinary words
    farther = UnitHit(3, vector=0.45, keyword=0.0)  # 90 % of the best cosine: 0.9 ** 20 ≈ 0.12 of the rescue
    weighted = {h.unit_id: _fuse(h, "hybrid", "weighted", settings, best_cosine=0.5) for h in (closest, wordy, farther)}
    rescued = {h.unit_id: _fuse(h, "hybrid", "rescue", settings, best_cosine=0.5) for h in (closest, wordy, farther)}
    assert weighted[1] == pytest.approx(0.6 * 0.5) and weighted[2] == pytest.approx(0.6 * 0.3 + 0.4)
    assert weighted[1] < weighted[2]  # buried under the keyword match
    assert rescued[1] == pytest.approx(settings.rescue_weight)  # 0.55 > 0.3
    assert rescued[2] == pytest.approx(weighted[2])  # a keyword hit keeps its weighted score
    assert rescued[3] == pytest.approx(weighted[3])  # 0.55 × 0.9^20 ≈ 0.067 < 0.27: not rescued
    assert _fuse(closest, "vector", "rescue", settings, best_cosine=0.5) == pytest.approx(0.5)  # other modes as before
    assert _fuse(wordy, "keyword", "rescue", settings, best_cosine=0.5) == pytest.approx(1.0)


def test_rescue_ranking_follows_its_formula(example: Engine) -> None:
    """Through the engine: every candidate's fused score is max(weighted, rescueWeight × (cos / best) ^ power)."""
    search = example.settings.search
    ranking = example.rank("messages that failed and were sent again later", fusion="rescue", mode="hybrid", limit=50)
    assert ranking.fusion == "rescue" and ranking.hits
    best = max(h.vector or 0.0 for h in ranking.hits)
    lifted = 0
    for hit in ranking.hits:
        cosine = max(0.0, hit.vector or 0.0)
        weighted = min(
            1.0,
            (search.vector_weight * cosine + search.text_weight * hit.keyword)
            / (search.vector_weight + search.text_weight),
        )
        floor = search.rescue_weight * (cosine / best) ** search.rescue_power
        assert hit.fused == pytest.approx(max(weighted, floor), abs=1e-6), hit
        lifted += floor > weighted
    assert lifted >= 1, "no hit was lifted by the rescue"
    plain = example.rank("messages that failed and were sent again later", fusion="weighted", mode="hybrid", limit=50)
    assert [h.fused for h in plain.hits] != [h.fused for h in ranking.hits]
