"""`memlens watch` when a whole folder of transcripts moves: out of a watched folder, back in under another name,
renamed inside it. The file watcher names only the folder then, never its files, so each step is checked against
what the files hold: every session there once, none of a folder that left."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

import pytest

from memlens_runs import claude_folder_flags, run_memlens, write_claude_session


def indexed_sessions(tmp_path: Path) -> dict[str, tuple[str, int]]:
    """Session key -> (the folder of its file, its message count), as `memlens sessions` lists them."""
    listed = run_memlens("sessions", "--json", "--no-sync", "-m", "500", *claude_folder_flags(tmp_path), cwd=tmp_path)
    assert listed.returncode in (0, 1), listed.stderr
    sessions = json.loads(listed.stdout)["sessions"]
    return {s["sessionKey"]: (Path(s["path"]).parent.name, s["messageCount"]) for s in sessions}


def watching(tmp_path: Path, stdout: int | IO[str]) -> subprocess.Popen[str]:
    """`memlens watch --json` over `tmp_path/claude` alone, with a home of its own (no agent's folders watched)."""
    command = [sys.executable, "-m", "memlens", "watch", "--json", *claude_folder_flags(tmp_path)]
    env = {**os.environ, "HOME": str(tmp_path / "home")}
    return subprocess.Popen(command, cwd=tmp_path, stdout=stdout, stderr=subprocess.PIPE, text=True, env=env)


def wait_until(holds: Callable[[], bool], process: subprocess.Popen[str]) -> None:
    """Wait for the watcher to bring the index to the state `holds` checks (it syncs on its own time)."""
    deadline = time.monotonic() + 60
    while not holds():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the index never reached the files' state"
        time.sleep(0.2)


@pytest.mark.slow  # a watching CLI process
def test_a_folder_moved_out_in_and_renamed_is_followed(tmp_path: Path) -> None:
    claude = tmp_path / "claude"
    (claude / "proj-a").mkdir(parents=True)
    for n in (1, 2):
        write_claude_session(claude / "proj-a", n)
    process = watching(tmp_path, subprocess.PIPE)
    try:
        assert process.stdout is not None
        assert json.loads(process.stdout.readline())["filesParsed"] == 2  # the first sync: watching from here on
        keys = set(indexed_sessions(tmp_path))
        assert len(keys) == 2

        (claude / "proj-a").rename(tmp_path / "elsewhere")  # out: its sessions leave the index
        wait_until(lambda: indexed_sessions(tmp_path) == {}, process)

        (tmp_path / "elsewhere").rename(claude / "proj-b")  # back in, named anew: each session once, all there
        wait_until(lambda: indexed_sessions(tmp_path) == {key: ("proj-b", 4) for key in keys}, process)

        (claude / "proj-b").rename(claude / "proj-c")  # renamed where it is watched
        wait_until(lambda: indexed_sessions(tmp_path) == {key: ("proj-c", 4) for key in keys}, process)
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.slow  # a watching CLI process
def test_a_watch_whose_reports_go_to_a_file_in_a_watched_folder_does_not_read_it(tmp_path: Path) -> None:
    """`memlens watch --json > log.jsonl` inside a watched folder: each report changed the file, whose change was
    read and reported, which changed the file again: hundreds of empty reports a second, for ever. The watch's own
    output is not read (as ripgrep skips its output file), said once; the folder's transcripts still are."""
    claude = tmp_path / "claude"
    claude.mkdir()
    write_claude_session(claude, 1)
    log_file = claude / "watch-log.jsonl"
    with log_file.open("w") as out:
        process = watching(tmp_path, out)
    try:
        wait_until(lambda: bool(log_file.read_text().strip()), process)  # the first sync: watching from here on
        write_claude_session(claude, 2)
        wait_until(lambda: len(indexed_sessions(tmp_path)) == 2, process)
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=30)
    assert f"not reading {log_file}: it is this watch's own output" in stderr
    assert stderr.count("own output") == 1
    reports = [json.loads(line) for line in log_file.read_text().splitlines()]
    assert sum(r["filesParsed"] for r in reports) <= 3, reports  # the two sessions (and the log, read once at start)
