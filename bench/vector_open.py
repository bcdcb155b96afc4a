"""What opening the vector file costs: `vector_file.read` of an index built earlier (`ROOT/index`, as
`bench/speed.py --prebuilt` takes it), the part of a server's start that reads the small columns (ids, scales,
sign codes, facets) into memory and checksums them; the rows themselves are mapped or read later.

Each run is a fresh process that reads the file `--opens` times (the first read after a copy may come from disk;
the page cache is warm after it) and reports the process CPU time of each read, its wall time and the process's
peak RSS. `--ab OTHER/server` alternates this tree's code with another's, each in fresh processes, `--rounds` times;
`--ab-root ROOT2` gives the other tree its own copy of the index (each tree reads its own file layout).

    python bench/vector_open.py ROOT [--opens 5] [--ab /tmp/base/server [--ab-root ROOT2] --rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import ab_arguments, alternate_trees, run_in_child

REPO = Path(__file__).resolve().parents[1]


def child(root: Path, opens: int) -> dict[str, Any]:
    """In the fresh process: read the vector file `opens` times."""
    import resource
    import struct

    import memlens
    from memlens.engine.vectors import vector_file

    path = next((root / "index").glob("vectors-*.bin"))
    with path.open("rb") as handle:
        head = handle.read(len(vector_file.MAGIC) + 4)
        (length,) = struct.unpack("<I", head[len(vector_file.MAGIC) :])
        header = json.loads(handle.read(length))
    cpu_ms: list[float] = []
    wall_ms: list[float] = []
    rows = 0
    for _ in range(opens):
        started, cpu = time.perf_counter(), time.process_time()
        stored = vector_file.read(path, stamp=None, model=str(header["model"]), dim=int(header["dim"]))
        cpu_ms.append(round(1000 * (time.process_time() - cpu), 1))
        wall_ms.append(round(1000 * (time.perf_counter() - started), 1))
        if stored is None:
            return {"skipped": f"{path} is not of this tree's layout ({head[: len(vector_file.MAGIC)]!r})"}
        rows = len(stored.ids)
        del stored
    return {
        "server": str(Path(memlens.__file__).parents[1]),
        "file": path.name,
        "fileBytes": path.stat().st_size,
        "rows": rows,
        "cpuMs": cpu_ms,
        "cpuMsP50": sorted(cpu_ms)[len(cpu_ms) // 2],
        "wallMs": wall_ms,
        "peakRssMB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def measure(root: Path, *, opens: int, server: Path | None = None) -> dict[str, Any]:
    """Run `child` in a new interpreter (with `server`: that tree's memlens)."""
    return run_in_child("vector_open", f"child(pathlib.Path({str(root)!r}), {opens})", server=server)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path, help="a folder holding index/ (bench/speed.py --prebuilt)")
    parser.add_argument("--opens", type=int, default=5, help="reads of the file in each process")
    ab_arguments(parser, rounds=3)
    args = parser.parse_args(argv)
    if args.ab is None:
        print(json.dumps({"loadavg": os.getloadavg(), **measure(args.root, opens=args.opens)}, indent=2))
        return
    runs = alternate_trees(args, lambda where, server: measure(where, opens=args.opens, server=server))
    print(json.dumps({"runs": runs, "loadavgEnd": os.getloadavg()}, indent=2))


if __name__ == "__main__":
    main()
