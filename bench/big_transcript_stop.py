"""How long `memlens index` takes to stop on Ctrl-C while it reads one huge transcript, and what the next run costs.

A months-long session (hundreds of MB of Claude Code JSONL) is written once into a scratch folder (`make_transcript`:
the corpus's seeded texts, one to six sentences a message); then, for this tree and with `--ab` another tree's
server folder, a keyword-only `memlens index` of that folder is started in a process of its own, sent SIGINT
`--after` seconds later, and timed from the signal to its exit (wall, and the process's CPU from the signal on:
/proc at the signal, its rusage at the end). The same index is then synced again to its end: the next run's wall and
CPU time and what it read. The load average is taken around every run: the machines are shared.

    python bench/big_transcript_stop.py --mb 300 --after 15 [--ab /path/to/other/server]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import compile_trees, machine_info, process_cpu_s
from bench.corpus import World, stamp


def make_transcript(path: Path, megabytes: float, seed: int = 3) -> int:
    """One Claude Code session of about `megabytes` MB (10^6 bytes) at `path`, a message every 20 s; its lines."""
    world = World(seed)
    session = str(uuid.UUID(int=world.rng.getrandbits(128)))
    when, parent, size, lines = datetime(2026, 1, 1, tzinfo=UTC), None, 0, 0
    with path.open("w") as out:
        while size < megabytes * 1_000_000:
            lines += 1
            line_uuid = str(uuid.UUID(int=world.rng.getrandbits(128)))
            message: dict[str, Any]
            if lines % 2:
                role, message = "user", {"role": "user", "content": world.ask()}
            else:
                text = " ".join(world.answer() for _ in range(world.rng.randint(1, 6)))
                content = [{"type": "text", "text": text}]
                role = "assistant"
                message = {"id": f"msg_{line_uuid[:12]}", "type": "message", "role": role, "content": content}
            row = {
                "parentUuid": parent,
                "isSidechain": False,
                "cwd": "/work/big",
                "sessionId": session,
                "type": role,
                "message": message,
                "uuid": line_uuid,
                "timestamp": stamp(when),
            }
            written = json.dumps(row, separators=(",", ":")) + "\n"
            out.write(written)
            size += len(written)
            parent, when = line_uuid, when + timedelta(seconds=20)
    return lines


def _command(folder: Path, index: Path) -> list[str]:
    return [sys.executable, "-m", "memlens", "index", "--json", "--transcripts", str(folder)] + [
        "--index-dir",
        str(index),
        "--no-embeddings",
        "--scope",
        "all",
    ]


def _environment(server: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if server is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(server), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def _ctrl_c_reaches() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def stop_and_resume(folder: Path, scratch: Path, *, after: float, server: Path | None) -> dict[str, Any]:
    """One interrupted build of `folder` (SIGINT `after` seconds in), timed from the signal, then the next run."""
    index = scratch / "index"
    shutil.rmtree(index, ignore_errors=True)
    env = _environment(server)
    load = os.getloadavg()
    process = subprocess.Popen(
        _command(folder, index),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=scratch,
        preexec_fn=_ctrl_c_reaches,  # (a bench started in a script's background would pass SIGINT on ignored)
    )
    time.sleep(after)
    cpu_before = process_cpu_s(process.pid) or 0.0
    signalled = time.perf_counter()
    process.send_signal(signal.SIGINT)
    _, status, usage = os.wait4(process.pid, 0)
    stop_wall = time.perf_counter() - signalled
    stderr = process.stderr.read() if process.stderr is not None else ""
    process.returncode = os.waitstatus_to_exitcode(status)
    stopped = {
        "stopWallS": round(stop_wall, 2),
        "stopCpuS": round(usage.ru_utime + usage.ru_stime - cpu_before, 2),
        "exit": process.returncode,
        "line": stderr.strip().splitlines()[-1] if stderr.strip() else "",
        "loadavg": [round(x, 2) for x in load],
    }
    load = os.getloadavg()
    started = time.perf_counter()
    before = os.times()
    again = subprocess.run(_command(folder, index), capture_output=True, text=True, env=env, cwd=scratch)
    after_times = os.times()
    wall = time.perf_counter() - started
    report = json.loads(again.stdout) if again.returncode == 0 else {"error": again.stderr[-500:]}
    keys = ("filesParsed", "filesAppended", "messagesAdded", "seconds")
    nxt = {
        "wallS": round(wall, 2),
        "cpuS": round(
            after_times.children_user + after_times.children_system - before.children_user - before.children_system,
            2,
        ),
        "report": {key: report.get(key) for key in keys} if "error" not in report else report,
        "loadavg": [round(x, 2) for x in load],
    }
    return {"tree": str(server) if server is not None else "this", "stopped": stopped, "nextRun": nxt}


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=300.0, help="the transcript's size in MB (10^6 bytes)")
    parser.add_argument("--after", type=float, default=15.0, help="seconds from the start to the signal")
    parser.add_argument("--ab", type=Path, help="another tree's server/ folder, run before this one each round")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--scratch", type=Path, help="a folder to write into (default: a temporary one)")
    args = parser.parse_args(argv)
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="memlens-bigstop-"))
    folder = scratch / "claude"
    folder.mkdir(parents=True, exist_ok=True)
    transcript = folder / "0b7f6a52-0c1d-4e2f-9a8b-7c6d5e4f3a21.jsonl"
    if not transcript.exists():
        make_transcript(transcript, args.mb)
    compile_trees(None, args.ab)
    runs = []
    for _ in range(args.rounds):
        for server in ([args.ab] if args.ab is not None else []) + [None]:
            runs.append(stop_and_resume(folder, scratch, after=args.after, server=server))
            print(json.dumps(runs[-1]), file=sys.stderr, flush=True)
    result = {"machine": machine_info(), "bytes": transcript.stat().st_size, "after": args.after, "runs": runs}
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
