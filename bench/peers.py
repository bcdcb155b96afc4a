"""memlens beside the tools a user could reach for instead, on one index and one set of queries, in one run.

On an index built earlier (`ROOT/corpus` and `ROOT/index`, as `bench/speed.py --prebuilt` takes it), this times, in
CPU seconds of this process (ripgrep: of its child), the same queries through:

- memlens: `Engine.search` keyword and hybrid (query embedding included, every query embedded afresh);
- plain tantivy: one text field, tantivy's default tokenizer, BM25 top 10 of the query's words (a disjunction);
- SQLite FTS5: the same words OR-ed, `ORDER BY rank LIMIT 10` (bm25);
- an exact numpy scan: every stored vector (float32) against the query vector, the top 10 by argpartition;
- ripgrep: `rg -i -c` of the query's words over the corpus's files (no ranking at all: a lower bound on a grep).

The peers index the catalog's stored texts (what memlens itself indexed), and their build CPU is reported as the
cold-indexing peers. Ratios are each peer's CPU p50 over memlens keyword's (hybrid's, for the numpy scan).

    python bench/peers.py ROOT [--queries 300] [--grep-queries 20]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from bench.common import load_shared_embedder, peak_rss_mb, percentile
from bench.corpus import bench_settings, open_engine, prebuilt_corpus
from bench.realistic_text import corpus_queries, corpus_text
from bench.speed_report import lscpu_model
from memlens.engine.catalog import Catalog

_WORD = re.compile(r"\w+")


def _cpu_ms(run: Callable[[Any], object], queries: Sequence[Any]) -> dict[str, float]:
    times = []
    for query in queries:
        started = time.process_time()
        run(query)
        times.append(1000 * (time.process_time() - started))
    return {"p50": round(percentile(times, 50), 2), "p99": round(percentile(times, 99), 2)}


def _words(query: str) -> list[str]:
    return _WORD.findall(query.lower())


def texts_of(index: Path) -> list[str]:
    catalog = Catalog(index / "catalog.sqlite3")  # its `plain_units` reads the texts stored compressed
    try:
        return [str(row[0]) for row in catalog.db.execute("SELECT text FROM plain_units ORDER BY id")]
    finally:
        catalog.close()


def elapsed_since(started: float, cpu: float) -> dict[str, float]:
    """Wall and CPU seconds since `started`/`cpu`, to 0.1 ms: a tiny corpus builds in well under 10 ms."""
    return {"s": round(time.perf_counter() - started, 4), "cpuS": round(time.process_time() - cpu, 4)}


def plain_tantivy(texts: Sequence[str], folder: Path) -> tuple[Any, dict[str, float]]:
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("text", stored=False)
    schema = builder.build()
    started, cpu = time.perf_counter(), time.process_time()
    index = tantivy.Index(schema, path=str(folder))
    writer = index.writer(heap_size=256_000_000, num_threads=1)
    for text in texts:
        writer.add_document(tantivy.Document(text=text))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    build = elapsed_since(started, cpu)
    return index, build


def fts5(texts: Sequence[str], path: Path) -> tuple[sqlite3.Connection, dict[str, float]]:
    started, cpu = time.perf_counter(), time.process_time()
    db = sqlite3.connect(path)
    db.execute("CREATE VIRTUAL TABLE t USING fts5(text)")
    with db:
        db.executemany("INSERT INTO t(text) VALUES (?)", ((t,) for t in texts))
    build = elapsed_since(started, cpu)
    return db, build


def grep_cpu_ms(folder: Path, queries: Sequence[str]) -> dict[str, float]:
    times = []
    for query in queries:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        patterns = [arg for word in _words(query) for arg in ("-e", word)]
        subprocess.run(["rg", "-i", "-c", *patterns, str(folder)], stdout=subprocess.DEVNULL, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(1000 * (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime))
    return {"p50": round(percentile(times, 50), 2), "p99": round(percentile(times, 99), 2)}


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path, help="ROOT with ROOT/corpus and ROOT/index")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--grep-queries", type=int, default=20, help="ripgrep reads every file per query")
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--workdir", type=Path, default=None, help="where the peers' indexes go (default: temp)")
    args = parser.parse_args(argv)
    root: Path = args.root
    out: dict[str, Any] = {"lscpu": lscpu_model(), "loadavgStart": os.getloadavg()}
    asked = corpus_queries(args.seed, args.queries, text=corpus_text(root / "corpus"), scratch=root / "real-texts")

    def log(name: str) -> None:
        print(f"{name}: {json.dumps(out[name])}", file=sys.stderr, flush=True)

    embedder = load_shared_embedder(bench_settings())
    with open_engine(prebuilt_corpus(root), root / "index", embedder) as engine:
        out["units"] = engine.catalog.count("units")
        out["keyword"] = _cpu_ms(lambda q: engine.search(q, mode="keyword", limit=10), asked)
        log("keyword")
        if len(engine.vectors):

            def hybrid(query: str) -> object:
                embedder.forget_queries()
                return engine.search(query, mode="hybrid", limit=10)

            out["hybrid"] = _cpu_ms(hybrid, asked)
            log("hybrid")
        held = engine.vectors._current()
        vectors = list(held.refined_rows(np.arange(len(held.ids))))
        query_vectors = [np.asarray(embedder.embed_query(q), dtype=np.float32) for q in asked]
    texts = texts_of(root / "index")
    with tempfile.TemporaryDirectory(prefix="memlens-peers-") as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        (work / "tantivy").mkdir(exist_ok=True)
        index, out["tantivyBuild"] = plain_tantivy(texts, work / "tantivy")
        log("tantivyBuild")
        searcher = index.searcher()
        out["tantivy"] = _cpu_ms(lambda q: searcher.search(index.parse_query(q, ["text"]), 10, count=False), asked)
        log("tantivy")
        db, out["fts5Build"] = fts5(texts, work / "fts5.sqlite3")
        log("fts5Build")
        sql = "SELECT rowid FROM t WHERE t MATCH ? ORDER BY rank LIMIT 10"
        out["fts5"] = _cpu_ms(lambda q: db.execute(sql, (" OR ".join(f'"{w}"' for w in _words(q)),)).fetchall(), asked)
        log("fts5")
        db.close()
    del texts
    if vectors:
        matrix = np.vstack(vectors).astype(np.float32)
        del vectors

        def scan(query: np.ndarray) -> object:
            scores = matrix @ query
            top = np.argpartition(-scores, 10)[:10]
            return top[np.argsort(-scores[top])]

        out["numpyExact"] = _cpu_ms(scan, query_vectors)
        log("numpyExact")
    out["ripgrep"] = grep_cpu_ms(root / "corpus", asked[: args.grep_queries])
    log("ripgrep")
    base = out["keyword"]["p50"]
    out["ratios"] = {
        "fts5/keyword": round(out["fts5"]["p50"] / base, 1),
        "tantivy/keyword": round(out["tantivy"]["p50"] / base, 2),
        "ripgrep/keyword": round(out["ripgrep"]["p50"] / base, 1),
    }
    if "numpyExact" in out and "hybrid" in out:
        out["ratios"]["numpyExact/hybrid"] = round(out["numpyExact"]["p50"] / out["hybrid"]["p50"], 1)
    out["peakRssMB"] = peak_rss_mb()
    out["loadavgEnd"] = os.getloadavg()
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
