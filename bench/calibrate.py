"""Fit the calibrated score (memlens/engine/calibration.py) on the LoCoMo tune conversations only.

For every tune question, the top 50 hits of its own conversation's index give positives (evidence turns) and
negatives (the rest); the same question asked of the next tune conversation's index gives hits for a topic that is
absent there (all negatives). A logistic model per mode is fitted to the hits' features by Newton's method with a
small L2 penalty and printed as the COEFFICIENTS literal to paste into calibration.py.

    python -m bench.calibrate [--set search.contextWeight=0.3 ...]
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
    Conversation,
    bench_settings,
    build_index,
    cache_key,
    last_message_time,
    load_conversation,
    parse_overrides,
)
from memlens.engine.calibration import FEATURES

TUNE = ("26", "30", "41")
DEPTH = 50


def collect(
    question_set: Conversation, index: BuiltIndex, mode: str, own: bool
) -> tuple[list[tuple[float, ...]], list[int], list[int]]:
    """Features, labels and question numbers of the top hits for every question of `question_set` in `index`."""
    features: list[tuple[float, ...]] = []
    labels: list[int] = []
    groups: list[int] = []
    index.engine.retriever.now = last_message_time(index) + 86400.0
    for number, question in enumerate(question_set.questions):
        ranking = index.engine.rank(question.text, mode=mode, limit=DEPTH)
        for hit in ranking.hits[:DEPTH]:
            if not hit.features:
                continue
            features.append(hit.features)
            labels.append(int(own and index.turn_of.get(hit.unit_id) in question.evidence))
            groups.append(number if own else -1 - number)
    return features, labels, groups


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
    try:
        for mode in [m.strip() for m in args.modes.split(",") if m.strip()]:
            xs: list[tuple[float, ...]] = []
            ys: list[int] = []
            for i, (conversation, index) in enumerate(zip(conversations, indexes, strict=True)):
                f, y, _ = collect(conversation, index, mode, own=True)
                xs += f
                ys += y
                other = indexes[(i + 1) % len(indexes)]  # asked of another conversation: an absent topic
                f, y, _ = collect(conversation, other, mode, own=False)
                xs += f
                ys += y
            x, y_arr = np.array(xs), np.array(ys, dtype=float)
            w = fit(x, y_arr)
            coefficients[mode] = [round(float(v), 4) for v in w]
            print(f"{mode}: {len(ys)} hits, {int(y_arr.sum())} positive", file=sys.stderr)
    finally:
        for index in indexes:
            index.engine.close()
    print("# features:", ", ".join(FEATURES), file=sys.stderr)
    print(json.dumps(coefficients, indent=1))
    return coefficients


if __name__ == "__main__":
    main()
