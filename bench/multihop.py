"""Where multi-hop and open-domain answers are missed: what a session-aware second pass could still find.

For every LoCoMo TUNE question (26, 30, 41) with evidence, each evidence turn not in the default search's top 10 is
placed: is its session one of the three the ranking hits first (what a second pass pulling more turns from the hit
sessions reaches), and how deep in the full ranking is it (the head the learned ranker re-orders holds 40)? Counted
per category. The figures decide whether session-aware expansion is worth its cost; held-out conversations are never
read here.

    python -m bench.multihop [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import load_shared_embedder, machine_info
from bench.locomo import CATEGORIES, TUNE_CONVERSATIONS, bench_settings, tune_index

DEPTH = 300  # hits ranked per question: how deep a missed turn is looked for
TOP_SESSIONS = 3
BUCKETS = ((40, "in the head (≤ 40)"), (100, "41–100"), (DEPTH, f"101–{DEPTH}"))


def place(rank: int | None) -> str:
    if rank is None:
        return f"not in the top {DEPTH}"
    return next(label for bound, label in BUCKETS if rank < bound)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    settings = bench_settings({})
    embedder = load_shared_embedder(settings)
    counts: Counter[tuple[str, str, str]] = Counter()
    found: Counter[str] = Counter()
    for name in TUNE_CONVERSATIONS:
        with tune_index(name, settings, embedder) as (conversation, index):
            for question in conversation.questions:
                if not question.evidence:
                    continue
                category = CATEGORIES[question.category]
                hits = index.engine.rank(question.text, mode="hybrid", limit=DEPTH).hits
                turns = [index.turn_of.get(h.unit_id) for h in hits[:DEPTH]]
                sessions = list(dict.fromkeys(t.partition(":")[0] for t in turns if t))[:TOP_SESSIONS]
                for turn in question.evidence:
                    if turn in turns[:10]:
                        found[category] += 1
                        continue
                    rank = turns.index(turn) if turn in turns else None
                    where = "a top session" if turn.partition(":")[0] in sessions else "another session"
                    counts[(category, where, place(rank))] += 1
    report: dict[str, Any] = {"machine": machine_info(), "categories": {}}
    for category in CATEGORIES.values():
        missed = {f"{w} / {p}": n for (c, w, p), n in sorted(counts.items()) if c == category}
        report["categories"][category] = {"found in the top 10": found[category], "missed": missed}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for category, row in report["categories"].items():
            total = row["found in the top 10"] + sum(row["missed"].values())
            print(f"{category}: {row['found in the top 10']} of {total} evidence turns in the top 10")
            for key, n in row["missed"].items():
                print(f"   missed, {key}: {n}")
    return report


if __name__ == "__main__":
    main()
