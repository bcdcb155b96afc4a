"""`memlens` run as a user runs it, in a process of its own, over a folder of Claude Code transcripts the test wrote:
what the tests of a stopped or interrupted command share."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path
from typing import Any

import platformdirs

from claude_lines import claude_line


def on_a_terminal(
    command: list[str],
    *,
    env: dict[str, str],
    columns: int = 80,
    rows: int = 24,
    stdout: bool = True,
    stderr: bool = False,
    cwd: Path | None = None,
) -> tuple[int, str]:
    """(exit status, what it wrote) of `command` with its `stdout` and/or `stderr` on a real terminal (a
    pseudo-terminal of `columns` × `rows`: the progress bar and the pager draw only there), read until it closes."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=slave if stdout else subprocess.DEVNULL,
        stderr=slave if stderr else subprocess.DEVNULL,
        env=env,
        cwd=cwd,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            block = os.read(master, 1 << 16)
        except OSError:  # EIO: the terminal's other side closed
            break
        if not block:
            break
        chunks.append(block)
    status = process.wait(timeout=600)
    os.close(master)
    return status, b"".join(chunks).decode("utf-8", "replace")


def write_claude_session(folder: Path, n: int) -> Path:
    """Session `n`: four messages (two prompts, two answers) about "the quokka migration", in a file of its own."""
    session = f"6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a{n:02d}"
    rows = []
    for m in range(4):
        kind = "user" if m % 2 == 0 else "assistant"
        text = f"session {n} message {m}: the quokka migration step {m} for service {n}"
        parent = f"s{n}u{m - 1}" if m else None
        row = claude_line(kind, f"s{n}u{m}", parent, text, session=session, timestamp=f"2026-03-01T1{m}:00:00Z")
        rows.append(json.dumps(row) + "\n")
    path = folder / f"{session}.jsonl"
    path.write_text("".join(rows))
    return path


LONG = "0c4f2b6e-7a1d-4e3b-9c5a-8d7e6f5a4b3c"  # the long session's id (and its file's name)


def write_long_session(path: Path, messages: int = 400) -> None:
    """Session LONG: `messages` messages (about 100 KB: six slices of 16 KB), each line its own message."""
    rows = []
    for m in range(messages):
        kind = "user" if m % 2 == 0 else "assistant"
        text = f"long session message {m}: the wombat ledger reconciliation, step {m} of {messages}, " + "x" * 150
        parent = f"l{m - 1}" if m else None
        stamp = f"2026-03-0{1 + m // 200}T{(m // 60) % 24:02d}:{m % 60:02d}:00Z"
        rows.append(json.dumps(claude_line(kind, f"l{m}", parent, text, session=LONG, timestamp=stamp)) + "\n")
    path.write_text("".join(rows))


def claude_folder_flags(tmp_path: Path) -> list[str]:
    """The flags that read `tmp_path/claude` whole into `tmp_path/index`, keyword-only."""
    folder = tmp_path / "claude"
    return ["--transcripts", str(folder), "--index-dir", str(tmp_path / "index"), "--no-embeddings", "--scope", "all"]


# `memlens` with slices of argv[1] bytes, its reader waiting, when it starts the second slice of the file named
# argv[2], until the test opens the FIFO argv[4] (after saying so by creating argv[3]); a program's last line says
# which command it runs (HELD_IN_ITS_SECOND_SLICE + 'raise SystemExit(main(["serve"]))')
HELD_IN_ITS_SECOND_SLICE = """
import os, sys
from memlens.engine.indexing import file_reader, ingest
file_reader.SLICE_BYTES = ingest.STREAM_BLOCK = int(sys.argv[1])
ingest.MAX_CARRY_BLOCKS = 1 << 30
held, reached, release = sys.argv[2:5]
read = file_reader.FileReader.read
def held_read(self, source, row, *args, **kwargs):
    if source.path.name == held and row is not None and row.parsed_bytes > 0 and not os.path.exists(reached):
        open(reached, "w").close()
        os.close(os.open(release, os.O_RDONLY))
    return read(self, source, row, *args, **kwargs)
file_reader.FileReader.read = held_read
from memlens.cli import main
"""


def memlens_process(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """`memlens ARGS` run to its end in a process of its own, its output captured (`env`: the whole environment,
    else this one's)."""
    return subprocess.run(
        [sys.executable, "-m", "memlens", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=cwd,
        env=env,
    )


def memlens_with_own_home(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`memlens ARGS` in `cwd`, with a home of its own beside it (no agent's folders) and the user's model cache."""
    env = {**os.environ, "HOME": str(cwd.parent / "home"), "XDG_CACHE_HOME": platformdirs.user_cache_dir()}
    return memlens_process(*args, env=env, cwd=cwd)


def run_memlens(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`memlens ARGS` run to its end, its output captured."""
    return memlens_process(*args, cwd=cwd, timeout=300)


def wait_for_marker(marker: Path, process: subprocess.Popen[str]) -> None:
    """Wait until the process has created `marker` (it then waits for the test), failing if it ended first."""
    deadline = time.monotonic() + 120
    while not marker.exists():
        if process.poll() is not None:
            raise AssertionError(f"memlens ended before it reached the held file: {process.communicate()}")
        assert time.monotonic() < deadline, "memlens never reached the held file"
        time.sleep(0.02)


def release_fifo(fifo: Path, process: subprocess.Popen[str] | None) -> None:
    """Let the process held on `fifo` go on, once it waits there; if it ended instead (it did not wait), nothing
    (`process` None: one the test cannot look at, a language client's server)."""
    deadline = time.monotonic() + 120
    while True:
        try:  # (not blocking: a process that never opens it would hold the test)
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            return
        except OSError as exc:
            if exc.errno != errno.ENXIO:  # ENXIO: no reader yet
                raise
        if process is not None and process.poll() is not None:
            return
        assert time.monotonic() < deadline, "memlens never waited on the FIFO"
        time.sleep(0.02)


def index_contents(index: Path) -> dict[str, Any]:
    """What a user finds in the index at `index`: every message (session, id, role, kind, text, in order) and the
    sessions' facts."""
    from memlens.engine.engine import Engine
    from memlens.settings import Settings

    settings = Settings()
    settings.transcripts.agent_defaults = False
    engine = Engine([], settings, [], index, embedder=False)
    try:
        db = engine.catalog.db
        messages = db.execute(
            "SELECT session_key, message_id, role, kind, text FROM plain_units WHERE kind != 'memory'"
            " ORDER BY session_key, seq, part"
        ).fetchall()
        sessions = db.execute("SELECT key, session_id, format, parent_key, agent_id, cwd, title FROM sessions")
        return {"messages": [tuple(m) for m in messages], "sessions": sorted(tuple(s) for s in sessions)}
    finally:
        engine.close()
