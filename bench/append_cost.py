"""What one append costs on a large index, and what a message costs on disk.

On a copy of an index built earlier (`bench/synthetic_vectors.py` makes one with stand-in vectors: these figures
depend on the index's size, not on what its vectors say), this opens the engine with the real model, lets its
first whole sync settle, then appends one message at a time to a transcript and times what a watcher does for it:
`sync_paths` of that file, then one embedding batch, until a keyword and a vector search find the message. Process
CPU time is taken beside wall time. Then it reopens the index (what a server's start costs) and reports the bytes
on disk per unit: the catalog, its vector blobs, the vector file(s) and tantivy.

    python bench/append_cost.py PREBUILT --appends 40 [--profile 3] [--copied 20]

With `--copied N`, the appends go to N transcripts each copied beside itself first (`x.jsonl.bak`, as a user's hand
copy): every append then writes to a session two files hold, whose messages the writer counts once
(catalog/copies.py).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import dir_bytes, load_shared_embedder, peak_rss_mb, percentile
from bench.corpus import bench_settings, open_engine, prebuilt_corpus
from bench.speed_probes import _append_line, reset_peak_rss
from bench.speed_report import lscpu_model


def disk_bytes(index: Path, units: int) -> dict[str, Any]:
    """Bytes per unit of each part of the index (an older catalog's vector blobs counted inside the catalog;
    the current one keeps none: the vector file holds them)."""
    import sqlite3

    db = sqlite3.connect(index / "catalog.sqlite3")
    try:
        legacy = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'vectors'").fetchone()
        sql = "SELECT COALESCE(SUM(LENGTH(vec)), 0) FROM vectors"
        blobs = int(db.execute(sql).fetchone()[0]) if legacy else 0
    finally:
        db.close()
    catalog = (index / "catalog.sqlite3").stat().st_size
    vector_files = sum(p.stat().st_size for p in index.glob("vectors-*"))
    keyword = dir_bytes(index / "keyword")
    total = dir_bytes(index)
    per = max(units, 1)
    return {
        "units": units,
        "totalPerUnit": round(total / per),
        "catalogPerUnit": round(catalog / per),
        "catalogVectorBlobsPerUnit": round(blobs / per),
        "vectorFilesPerUnit": round(vector_files / per),
        "keywordPerUnit": round(keyword / per),
    }


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("prebuilt", type=Path, help="ROOT with ROOT/corpus and ROOT/index (synthetic_vectors.py)")
    parser.add_argument("--appends", type=int, default=40)
    parser.add_argument("--profile", type=int, default=0, help="profile this many appends after the timed ones")
    parser.add_argument("--workdir", type=Path, default=None, help="where the copy goes (default: a temp dir)")
    parser.add_argument("--copied", type=int, default=0, help="append to N transcripts each copied beside itself")
    parser.add_argument(
        "--in-place",
        action="store_true",
        help="append to PREBUILT itself: a copy of a big corpus has new inodes, so its first sync reads every file",
    )
    args = parser.parse_args(argv)
    out: dict[str, Any] = {"lscpu": lscpu_model(), "loadavgStart": os.getloadavg()}
    embedder = load_shared_embedder(bench_settings())
    with tempfile.TemporaryDirectory(prefix="memlens-append-", dir=args.workdir) as tmp:
        root = args.prebuilt if args.in_place else Path(tmp)
        if not args.in_place:
            shutil.copytree(args.prebuilt / "index", root / "index")
            shutil.copytree(args.prebuilt / "corpus", root / "corpus", symlinks=False)
        corpus = prebuilt_corpus(root)
        rng = random.Random(5)
        # resolved: a prebuilt root's corpus is a symlink (synthetic_vectors.py), and a sync takes the real paths
        format_of = {p.resolve(): fmt for fmt, paths in corpus.by_format.items() for p in paths}
        paths = list(format_of)
        if args.copied:
            paths = rng.sample(paths, min(args.copied, len(paths)))
            for path in paths:
                shutil.copy(path, f"{path}.bak")
        out["copied"] = args.copied
        out["firstOpen"] = _open(corpus, root, embedder, settle=True)
        engine = open_engine(corpus, root / "index", embedder)
        len(engine.vectors)
        walls: list[float] = []
        cpus: list[float] = []
        for i in range(args.appends + args.profile):
            path = rng.choice(paths)
            fmt = format_of[path]
            word = f"zqappend{i}x{rng.randrange(10**6)}"
            _append_line(path, fmt, word)
            profiler = cProfile.Profile() if i >= args.appends else None
            started, cpu = time.perf_counter(), time.process_time()
            if profiler is not None:
                profiler.enable()
            engine.sync_paths([path], embed=False)
            engine.embed_pending(max_batches=1)
            if profiler is not None:
                profiler.disable()
                text = io.StringIO()
                pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(30)
                print(text.getvalue(), file=sys.stderr)
                continue
            walls.append(1000 * (time.perf_counter() - started))
            cpus.append(1000 * (time.process_time() - cpu))
            if not engine.search(word, mode="keyword", limit=1)["totalResults"]:
                raise SystemExit(f"append {i} not found by a keyword search")
        out["appendSync"] = {
            "appends": len(walls),
            "wallP50Ms": round(percentile(walls, 50), 1),
            "wallP95Ms": round(percentile(walls, 95), 1),
            "cpuP50Ms": round(percentile(cpus, 50), 1),
            "cpuP95Ms": round(percentile(cpus, 95), 1),
            "maxWallMs": round(max(walls), 1) if walls else 0.0,
        }
        engine.close()
        out["reopen"] = _open(corpus, root, embedder, settle=False)
        out["disk"] = disk_bytes(root / "index", out["reopen"]["vectors"])
    out["loadavgEnd"] = os.getloadavg()
    print(json.dumps(out, indent=2))
    return out


def _open(corpus: Any, root: Path, embedder: Any, *, settle: bool) -> dict[str, Any]:
    """Open the index and load its vectors (with `settle`: then one whole sync, as a server's start does)."""
    reset_peak_rss()
    started, cpu = time.perf_counter(), time.process_time()
    engine = open_engine(corpus, root / "index", embedder)
    vectors = len(engine.vectors)
    result: dict[str, Any] = {
        "seconds": round(time.perf_counter() - started, 2),
        "cpuS": round(time.process_time() - cpu, 2),
        "vectors": vectors,
    }
    if settle:
        engine.sync()
        result["settledS"] = round(time.perf_counter() - started, 2)
    result["peakRssMB"] = peak_rss_mb()
    engine.close()
    return result


if __name__ == "__main__":
    main()
