"""An interrupted `memlens index` keeps the files it read (cli/commands.py `sync_engine`, stop_signal.py
`cancelled_by_a_stop`): the first Ctrl-C or SIGTERM ends the batch under way as the editor's cancel does, the files
read until then committed (the one being read when it came whole: a read is not cut short), and the next run reads
only the rest; the line says how many files this run kept and how many are left; a second one quits at once.

A real `memlens` process reads six one-session files newest first (one batch: the old behaviour threw it all away);
it is held still inside the read of the fourth, its reader wrapped to wait on a FIFO, so the signal always comes
while that file is being read: no sleep races the process."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from memlens_runs import claude_folder_flags, release_fifo, run_memlens, wait_for_marker, write_claude_session

pytestmark = pytest.mark.slow  # real processes

SESSIONS = 6
HELD = 2  # the session whose file is being read when the signal comes: sessions 5, 4 and 3 (the newer) were read

# `memlens` as `python -m memlens` runs it, its file reader waiting, when it starts the held file, until the test
# opens the `release` FIFO (after saying so by creating `reached`); with `again`, it then waits on that FIFO too
HOLDING_MEMLENS = """
import os, sys
from memlens.engine.indexing import file_reader
held, reached, release, again = sys.argv[1:5]
read = file_reader.FileReader.read
def held_read(self, source, *args, **kwargs):
    if source.path.name == held:
        open(reached, "w").close()
        os.close(os.open(release, os.O_RDONLY))
        if again:
            open(again + ".reached", "w").close()
            os.close(os.open(again, os.O_RDONLY))
    return read(self, source, *args, **kwargs)
file_reader.FileReader.read = held_read
from memlens.cli import main
raise SystemExit(main(sys.argv[5:]))
"""

# (the signal, what SIGINT is in the process): Ctrl-C as a terminal gives it, SIGTERM, and SIGTERM where SIGINT is
# ignored (`cmd &` in a script)
STOPS = {
    "ctrl-c": (signal.SIGINT, signal.SIG_DFL),
    "sigterm": (signal.SIGTERM, signal.SIG_DFL),
    "sigterm-sigint-ignored": (signal.SIGTERM, signal.SIG_IGN),
}


def _session_file(folder: Path, n: int) -> Path:
    path = write_claude_session(folder, n)
    when = 1_700_000_000 + 1000 * n  # newer as n grows: read 5, 4, 3, 2, 1, 0
    os.utime(path, (when, when))
    return path


def _indexed_files(tmp_path: Path) -> set[str]:
    """The names of the files the catalog holds as read."""
    with sqlite3.connect(tmp_path / "index" / "catalog.sqlite3") as db:
        return {Path(path).name for (path,) in db.execute("SELECT path FROM files WHERE size >= 0")}


def _messages(tmp_path: Path) -> int:
    stats = run_memlens("stats", "--json", *claude_folder_flags(tmp_path), cwd=tmp_path)
    assert stats.returncode == 0, stats.stderr
    return sum(json.loads(stats.stdout)["messages"].values())


@pytest.fixture
def sessions(tmp_path: Path) -> list[Path]:
    folder = tmp_path / "claude"
    folder.mkdir()
    return [_session_file(folder, n) for n in range(SESSIONS)]


def _held_run(
    tmp_path: Path, held: Path, command: list[str], *, sigint: object, again: bool = False
) -> tuple[subprocess.Popen[str], Path]:
    """`memlens COMMAND` started, once it is inside the read of `held` (the signal may be sent); its release FIFO."""
    reached, release = tmp_path / "reached", tmp_path / "release"
    os.mkfifo(release)
    second = tmp_path / "again"
    if again:
        os.mkfifo(second)
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDING_MEMLENS, held.name, str(reached), str(release), str(second) if again else ""]
        + command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),  # type: ignore[arg-type]
    )
    wait_for_marker(reached, process)
    return process, release


@pytest.mark.parametrize("stop", STOPS)
@pytest.mark.parametrize("command", [["index"], ["search", "quokka", "--no-pager"]], ids=["index", "search"])
def test_an_interrupted_first_build_keeps_the_files_read_and_the_next_reads_only_the_rest(
    tmp_path: Path, sessions: list[Path], stop: str, command: list[str]
) -> None:
    signum, sigint = STOPS[stop]
    process, release = _held_run(tmp_path, sessions[HELD], [*command, *claude_folder_flags(tmp_path)], sigint=sigint)
    process.send_signal(signum)
    release_fifo(release, process)  # the held file is read on, whole: then the batch ends
    out, err = process.communicate(timeout=120)

    status, said = (143, "stopped by SIGTERM") if signum == signal.SIGTERM else (130, "interrupted")
    assert process.returncode == status, err
    kept = "kept 4 files (16 messages)" if signum == signal.SIGINT else "kept 4 files"  # (the messages: if they fit)
    assert err.splitlines()[-1] == f"memlens: {said}; {kept}, 2 left for memlens index", err
    assert len(err.splitlines()[-1]) <= 80
    assert "Traceback" not in err and out == ""
    assert _indexed_files(tmp_path) == {path.name for path in sessions[HELD:]}  # the three read before, the held one
    assert _messages(tmp_path) == 16  # each of them whole

    again = run_memlens("index", "--json", *claude_folder_flags(tmp_path), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert (report["filesParsed"], report["filesUnchanged"], report["messagesAdded"]) == (2, 4, 8)
    assert _messages(tmp_path) == 4 * SESSIONS  # each file whole, once
    assert _indexed_files(tmp_path) == {path.name for path in sessions}


def test_a_second_ctrl_c_while_the_batch_ends_quits_at_once(tmp_path: Path, sessions: list[Path]) -> None:
    """The first Ctrl-C has been taken (the process went on past it, into the second hold) when the second comes."""
    command = ["index", *claude_folder_flags(tmp_path)]
    process, release = _held_run(tmp_path, sessions[HELD], command, sigint=signal.SIG_DFL, again=True)
    process.send_signal(signal.SIGINT)
    release_fifo(release, process)
    wait_for_marker(tmp_path / "again.reached", process)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert err.splitlines()[-1] == "memlens: stopped at once", err
    assert "Traceback" not in err
    assert _indexed_files(tmp_path) == set()  # the batch had not committed: nothing of it, and nothing half
    again = run_memlens("index", "--json", *claude_folder_flags(tmp_path), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["filesParsed"] == SESSIONS
