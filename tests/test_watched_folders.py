"""`memlens watch` when a whole folder of transcripts moves: out of a watched folder, back in under another name,
renamed inside it. The file watcher names only the folder then, never its files, so each step is checked against
what the files hold: every session there once, none of a folder that left."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from memlens_runs import claude_folder_flags, run_memlens, write_claude_session


def indexed_sessions(tmp_path: Path) -> dict[str, tuple[str, int]]:
    """Session key -> (the folder of its file, its message count), as `memlens sessions` lists them."""
    listed = run_memlens("sessions", "--json", "--no-sync", "-m", "500", *claude_folder_flags(tmp_path), cwd=tmp_path)
    assert listed.returncode in (0, 1), listed.stderr
    sessions = json.loads(listed.stdout)["sessions"]
    return {s["sessionKey"]: (Path(s["path"]).parent.name, s["messageCount"]) for s in sessions}


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
    command = [sys.executable, "-m", "memlens", "watch", "--json", *claude_folder_flags(tmp_path)]
    process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
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
