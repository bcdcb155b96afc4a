"""Helpers shared by the benchmarks: the embedding model, machine facts, peak memory, percentiles."""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlens.engine.model_cache import model_cache_dir
from memlens.engine.vectors.embedder import Embedder, load_embedder
from memlens.settings import Settings

if TYPE_CHECKING:
    from memlens.engine.engine import Engine

REPO = Path(__file__).resolve().parents[1]
# the real data next to the clone; MEMLENS_SHARED points elsewhere (the test suite's variable: /nonexistent runs it
# as a clone without ../shared would)
SHARED = Path(os.environ.get("MEMLENS_SHARED") or REPO.parent / "shared")


def load_shared_embedder(settings: Settings) -> Embedder:
    """The configured model, loaded once (from the same cache folder the engine uses by default)."""
    embedder, reason = load_embedder(settings.embedding, model_cache_dir())
    if embedder is None:
        raise SystemExit(f"cannot load the embedding model: {reason}")
    return embedder


def named_only(open_engine: Callable[[], Engine], index_dir: Path) -> Engine:
    """`open_engine()` on an index that holds only the folders it names. An index remembers every folder a command
    once added to it and keeps syncing and searching them (`memlens sources`): one command pointed at a benchmark's
    cache with another workspace would have every later figure read over that folder's texts too. Such a cache is
    built again from nothing rather than the folder forgotten: a figure should not rest on a removal leaving what a
    clean build holds, which tests/test_index_history.py checks on a small index only."""
    engine = open_engine()
    if not engine.unnamed_source_folders():
        return engine
    engine.close()
    shutil.rmtree(index_dir)
    return open_engine()


def cpu_model() -> str:
    """The CPU as `lscpu` names it (the figure every benchmark quotes), with its vendor, family and model numbers
    (a VM may show a bare "AMD EPYC"; family 25 model 17 says which generation), else /proc/cpuinfo's name."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    facts = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    name = facts.get("Model name", "").strip()
    if name:
        numbers = [f"{key.lower()} {facts[key].strip()}" for key in ("CPU family", "Model") if key in facts]
        return f"{name} ({', '.join(numbers)})" if numbers else name
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _ram_gb() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return None


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def machine_info() -> dict[str, Any]:
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "ramGB": _ram_gb(),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "versions": {p: _version(p) for p in ("fastembed", "onnxruntime", "tantivy", "numpy")},
    }


STATUS_FIELDS = {"VmHWM": "peakRssMB", "VmRSS": "rssMB", "RssAnon": "anonMB", "RssFile": "fileMB"}


def memory_status() -> dict[str, float]:
    """This process's peak and current RSS and the current split into anonymous and file-backed memory, in MiB
    (Linux's /proc/self/status; empty elsewhere)."""
    out: dict[str, float] = {}
    try:
        lines = Path("/proc/self/status").read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        name, _, rest = line.partition(":")
        if name in STATUS_FIELDS:
            out[STATUS_FIELDS[name]] = round(int(rest.split()[0]) / 1024, 1)
    return out


def peak_rss_mb() -> float:
    """Peak resident set size of this process (VmHWM, else ru_maxrss), in MiB."""
    peak = memory_status().get("peakRssMB")
    return peak if peak is not None else round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def process_cpu_s(pid: int) -> float | None:
    """User + system CPU seconds another process has used so far (Linux's /proc/PID/stat); None elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime: fields 14 and 15


def current_rss_mb() -> float:
    return memory_status().get("rssMB", 0.0)


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) by linear interpolation; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def dir_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def compile_trees(*trees: Path | str | None) -> None:
    """Byte-compile each server tree (None: this one) before whole processes are timed. With PYTHONDONTWRITEBYTECODE
    set, as on these machines, a tree whose bytecode was never written compiles every module it imports in every
    process (about 0.15 s of a CLI search), which an installed memlens never does: its modules are compiled when it
    is installed. Left alone, that cost lands on whichever tree of an A/B lacks the bytecode."""
    for tree in trees:
        compileall.compile_dir(str(tree or REPO / "server"), quiet=2)


def ab_arguments(parser: argparse.ArgumentParser, *, rounds: int) -> None:
    """The flags of an A/B of this tree's server code against another's, each on its own copy of the index."""
    parser.add_argument("--ab", type=Path, help="another tree's server/ folder to alternate with this one")
    parser.add_argument("--ab-root", type=Path, help="with --ab: the other tree's copy of the index (default ROOT)")
    parser.add_argument("--rounds", type=int, default=rounds, help="with --ab: runs of each tree")


def alternate_trees(args: argparse.Namespace, measure: Callable[[Path, Path], dict[str, Any]]) -> list[dict[str, Any]]:
    """`measure(index root, server folder)` for the tree of `--ab` (on `--ab-root`, else ROOT) and this tree (on
    ROOT), alternated for `--rounds` (`ab_arguments`); each run with the load average before it, also written to
    stderr as it ends."""
    runs: list[dict[str, Any]] = []
    for round_number in range(args.rounds):
        for name, server, where in (("base", args.ab, args.ab_root or args.root), ("this", REPO / "server", args.root)):
            load = os.getloadavg()
            runs.append({"tree": name, "round": round_number, "loadavg": load, **measure(where, server)})
            print(json.dumps(runs[-1]), file=sys.stderr, flush=True)
    return runs


def print_figures(args: argparse.Namespace, measure: Callable[[Path, Path | None], dict[str, Any]]) -> None:
    """`measure(index root, server folder)`'s figures as JSON on stdout: alternated between two trees with `--ab`
    (`alternate_trees`), else this tree's once (server None: the running interpreter's memlens), with the load
    average around it."""
    if args.ab is not None:
        runs = alternate_trees(args, measure)
        print(json.dumps({"runs": runs, "loadavgEnd": os.getloadavg()}, indent=2))
        return
    load = os.getloadavg()
    print(json.dumps({"loadavgStart": load, **measure(args.root, None), "loadavgEnd": os.getloadavg()}, indent=2))


def run_in_child(module: str, call: str, *, server: Path | None) -> dict[str, Any]:
    """`bench.<module>.<call>` (a call returning JSON-able figures) in a new interpreter, with `server`: that tree's
    memlens; its figures, or why it could not run."""
    code = f"import json, pathlib, bench.{module} as m; print(json.dumps(m.{call}))"
    trees = [str(server)] if server is not None else []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*trees, str(REPO), *sys.path])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, cwd=REPO, check=False)
    if done.returncode:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        return {"skipped": f"the process failed (exit {done.returncode}): {tail[0]}"}
    result: dict[str, Any] = json.loads(done.stdout.decode().strip().splitlines()[-1])
    return result
