"""The CPU of one vector search on a big index, by filter, and where it goes: the vector half of a hybrid search.

It opens the vector file of an index built earlier (`ROOT/index`, as `bench/speed.py --prebuilt` takes it) as a
search reads it and runs random unit queries (the cost of a search does not depend on what the vectors say; its
quality is bench/vector_recall.py's) through `VectorIndex.search`, asked for 100 results as hybrid asks, with:

- `none`: no filter;
- `leaveOutKind`: a kind left out, as every plain query leaves tool output out (the stand-in corpus has no tool
  output: its `memory` units, a third of the rows, stand in for it);
- `roleUser`: one role, a third of the rows kept.

It reports thread CPU p50/p99 per filter and, where this tree's search has them, its parts for the unfiltered
search: the codes (the Hamming scan and the choice of candidates), reading the candidates' int8 rows, scoring
them, and the best few scored again with their remainders. `--ab OTHER/server` runs this tree and another in fresh
processes, alternated, `--rounds` times (the parts only where the tree has them).

    python bench/vector_search_cost.py ROOT [--queries 300] [--ab /tmp/base/server --rounds 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import ab_arguments, print_figures, run_in_child

LIMIT = 100  # hybrid's candidates (search.candidates)


def _spread(spent: list[float]) -> dict[str, float]:
    ordered = sorted(spent)
    return {
        "p50": round(ordered[len(ordered) // 2], 3),
        "p99": round(ordered[min(len(ordered) - 1, (99 * len(ordered)) // 100)], 3),
    }


def child(root: Path, queries: int) -> dict[str, Any]:
    """In a fresh process: open the vector file, search, report."""
    import numpy as np

    import memlens
    from memlens.engine.filters import SearchFilters
    from memlens.engine.vectors import vector_file, vector_index
    from memlens.engine.vectors.vector_index import VectorIndex
    from memlens.engine.vectors.vector_snapshot import VectorSnapshot

    path = next((root / "index").glob("vectors-*.bin"))
    model, dim = _model(path)
    index = VectorIndex(dim)
    stored = vector_file.read(path, stamp=None, model=model, dim=dim)
    assert stored is not None
    snapshot = VectorSnapshot.stored(stored)
    index._snapshot = snapshot
    rng = np.random.default_rng(5)
    asked = rng.standard_normal((queries, index.dim)).astype(np.float32)
    asked /= np.linalg.norm(asked, axis=1, keepdims=True)
    filters = {
        "none": None,
        "leaveOutKind": SearchFilters(without_kind="memory"),
        "roleUser": SearchFilters(role="user"),
    }
    spent: dict[str, list[float]] = {name: [] for name in filters}
    for query in asked[:10]:  # faiss, BLAS and the kind's rows set up, outside the timings
        for chosen in filters.values():
            index.search(query, LIMIT, chosen)
    for query in asked:
        for name, chosen in filters.items():
            used = time.thread_time()
            index.search(query, LIMIT, chosen)
            spent[name].append(1000 * (time.thread_time() - used))
    figures: dict[str, Any] = {
        "server": str(Path(memlens.__file__).parents[1]),
        "rows": len(snapshot.ids),
        "queries": queries,
        "cpuMs": {name: _spread(times) for name, times in spent.items()},
    }
    if hasattr(vector_index, "code_candidates"):
        figures["partsMs"] = _parts(snapshot, asked)
    return figures


def _parts(snapshot: Any, asked: Any) -> dict[str, dict[str, float]]:
    """Where an unfiltered search's CPU goes, its steps taken one by one as VectorIndex.search takes them."""
    import numpy as np

    from memlens.engine.vectors import vector_index as vi

    depth = max(vi.RERANK, vi.RERANK_FACTOR * LIMIT)
    parts: dict[str, list[float]] = {"codes": [], "int8RowsRead": [], "int8Scores": [], "refined": []}
    for query in asked:
        marks = [time.thread_time()]
        candidates = vi.code_candidates(snapshot.codes, query, depth)
        marks.append(time.thread_time())
        values = snapshot.value_rows(candidates)
        marks.append(time.thread_time())
        scores = snapshot.scores_of(candidates, values, query)
        top = np.argpartition(-scores, vi.REFINED_TOP - 1)[: vi.REFINED_TOP]
        marks.append(time.thread_time())
        snapshot.refined_scores(candidates[top], query, values=values[top])
        marks.append(time.thread_time())
        for name, start, end in zip(parts, marks, marks[1:], strict=False):
            parts[name].append(1000 * (end - start))
    return {name: _spread(times) for name, times in parts.items()}


def _model(path: Path) -> tuple[str, int]:
    """The vector file's model and dimension, from its header."""
    import struct

    from memlens.engine.vectors import vector_file

    with path.open("rb") as handle:
        head = handle.read(len(vector_file.MAGIC) + 4)
        (length,) = struct.unpack("<I", head[len(vector_file.MAGIC) :])
        header = json.loads(handle.read(length))
    return str(header["model"]), int(header["dim"])


def measure(root: Path, *, queries: int, server: Path | None = None) -> dict[str, Any]:
    if not list((root / "index").glob("vectors-*.bin")):
        return {"skipped": f"{root}/index holds no vector file (bench/speed.py --prebuilt)"}
    return run_in_child("vector_search_cost", f"child(pathlib.Path({str(root)!r}), {queries})", server=server)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path, help="a folder holding index/ (bench/speed.py --prebuilt)")
    parser.add_argument("--queries", type=int, default=300)
    ab_arguments(parser, rounds=2)
    args = parser.parse_args(argv)
    print_figures(args, lambda where, server: measure(where, queries=args.queries, server=server))


if __name__ == "__main__":
    main()
