"""What the learned ranker costs a hybrid search: the same index, the same queries, `search.ranker` "rules" and
"learned" alternated in rounds within one process (CPU time per `engine.search`, query embedding included, the
query-vector cache emptied before each query as bench/speed.py does).

    python -m bench.ranker_latency PREBUILT [--queries 300] [--rounds 3]

PREBUILT: a folder bench/speed.py --prebuilt reads (`corpus/` and `index/`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import load_shared_embedder, machine_info
from bench.corpus import bench_settings, open_engine, prebuilt_corpus
from bench.realistic_text import corpus_queries
from bench.speed_probes import latencies
from memlens.settings.tree import Ranker

RANKERS: tuple[Ranker, ...] = ("rules", "learned")


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("prebuilt", type=Path)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=8)
    args = parser.parse_args(argv)
    embedder = load_shared_embedder(bench_settings())
    engine = open_engine(prebuilt_corpus(args.prebuilt), args.prebuilt / "index", embedder)
    queries = corpus_queries(args.seed, args.queries)
    report: dict[str, Any] = {"machine": machine_info(), "units": engine.catalog.unit_count(), "rounds": []}
    try:
        fresh = embedder.forget_queries
        for _ in range(args.rounds):
            row: dict[str, Any] = {"loadavg": os.getloadavg()}
            for ranker in RANKERS:
                engine.settings.search = replace(engine.settings.search, ranker=ranker)
                timed = latencies(lambda q: engine.search(q, mode="hybrid", limit=10), queries, before=fresh)
                row[ranker] = {k: timed[k] for k in ("cpuP50Ms", "cpuP99Ms", "p50Ms")}
            report["rounds"].append(row)
            print(json.dumps(row), file=sys.stderr)
    finally:
        engine.close()
    print(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
