"""Peak memory of the vector path during one long embedding run, without the model's own cost.

`bench/speed.py` measures a cold indexing with the real model; at 150k units that is about 25 minutes of embedding.
What grows with the index during such a run is not the model but the vector rows the engine holds and the vector
file it writes. This runs `Engine.embed_pending` on a keyword-only index (as `bench/speed.py --no-vectors` leaves
one) with a stand-in embedder that returns random unit vectors at once, so the run takes a minute and the peak RSS it
reports is the engine's: catalog, keyword index, vector rows and file. The real model adds its own (about 235 MB
loaded, and ONNX Runtime's buffers while it embeds).

    python bench/vector_growth.py W/corpus-100000 W/index-kw-100000
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from bench.common import current_rss_mb, machine_info, peak_rss_mb
from bench.corpus import Corpus, bench_settings, prebuilt_corpus
from bench.speed_probes import reset_peak_rss
from memlens.engine.engine import Engine
from memlens.engine.vectors.embedder import Embedder


class RandomVectors:
    """fastembed's `embed` face, returning random unit vectors at once (the stand-in model of this benchmark)."""

    def __init__(self, dim: int, seed: int) -> None:
        self.dim = dim
        self.rng = np.random.default_rng(seed)

    def embed(self, texts: Sequence[str], **_: object) -> list[np.ndarray]:
        rows = self.rng.standard_normal((len(texts), self.dim)).astype(np.float32)
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        return list(rows)


def run(corpus: Corpus, index: Path) -> dict[str, object]:
    embedder = Embedder(RandomVectors(384, 7), "bench/random-384", 384, batch_size=256)
    engine = Engine(
        [corpus.workspace],
        bench_settings(),
        extra_transcripts=[corpus.transcripts],
        index_dir=index,
        embedder=embedder,
    )
    try:
        reset_peak_rss()
        before = current_rss_mb()
        started, cpu = time.perf_counter(), time.process_time()
        embedded = engine.embed_pending()
        seconds, cpu_s = time.perf_counter() - started, time.process_time() - cpu
        files = sorted(index.glob("vectors-*.bin"))
        return {
            "unitsEmbedded": embedded,
            "seconds": round(seconds, 1),
            "cpuS": round(cpu_s, 1),
            "rssBeforeMB": before,
            "peakRssMB": peak_rss_mb(),
            "rssAfterMB": current_rss_mb(),
            "vectorFileMB": round(sum(f.stat().st_size for f in files) / 2**20, 1),
        }
    finally:
        engine.close()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path, help="the corpus folder a speed run left (corpus-N)")
    parser.add_argument("index", type=Path, help="its keyword-only index (index-kw-N), copied, never changed")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memlens-vector-growth-") as tmp:
        root = Path(tmp)
        shutil.copytree(args.index, root / "index")
        (root / "corpus").symlink_to(args.corpus.resolve())
        report: dict[str, object] = {"machine": machine_info(), "run": run(prebuilt_corpus(root), root / "index")}
        report["loadavgEnd"] = os.getloadavg()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
