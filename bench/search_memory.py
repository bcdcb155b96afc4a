"""Peak memory of a process that only serves searches: what `memlens serve` or `memlens mcp` holds once a big index
is open and queried, measured in a fresh process so nothing a benchmark did before (a cold indexing, a second
model, the previous engine's garbage) is counted.

The child opens an index built earlier (`ROOT/corpus`, `ROOT/index`, as `bench/speed.py --prebuilt` takes it) with
the bundled model, runs hybrid and keyword queries, and reports its peak RSS (VmHWM) beside what is resident at the
end, split as the kernel counts it: anonymous memory (the model, Python's objects: what the process costs) and
file-backed pages (tantivy's segments and the vector file, mapped: page cache, shared, dropped under pressure and
read back on the next touch).

    python bench/search_memory.py ROOT [--queries 300]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import load_shared_embedder, memory_status

REPO = Path(__file__).resolve().parents[1]


def child(root: Path, queries: int, seed: int) -> dict[str, Any]:
    """In the fresh process: open, query, report."""
    from bench.corpus import bench_settings, open_engine, prebuilt_corpus
    from bench.realistic_text import corpus_text
    from bench.speed import _queries

    asked = _queries(seed, queries, text=corpus_text(root / "corpus"), scratch=root / "real-texts")
    embedder = load_shared_embedder(bench_settings())
    after_model = memory_status()
    started, cpu = time.perf_counter(), time.process_time()
    with open_engine(prebuilt_corpus(root), root / "index", embedder) as engine:
        units = engine.catalog.count("units")
        for query in asked:
            embedder.forget_queries()  # every query embedded, as in the latency probes
            engine.search(query, mode="hybrid", limit=10)
            engine.search(query, mode="keyword", limit=10)
        vectors = len(engine.vectors)
        status = memory_status()
    return {
        "units": units,
        "vectors": vectors,
        "queries": queries,
        "modelLoadedMB": after_model.get("rssMB"),
        **status,
        "seconds": round(time.perf_counter() - started, 2),
        "cpuS": round(time.process_time() - cpu, 2),
    }


def measure(root: Path, *, queries: int = 300, seed: int = 8) -> dict[str, Any]:
    """Run `child` in a new interpreter and return its figures (or why it could not run)."""
    if not (root / "index").is_dir() or not (root / "corpus").is_dir():
        return {"skipped": f"{root} holds no corpus/ and index/ (bench/speed.py --prebuilt)"}
    call = f"m.child(pathlib.Path({str(root)!r}), {queries}, {seed})"
    code = f"import json, pathlib, bench.search_memory as m; print(json.dumps({call}))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), *sys.path])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, cwd=REPO, check=False)
    if done.returncode:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        return {"skipped": f"the search process failed (exit {done.returncode}): {tail[0]}"}
    result: dict[str, Any] = json.loads(done.stdout.decode().strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path, help="a folder holding corpus/ and index/ (bench/speed.py --prebuilt)")
    parser.add_argument("--queries", type=int, default=300, help="hybrid + keyword queries, each embedded afresh")
    args = parser.parse_args(argv)
    print(json.dumps({"loadavgStart": os.getloadavg(), **measure(args.root, queries=args.queries)}, indent=2))


if __name__ == "__main__":
    main()
