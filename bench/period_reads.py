"""What a question about days reads from the catalog, CPU per read: its period's messages (`units_between`) and, for
a period that holds none, the nearest ones (`units_nearest`), for 20 random days of the catalog's span.

    python bench/period_reads.py CATALOG_COPY [--without-index]

`--without-index` drops the message-time index first (what a catalog without it costs: a scan of every unit), so
give it a copy of a catalog. Opening a catalog (re)builds the index; its build time is reported.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from memlens.engine.catalog import Catalog

DAYS = 20
DAY = 86400.0


def cpu_ms(read: Callable[[], object]) -> float:
    started = time.process_time()
    read()
    return (time.process_time() - started) * 1000


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("catalog", type=Path)
    parser.add_argument("--without-index", action="store_true", help="drop the message-time index first")
    args = parser.parse_args(argv)
    started = time.process_time()
    catalog = Catalog(args.catalog)
    out: dict[str, object] = {"openCpuS": round(time.process_time() - started, 2)}
    if args.without_index:
        catalog.db.execute("DROP INDEX IF EXISTS units_transcript_time")
    first, last = catalog.db.execute("SELECT min(ts), max(ts) FROM units WHERE kind = 'transcript'").fetchone()
    days = [first + random.Random(i).random() * (last - first) for i in range(DAYS)]
    between = [cpu_ms(partial(catalog.units_between, d, d + DAY)) for d in days]
    nearest = [cpu_ms(partial(catalog.units_nearest, before=d, after=d + DAY, limit=50)) for d in days]
    out |= {
        "index": not args.without_index,
        "betweenCpuP50Ms": round(statistics.median(between), 3),
        "nearestCpuP50Ms": round(statistics.median(nearest), 3),
    }
    catalog.close()
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
