"""Calibrated scores: the chance that a hit is what the question asked about.

A logistic model per search mode over a hit's features (see FEATURES), fitted by `python -m bench.calibrate` on the
LoCoMo tune conversations (26, 30, 41): positives are evidence turns, negatives every other turn in the top 50, plus
the same questions asked of another conversation (topics absent from that index: everything they find is wrong).
The held-out conversations (42, 43) and the absent-topic set are never used to fit. The vector model leaves out the
features that carry the cosine's own scale (`--drop`): LoCoMo's chat turns have higher cosines than coding-agent
messages, and a gate on them hid most right answers on real transcripts.

Keyword mode factors the chance in two: that the question is answerable from this index at all (ANSWERABLE, a
logistic model over query-level facts: own-conversation questions against those asked of another conversation),
times that the hit is relevant if it is (fitted on own-conversation hits only). Its hit features alone separate an
absent topic poorly: BM25 normalised by the best hit is 1 for every top hit.
"""

from __future__ import annotations

import math
import operator

FEATURES = (
    "score",  # the ranking score (fused, with neighbour context, boosts and penalties)
    "fused",  # the fused score before neighbour context
    "cosine",  # cosine similarity to the query (0 without vectors)
    "coverage",  # idf-weighted share of the query's words found in the hit's own text
    "best_coverage",  # the best coverage among the top hits (does anything here use the question's rare words?)
    "best_cosine",  # the best cosine among the candidates
    "log_rank",  # log(1 + rank)
    "bm25_share",  # raw BM25 against the most the query's words could give (not against the best hit's)
    "matched_share",  # the share of the query's words (unweighted) found in the hit's own text
    "absent_share",  # the idf-weighted share of the query's words found in no document at all
)

# computed here from FEATURES (rescoring.py computes those): signals whose scale does not depend on the corpus, which
# transfer from LoCoMo's short chat turns to long coding-agent messages, whose cosines run lower throughout
DERIVED = (
    "relative_cosine",  # cosine / best_cosine: how close the hit is to the query's closest candidate
)

QUERY_FEATURES = (
    "best_coverage",  # the best coverage among the top hits
    "absent_share",  # the idf-weighted share of the query's words found in no document
    "best_bm25_share",  # the best bm25_share among the top ten
    "best_matched_share",  # the best matched_share among the top ten
    "best_learned",  # the learned ranker's best score in the head (0 when it did not rank)
    "absent_named",  # the idf-weighted share of the query's words that are written as names and in no document
)

# the calibration key of a hybrid search the learned ranker ordered: its own models, fitted on its own hits
LEARNED_HYBRID = "hybrid-learned"

# fitted by bench/calibrate.py (mode → intercept, then one weight per feature)
COEFFICIENTS: dict[str, tuple[float, ...]] = {
    "hybrid": (-7.5575, 7.9456, -4.0712, 1.0787, 1.2549, -1.23, 1.5742, -0.8963, 0.0, 2.5979, -0.9979, 0.0),
    "keyword": (-6.4299, 6.5711, -2.0331, 0.0, 1.5836, -1.3584, 0.0, -0.7513, 0.0, 1.9863, -0.2468, 0.0),
    # the learned ranker's hybrid: fitted on its own hits of the LoCoMo tune conversations and the transcript tune
    # questions (own hits only: its query-level model below says whether a query is answerable at all)
    LEARNED_HYBRID: (-4.3166, 1.5958, 1.1419, -4.9948, 1.8809, -0.9824, 1.638, -1.1214, 0.0, 0.4041, 0.0059, 3.5468),
    # vector: fitted without the cosine's own scale (score, fused, cosine, best_cosine: --drop), which is LoCoMo's and
    # not a coding transcript's, so it rests on relative_cosine, coverage and rank
    "vector": (-2.2112, 0.0, 0.0, 0.0, 2.7699, -1.8489, 0.0, -0.7615, 0.0, 3.8091, -1.5862, -1.2655),
}


# mode → intercept, then one weight per QUERY_FEATURES entry; a mode without an entry counts every query answerable
ANSWERABLE: dict[str, tuple[float, ...]] = {
    # fitted without best_learned and absent_named (weights 0; `--modes keyword` fits it with them)
    "keyword": (-3.8555, -8.2896, -5.3838, 11.2064, 15.5334, 0.0, 0.0),
    # answerable: the LoCoMo and transcript tune questions; not: LoCoMo's asked of another conversation and the
    # absent-topic tune questions (bench/data/absent_questions.json)
    LEARNED_HYBRID: (-4.6788, -2.1703, -5.0898, -8.1199, 11.8553, 2.6859, -9.0064),
}


def probability(mode: str, features: tuple[float, ...], answerable: float = 1.0) -> float:
    """The chance a hit is relevant: its own model's, times the chance the query is answerable here at all."""
    return answerable * _logistic(COEFFICIENTS.get(mode, COEFFICIENTS["hybrid"]), expand(features))


def expand(features: tuple[float, ...]) -> tuple[float, ...]:
    """FEATURES followed by the DERIVED ones."""
    cosine, best_cosine = features[2], features[5]
    return (*features, cosine / best_cosine if best_cosine > 0 else 0.0)


def answerable(mode: str, query_features: tuple[float, ...]) -> float:
    """The chance that anything in the index answers the query (1 for modes without a query-level model)."""
    weights = ANSWERABLE.get(mode)
    return _logistic(weights, query_features) if weights is not None else 1.0


def _logistic(weights: tuple[float, ...], features: tuple[float, ...]) -> float:
    if len(features) != len(weights) - 1:
        raise ValueError(f"{len(weights) - 1} features expected, not {len(features)}")
    z = weights[0] + sum(map(operator.mul, weights[1:], features))  # map: a generator cost more (100 hits a query)
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)
