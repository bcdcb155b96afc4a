"""Give every text of a keyword-only index a stand-in vector, so the 100k timings run without 40 minutes of embedding.

`bench/speed.py --prebuilt ROOT` times search, warm start and appends on an index built earlier. Embedding the 150k
units of the 100k corpus takes about 40 minutes of a quiet machine; the latency of a search does not depend on what
the vectors say (the sign-code scan and the exact re-rank do the same work for any vector), so this fills the
index with random unit vectors for the configured model instead. Their search results mean nothing: quality
figures never come from such an index, and every figure measured on one says so.

    python bench/speed.py --sizes 100000 --no-vectors --no-shared --workdir W  # W/corpus-100000, W/index-kw-100000
    python bench/synthetic_vectors.py W/corpus-100000 W/index-kw-100000 PREBUILT  # PREBUILT/corpus, PREBUILT/index
    python bench/speed.py --sizes "" --prebuilt PREBUILT --no-shared
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from bench.common import load_shared_embedder
from bench.corpus import Corpus, bench_settings, open_engine, prebuilt_corpus
from memlens.engine.vectors.embedder import Embedder

BATCH = 5_000


class RandomUnitVectors:
    """A stand-in model (fastembed's `embed` face): a random unit vector for every text it is asked for."""

    def __init__(self, dim: int, seed: int) -> None:
        self.dim = dim
        self.rng = np.random.default_rng(seed)

    def embed(self, texts: list[str], **_: object) -> list[np.ndarray]:
        rows = self.rng.standard_normal((len(texts), self.dim)).astype(np.float32)
        return list(rows / np.linalg.norm(rows, axis=1, keepdims=True))


def fill(corpus: Corpus, index: Path, *, model: str, dim: int, seed: int) -> int:
    """Give every text of the index at `index` that has no vector a random unit vector named `model`, through the
    index's own writer (the vector file is where vectors live); returns how many texts. The index's words are left
    to the real model (query expansion reads their vectors)."""
    embedder = Embedder(RandomUnitVectors(dim, seed), model, dim, batch_size=BATCH)
    with open_engine(corpus, index, embedder) as engine:
        return engine.indexer.embedding.embed_pending(words=False)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path, help="the corpus folder a speed run left (corpus-N)")
    parser.add_argument("index", type=Path, help="its keyword-only index (index-kw-N)")
    parser.add_argument("out", type=Path, help="the folder for --prebuilt: OUT/corpus (a link) and OUT/index (a copy)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    index = args.out / "index"
    shutil.rmtree(index, ignore_errors=True)
    shutil.copytree(args.index, index)
    link = args.out / "corpus"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(args.corpus.resolve())
    embedder = load_shared_embedder(bench_settings())  # only for its name and dimension: nothing is embedded
    dim, model = embedder.info.dim, embedder.info.name
    started, cpu = time.perf_counter(), time.process_time()
    stored = fill(prebuilt_corpus(args.out), index, model=model, dim=dim, seed=args.seed)
    print(
        f"{stored} random {dim}-dimensional vectors for {model} in {time.perf_counter() - started:.1f} s "
        f"({time.process_time() - cpu:.1f} s CPU); --prebuilt {args.out}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
