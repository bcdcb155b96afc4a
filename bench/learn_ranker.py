"""Fit the learned ranker (server/memlens/engine/ranking/learned_order.py) on the TUNE questions only.

Questions: LoCoMo's tune conversations (26, 30, 41; a turn is relevant when it is one of the question's evidence
turns) and the transcript tune set (bench/data/transcript_questions_tune.json; a unit is relevant when it belongs to
one of the question's target messages). Each question is ranked in hybrid mode by the hand-set rules; every hit of
the re-scored head carries its feature row (`hit.ranker_features`), and those rows, labelled, are what LightGBM's
LambdaRank learns an order from. Questions whose head holds nothing relevant teach no order and are left out.

Before the final fit, a leave-one-group-out check (each LoCoMo conversation and the transcript set in turn held back
from the fit) reports P@1, R@5 and R@10 of the rules' order and of the model's on the group held back, so the tree
count and size are chosen without the held-out conversations (42, 43) or the held-out transcript questions, which
only bench/locomo.py and bench/transcripts.py report.

    python -m bench.learn_ranker [--trees N] [--leaves N] [--out PATH] [--cv-only] [--drop FEATURE,…] [--seeds N]
        [--transcript-repeat N] [--with-source SOURCE] [--dump ROWS | --rows ROWS]
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from bench.common import load_shared_embedder, machine_info
from bench.locomo import TUNE_CONVERSATIONS, bench_settings, tune_index
from bench.transcripts import QUESTION_SETS, TRANSCRIPTS, cached_index, load_questions, open_corpus
from memlens.engine.ranking.learned_order import FEATURES, MODEL_PATH

LIMIT = 50  # hits ranked per question, as bench/locomo.py and bench/transcripts.py rank them (the head is 50)
TRANSCRIPT_REPEAT = 4  # the transcript questions are few beside LoCoMo's: each counts this many times in the fit
SEED = 7  # the shipped fit's
# tune questions measured but not fitted on: the "forgot the words" paraphrases (bench/paraphrase_overlap.py) target
# terse tool-call messages that neither list finds, and a fit that counts them orders the other transcript questions
# worse (RESULTS.md, "Paraphrases that share no word with their answer")
UNFITTED_SOURCES = ("forgot-words",)


@dataclass
class Question:
    group: str  # the conversation, or "transcripts"
    rows: list[tuple[float, ...]]
    labels: list[int]
    relevant_total: int  # relevant units anywhere (what recall is out of)
    extra: dict[str, Any] = field(default_factory=dict)


def locomo_questions() -> list[Question]:
    settings = bench_settings({"search.ranker": "rules"})
    embedder = load_shared_embedder(settings)
    out: list[Question] = []
    for name in TUNE_CONVERSATIONS:
        with tune_index(name, settings, embedder) as (conversation, index):
            for question in conversation.questions:
                evidence = set(question.evidence)
                if not evidence:
                    continue
                ranking = index.engine.rank(question.text, mode="hybrid", limit=LIMIT)
                head = [h for h in ranking.hits if h.ranker_features]
                labels = [int(index.turn_of.get(h.unit_id) in evidence) for h in head]
                out.append(Question(name, [h.ranker_features for h in head], labels, len(evidence)))
    return out


def fitted_items(items: Sequence[dict[str, Any]], *, sources: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The tune questions a fit reads: all but those of an UNFITTED_SOURCES source not named in `sources`."""
    return [q for q in items if q.get("source") not in UNFITTED_SOURCES or q.get("source") in sources]


def transcript_questions(*, sources: Sequence[str] = ()) -> list[Question]:
    """The transcript tune questions (`fitted_items`); relevant: a unit of a target message (recall_at counts a
    question found when any is). Two groups, split by file so that a session's questions stay together, for the
    leave-one-group-out check."""
    overrides = {"search.ranker": "rules"}
    settings = bench_settings(overrides)
    corpus = open_corpus(
        root=TRANSCRIPTS, index_dir=cached_index(settings), embedder=load_shared_embedder(settings), overrides=overrides
    )
    out: list[Question] = []
    try:
        for item in fitted_items(load_questions(QUESTION_SETS["tune"]), sources=sources):
            targets = set(item["targets"])
            ranking = corpus.engine.rank(item["question"], mode="hybrid", limit=LIMIT)
            head = [h for h in ranking.hits if h.ranker_features]
            keys = [corpus.key_of_unit.get(h.unit_id) for h in head]  # each row's message (bench/ranker_misses.py)
            labels = [int(key in targets) for key in keys]
            group = "transcripts-" + "ab"[zlib.crc32(item["file"].encode()) % 2]
            rows = [h.ranker_features for h in head]
            extra = {"id": item["id"], "kind": item["kind"], "file": item["file"], "keys": keys}
            out.append(Question(group, rows, labels, 1, extra))
    finally:
        corpus.engine.close()
    return out


def recall_at(order: Sequence[int], question: Question, k: int) -> float:
    """Turn recall@k for LoCoMo (relevant found / relevant total); found-any for the transcript questions."""
    found = sum(question.labels[i] for i in order[:k])
    if question.group.startswith("transcripts"):
        return float(found > 0)
    return found / question.relevant_total


def fit(
    questions: Sequence[Question],
    *,
    trees: int,
    leaves: int,
    seed: int = SEED,
    transcript_repeat: int = TRANSCRIPT_REPEAT,
) -> Any:
    import lightgbm as lgb

    taught = [q for q in questions if any(q.labels)]
    rows: list[tuple[float, ...]] = []
    labels: list[int] = []
    groups: list[int] = []
    for q in taught:
        for _ in range(transcript_repeat if q.group.startswith("transcripts") else 1):
            rows += q.rows
            labels += q.labels
            groups.append(len(q.rows))
    data = lgb.Dataset(np.array(rows, dtype=float), label=np.array(labels), group=groups, feature_name=list(FEATURES))
    params = {
        "objective": "lambdarank",
        "metric": "ndcg",
        "ndcg_eval_at": [10],
        "lambdarank_truncation_level": 20,
        "num_leaves": leaves,
        "learning_rate": 0.05,  # trees, leaves and rate: the best of a small sweep on the leave-one-group-out check
        "min_data_in_leaf": 50,
        "feature_fraction": 0.8,
        "bagging_fraction": 0.8,
        "bagging_freq": 1,
        "lambda_l2": 1.0,
        "num_threads": 1,
        "seed": seed,
        "deterministic": True,
        "verbose": -1,
    }
    return lgb.train(params, data, num_boost_round=trees)


def evaluate(model: Any, questions: Sequence[Question]) -> dict[str, float]:
    """P@1 (the first hit relevant), R@5 and R@10 of the rules' order and the model's, over `questions` (in %)."""
    out: dict[str, list[float]] = {f"{name} {at}": [] for name in ("rules", "learned") for at in ("P@1", "R@5", "R@10")}
    for q in questions:
        rules = list(range(len(q.rows)))
        learned = rules
        if q.rows:
            predicted = model.predict(np.array(q.rows, dtype=float), raw_score=True)
            learned = sorted(rules, key=lambda i: (-predicted[i], i))
        for name, order in (("rules", rules), ("learned", learned)):
            out[f"{name} P@1"].append(float(bool(order) and q.labels[order[0]] > 0))
            out[f"{name} R@5"].append(recall_at(order, q, 5))
            out[f"{name} R@10"].append(recall_at(order, q, 10))
    return {k: round(100 * sum(v) / max(1, len(v)), 2) for k, v in out.items()}


def cross_check(
    questions: Sequence[Question],
    *,
    trees: int,
    leaves: int,
    seeds: int = 1,
    transcript_repeat: int = TRANSCRIPT_REPEAT,
) -> dict[str, dict[str, float]]:
    """The leave-one-group-out check: each group's P@1 / R@5 / R@10 (rules and learned) under a model fitted without it,
    averaged over `seeds` fits (seeds 7, 8, …: one seed is the shipped fit's)."""
    out: dict[str, dict[str, float]] = {}
    for held in sorted({q.group for q in questions}):
        kept = [q for q in questions if q.group != held]
        tried = [q for q in questions if q.group == held]
        runs = [
            evaluate(fit(kept, trees=trees, leaves=leaves, seed=SEED + n, transcript_repeat=transcript_repeat), tried)
            for n in range(seeds)
        ]
        out[held] = {key: round(sum(run[key] for run in runs) / len(runs), 2) for key in runs[0]}
        print(f"  held back {held}: {out[held]}", file=sys.stderr)
    return out


def cv_means(cv: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """The check's figures as RESULTS reports them: the mean over the LoCoMo conversations, and over the transcript
    halves."""
    parts = {
        "locomo": [v for g, v in cv.items() if not g.startswith("transcripts")],
        "transcripts": [v for g, v in cv.items() if g.startswith("transcripts")],
    }
    return {
        name: {key: round(sum(v[key] for v in values) / len(values), 2) for key in values[0]}
        for name, values in parts.items()
        if values
    }


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--leaves", type=int, default=7)
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument(
        "--transcript-repeat",
        type=int,
        default=TRANSCRIPT_REPEAT,
        help="how many times each transcript question counts in the fit",
    )
    parser.add_argument(
        "--seeds",
        type=int,
        default=1,
        help="the check's fits repeated with this many seeds and averaged (bagging and feature sampling draw at "
        "random: one seed moves a transcript half's R@5 by a question or more)",
    )
    parser.add_argument(
        "--with-source",
        action="append",
        default=[],
        metavar="SOURCE",
        help=f"also fit on the tune questions of this source (left out: {', '.join(UNFITTED_SOURCES)})",
    )
    parser.add_argument("--cv-only", action="store_true", help="report the leave-one-group-out check, write nothing")
    parser.add_argument("--dump", type=Path, help="also save the labelled rows as JSON (for quick re-fits)")
    parser.add_argument("--rows", type=Path, help="read the labelled rows from a --dump file instead of ranking")
    parser.add_argument(
        "--drop", default="", help="comma-separated features held at 0 (what the model loses without them)"
    )
    args = parser.parse_args(argv)
    if args.rows:
        questions = [Question(**q) for q in json.loads(args.rows.read_text())]
    else:
        questions = locomo_questions() + transcript_questions(sources=args.with_source)
    dropped = [d.strip() for d in args.drop.split(",") if d.strip()]
    if unknown := [d for d in dropped if d not in FEATURES]:
        parser.error(f"unknown features {unknown}; the features are {', '.join(FEATURES)}")
    for question in questions:
        question.rows = [_without(row, dropped) for row in question.rows]
    if args.dump:
        args.dump.write_text(json.dumps([vars(q) for q in questions]))
    report: dict[str, Any] = {"machine": machine_info(), "trees": args.trees, "leaves": args.leaves}
    report["cv"] = cross_check(
        questions,
        trees=args.trees,
        leaves=args.leaves,
        seeds=args.seeds,
        transcript_repeat=args.transcript_repeat,
    )
    report["cvMean"] = cv_means(report["cv"])
    print(f"  mean of the groups held back: {report['cvMean']}", file=sys.stderr)
    if not args.cv_only:
        model = fit(questions, trees=args.trees, leaves=args.leaves, transcript_repeat=args.transcript_repeat)
        model.save_model(str(args.out))
        report["model"] = str(args.out)
        gains = model.feature_importance(importance_type="gain")
        ranked = sorted(zip(FEATURES, gains, strict=True), key=lambda pair: -pair[1])
        report["gain"] = {name: round(float(gain), 1) for name, gain in ranked}
    print(json.dumps({k: v for k, v in report.items() if k != "machine"}, indent=2))
    return report


def _without(row: Sequence[float], dropped: Sequence[str]) -> tuple[float, ...]:
    """`row` with the `dropped` features held at 0."""
    return tuple(0.0 if name in dropped else value for name, value in zip(FEATURES, row, strict=True))


if __name__ == "__main__":
    main()
