"""Start-up reconcile with nothing changed: open an index of ~10,000 files and sync it, keyword-only.

The catalog decides from size and mtime alone that no file needs reading; this measures that path (discovery,
stat, one catalog read), without the model or vectors, which `bench/speed.py`'s warm start includes.

    python bench/reconcile.py [--chunks 100000] [--runs 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import machine_info, percentile
from bench.corpus import make_corpus, open_engine


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100000, help="corpus size (100k chunks ≈ 10,400 files)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memlens-reconcile-") as scratch:
        corpus = make_corpus(Path(scratch) / "corpus", args.chunks)
        index_dir = Path(scratch) / "index"
        with open_engine(corpus, index_dir, None) as engine:
            engine.sync()
        runs = []
        for _ in range(args.runs):
            started = time.perf_counter()
            with open_engine(corpus, index_dir, None) as engine:
                opened = time.perf_counter()
                report = engine.sync()
                runs.append((opened - started, time.perf_counter() - opened, report.files_seen, report.files_unchanged))
    totals = [o + r for o, r, _, _ in runs]
    result = {
        "files": runs[0][2],
        "unchanged": runs[0][3],
        "openS": [round(o, 3) for o, _, _, _ in runs],
        "reconcileS": [round(r, 3) for _, r, _, _ in runs],
        "totalP50S": round(percentile(totals, 50), 3),
        "machine": machine_info(),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{result['files']} files ({result['unchanged']} unchanged): open {result['openS']} s, "
            f"reconcile {result['reconcileS']} s; total p50 {result['totalP50S']} s"
        )
    return result


if __name__ == "__main__":
    main()
