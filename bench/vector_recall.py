"""Recall of the vector search against an exact float32 scan, on real vectors: what the int8 rows cost.

The rows are the bundled model's vectors of real messages: the turns of the five LoCoMo conversations and the
shared real transcripts' messages; to reach the size of a big index, they are followed by copies of themselves with
Gaussian noise (renormalised), the way round 2 grew real vectors to 150k rows. The queries are LoCoMo's questions
(a sample). These rankings are compared with the exact float32 top 10 over all rows:

- `memlens`: what a search does (vector_index.VectorIndex, asked for the default candidate count, as the engine
  asks): sign codes scanned by faiss, the best CODE_DEPTH by Hamming distance ordered by the query's dot product
  with their signs, the best RERANK of those re-scored from the int8 rows (quantized_rows.py), the best
  REFINED_TOP of those scored again from the int8 rows plus their 4-bit remainders;
- `vectorMode`: the same asked for twice the candidates, as vector mode asks;
- `hamming1000`: the best 1,000 by Hamming distance re-scored as above (what a search did before the products);
- `float16Top`: the same candidates as `memlens`, the best REFINED_TOP scored again from float16 rows (what it did
  before the remainders);
- `int8Rerank`: the same candidates ranked by their int8 rows alone (no second scoring);
- `float32Rerank`: the same candidates re-scored from float32 rows (what it did before the int8 rows);
- `int8Exact`: every row scored from the int8 rows (the re-rank's share of the loss, without the codes').

    python bench/vector_recall.py [--rows 150000] [--queries 200] [--noise 0.35] [--real-only]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from bench.common import load_shared_embedder, machine_info
from bench.corpus import bench_settings
from bench.locomo_data import load_conversation
from bench.speed import SHARED_TRANSCRIPTS, shared_texts
from memlens.engine.vectors.quantized_rows import QuantizedRows
from memlens.engine.vectors.vector_index import (
    CODE_DEPTH,
    REFINED_TOP,
    RERANK,
    RERANK_FACTOR,
    VectorIndex,
    code_candidates,
)
from memlens.engine.vectors.vector_snapshot import VectorRow, binary_codes
from memlens.settings import SearchSettings

LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "locomo"


def grown(real: np.ndarray, rows: int, noise: float, seed: int) -> np.ndarray:
    """`rows` unit vectors: the real ones, then noisy copies of them in turn."""
    rng = np.random.default_rng(seed)
    out = np.empty((rows, real.shape[1]), np.float32)
    out[: len(real)] = real[:rows]
    for start in range(len(real), rows, len(real)):
        end = min(rows, start + len(real))
        copy = real[: end - start] + noise * rng.standard_normal((end - start, real.shape[1])).astype(np.float32) / 20
        out[start:end] = copy / np.linalg.norm(copy, axis=1, keepdims=True)
    return out


def recall(found: list[list[int]], truth: list[list[int]]) -> float:
    hits = sum(len(set(f) & set(t)) for f, t in zip(found, truth, strict=True))
    return round(hits / max(1, sum(len(t) for t in truth)), 4)


def measure(*, rows: int, queries: int, noise: float, seed: int = 11, real_only: bool = False) -> dict[str, Any]:
    files = sorted(LOCOMO.glob("*.json"))
    if not SHARED_TRANSCRIPTS.is_dir() or not files:
        return {"skipped": f"{SHARED_TRANSCRIPTS} or {LOCOMO} is absent"}
    embedder = load_shared_embedder(bench_settings())
    with tempfile.TemporaryDirectory(prefix="memlens-recall-") as tmp:
        kept = shared_texts(Path(tmp))
    questions: list[str] = []
    for path in files:
        conversation = load_conversation(path)
        kept += [turn.text for session in conversation.sessions for turn in session.turns if turn.text.strip()]
        questions += [question.text for question in conversation.questions]
    picked = np.random.default_rng(seed).permutation(len(questions))[:queries]
    asked = [questions[i] for i in picked]
    started = time.process_time()
    real = np.asarray(embedder.embed(kept), dtype=np.float32)
    query_vectors = np.vstack([embedder.embed_query(q) for q in asked]).astype(np.float32)
    embed_cpu = time.process_time() - started
    matrix = real if real_only else grown(real, rows, noise, seed)
    index = VectorIndex(matrix.shape[1])
    index.update(add=[VectorRow(i, "transcript", "", "", "", float("nan"), v) for i, v in enumerate(matrix)])
    quantized = QuantizedRows.of(matrix)
    codes = binary_codes(matrix)
    import faiss

    truth: list[list[int]] = []
    found: dict[str, list[list[int]]] = {
        name: []
        for name in ("memlens", "vectorMode", "hamming1000", "float16Top", "int8Rerank", "float32Rerank", "int8Exact")
    }
    errors: list[float] = []
    depth = SearchSettings().candidates
    rerank = max(RERANK, RERANK_FACTOR * depth)
    for query in query_vectors:
        truth.append(np.argsort(-(matrix @ query), kind="stable")[:10].tolist())
        returned = index.search(query, depth)[:10]
        found["memlens"].append([unit_id for unit_id, _ in returned])
        found["vectorMode"].append([unit_id for unit_id, _ in index.search(query, 2 * depth)[:10]])
        errors += [abs(score - float(matrix[unit_id] @ query)) for unit_id, score in returned]
        _, near = faiss.knn_hamming(binary_codes(query[np.newaxis, :]), codes, 1000, variant="mc")
        by_hamming = near[0][near[0] >= 0].astype(np.int64)
        by_hamming = by_hamming[np.argsort(-quantized.scores(by_hamming, query), kind="stable")][:REFINED_TOP]
        refined = quantized.refined_rows(by_hamming) @ query
        found["hamming1000"].append(by_hamming[np.argsort(-refined, kind="stable")[:10]].tolist())
        candidates = code_candidates(codes, query, rerank)
        by_int8 = candidates[np.argsort(-quantized.scores(candidates, query), kind="stable")]
        found["int8Rerank"].append(by_int8[:10].tolist())
        top = by_int8[:REFINED_TOP]
        float16 = matrix[top].astype(np.float16).astype(np.float32) @ query
        found["float16Top"].append(top[np.argsort(-float16, kind="stable")[:10]].tolist())
        exact = matrix[candidates] @ query
        found["float32Rerank"].append(candidates[np.argsort(-exact, kind="stable")[:10]].tolist())
        found["int8Exact"].append(np.argsort(-quantized.scores(slice(None), query), kind="stable")[:10].tolist())
    return {
        "realVectors": len(real),
        "rows": len(matrix),
        "queries": len(query_vectors),
        "noise": noise,
        "codeDepth": CODE_DEPTH,
        "rerank": rerank,
        "refinedTop": REFINED_TOP,
        "embedCpuS": round(embed_cpu, 1),
        "recallAt10": {name: recall(f, truth) for name, f in found.items()},
        "returnedCosineError": {"mean": float(np.mean(errors)), "max": float(np.max(errors))},
        "machine": machine_info(),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=150_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--noise", type=float, default=0.35, help="noise scale of the grown copies")
    parser.add_argument("--real-only", action="store_true", help="only the real vectors (--rows is ignored)")
    args = parser.parse_args(argv)
    load = os.getloadavg()
    figures = measure(rows=args.rows, queries=args.queries, noise=args.noise, real_only=args.real_only)
    print(json.dumps({"loadavgStart": load, **figures, "loadavgEnd": os.getloadavg()}, indent=2))


if __name__ == "__main__":
    main()
