"""What a search costs a user with no memlens server running: whole `memlens` processes, CPU and peak memory.

On an index built earlier (`ROOT/corpus`, `ROOT/index`, as `bench/speed.py --prebuilt` takes it), this runs the
real CLI as a child process and reads its CPU time and peak RSS from the kernel (wait4):

- `memlens search Q` as a user types it: the process starts, checks every source file for changes (nothing
  changed here), loads the model, searches (hybrid), prints, exits;
- the same with `--no-sync` (the search alone, the process's start included);
- `memlens index` with nothing changed: what a server's start adds to opening (the reconcile of every file).

    python bench/cli_search.py ROOT [--queries 5]
    python bench/cli_search.py ROOT --ab BASE/server [--rounds 2] [--base-index COPY]   # two trees, alternated

With `--ab`, each round runs every measure once with this tree's server code and once with the other's (the same
index, queries and interpreter; `PYTHONPATH` picks the tree), so the two are compared at the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import compile_trees, percentile
from bench.realistic_text import corpus_queries, corpus_text
from bench.speed_report import lscpu_model


def run_cli(arguments: Sequence[str], *, cwd: Path, tree: str | None = None) -> dict[str, float]:
    """One `python -m memlens ARGUMENTS` child (with `tree`, that server folder's code): its CPU seconds and peak
    RSS (MB), from wait4."""
    env = {**os.environ, "NO_COLOR": "1"} | ({"PYTHONPATH": tree} if tree else {})
    child = subprocess.Popen(
        [sys.executable, "-m", "memlens", *arguments],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=env,
    )
    assert child.stderr is not None
    errors = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)  # not wait(): wait4 also hands back the child's own rusage
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode not in (0, 1):  # 1: nothing found (as grep says it)
        raise SystemExit(f"memlens {' '.join(arguments)} failed: {errors.decode(errors='replace')[-500:]}")
    return {"cpuS": round(usage.ru_utime + usage.ru_stime, 3), "peakRssMB": round(usage.ru_maxrss / 1024, 1)}


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path, help="ROOT with ROOT/corpus and ROOT/index")
    parser.add_argument("--queries", type=int, default=5)
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--ab", type=Path, help="another tree's server/ folder to alternate with this one")
    parser.add_argument("--rounds", type=int, default=2, help="with --ab: rounds of both trees")
    parser.add_argument(
        "--base-index", type=Path, help="with --ab: the other tree's copy of ROOT/index (when their layouts differ)"
    )
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()
    asked = corpus_queries(args.seed, args.queries, text=corpus_text(root / "corpus"), scratch=root / "real-texts")
    out: dict[str, Any] = {"lscpu": lscpu_model(), "loadavgStart": os.getloadavg()}
    trees: dict[str, str | None] = {"this": None}
    if args.ab is not None:
        trees = {"this": str(Path(__file__).resolve().parents[1] / "server"), "base": str(args.ab.resolve())}
    compile_trees(*trees.values())
    with tempfile.TemporaryDirectory(prefix="memlens-cli-") as tmp:
        settings = Path(tmp) / "settings.json"
        settings.write_text(json.dumps({"transcripts": {"agentDefaults": False}}))
        indexes = {"this": root / "index", "base": (args.base_index or root / "index").resolve()}

        def measures(tree_name: str) -> dict[str, list[list[str]]]:
            where = [
                *("--workspace", str(root / "corpus" / "workspace")),
                *("--transcripts", str(root / "corpus" / "transcripts")),
                *("--index-dir", str(indexes[tree_name])),
                *("--settings", str(settings)),
            ]
            return {
                "index (nothing changed)": [["index", *where]],
                "search": [["search", query, *where, "--no-pager"] for query in asked],
                "search --no-sync": [["search", query, *where, "--no-sync", "--no-pager"] for query in asked],
            }

        commands = {t: measures(t) for t in trees}
        runs: dict[str, dict[str, list[dict[str, float]]]] = {t: {m: [] for m in commands[t]} for t in trees}
        for _ in range(args.rounds if args.ab is not None else 1):
            for name in commands["this"]:
                for tree_name, tree in trees.items():
                    runs[tree_name][name] += [run_cli(c, cwd=Path(tmp), tree=tree) for c in commands[tree_name][name]]
            print(json.dumps({"loadavg": os.getloadavg()}), file=sys.stderr, flush=True)
        for tree_name in trees:
            out[tree_name] = {
                name: {
                    "cpuS p50": round(percentile([r["cpuS"] for r in got], 50), 3),
                    "cpuS max": max(r["cpuS"] for r in got),
                    "peakRssMB max": max(r["peakRssMB"] for r in got),
                    "runs": len(got),
                }
                for name, got in runs[tree_name].items()
            }
    out["loadavgEnd"] = os.getloadavg()
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
