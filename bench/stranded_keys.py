"""What looking for stranded session keys costs a sync: after every whole sync that read or removed a file, and every
watcher sync that re-read or removed one, the writer asks the catalog for the files holding a session under a `~` key
whose plain key no session holds any more (`Catalog.stranded_session_files`). This fills a real catalog with N
sessions (a tenth of them subagents', a thousandth second files of their session under `~` keys whose plain key is
gone) and times that query (wall and CPU ms, the best of `--reads`).

    python bench/stranded_keys.py --sessions 10000 100000
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def measure(sessions: int, reads: int) -> tuple[int, float, float]:
    """(files found, best wall ms, best CPU ms) over a fresh catalog of `sessions` sessions."""
    from memlens.engine.catalog import Catalog

    with tempfile.TemporaryDirectory(prefix="memlens-stranded-") as folder:
        catalog = Catalog(Path(folder) / "catalog.sqlite3")
        try:
            with catalog.transaction() as db:
                for n in range(sessions):
                    file_id = catalog.upsert_file(db, f"/t/{n:08d}.jsonl", "transcript", format="claude-code")
                    agent = "a1" if n % 10 == 0 else None
                    key = (
                        f"claude-code:{n:08d}"
                        + (f"/agent-{agent}" if agent else "")
                        + ("~copy" if n % 1000 == 0 else "")
                    )
                    catalog.put_session(
                        db,
                        key=key,
                        session_id=f"{n:08d}",
                        format_="claude-code",
                        file_id=file_id,
                        parent_key=None,
                        agent_id=agent,
                        cwd=None,
                        title=None,
                    )
            best_wall = best_cpu = float("inf")
            found = 0
            for _ in range(reads):
                wall, cpu = time.perf_counter(), time.process_time()
                found = len(catalog.stranded_session_files())
                best_wall = min(best_wall, 1000 * (time.perf_counter() - wall))
                best_cpu = min(best_cpu, 1000 * (time.process_time() - cpu))
        finally:
            catalog.close()
    return found, best_wall, best_cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--reads", type=int, default=5)
    args = parser.parse_args(argv)
    for sessions in args.sessions:
        found, wall, cpu = measure(sessions, args.reads)
        print(f"{sessions:,} sessions: {found:,} stranded files found in {wall:.1f} ms wall, {cpu:.1f} ms CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
