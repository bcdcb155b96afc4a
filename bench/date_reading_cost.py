"""CPU per `message_windows` call on long real texts: what the date boost pays for each hit of a search whose query
names a day (a pasted log's timestamps do), the hit's whole text read for its dates. The texts are every string of
at least `--min-chars` characters in the shared real transcripts (../shared/fixtures/transcripts), each read as
written on one day; p50 / p95 / p99 / total CPU ms, and a digest of every reading (equal digests: equal readings).
`--ab OTHER/server` alternates this tree with another in fresh processes, `--rounds` times.

    python bench/date_reading_cost.py [--min-chars 2000] [--repeats 3] [--ab BASE/server --rounds 3]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SHARED, percentile, run_in_child

WRITTEN = 1_735_689_600.0  # 1 January 2025


def long_texts(min_chars: int) -> list[str]:
    """Every string of at least `min_chars` characters in the shared real transcripts' JSON lines."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            if len(value) >= min_chars:
                found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in sorted((SHARED / "fixtures" / "transcripts").rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                walk(json.loads(line))
            except ValueError:
                continue
    return found


def measure(min_chars: int, repeats: int) -> dict[str, Any]:
    """Each text's CPU ms (its best of `repeats`), the percentiles, the total and the readings' digest."""
    from memlens.engine.ranking.dates import message_windows

    texts = long_texts(min_chars)
    if not texts:
        return {"skipped": "no real transcripts in ../shared"}
    spent: list[float] = []
    digest = hashlib.sha256()
    for text in texts:
        best = float("inf")
        for _ in range(repeats):
            started = time.process_time()
            windows = message_windows(text, WRITTEN)
            best = min(best, time.process_time() - started)
        spent.append(best * 1000)
        digest.update(json.dumps(windows).encode())
    return {
        "texts": len(texts),
        "chars": sum(map(len, texts)),
        "cpuMsP50": round(percentile(spent, 50), 3),
        "cpuMsP95": round(percentile(spent, 95), 3),
        "cpuMsP99": round(percentile(spent, 99), 3),
        "cpuMsTotal": round(sum(spent), 1),
        "digest": digest.hexdigest()[:16],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--min-chars", type=int, default=2000, help="the shortest text read")
    parser.add_argument("--repeats", type=int, default=3, help="reads of each text (its best CPU time counts)")
    parser.add_argument("--ab", type=Path, help="another tree's server/ folder to alternate with this one")
    parser.add_argument("--rounds", type=int, default=3, help="with --ab: runs of each tree")
    args = parser.parse_args(argv)
    call = f"measure({args.min_chars}, {args.repeats})"
    trees = [("base", args.ab), ("this", Path(__file__).resolve().parents[1] / "server")] if args.ab else []
    runs: list[dict[str, Any]] = []
    for round_number in range(args.rounds if trees else 1):
        for name, server in trees or [("this", None)]:
            load = os.getloadavg()
            runs.append(
                {
                    "tree": name,
                    "round": round_number,
                    "loadavg": load,
                    **run_in_child("date_reading_cost", call, server=server),
                }
            )
            print(json.dumps(runs[-1]), file=sys.stderr, flush=True)
    print(json.dumps({"runs": runs, "loadavgEnd": os.getloadavg()}, indent=2))


if __name__ == "__main__":
    main()
