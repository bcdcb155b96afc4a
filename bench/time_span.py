"""What `Catalog.time_span` costs on a large catalog (the CLI asks it after an empty answer to a --since or --until):
CPU per call, against the scan of every unit it replaced, and whether both give the same span.

    python bench/time_span.py CATALOG [--grow 1000000] [--calls 20]

CATALOG is copied into a scratch folder first (the catalog opened by this tree gains its indexes). `--grow N` adds
copies of its units (new ids, the same columns; times shifted by a day a copy) until it holds N or more: a large
catalog made from a smaller real one.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import peak_rss_mb
from memlens.engine.catalog import Catalog

SCAN = "SELECT MIN(ts), MAX(ts), COUNT(*) - COUNT(ts) FROM units"  # what time_span read before


def grow(path: Path, units: int) -> int:
    """Add copies of the catalog's units (before any index of this tree is made) until it holds `units`."""
    db = sqlite3.connect(path)
    have = int(db.execute("SELECT COUNT(*) FROM units").fetchone()[0])
    base_high = int(db.execute("SELECT MAX(id) FROM units").fetchone()[0])
    columns = [str(r[1]) for r in db.execute("PRAGMA table_info(units)")]
    rest = ", ".join(c for c in columns if c not in ("id", "ts"))
    copy = 0
    while have < units:
        copy += 1
        db.execute(
            f"INSERT INTO units (id, ts, {rest}) SELECT id + ?, ts + ?, {rest} FROM units WHERE id <= ?",
            (copy * base_high, copy * 86400.0, base_high),
        )
        have = int(db.execute("SELECT COUNT(*) FROM units").fetchone()[0])
    db.commit()
    db.close()
    return have


def cpu_per_call(call: Any, calls: int) -> tuple[float, Any]:
    """Median CPU milliseconds of `calls` calls, and what the last one gave."""
    spent, answer = [], None
    for _ in range(calls):
        started = time.process_time()
        answer = call()
        spent.append(1000 * (time.process_time() - started))
    return statistics.median(spent), answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("catalog", type=Path)
    parser.add_argument("--grow", type=int, default=0)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--root", type=Path, default=Path(tempfile.gettempdir()))
    args = parser.parse_args()
    out: dict[str, Any] = {"loadavgStart": os.getloadavg()}
    with tempfile.TemporaryDirectory(dir=args.root) as scratch:
        path = Path(scratch) / "catalog.sqlite3"
        shutil.copyfile(args.catalog, path)
        if args.grow:
            out["units"] = grow(path, args.grow)
        started = time.process_time()
        catalog = Catalog(path)  # makes the indexes the span is read from, once
        out["openCpuS"] = round(time.process_time() - started, 3)
        out["units"] = int(catalog.db.execute("SELECT COUNT(*) FROM units").fetchone()[0])
        scan_ms, (first, last, untimed) = cpu_per_call(lambda: catalog.db.execute(SCAN).fetchone(), args.calls)
        span_ms, span = cpu_per_call(catalog.time_span, args.calls)
        out |= {
            "scanCpuMsP50": round(scan_ms, 3),
            "timeSpanCpuMsP50": round(span_ms, 3),
            "sameSpan": (span.first, span.last, span.untimed) == (first, last, bool(untimed)),
            "span": [span.first, span.last, span.untimed, int(untimed or 0)],
            "peakRssMB": peak_rss_mb(),
            "loadavgEnd": os.getloadavg(),
        }
        catalog.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
