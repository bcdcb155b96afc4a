"""Where a search's CPU goes, function by function: cProfile over a few hundred searches of one mode in one warm
process, on an index built earlier (`ROOT/corpus`, `ROOT/index`, as `bench/speed.py --prebuilt` takes it).

`bench/keyword_latency.py` times the named steps of a search (its `PARTS`) and compares trees; this says which
functions inside them cost, so a step's cost can be cut where it lies. The searches asked are the realistic queries
the latency benchmarks ask (`--seed`), the first `--warmup` of them unprofiled (they page the index in and fill the
per-process caches as a running server's would be); each query is embedded afresh, as in the latency probes. The
profiler counts CPU time (the machines are shared: wall time would count the other jobs) and adds its own cost to
every Python call, so the shares, not the milliseconds, are what to read (CPU times come from keyword_latency.py,
which profiles nothing). Prints the top functions by own time and by cumulative time,
and the answers' digest (the same queries and mode give the same digest on a tree that answers the same).

    python bench/search_profile.py ROOT [--mode hybrid] [--set realistic|pastes|events] [--queries 300] [--top 40]
        [--dump PROFILE]
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import json
import os
import pstats
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import load_shared_embedder, percentile
from bench.query_sets import SETS


def profile(
    root: Path,
    *,
    mode: str,
    queries: int,
    seed: int,
    warmup: int,
    top: int,
    dump: Path | None,
    asking: str = "realistic",
) -> str:
    """The report: the unprofiled CPU p50 of the profiled queries' searches, their digest, then cProfile's tables."""
    from bench.corpus import bench_settings, open_engine, prebuilt_corpus
    from bench.query_sets import query_set
    from bench.realistic_text import corpus_queries, corpus_text

    asked = corpus_queries(seed, warmup + queries, text=corpus_text(root / "corpus"), scratch=root / "real-texts")
    embedder = load_shared_embedder(bench_settings())
    profiler = cProfile.Profile(time.process_time)  # CPU, not wall: the machines are shared
    answers = hashlib.sha256()
    spent: list[float] = []
    with open_engine(prebuilt_corpus(root), root / "index", embedder) as engine:
        asked = query_set(asking, engine, realistic=asked, seed=seed)
        for query in asked[:warmup]:
            engine.search(query, mode=mode, limit=10)
        for query in asked[warmup:]:
            embedder.forget_queries()
            used = time.process_time()
            profiler.enable()
            found = engine.search(query, mode=mode, limit=10)
            profiler.disable()
            spent.append(1000 * (time.process_time() - used))
            ranked = [(hit["id"], hit.get("messageId"), hit["score"]) for hit in found["results"]]
            answers.update(json.dumps([mode, query, ranked]).encode())
    if dump is not None:
        profiler.dump_stats(dump)
    out = io.StringIO()
    asked_set = "" if asking == "realistic" else f" ({asking})"
    out.write(
        f"{mode}{asked_set}: {len(spent)} searches, CPU p50 {percentile(spent, 50):.2f} ms under the profiler, "
        f"answers {answers.hexdigest()[:16]}, load {os.getloadavg()}\n"
    )
    for order in ("tottime", "cumulative"):
        stats = pstats.Stats(profiler, stream=out)
        stats.sort_stats(order).print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path, help="a folder holding corpus/ and index/ (bench/speed.py --prebuilt)")
    parser.add_argument("--mode", choices=("hybrid", "vector", "keyword"), default="hybrid")
    parser.add_argument("--set", choices=SETS, default="realistic", help="the queries asked (bench/query_sets.py)")
    parser.add_argument("--queries", type=int, default=300, help="searches profiled")
    parser.add_argument("--warmup", type=int, default=30, help="searches asked first, not profiled")
    parser.add_argument("--seed", type=int, default=43, help="the queries' seed (keyword_latency.py asks 43)")
    parser.add_argument("--top", type=int, default=40, help="functions listed in each table")
    parser.add_argument("--dump", type=Path, help="also write the profile here (pstats: callers, snakeviz...)")
    args = parser.parse_args(argv)
    if not (args.root / "index").is_dir() or not (args.root / "corpus").is_dir():
        raise SystemExit(f"{args.root} holds no corpus/ and index/ (bench/speed.py --prebuilt)")
    print(
        profile(
            args.root,
            mode=args.mode,
            queries=args.queries,
            seed=args.seed,
            warmup=args.warmup,
            top=args.top,
            dump=args.dump,
            asking=args.set,
        )
    )


if __name__ == "__main__":
    main()
