"""How soon a first build makes the newest session searchable: the real transcripts of ../shared/fixtures copied
`--copies` times, each copy's ids made its own (every UUID in its names and lines ends in the copy's number, so a
copy is other sessions, as on a real disk, not a copy that read order must keep together), each file given an mtime
spread over `--days` (a fixed draw from its name), indexed keyword-only from nothing. Reports the wall and CPU
seconds from the sync's start until the commit that holds the newest file is in tantivy too (the catalog's
generation is the keyword index's: a keyword search finds its messages), and until tantivy holds the
SEARCHABLE_FIRST documents a first build writes batch by batch (indexer.py), the batches, and the whole build's CPU.

    python bench/first_batches.py [--copies 16] [--days 180] [--batch-bytes N] [--ab /tmp/base/server --runs 3]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.cold_index import FIXTURES
from bench.common import compile_trees
from bench.corpus import bench_settings
from memlens.engine.engine import Engine
from memlens.engine.file_names import stored_path
from memlens.engine.indexing.indexer import SEARCHABLE_FIRST, Indexer

NOW = 1_780_000_000
DAY = 86_400
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def distinct_copies(root: Path, copies: int) -> Path:
    """The real transcripts copied `copies` times under `root`, each copy's UUIDs (names and contents) ending in
    its number; made once."""
    target = root / f"distinct-{copies}"
    if target.exists():
        return target
    for copy in range(copies):
        suffix = f"{copy:04x}"

        def own(text: str, suffix: str = suffix) -> str:
            return _UUID.sub(lambda m: m.group(0)[:-4] + suffix, text)

        for path in sorted(p for p in FIXTURES.rglob("*") if p.is_file()):
            relative = own(str(path.relative_to(FIXTURES)))
            out = target / f"copy-{copy}" / relative
            out.parent.mkdir(parents=True, exist_ok=True)
            if path.suffix == ".jsonl":
                out.write_text(own(path.read_text(encoding="utf-8")), encoding="utf-8")
            else:
                shutil.copyfile(path, out)
    return target


def spread_dates(root: Path, days: int) -> Path:
    """Give each file of `root` an mtime within `days` before NOW, drawn from its relative name; the newest."""
    newest: tuple[int, Path] | None = None
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        draw = int.from_bytes(hashlib.sha256(str(path.relative_to(root)).encode()).digest()[:8], "big")
        mtime = NOW - draw % (days * DAY)
        os.utime(path, (mtime, mtime))
        if newest is None or mtime > newest[0]:
            newest = (mtime, path)
    assert newest is not None
    return newest[1]


def run_once(args: argparse.Namespace) -> dict[str, Any]:
    transcripts = distinct_copies(args.root, args.copies)
    newest = stored_path(spread_dates(transcripts, args.days))
    workspace = args.root / "empty-workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    batches: list[int] = []
    searchable: dict[str, Any] = {}
    first_docs: dict[str, Any] = {}  # when tantivy held the SEARCHABLE_FIRST documents a first build writes batch-wise
    apply_batch = Indexer._apply_batch
    started = (0.0, 0.0)

    def batch(self: Indexer, *args: Any, **kwargs: Any) -> None:
        apply_batch(self, *args, **kwargs)
        batches.append(len(args[0]))
        if not first_docs and self.keyword.num_docs() >= SEARCHABLE_FIRST:
            first_docs.update(
                wallS=round(time.perf_counter() - started[0], 3),
                cpuS=round(time.process_time() - started[1], 3),
                batch=len(batches),
            )
        if searchable or newest not in self.catalog.file_states([newest]):
            return
        if self.keyword.generation() == self.catalog.generation():
            searchable.update(
                wallS=round(time.perf_counter() - started[0], 3),
                cpuS=round(time.process_time() - started[1], 3),
                batch=len(batches),
            )

    Indexer._apply_batch = batch  # type: ignore[method-assign]
    if args.batch_bytes:
        import memlens.engine.indexing.read_order as read_order  # (a tree from before it has no such module)

        read_order.BATCH_BYTES = args.batch_bytes
    with tempfile.TemporaryDirectory(dir=args.root) as index_dir:
        engine = Engine(
            [workspace], bench_settings(), extra_transcripts=[transcripts], index_dir=Path(index_dir), embedder=False
        )
        started = (time.perf_counter(), time.process_time())
        engine.sync(embed=False)
        wall, cpu = time.perf_counter() - started[0], time.process_time() - started[1]
        units = engine.catalog.unit_count()
        files = len(engine.catalog.file_states(None))
        engine.close()
    return {
        "newestSearchable": searchable or {"wallS": round(wall, 3), "cpuS": round(cpu, 3), "batch": "end"},
        "firstDocsSearchable": first_docs or None,
        "batches": len(batches),
        "largestBatchFiles": max(batches, default=0),
        "files": files,
        "units": units,
        "wallS": round(wall, 3),
        "cpuS": round(cpu, 3),
        "loadAvg": [round(x, 2) for x in os.getloadavg()],
    }


def alternate(args: argparse.Namespace) -> None:
    """Fresh processes, this tree's server and `--ab`'s alternated, each first in turn."""
    trees = [("this", str(Path(__file__).resolve().parents[1] / "server")), ("base", str(args.ab))]
    compile_trees(*(tree for _, tree in trees))
    own = ["--copies", str(args.copies), "--days", str(args.days), "--root", str(args.root)]
    distinct_copies(args.root, args.copies)  # (made once, outside the timed runs)
    for run in range(args.runs):
        for name, tree in trees if run % 2 == 0 else trees[::-1]:
            extra = ["--batch-bytes", str(args.batch_bytes)] if args.batch_bytes and name == "this" else []
            env = os.environ | {"PYTHONPATH": tree}
            command = [sys.executable, __file__, *own, *extra]
            out = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
            print(name, out.stdout.strip(), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=16)
    parser.add_argument("--days", type=int, default=180)
    parser.add_argument("--root", type=Path, default=Path(tempfile.gettempdir()) / "memlens-first-batches")
    parser.add_argument("--ab", type=Path, help="another tree's server/ folder to alternate with this one")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--batch-bytes", type=int, default=0, help="this tree's first batch's byte budget")
    args = parser.parse_args()
    args.root.mkdir(parents=True, exist_ok=True)
    if args.ab is not None:
        alternate(args)
        return
    print(json.dumps(run_once(args)))


if __name__ == "__main__":
    main()
