"""The int8 rows of a vector search read with pread against the same rows mapped, in one process, alternated query
by query: the CPU a search pays for keeping the rows it re-ranks out of its RSS, and that both give the same answer.

It opens the vector file of an index built earlier (`ROOT/index`, as `bench/speed.py --prebuilt` takes it) twice:
as a search reads it (quantized_rows.FileRows: each search's 1,000 candidate rows read with pread) and with its
int8 section mapped read-only (np.memmap, what a search did before). The queries are random unit vectors (the
cost of a search does not depend on what the vectors say). It reports each one's thread CPU per search
(VectorIndex.search, limit 10; which of the two goes first changes every query), the resident MiB of the vector
file's pages in this process at the end (the mapped rows': the pread ones map nothing), and how many answers were
the same.

    python bench/vector_rows_ab.py ROOT [--queries 300]
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from memlens.engine.vectors import vector_file
from memlens.engine.vectors.quantized_rows import QuantizedRows
from memlens.engine.vectors.vector_index import VectorIndex
from memlens.engine.vectors.vector_snapshot import VectorSnapshot


def _header(path: Path) -> dict[str, Any]:
    with path.open("rb") as handle:
        head = handle.read(len(vector_file.MAGIC) + 4)
        (length,) = struct.unpack("<I", head[len(vector_file.MAGIC) :])
        header: dict[str, Any] = json.loads(handle.read(length))
    return header


def _resident_mb(path: Path) -> float:
    resident, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if fields and "-" in fields[0] and not fields[0].endswith(":"):
            inside = len(fields) >= 6 and fields[5] == str(path)
        elif inside and fields and fields[0] == "Rss:":
            resident += int(fields[1])
    return round(resident / 1024, 1)


def _spread(spent: list[float]) -> dict[str, float]:
    ordered = sorted(spent)
    return {
        "p50": round(ordered[len(ordered) // 2], 3),
        "p99": round(ordered[min(len(ordered) - 1, (99 * len(ordered)) // 100)], 3),
    }


def measure(root: Path, queries: int) -> dict[str, Any]:
    path = next((root / "index").glob("vectors-*.bin"))
    header = _header(path)
    count, dim = int(header["count"]), int(header["dim"])
    stored = vector_file.read(path, stamp=None, model=header["model"], dim=dim)
    assert stored is not None
    mapped_values = np.memmap(path, dtype=np.int8, mode="r", offset=header["sections"]["values"][0], shape=(count, dim))
    read = VectorSnapshot.stored(stored)
    mapped = VectorSnapshot(
        ids=read.ids,
        base=QuantizedRows(mapped_values, read.base.scales, read.base.remainders),
        codes=read.codes,
        kind=read.kind,
        format=read.format,
        role=read.role,
        session=read.session,
        ts=read.ts,
        seq=read.seq,
        hashes=read.hashes,
    )
    indexes = {"pread": VectorIndex(dim), "mapped": VectorIndex(dim)}
    indexes["pread"]._snapshot, indexes["mapped"]._snapshot = read, mapped
    rng = np.random.default_rng(3)
    asked = rng.standard_normal((queries, dim)).astype(np.float32)
    asked /= np.linalg.norm(asked, axis=1, keepdims=True)
    spent: dict[str, list[float]] = {name: [] for name in indexes}
    same = 0
    for query in asked[:10]:  # faiss and BLAS set up, outside the timings
        indexes["pread"].search(query, 10)
    for number, query in enumerate(asked):
        answers = []
        for name in ("pread", "mapped") if number % 2 else ("mapped", "pread"):
            index = indexes[name]
            used = time.thread_time()
            answers.append(index.search(query, 10))
            spent[name].append(1000 * (time.thread_time() - used))
        same += answers[0] == answers[1]
    return {
        "rows": count,
        "queries": queries,
        "sameAnswers": same,
        "cpuMs": {name: _spread(times) for name, times in spent.items()},
        "vectorFileResidentMB": _resident_mb(path),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path, help="a folder holding index/ (bench/speed.py --prebuilt)")
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args(argv)
    load = os.getloadavg()
    print(json.dumps({"loadavgStart": load, **measure(args.root, args.queries), "loadavgEnd": os.getloadavg()}))


if __name__ == "__main__":
    main()
