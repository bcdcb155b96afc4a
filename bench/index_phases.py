"""Cold indexing by phase: peak RSS (VmHWM, reset per phase), wall and CPU seconds of loading the model, reading
and writing the files (catalog + tantivy, no vectors), and embedding; then the vectors' checksum for A/B checks.

`python bench/index_phases.py --chunks 10000` (the corpus of bench/corpus.py, seed 7, written once under --root).
The machine is shared: CPU seconds per 1,000 units and peak RSS are the steady figures; the load is reported.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from bench.common import current_rss_mb, load_shared_embedder, peak_rss_mb
from bench.corpus import bench_settings, make_corpus, open_engine


def _reset_peak() -> None:
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def _phase(out: dict[str, Any], name: str, started: tuple[float, float], units: int = 0) -> None:
    wall, cpu = time.perf_counter() - started[0], time.process_time() - started[1]
    out[name] = {"s": round(wall, 2), "cpuS": round(cpu, 2), "peakRssMB": peak_rss_mb(), "rssMB": current_rss_mb()}
    if units:
        out[name]["cpuSPer1000Units"] = round(1000 * cpu / units, 2)
    print(f"{name}: {json.dumps(out[name])}", file=sys.stderr, flush=True)
    _reset_peak()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, default=10000)
    parser.add_argument("--root", type=Path, default=Path("/tmp/memlens-index-phases"))
    parser.add_argument("--save", type=Path, help="write the vectors (ordered by text hash) to this .npy file")
    args = parser.parse_args()
    out: dict[str, Any] = {"loadavgStart": os.getloadavg()}
    corpus = make_corpus(args.root / f"corpus-{args.chunks}", args.chunks, 7)
    index_dir = args.root / f"index-{args.chunks}"
    shutil.rmtree(index_dir, ignore_errors=True)
    _reset_peak()
    mark = (time.perf_counter(), time.process_time())
    settings = bench_settings()
    embedder = load_shared_embedder(settings)
    embedder.embed(["warm up the model"])
    _phase(out, "model", mark)
    mark = (time.perf_counter(), time.process_time())
    engine = open_engine(corpus, index_dir, embedder)
    engine.sync(embed=False)
    units = int(engine.catalog.db.execute("SELECT COUNT(*) FROM units").fetchone()[0])
    out["units"] = units
    _phase(out, "files", mark, units)
    mark = (time.perf_counter(), time.process_time())
    embedded = engine.embed_pending()
    out["embedded"] = embedded
    _phase(out, "embed", mark, units)
    out["loadavgEnd"] = os.getloadavg()
    if args.save:
        snapshot = engine.vectors._current()  # one row per text, in the order of their hashes
        first: dict[bytes, int] = {}
        for position, text_hash in enumerate(snapshot.hashes):
            first.setdefault(text_hash.tobytes(), position)
        positions = np.array([first[h] for h in sorted(first)], np.int64)
        np.save(args.save, snapshot.refined_rows(positions))
    engine.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
