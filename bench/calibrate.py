"""Fit the calibrated score (memlens/engine/ranking/calibration.py) on the LoCoMo tune conversations only.

For every tune question, the top 50 hits of its own conversation's index give positives (evidence turns) and
negatives (the rest); the same question asked of the next tune conversation's index gives hits for a topic that is
absent there (all negatives). A logistic model per mode is fitted to the hits' features by Newton's method with a
small L2 penalty and printed as the COEFFICIENTS literal to paste into calibration.py. For the modes in
--answerable-modes (keyword), the hit model is fitted on own-conversation hits only and a query-level model
(QUERY_FEATURES: own-conversation questions against those asked of another conversation) is printed as ANSWERABLE.

    python -m bench.calibrate [--set search.contextWeight=0.3 ...]
    python -m bench.calibrate --modes vector --drop score,fused,cosine,best_cosine  # the vector model
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import load_shared_embedder
from bench.locomo import (
    DEFAULT_CACHE,
    DEFAULT_DATA,
    BuiltIndex,
    bench_settings,
    build_index,
    cache_key,
    last_message_time,
    parse_overrides,
)
from bench.locomo_data import Conversation, load_conversation
from memlens.engine.ranking.calibration import DERIVED, FEATURES, QUERY_FEATURES, expand

TUNE = ("26", "30", "41")
# query-level only: as a hit feature it learns "a hit matching the question well is wrong" (LoCoMo's short turns that
# repeat the question's words), which silenced one-word queries such as "DLQ" that match exactly
HIT_EXCLUDED = ("bm25_share",)
DEPTH = 50


def query_features(hit_features: list[tuple[float, ...]]) -> tuple[float, ...]:
    """A question's QUERY_FEATURES from its top ten hits' features, as rescoring.calibrate computes them."""
    top = hit_features[:10]
    return (top[0][4], top[0][9], max(f[7] for f in top), max(f[8] for f in top))


def collect(
    question_set: Conversation, index: BuiltIndex, mode: str, own: bool
) -> tuple[list[tuple[float, ...]], list[int], list[int], list[tuple[float, ...]]]:
    """Features, labels and question numbers of the top hits for every question of `question_set` in `index`, and
    each question's query-level features."""
    features: list[tuple[float, ...]] = []
    labels: list[int] = []
    groups: list[int] = []
    queries: list[tuple[float, ...]] = []
    index.engine.retriever.now = last_message_time(index) + 86400.0
    for number, question in enumerate(question_set.questions):
        ranking = index.engine.rank(question.text, mode=mode, limit=DEPTH)
        for hit in ranking.hits[:DEPTH]:
            if not hit.features:
                continue
            features.append(hit.features)
            labels.append(int(own and index.turn_of.get(hit.unit_id) in question.evidence))
            groups.append(number if own else -1 - number)
        ranked = [hit.features for hit in ranking.hits[:10] if hit.features]
        if ranked:
            queries.append(query_features(ranked))
    return features, labels, groups, queries


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-2, steps: int = 50) -> np.ndarray:
    """Logistic regression (intercept first) by Newton's method."""
    design = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(design.shape[1])
    penalty = l2 * np.eye(design.shape[1])
    penalty[0, 0] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(design @ w)))
        gradient = design.T @ (p - y) + penalty @ w
        hessian = (design * (p * (1 - p))[:, None]).T @ design + penalty
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--modes", default="hybrid,keyword,vector")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--drop", default="", help="comma-separated hit features left out of the fit")
    parser.add_argument("--answerable-modes", default="keyword", help="modes with a query-level answerable model")
    args = parser.parse_args(argv)
    overrides = {**parse_overrides(args.set), "search.calibrated": False}
    settings = bench_settings(overrides)
    embedder = load_shared_embedder(settings)
    paths = [DEFAULT_DATA / f"{name}.json" for name in TUNE]
    conversations = [load_conversation(p) for p in paths]
    indexes = [
        build_index(c, args.cache_dir / cache_key(p, settings, True, None, None), settings, embedder)
        for c, p in zip(conversations, paths, strict=True)
    ]
    coefficients: dict[str, list[float]] = {}
    answerable: dict[str, list[float]] = {}
    factored = {m.strip() for m in args.answerable_modes.split(",") if m.strip()}
    try:
        for mode in [m.strip() for m in args.modes.split(",") if m.strip()]:
            xs: list[tuple[float, ...]] = []
            ys: list[int] = []
            qs: list[tuple[float, ...]] = []
            qys: list[int] = []
            for i, (conversation, index) in enumerate(zip(conversations, indexes, strict=True)):
                f, y, _, q = collect(conversation, index, mode, own=True)
                xs += f
                ys += y
                qs += q
                qys += [1] * len(q)
                other = indexes[(i + 1) % len(indexes)]  # asked of another conversation: an absent topic
                f, y, _, q = collect(conversation, other, mode, own=False)
                if mode not in factored:  # a factored mode's hit model is the chance given an answerable query
                    xs += f
                    ys += y
                qs += q
                qys += [0] * len(q)
            names = (*FEATURES, *DERIVED)
            dropped = {*HIT_EXCLUDED, *(d.strip() for d in args.drop.split(",") if d.strip())}
            kept = [i for i, name in enumerate(names) if name not in dropped]
            x, y_arr = np.array([expand(f) for f in xs])[:, kept], np.array(ys, dtype=float)
            fitted = fit(x, y_arr)
            w = np.zeros(len(names) + 1)
            w[[0, *(i + 1 for i in kept)]] = fitted
            coefficients[mode] = [round(float(v), 4) for v in w]
            print(f"{mode}: {len(ys)} hits, {int(y_arr.sum())} positive", file=sys.stderr)
            if mode in factored:
                wq = fit(np.array(qs), np.array(qys, dtype=float))
                answerable[mode] = [round(float(v), 4) for v in wq]
                print(f"{mode}: {len(qys)} questions, {sum(qys)} answerable", file=sys.stderr)
    finally:
        for index in indexes:
            index.engine.close()
    print("# features:", ", ".join((*FEATURES, *DERIVED)), file=sys.stderr)
    print("# query features:", ", ".join(QUERY_FEATURES), file=sys.stderr)
    print(json.dumps({"COEFFICIENTS": coefficients, "ANSWERABLE": answerable}, indent=1))
    return {"COEFFICIENTS": coefficients, "ANSWERABLE": answerable}


if __name__ == "__main__":
    main()
