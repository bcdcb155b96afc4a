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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from bench.absent import NEW_TOPICS, absent_engine
from bench.absent import TOPICS as ABSENT_TOPICS
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
from bench.transcripts import QUESTION_SETS, TRANSCRIPTS, cached_index, load_questions, open_corpus
from memlens.engine.engine import Engine
from memlens.engine.ranking.calibration import DERIVED, FEATURES, LEARNED_HYBRID, QUERY_FEATURES, expand
from memlens.engine.ranking.hits import UnitHit
from memlens.engine.ranking.query_facts import query_facts as read_query_facts
from memlens.engine.vectors.embedder import Embedder
from memlens.settings import Settings
from memlens.settings.tree import Ranker

TUNE = ("26", "30", "41")
# query-level only: as a hit feature it learns "a hit matching the question well is wrong" (LoCoMo's short turns that
# repeat the question's words), which silenced one-word queries such as "DLQ" that match exactly
HIT_EXCLUDED = ("bm25_share",)
DEPTH = 50


def query_features(hits: list[UnitHit], absent_named: float) -> tuple[float, ...]:
    """A question's QUERY_FEATURES from its hits, as rescoring.calibrate computes them."""
    top = [hit.features for hit in hits[:10] if hit.features]
    learned = max(h.learned for h in hits)
    return (top[0][4], top[0][9], max(f[7] for f in top), max(f[8] for f in top), learned, absent_named)


def named_share(engine: Engine, text: str) -> float:
    """The query's share of absent names (query_facts.py), worked out as a search works it out."""
    parsed = engine.retriever.read(text, engine.settings.search)
    return read_query_facts(parsed, engine.keyword).absent_named


def rank(engine: Engine, text: str, mode: str) -> list[UnitHit]:
    """The hits of `text` ranked as the calibration key `mode` is searched: LEARNED_HYBRID is a hybrid search the
    learned ranker orders; every other key is that mode under the hand-set rules."""
    ranker: Ranker = "learned" if mode == LEARNED_HYBRID else "rules"
    engine.settings.search = replace(engine.settings.search, ranker=ranker)
    return engine.rank(text, mode="hybrid" if mode == LEARNED_HYBRID else mode, limit=DEPTH).hits


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
        hits = rank(index.engine, question.text, mode)
        for hit in hits[:DEPTH]:
            if not hit.features:
                continue
            features.append(hit.features)
            labels.append(int(own and index.turn_of.get(hit.unit_id) in question.evidence))
            groups.append(number if own else -1 - number)
        if any(hit.features for hit in hits[:10]):
            queries.append(query_features(hits, named_share(index.engine, question.text)))
    return features, labels, groups, queries


def collect_transcripts(mode: str, settings: Settings, embedder: Embedder) -> Collected:
    """The transcript tune questions (answerable: hits labelled by their target messages) and the absent-topic
    questions a model may be fitted on (not answerable; as written and in lower case), each asked of its own index."""
    out = Collected()
    folder = cached_index(settings)
    corpus = open_corpus(root=TRANSCRIPTS, index_dir=folder, embedder=embedder)
    try:
        for item in load_questions(QUESTION_SETS["tune"]):
            hits = rank(corpus.engine, item["question"], mode)
            targets = set(item["targets"])
            for hit in hits:
                if hit.features:
                    out.features.append(hit.features)
                    out.labels.append(int(corpus.key_of_unit.get(hit.unit_id) in targets))
            out.add_query(hits, named_share(corpus.engine, item["question"]), answerable=True)
    finally:
        corpus.engine.close()
    absent = absent_engine(settings, embedder)
    try:
        absent.sync()
        for question in absent_tune_questions():
            for text in (question, question.lower()):  # users type names in lower case too
                hits = rank(absent, text, mode)
                out.add_query(hits, named_share(absent, text), answerable=False)
    finally:
        absent.close()
    return out


def absent_tune_questions() -> list[str]:
    """The absent-topic questions a model may be fitted on: the tune half of the new set and the first set
    (bench/absent_topics.json); the new set's held-out half is only reported (bench/absent.py)."""
    new = json.loads(NEW_TOPICS.read_text(encoding="utf-8"))["questions"]
    first = json.loads(ABSENT_TOPICS.read_text(encoding="utf-8"))["questions"]
    return [q["q"] for q in new if q["split"] == "tune"] + [q["q"] for q in first]


@dataclass
class Collected:
    features: list[tuple[float, ...]] = field(default_factory=list)
    labels: list[int] = field(default_factory=list)
    queries: list[tuple[float, ...]] = field(default_factory=list)
    answerable: list[int] = field(default_factory=list)

    def add_query(self, hits: list[UnitHit], absent_named: float, *, answerable: bool) -> None:
        if any(hit.features for hit in hits[:10]):
            self.queries.append(query_features(hits, absent_named))
            self.answerable.append(int(answerable))


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
    parser.add_argument("--modes", default=f"hybrid,keyword,vector,{LEARNED_HYBRID}")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--drop", default="", help="comma-separated hit features left out of the fit")
    parser.add_argument(
        "--answerable-modes", default=f"keyword,{LEARNED_HYBRID}", help="modes with a query-level answerable model"
    )
    parser.add_argument(
        "--transcript-modes",
        default=LEARNED_HYBRID,
        help="modes also fitted on the transcript tune questions and the absent-topic tune questions",
    )
    parser.add_argument(
        "--absent-weight",
        type=int,
        default=10,
        help="each absent-topic tune question counts this many times (chosen on the tune sets, see bench/RESULTS.md)",
    )
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
    transcript_modes = {m.strip() for m in args.transcript_modes.split(",") if m.strip()}
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
            if mode in transcript_modes:
                extra = collect_transcripts(mode, settings, embedder)
                xs += extra.features
                ys += extra.labels
                qs += extra.queries
                qys += extra.answerable
                # the absent-topic questions are few beside LoCoMo's, and they are the case users meet: a real index
                # asked about something it never held
                absent = [q for q, a in zip(extra.queries, extra.answerable, strict=True) if not a]
                qs += absent * (args.absent_weight - 1)
                qys += [0] * (len(absent) * (args.absent_weight - 1))
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
