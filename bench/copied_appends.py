"""What an append costs in a session that several files hold (a live transcript and its hand copies or rotations).

The writer chooses which of a session's files keeps each message (catalog/copies.py) for the sessions each write
touches. This writes one Claude Code session of `--messages` messages into a folder, beside it `--copies` minus one
copies of it (`.bak`, `.old`, `.1`, `.2`, …), indexes the folder keyword-only, then appends one message at a time to
the live file and times what a watcher does for it (`sync_paths` of that file), CPU beside wall, and the CPU of the
choice of copies alone (`Catalog.settle_copies` and `settle_appended`, timed around each call); and the catalog's
size at the end (its WAL checkpointed or not: compare runs of one tree with another on the same sizes).

    python bench/copied_appends.py --messages 20000 --copies 5 --appends 40
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable, and not bench/ itself (see speed.py)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import percentile

SESSION = "0c0e1d2a-3b4c-4d5e-8f60-718293a4b5c6"
COPY_NAMES = (".bak", ".old", *(f".{n}" for n in range(1, 100)))


def session_line(n: int, parent: str | None) -> tuple[str, str]:
    """(the JSON line of message `n` of SESSION, its uuid)."""
    me = str(uuid.UUID(int=n + 1))
    role = "user" if n % 2 == 0 else "assistant"
    text = f"Message {n} of the long session: the rollout of shard {n % 97} waits on the ledger migration."
    content: object = text if role == "user" else [{"type": "text", "text": text}]
    row = {
        "parentUuid": parent,
        "isSidechain": False,
        "sessionId": SESSION,
        "type": role,
        "message": {"role": role, "content": content},
        "uuid": me,
        "timestamp": f"2026-03-{1 + n // 86400 % 28:02d}T{n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d}Z",
    }
    return json.dumps(row) + "\n", me


def write_session(path: Path, messages: int) -> str:
    """SESSION's first `messages` messages into `path`; the last one's uuid."""
    parent: str | None = None
    with path.open("w", encoding="utf-8") as handle:
        for n in range(messages):
            line, parent = session_line(n, parent)
            handle.write(line)
    return parent or ""


def timed(method: Callable[..., Any], spent: list[float]) -> Callable[..., Any]:
    """`method`, adding the process CPU ms of each call to spent[0]."""

    def call(*args: Any, **kwargs: Any) -> Any:
        cpu = time.process_time()
        try:
            return method(*args, **kwargs)
        finally:
            spent[0] += 1000 * (time.process_time() - cpu)

    return call


def measure(*, messages: int, copies: int, appends: int, workdir: Path | None) -> dict[str, Any]:
    from memlens.engine.engine import Engine
    from memlens.settings import Settings

    with tempfile.TemporaryDirectory(prefix="memlens-copied-appends-", dir=workdir) as tmp:
        folder = Path(tmp) / "claude"
        folder.mkdir()
        live = folder / f"{SESSION}.jsonl"
        parent = write_session(live, messages)
        for suffix in COPY_NAMES[: copies - 1]:
            shutil.copy(live, f"{live}{suffix}")
        settings = Settings()
        settings.transcripts.agent_defaults = False
        settings.scope = "all"
        started, cpu = time.perf_counter(), time.process_time()
        with Engine([], settings, [folder], Path(tmp) / "index", embedder=False) as engine:
            engine.sync(embed=False)
            first = {"wallS": round(time.perf_counter() - started, 2), "cpuS": round(time.process_time() - cpu, 2)}
            spent = [0.0]
            catalog: Any = engine.catalog
            for name in ("settle_copies", "settle_appended"):
                if hasattr(catalog, name):
                    setattr(catalog, name, timed(getattr(catalog, name), spent))
            walls: list[float] = []
            cpus: list[float] = []
            settles: list[float] = []
            for i in range(appends):
                line, parent = session_line(messages + i, parent)
                with live.open("a", encoding="utf-8") as handle:
                    handle.write(line)
                spent[0] = 0.0
                began, cpu = time.perf_counter(), time.process_time()
                engine.sync_paths([live], embed=False)
                walls.append(1000 * (time.perf_counter() - began))
                cpus.append(1000 * (time.process_time() - cpu))
                settles.append(spent[0])
            held = sum(engine.stats()["messages"].values())
            if held != messages + appends:
                raise SystemExit(f"the index counts {held} messages, not {messages + appends}")
            catalog_bytes = engine.catalog.path.stat().st_size
    return {
        "messages": messages,
        "files": copies,
        "firstSync": first,
        "appends": appends,
        "wallP50Ms": round(percentile(walls, 50), 1),
        "wallP95Ms": round(percentile(walls, 95), 1),
        "cpuP50Ms": round(percentile(cpus, 50), 1),
        "cpuP95Ms": round(percentile(cpus, 95), 1),
        "copiesCpuP50Ms": round(percentile(settles, 50), 2),
        "copiesCpuP95Ms": round(percentile(settles, 95), 2),
        "catalogBytes": catalog_bytes,
    }


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=20_000, help="messages in the session")
    parser.add_argument("--copies", type=int, default=5, help="files holding it, the live one included")
    parser.add_argument("--appends", type=int, default=40)
    parser.add_argument("--workdir", type=Path, default=None, help="where the scratch folder goes")
    args = parser.parse_args(argv)
    out: dict[str, Any] = {"loadavgStart": os.getloadavg()}
    out.update(measure(messages=args.messages, copies=args.copies, appends=args.appends, workdir=args.workdir))
    out["loadavgEnd"] = os.getloadavg()
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
