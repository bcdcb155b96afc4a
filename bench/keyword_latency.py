"""Keyword search CPU per query on a prebuilt index, in a fresh process: `engine.search` (mode keyword, limit 10)
p50 / p95 / p99, the parts inside it (the two tantivy searches: the message field, the ±2-message context field; the
session titles' reads of each session's first user messages), and a digest of every answer (ids and scores), so an
A/B can say its trees answered the same.

The child opens an index built earlier (`ROOT/corpus`, `ROOT/index`, as `bench/speed.py --prebuilt` takes it) with
the bundled model loaded, as `speed.py --prebuilt` searches it (a transcript's place in its session then comes from
the vectors in memory), and asks the realistic queries `speed.py` asks (seed 43). `--ab OTHER/server` runs this
tree's server and another's in fresh processes, alternated, `--rounds` times; give the other tree its own copy of
the index with `--ab-root ROOT2` when either may migrate what it opens.

    python bench/keyword_latency.py ROOT [--queries 300] [--ab BASE/server [--ab-root ROOT2] --rounds 3]
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

from bench.common import ab_arguments, alternate_trees, load_shared_embedder, percentile, run_in_child

WARMUP = 10  # queries asked before the timed pass (not timed): the first searches page in the index


def child(root: Path, queries: int, seed: int) -> dict[str, Any]:
    """In the fresh process: open, search, report."""
    from bench.corpus import bench_settings, open_engine, prebuilt_corpus
    from bench.realistic_text import corpus_text
    from bench.speed import _queries

    asked = _queries(seed, queries, text=corpus_text(root / "corpus"), scratch=root / "real-texts")
    embedder = load_shared_embedder(bench_settings())
    with open_engine(prebuilt_corpus(root), root / "index", embedder) as engine:
        parts: dict[str, float] = {}
        keyword, catalog = engine.retriever.keyword, engine.catalog
        search_field, early_texts = keyword.search, catalog.early_user_texts

        def timed_field(*args: Any, **kwargs: Any) -> Any:  # the tantivy search of one field and its unit ids
            used = time.process_time()
            found = search_field(*args, **kwargs)
            field = kwargs.get("field", args[2] if len(args) > 2 else "text")
            parts[field] = parts.get(field, 0.0) + 1000 * (time.process_time() - used)
            return found

        def timed_texts(*args: Any, **kwargs: Any) -> Any:  # the session titles' reads of first user messages
            used = time.process_time()
            found = early_texts(*args, **kwargs)
            parts["titleTexts"] = parts.get("titleTexts", 0.0) + 1000 * (time.process_time() - used)
            return found

        keyword.search = timed_field  # type: ignore[method-assign]
        catalog.early_user_texts = timed_texts  # type: ignore[method-assign]
        for query in asked[:WARMUP]:
            engine.search(query, mode="keyword", limit=10)
        answers = hashlib.sha256()
        spent: dict[str, list[float]] = {"search": [], "text": [], "context": [], "titleTexts": []}
        wall: list[float] = []
        for query in asked:
            parts.clear()
            started, used = time.perf_counter(), time.process_time()
            found = engine.search(query, mode="keyword", limit=10)
            spent["search"].append(1000 * (time.process_time() - used))
            wall.append(1000 * (time.perf_counter() - started))
            for part in ("text", "context", "titleTexts"):
                spent[part].append(parts.get(part, 0.0))
            ranked = [(hit["id"], hit.get("messageId"), hit["score"]) for hit in found["results"]]
            answers.update(json.dumps([query, ranked]).encode())
        units = engine.catalog.count("units")
    import memlens

    return {
        "server": str(Path(memlens.__file__).parents[1]),  # which tree's memlens ran (an A/B's)
        "units": units,
        "queries": len(asked),
        "resultsSha256": answers.hexdigest()[:16],
        "cpuMs": {name: _spread(values) for name, values in spent.items()},
        "wallMs": _spread(wall),
    }


def _spread(values: list[float]) -> dict[str, float]:
    spread = {f"p{q}": round(percentile(values, q), 2) for q in (50, 95, 99)}
    return {**spread, "mean": round(sum(values) / max(1, len(values)), 2)}


def measure(root: Path, *, queries: int = 300, seed: int = 43, server: Path | None = None) -> dict[str, Any]:
    """Run `child` in a new interpreter (with `server`: that tree's memlens) and return its figures (or why it
    could not run)."""
    if not (root / "index").is_dir() or not (root / "corpus").is_dir():
        return {"skipped": f"{root} holds no corpus/ and index/ (bench/speed.py --prebuilt)"}
    return run_in_child("keyword_latency", f"child(pathlib.Path({str(root)!r}), {queries}, {seed})", server=server)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path, help="a folder holding corpus/ and index/ (bench/speed.py --prebuilt)")
    parser.add_argument("--queries", type=int, default=300, help="keyword queries, timed once each")
    ab_arguments(parser, rounds=3)
    args = parser.parse_args(argv)
    if args.ab is not None:
        runs = alternate_trees(args, lambda where, server: measure(where, queries=args.queries, server=server))
        print(json.dumps({"runs": runs, "loadavgEnd": os.getloadavg()}, indent=2))
        return
    load = os.getloadavg()
    print(json.dumps({"loadavgStart": load, **measure(args.root, queries=args.queries), "loadavgEnd": os.getloadavg()}))


if __name__ == "__main__":
    main()
