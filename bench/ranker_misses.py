"""Where a hybrid search loses what vector mode finds: each question of the transcript TUNE set, placed four ways.

For each question of bench/data/transcript_questions_tune.json, the rank of its first target message (1 = first):
in vector mode; in hybrid under the hand-set rules; in hybrid under a learned ranker fitted without the question's
half (bench/learn_ranker.py's leave-one-group-out models: the shipped model was fitted on these questions, so its own
ranks flatter it); and in hybrid as shipped. Beside them: whether a target is among the head's hits the ranker
re-scores (the forty best by the rules' score), the target's best place in the cosine list, and whether the default
search (abstention on) shows it.

Each question is put in one class by its cross-checked learned rank: found (within k), outside the head (no target
among the hits the ranker orders: no ranker can lift it), out-ranked (in the head, put below k); and counted as
hidden when the shipped search ranks a target within k but shows none (abstention). The summary counts the classes
over every question, the paraphrases, and the questions vector mode finds within k.

    python -m bench.ranker_misses [--k 5] [--json] [--rows ROWS]

`--rows` reads bench/learn_ranker.py's `--dump` file instead of ranking the tune questions under the rules again.
Tune questions only: the held-out set is never looked at question by question.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from bench.common import load_shared_embedder, machine_info
from bench.learn_ranker import SEED, Question, fit, locomo_questions, transcript_questions
from bench.locomo import bench_settings, search_variants
from bench.transcripts import (
    QUESTION_SETS,
    TRANSCRIPTS,
    Corpus,
    cached_index,
    load_questions,
    open_corpus,
    ranked_messages,
    shown_messages,
)

K = 5  # R@5: what the targets are set on
CLASSES = ("found", "outside the head", "out-ranked")


@dataclass
class Placing:
    """One question's first target, placed by each ranking (None: not within the ranking's depth)."""

    id: str
    kind: str
    vector: int | None
    rules: int | None
    learned: int | None  # the leave-one-group-out model's order of the head
    shipped: int | None
    in_head: bool
    cosine_rank: int | None  # the best place of a target unit in the cosine list (1 = nearest)
    shown: int | None  # its place among what the default search shows


def first_place(keys: Sequence[str | None], targets: set[str]) -> int | None:
    """The 1-based place of the first target among `keys` taken as messages (a message's later parts not counted)."""
    messages = list(dict.fromkeys(k for k in keys if k is not None))
    return next((i for i, key in enumerate(messages, 1) if key in targets), None)


def learned_place(model: Any, question: Question, targets: set[str]) -> int | None:
    """The first target's place when `model` orders the question's head (ties: the rules' order)."""
    if not question.rows:
        return None
    predicted = model.predict(np.array(question.rows, dtype=float), raw_score=True)
    order = sorted(range(len(question.rows)), key=lambda i: (-predicted[i], i))
    keys: list[str | None] = question.extra["keys"]
    return first_place([keys[i] for i in order], targets)


def classify(placing: Placing, k: int) -> str:
    """found, outside the head, or out-ranked, by the cross-checked learned rank."""
    if placing.learned is not None and placing.learned <= k:
        return "found"
    return "out-ranked" if placing.in_head else "outside the head"


def hidden(placing: Placing, k: int) -> bool:
    """The shipped ranking has a target within k, and the default search shows none of them."""
    return placing.shipped is not None and placing.shipped <= k and placing.shown is None


def summarise(placings: Sequence[Placing], k: int) -> dict[str, dict[str, int]]:
    """Class counts (and hidden) over all questions, the paraphrases, and those vector mode finds within k."""
    parts = {
        "all": list(placings),
        "paraphrase": [p for p in placings if p.kind == "paraphrase"],
        "vector finds": [p for p in placings if p.vector is not None and p.vector <= k],
    }
    out: dict[str, dict[str, int]] = {}
    for name, part in parts.items():
        counts = Counter(classify(p, k) for p in part)
        out[name] = {
            "questions": len(part),
            **{c: counts[c] for c in CLASSES},
            "hidden": sum(hidden(p, k) for p in part),
        }
    return out


def place_all(questions: Sequence[Question], corpus: Corpus) -> list[Placing]:
    """Each transcript tune question placed by every ranking (`questions`: LoCoMo's and the transcripts', labelled)."""
    models = {
        half: fit([q for q in questions if q.group != half], trees=100, leaves=7, seed=SEED)
        for half in sorted({q.group for q in questions if q.group.startswith("transcripts")})
    }
    by_id = {q.extra["id"]: q for q in questions if q.group.startswith("transcripts")}
    engine = corpus.engine
    searches = search_variants(None, {"rules": {"search.ranker": "rules"}})
    own = engine.settings.search
    placings: list[Placing] = []
    try:
        for item in load_questions(QUESTION_SETS["tune"]):
            targets = set(item["targets"])
            text = item["question"]
            engine.settings.search = searches[" rules"]
            rules = engine.rank(text, mode="hybrid", limit=50)
            engine.settings.search = own
            keys = [corpus.key_of_unit.get(h.unit_id) for h in rules.hits]
            cosine = [h.vector_rank for h, key in zip(rules.hits, keys, strict=True) if key in targets]
            question = by_id[item["id"]]
            placings.append(
                Placing(
                    id=item["id"],
                    kind=item["kind"],
                    vector=first_place(ranked_messages(corpus, text, "vector"), targets),
                    rules=first_place(keys, targets),
                    learned=learned_place(models[question.group], question, targets),
                    shipped=first_place(ranked_messages(corpus, text, "hybrid"), targets),
                    in_head=any(question.labels),
                    cosine_rank=min((r + 1 for r in cosine if r is not None), default=None),
                    shown=first_place(shown_messages(corpus, text, "hybrid", TRANSCRIPTS), targets),
                )
            )
    finally:
        engine.settings.search = own
    return placings


def format_report(placings: Sequence[Placing], summary: dict[str, dict[str, int]], k: int) -> str:
    def cell(value: int | None) -> str:
        return "-" if value is None else str(value)

    header = ["question", "kind", "vector", "rules", "learned (cross-checked)", "shipped", "in head", "cosine rank"]
    lines = ["| " + " | ".join([*header, "shown", "class"]) + " |", "|---" * (len(header) + 2) + "|"]
    for p in placings:
        places = [p.vector, p.rules, p.learned, p.shipped]
        label = classify(p, k) + (", hidden" if hidden(p, k) else "")
        cells = [p.id, p.kind, *map(cell, places), "yes" if p.in_head else "no", cell(p.cosine_rank), cell(p.shown)]
        lines.append("| " + " | ".join([*cells, label]) + " |")
    lines += ["", f"| questions (k = {k}) | count | {' | '.join(CLASSES)} | hidden |", "|---|---|---|---|---|---|"]
    for name, counts in summary.items():
        numbers = [counts["questions"], *(counts[c] for c in CLASSES), counts["hidden"]]
        lines.append("| " + " | ".join([name, *map(str, numbers)]) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--k", type=int, default=K, help="the depth that counts as found")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--rows", type=Path, help="bench/learn_ranker.py's --dump file (its labelled rows)")
    args = parser.parse_args(argv)
    if args.rows:
        questions = [Question(**q) for q in json.loads(args.rows.read_text())]
    else:
        questions = locomo_questions() + transcript_questions()
    if any("keys" not in q.extra for q in questions if q.group.startswith("transcripts")):
        parser.error("the rows hold no message keys: dump them again with this bench/learn_ranker.py")
    settings = bench_settings()
    corpus = open_corpus(root=TRANSCRIPTS, index_dir=cached_index(settings), embedder=load_shared_embedder(settings))
    try:
        placings = place_all(questions, corpus)
    finally:
        corpus.engine.close()
    summary = summarise(placings, args.k)
    report: dict[str, Any] = {
        "machine": machine_info(),
        "k": args.k,
        "questions": [asdict(p) for p in placings],
        "summary": summary,
    }
    print(json.dumps(report, indent=2) if args.json else format_report(placings, summary, args.k))
    return report


if __name__ == "__main__":
    main()
