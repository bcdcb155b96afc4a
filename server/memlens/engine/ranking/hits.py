"""What a ranking is made of: one unit's scores (`UnitHit`) and a query's ranked hits (`Ranking`).

Their own module so the retriever (search.py), the re-scoring (rescoring.py), the cross-encoder and the result
builder share them without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class UnitHit:
    """One unit's scores: raw BM25, BM25 normalised to 0–1, cosine, and the fused score."""

    unit_id: int
    score: float = 0.0
    fused: float = 0.0  # the score before the neighbouring messages' context was added
    bm25: float = 0.0
    keyword: float = 0.0
    vector: float | None = None
    cosine_stood_in: bool = False  # `vector` is not the unit's own cosine (it has no vector yet): search.py
    keyword_rank: int | None = None
    vector_rank: int | None = None
    context: float = 0.0  # BM25 over the message with its neighbours (the `context` field), 0–1
    rank_score: float = 0.0  # the ranking score (what orders the hits and what `score` shows)
    probability: float = 0.0  # calibrated: the chance this hit is relevant (calibration.py)
    features: tuple[float, ...] = ()
    ranker_features: tuple[float, ...] = ()  # the learned ranker's row (learned_order.py FEATURES)
    learned: float = 0.0  # the learned ranker's score of that row (a raw margin: only its order means something)
    lift: float = 0.0  # what ordering-only boosts (search.replyBoost) added to `score`: calibration leaves it out


@dataclass(slots=True)
class Ranking:
    hits: list[UnitHit]
    mode: str
    fusion: str
    vector_available: bool
    query_terms: list[str] = field(default_factory=list)
    seconds: float = 0.0
    calibrated: bool = False  # whether to answer is decided on the hits' calibrated probability
    names_a_topic: bool = True  # False: the query held only stop words or lone letters, and nothing was searched
