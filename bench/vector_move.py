"""What opening an index costs when its vectors move into the vector file (catalog schema 4 or older → 5), and the bytes
per message on disk before or after.

On a copy of an index (it is changed: its catalog is VACUUMed), `--open` opens its catalog as the writer does with a
model's name (`--model`, the bundled one by default; the model itself is never loaded: nothing is embedded) and loads
the vector rows, which moves an older
catalog's vectors into the file; process CPU, wall time and peak RSS are printed beside the load average. Then the
catalog is VACUUMed and the bytes per message of each part are printed (the catalog's `vectors` table and its key's
index by `dbstat`, while the catalog has them).

    python bench/vector_move.py COPY/index            # bytes only (an older copy: the "before")
    python bench/vector_move.py COPY/index --open     # the move, then the bytes (the "after")
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memlens.engine.catalog import Catalog
from memlens.engine.vectors.bundled_model import BUNDLED_DIM, BUNDLED_MODEL
from memlens.engine.vectors.vector_index import VectorIndex


def open_and_move(index: Path, model: str, dim: int) -> dict[str, Any]:
    """Open the catalog and load its vector rows as the writer does (moving an older catalog's vectors)."""
    load = os.getloadavg()[0]
    started, cpu = time.perf_counter(), time.process_time()
    catalog = Catalog(index / "catalog.sqlite3")
    vectors = VectorIndex(dim)
    vectors.may_write = lambda: True
    try:
        before = catalog.get_meta("schema_version")
        vectors.load(catalog, model)
        rows = len(vectors)
        after = catalog.get_meta("schema_version")
    finally:
        catalog.close()
    return {
        "schema": f"{before} -> {after}",
        "rows": rows,
        "wallS": round(time.perf_counter() - started, 1),
        "cpuS": round(time.process_time() - cpu, 1),
        "peakRssMB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "load": [round(load, 2), round(os.getloadavg()[0], 2)],
    }


def bytes_per_message(index: Path) -> dict[str, Any]:
    db = sqlite3.connect(index / "catalog.sqlite3")
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.execute("VACUUM")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        units = int(db.execute("SELECT COUNT(*) FROM units").fetchone()[0])
        names = "('vectors', 'sqlite_autoindex_vectors_1')"
        legacy = dict(db.execute(f"SELECT name, SUM(pgsize) FROM dbstat WHERE name IN {names} GROUP BY name"))
    finally:
        db.close()

    def size(pattern: str) -> int:
        return sum(p.stat().st_size for p in index.glob(pattern) if p.is_file())

    per = max(units, 1)
    keyword = sum(p.stat().st_size for p in (index / "keyword").rglob("*") if p.is_file())
    total = sum(p.stat().st_size for p in index.rglob("*") if p.is_file())
    return {
        "messages": units,
        "all": round(total / per),
        "catalog": round(size("catalog.sqlite3*") / per),
        "catalogVectors": {name: round(int(n) / per) for name, n in legacy.items()},
        "vectorFile": round(size("vectors-*") / per),
        "keyword": round(keyword / per),
    }


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("index", type=Path, help="a copy of an index folder (changed: moved and VACUUMed)")
    parser.add_argument("--open", action="store_true", help="open it as the writer first (moving its vectors)")
    parser.add_argument("--model", default=BUNDLED_MODEL, help="the model the vectors are of")
    parser.add_argument("--dim", type=int, default=BUNDLED_DIM)
    args = parser.parse_args(argv)
    out: dict[str, Any] = {}
    if args.open:
        out["open"] = open_and_move(args.index, args.model, args.dim)
    out["bytes"] = bytes_per_message(args.index)
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
