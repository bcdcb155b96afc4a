"""What the status line and "is it still indexing?" cost while a large backlog waits for vectors.

A status line (`memlens/indexStatus`) is sent after every batch of a build, and every search answer asks
`Engine.indexing` (are texts still waiting for vectors?); both are asked most while a first build's units wait for
their vectors. The index of `bench/speed.py --no-vectors` (ROOT/index-kw-N and ROOT/corpus-N/workspace) is such an
index: every unit waits. Each run is a fresh process that opens it with the bundled model and times, `--reads`
times each (CPU of the process): the status's figures (`Engine.status`; a tree without it reads `Engine.stats` as
the status did), the whole stats report, `Engine.indexing` with the writer's cached counts dropped (as after every
commit), and the cached count of texts waiting made afresh. `--ab OTHER/server` alternates another tree's code
(`--ab-root ROOT2`: its own copy of the index, since the first open of this tree changes the catalog's indexes).

    python bench/status_cost.py ROOT --size 300000 [--ab /tmp/base/server --ab-root ROOT2 --rounds 3]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import ab_arguments, print_figures, run_in_child


def child(root: Path, size: int, reads: int) -> dict[str, Any]:
    """In the fresh process: open the index and time each read `reads` times (CPU ms, the median)."""
    import time
    from collections.abc import Callable

    import memlens
    from memlens.engine.engine import Engine

    def timed(read: Callable[[], object]) -> float:
        read()
        spent = []
        for _ in range(reads):
            cpu = time.process_time()
            read()
            spent.append(1000 * (time.process_time() - cpu))
        return round(sorted(spent)[len(spent) // 2], 1)

    def after_commit(read: Callable[[], object]) -> object:
        engine.indexer.embedding.forget_counts()  # as every commit does
        return read()

    workspace = root / f"corpus-{size}" / "workspace"
    with Engine([workspace], index_dir=root / f"index-kw-{size}", embedder=True) as engine:
        writer = engine.indexer.embedding
        status = getattr(engine, "status", None) or (lambda: engine.stats(count_unindexed=False))
        return {
            "server": str(Path(memlens.__file__).parents[1]),
            "waiting": writer.pending(),
            "statusCpuMs": timed(status),
            "statsCpuMs": timed(lambda: engine.stats(count_unindexed=False)),
            "indexingAfterCommitCpuMs": timed(lambda: after_commit(engine.indexing)),
            "waitingCountedCpuMs": timed(lambda: after_commit(writer.pending)),
        }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path, help="bench/speed.py --no-vectors --workdir ROOT")
    parser.add_argument("--size", type=int, required=True, help="the corpus size speed.py built (its --sizes)")
    parser.add_argument("--reads", type=int, default=5, help="times each read is timed in a process")
    ab_arguments(parser, rounds=3)
    args = parser.parse_args(argv)

    def measure(where: Path, server: Path | None) -> dict[str, Any]:
        return run_in_child(
            "status_cost", f"child(pathlib.Path({str(where)!r}), {args.size}, {args.reads})", server=server
        )

    print_figures(args, measure)


if __name__ == "__main__":
    main()
