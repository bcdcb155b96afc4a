"""Keyword search CPU per query on a prebuilt index, with the memlens of a given checkout: an A/B of two versions
on two copies of one index (fresh processes, run alternately), the way RESULTS.md's keyword figure was checked.

    python bench/keyword_latency.py PREBUILT_COPY REPO   # REPO: a checkout (its server/ and bench/ are imported)

PREBUILT_COPY holds `corpus/` and `index/` as `bench/speed.py --workdir` and `bench/synthetic_vectors.py` leave them;
each version may migrate the index it opens, so give each its own copy.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(argv: list[str]) -> None:
    root, repo = Path(argv[0]), Path(argv[1])
    sys.path[:0] = [str(repo / "server"), str(repo)]
    from bench.corpus import open_engine, prebuilt_corpus
    from bench.speed import _queries
    from bench.speed_probes import latencies

    engine = open_engine(prebuilt_corpus(root), root / "index", None)
    engine.sync()  # a first open may migrate the index: not timed
    queries = _queries(43, 300)
    out: dict[str, object] = {"repo": str(repo)}
    for run in range(2):
        out[f"searchCpuP50Ms{run}"] = latencies(lambda q: engine.search(q, mode="keyword", limit=10), queries)[
            "cpuP50Ms"
        ]
        out[f"rankCpuP50Ms{run}"] = latencies(lambda q: engine.rank(q, mode="keyword", limit=10), queries)["cpuP50Ms"]
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
