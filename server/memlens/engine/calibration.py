"""Calibrated scores: the chance that a hit is what the question asked about.

A logistic model per search mode over a hit's features (see FEATURES), fitted by `python -m bench.calibrate` on the
LoCoMo tune conversations (26, 30, 41): positives are evidence turns, negatives every other turn in the top 50, plus
the same questions asked of another conversation (topics absent from that index: everything they find is wrong).
The held-out conversations (42, 43) and the absent-topic set are never used to fit.
"""

from __future__ import annotations

import math

FEATURES = (
    "score",  # the ranking score (fused, with neighbour context, boosts and penalties)
    "fused",  # the fused score before neighbour context
    "cosine",  # cosine similarity to the query (0 without vectors)
    "coverage",  # idf-weighted share of the query's words found in the hit's own text
    "best_coverage",  # the best coverage among the top hits (does anything here use the question's rare words?)
    "best_cosine",  # the best cosine among the candidates
    "log_rank",  # log(1 + rank)
)

# fitted by bench/calibrate.py (mode → intercept, then one weight per feature); see bench/RESULTS.md
COEFFICIENTS: dict[str, tuple[float, ...]] = {
    "hybrid": (-7.9092, 6.9594, -4.2086, 2.9955, 2.6857, -0.299, 2.3209, -0.9518),
    "keyword": (-5.8891, 3.66, -1.0115, 0.0, 2.7044, 1.3366, 0.0, -0.858),
    "vector": (-8.811, 12.8452, -2.6325, -2.6325, 5.4936, -1.3185, -1.2606, -0.4786),
}


def probability(mode: str, features: tuple[float, ...]) -> float:
    weights = COEFFICIENTS.get(mode, COEFFICIENTS["hybrid"])
    z = weights[0] + sum(w * x for w, x in zip(weights[1:], features, strict=True))
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)
