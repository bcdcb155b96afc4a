"""What asking the context field's BM25 only of the message field's best hits and their neighbours saves
(search.contextNearBest), on a prebuilt index: one process, the realistic queries `speed.py` asks (seed 43), each
searched (`engine.search`, limit 10) in keyword and in hybrid mode with the setting at 0 (every message) and at
`--near`, the two alternated query by query (which goes first alternates too). Reports CPU p50 / p95 / p99 per mode
and setting, and how many queries got the same ten results (ids in order) both ways.

    python bench/context_near_best.py ROOT [--near 40] [--queries 300]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import load_shared_embedder, percentile

WARMUP = 10  # queries asked both ways before the timed pass: the first searches page in the index
MODES = ("keyword", "hybrid")


def measure(root: Path, *, near: int, queries: int, seed: int = 43) -> dict[str, Any]:
    from bench.corpus import bench_settings, open_engine, prebuilt_corpus
    from bench.realistic_text import corpus_queries, corpus_text

    asked = corpus_queries(seed, queries, text=corpus_text(root / "corpus"), scratch=root / "real-texts")
    embedder = load_shared_embedder(bench_settings())
    settings = (0, near)
    spent: dict[str, list[float]] = {f"{mode} {n}": [] for mode in MODES for n in settings}
    same = dict.fromkeys(MODES, 0)
    with open_engine(prebuilt_corpus(root), root / "index", embedder) as engine:
        search = engine.settings.search
        for number, query in enumerate([*asked[:WARMUP], *asked]):
            for mode in MODES:
                answers: dict[int, list[Any]] = {}
                for n in settings if number % 2 else settings[::-1]:
                    search.context_near_best = n
                    used = time.process_time()
                    found = engine.search(query, mode=mode, limit=10)
                    if number >= WARMUP:
                        spent[f"{mode} {n}"].append(1000 * (time.process_time() - used))
                    answers[n] = [(hit["id"], hit.get("messageId")) for hit in found["results"]]
                if number >= WARMUP:
                    same[mode] += answers[0] == answers[near]
        search.context_near_best = 0
    return {
        "queries": len(asked),
        "near": near,
        "cpuMs": {
            name: {f"p{q}": round(percentile(values, q), 2) for q in (50, 95, 99)} for name, values in spent.items()
        },
        "sameTen": same,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path, help="a folder holding corpus/ and index/ (bench/speed.py --prebuilt)")
    parser.add_argument("--near", type=int, default=40, help="search.contextNearBest against 0")
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args(argv)
    load = os.getloadavg()
    figures = measure(args.root, near=args.near, queries=args.queries)
    print(json.dumps({"loadavgStart": load, **figures, "loadavgEnd": os.getloadavg()}, indent=2))


if __name__ == "__main__":
    main()
