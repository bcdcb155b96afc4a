"""Peak memory of a process that only serves searches: what `memlens serve` or `memlens mcp` holds once a big index
is open and queried, measured in a fresh process so nothing a benchmark did before (a cold indexing, a second
model, the previous engine's garbage) is counted.

The child opens an index built earlier (`ROOT/corpus`, `ROOT/index`, as `bench/speed.py --prebuilt` takes it) with
the bundled model, runs hybrid and keyword queries, and reports its peak RSS (VmHWM) beside what is resident at the
end, split as the kernel counts it: anonymous memory (the model, Python's objects: what the process costs) and
file-backed pages (tantivy's segments and the vector file, mapped: page cache, shared, dropped under pressure and
read back on the next touch).

It also says where the resident memory lies (/proc/self/smaps: the vector file, the catalog, the keyword index,
other files, anonymous memory) and, for an A/B, each search's CPU time by mode: the first pass (hybrid, keyword:
what the peak is measured on), then a second pass of keyword, hybrid and vector searches on the warm process.
`--ab OTHER/server` runs this tree's server and another's in fresh processes, alternated, `--rounds` times; with
`--ab-root ROOT2` the other tree opens its own copy of the index (a change of the vector file's layout: each tree
would rebuild the other's file).

    python bench/search_memory.py ROOT [--queries 300] [--ab /tmp/base/server [--ab-root ROOT2] --rounds 2]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import ab_arguments, load_shared_embedder, memory_status, print_figures, run_in_child

REPO = Path(__file__).resolve().parents[1]


def child(root: Path, queries: int, seed: int) -> dict[str, Any]:
    """In the fresh process: open, query, report."""
    from bench.corpus import bench_settings, open_engine, prebuilt_corpus
    from bench.realistic_text import corpus_queries, corpus_text

    asked = corpus_queries(seed, queries, text=corpus_text(root / "corpus"), scratch=root / "real-texts")
    embedder = load_shared_embedder(bench_settings())
    after_model = memory_status()
    started, cpu = time.perf_counter(), time.process_time()
    first: dict[str, list[float]] = {"hybrid": [], "keyword": []}
    again: dict[str, list[float]] = {"keyword": [], "hybrid": [], "vector": []}
    with open_engine(prebuilt_corpus(root), root / "index", embedder) as engine:
        units = engine.catalog.count("units")

        answers = hashlib.sha256()  # the first pass's results: an A/B's trees must give the same

        def timed(spent: dict[str, list[float]], query: str, mode: str) -> None:
            embedder.forget_queries()  # every query embedded, as in the latency probes
            used = time.process_time()
            found = engine.search(query, mode=mode, limit=10)
            spent[mode].append(1000 * (time.process_time() - used))
            if spent is first:
                ranked = [(hit["id"], hit.get("messageId"), hit["score"]) for hit in found["results"]]
                answers.update(json.dumps([mode, query, ranked]).encode())

        for query in asked:
            for mode in first:
                timed(first, query, mode)
        vectors = len(engine.vectors)
        status = memory_status()
        where = resident_by_place(root / "index")
        seconds, cpu_s = round(time.perf_counter() - started, 2), round(time.process_time() - cpu, 2)
        for query in asked:  # not part of the peak: the per-mode CPU of a warm process
            for mode in again:
                timed(again, query, mode)
    import memlens

    return {
        "server": str(Path(memlens.__file__).parents[1]),  # which tree's memlens ran (an A/B's)
        "units": units,
        "vectors": vectors,
        "queries": queries,
        "modelLoadedMB": after_model.get("rssMB"),
        **status,
        "residentMB": where,
        "resultsSha256": answers.hexdigest()[:16],
        "seconds": seconds,
        "cpuS": cpu_s,
        "firstPassCpuMs": {mode: _spread(spent) for mode, spent in first.items()},
        "warmCpuMs": {mode: _spread(spent) for mode, spent in again.items()},
    }


def _spread(spent: list[float]) -> dict[str, float]:
    ordered = sorted(spent)
    return {
        "p50": round(ordered[len(ordered) // 2], 2),
        "p99": round(ordered[min(len(ordered) - 1, (99 * len(ordered)) // 100)], 2),
    }


def resident_by_place(index: Path) -> dict[str, float]:
    """This process's resident MiB by what is mapped (/proc/self/smaps): the index's files by name (the keyword
    index's by kind), other files, anonymous memory. Empty where there is no smaps."""
    try:
        lines = Path("/proc/self/smaps").read_text().splitlines()
    except OSError:
        return {}
    kib: dict[str, int] = {}
    place = "anonymous"
    prefix = f"{index.resolve()}{os.sep}"
    for line in lines:
        fields = line.split(None, 5)
        if fields and "-" in fields[0] and not fields[0].endswith(":"):  # a mapping's first line
            path = fields[5].strip() if len(fields) > 5 else ""
            if not path.startswith(os.sep):
                place = "anonymous"  # no file: [heap], [stack], anonymous maps
            elif path.startswith(prefix):
                name = path[len(prefix) :]
                if name.startswith("keyword"):  # tantivy's files by kind: postings, positions, terms, store...
                    place = f"keyword index {Path(name).suffix}"
                else:
                    place = name.split(os.sep)[0].split("-")[0]
            else:
                place = "other files"
        elif fields and fields[0] == "Rss:":
            kib[place] = kib.get(place, 0) + int(fields[1])
    return {name: round(size / 1024, 1) for name, size in sorted(kib.items(), key=lambda item: -item[1])}


def measure(root: Path, *, queries: int = 300, seed: int = 8, server: Path | None = None) -> dict[str, Any]:
    """Run `child` in a new interpreter (with `server`: that tree's memlens) and return its figures (or why it
    could not run)."""
    if not (root / "index").is_dir() or not (root / "corpus").is_dir():
        return {"skipped": f"{root} holds no corpus/ and index/ (bench/speed.py --prebuilt)"}
    return run_in_child("search_memory", f"child(pathlib.Path({str(root)!r}), {queries}, {seed})", server=server)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path, help="a folder holding corpus/ and index/ (bench/speed.py --prebuilt)")
    parser.add_argument("--queries", type=int, default=300, help="hybrid + keyword queries, each embedded afresh")
    ab_arguments(parser, rounds=2)
    args = parser.parse_args(argv)
    print_figures(args, lambda where, server: measure(where, queries=args.queries, server=server))


if __name__ == "__main__":
    main()
