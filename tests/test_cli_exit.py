"""How the `memlens` script ends: a command that has finished its work ends the process at once, without the
interpreter's teardown, and still exits with its status, every byte of its output written and its warnings said; a
process with a thread still running ends the ordinary way, which waits for it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memlens.engine.engine import Engine

# The script's `main`, run in a process that would say so if the interpreter's teardown (atexit) ran.
SCRIPT = """
import atexit, sys, threading
atexit.register(lambda: print("TEARDOWN RAN", file=sys.stderr))
if sys.argv[1] == "with-a-thread":  # a thread that ends once the main thread has (at the ordinary exit)
    threading.Thread(target=threading.main_thread().join).start()
from memlens.cli import main
sys.exit(main(sys.argv[2:]))
"""


def _script(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True, timeout=600, check=False
    )


@pytest.fixture
def where(example: Engine) -> list[str]:
    example.close()  # the processes below write the index
    return ["--workspace", str(example.workspaces[0]), "--index-dir", str(example.index_dir)]


@pytest.mark.slow  # CLI processes
def test_a_finished_command_ends_at_once_with_its_status_and_all_its_output(where: list[str]) -> None:
    found = _script("alone", "search", "queue", "--json", "--limit", "100", *where)
    assert found.returncode == 0 and "TEARDOWN RAN" not in found.stderr
    assert len(json.loads(found.stdout)["results"]) > 10  # the whole JSON: flushed before the end

    nothing = _script("alone", "search", "zyzzyva quoxlet", "--json", *where)
    assert nothing.returncode == 1 and "TEARDOWN RAN" not in nothing.stderr  # a search that finds nothing: 1
    assert json.loads(nothing.stdout)["results"] == []

    failed = _script("alone", "history", "--session", "claude-code:no-such-session", *where)
    assert failed.returncode == 2 and failed.stderr.startswith("memlens: error:")  # its one line, said


@pytest.mark.slow  # CLI processes
def test_a_warning_is_said_before_the_end(where: list[str], tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"search": {"noSuchSetting": 1}}))
    warned = _script("alone", "stats", "--settings", str(settings), *where)
    assert warned.returncode == 0 and "noSuchSetting" in warned.stderr and "TEARDOWN RAN" not in warned.stderr


@pytest.mark.slow  # CLI processes
def test_a_thread_still_running_gets_the_ordinary_exit(where: list[str]) -> None:
    waited = _script("with-a-thread", "stats", "--json", *where)
    assert waited.returncode == 0 and json.loads(waited.stdout)
    assert "TEARDOWN RAN" in waited.stderr


def _script_with_closed(fd: int, *args: str) -> subprocess.CompletedProcess[str]:
    """The script run as `memlens ARGS >&-` (fd 1) or `2>&-` (fd 2) would run it: that descriptor closed."""
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        preexec_fn=lambda: os.close(fd),  # noqa: PLW1509  (the child only closes a descriptor)
    )


@pytest.mark.slow  # CLI processes
def test_a_closed_stdout_is_a_stream_nobody_reads(where: list[str]) -> None:
    found = _script_with_closed(1, "alone", "search", "queue", *where)
    assert (found.returncode, found.stderr) == (0, "")  # no traceback, no 'internal error', the status of a find
    nothing = _script_with_closed(1, "alone", "search", "zyzzyva quoxlet", *where)
    assert nothing.returncode == 1


@pytest.mark.slow  # CLI processes
def test_a_closed_stderr_keeps_the_status_and_the_json_clean(where: list[str]) -> None:
    found = _script_with_closed(2, "alone", "search", "queue", "--json", *where)
    assert found.returncode == 0 and json.loads(found.stdout)["results"]
    failed = _script_with_closed(2, "alone", "search", "queue", "--json", "--limit", "0", *where)
    assert (failed.returncode, failed.stdout) == (2, "")  # the error is not written where the JSON goes
