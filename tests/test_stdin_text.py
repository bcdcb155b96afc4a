"""`memlens search -` and `memlens fixes -` read the query or the pasted error from standard input, as ripgrep and
git read `-`: the real CLI in a subprocess, with keyword-only searches over a small note (no model loaded)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memlens.requests import MAX_PASTE_CHARS

NOTE = "# Pager\n\nThe pager rotation moved to Tuesdays after the spring reorg.\n"
ERROR = "Traceback (most recent call last):\n  File \"app.py\", line 3\nKeyError: 'pager_rotation'\n"


def cli(*args: str, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "memlens", *args], capture_output=True, timeout=300, input=stdin)


@pytest.fixture
def where(tmp_path: Path) -> list[str]:
    (tmp_path / "ws" / "memory").mkdir(parents=True)
    (tmp_path / "ws" / "memory" / "a.md").write_text(NOTE)
    return ["--workspace", str(tmp_path / "ws"), "--index-dir", str(tmp_path / "index")]


def test_a_query_piped_in_is_searched_as_if_typed(where: list[str]) -> None:
    piped = cli("search", "-", "--mode", "keyword", "--json", *where, stdin=b"pager rotation\n")
    typed = cli("search", "pager rotation", "--mode", "keyword", "--json", *where, stdin=b"")
    assert piped.returncode == typed.returncode == 0, piped.stderr
    answer = json.loads(piped.stdout)
    assert answer["results"] and answer["query"].strip() == "pager rotation"
    assert [r["id"] for r in answer["results"]] == [r["id"] for r in json.loads(typed.stdout)["results"]]


def test_a_pasted_traceback_piped_in_keeps_its_lines_and_bytes_no_utf8_are_replaced(where: list[str]) -> None:
    answer = cli("fixes", "-", "--json", *where, stdin=b"\xff\xfe" + ERROR.encode())
    assert answer.returncode == 1, answer.stderr  # as grep: no past occurrence found, said by the exit status
    error = json.loads(answer.stdout)["error"]
    assert error.startswith("\ufffd") and "KeyError: 'pager_rotation'" in error and error.count("\n") >= 2


@pytest.mark.parametrize(("command", "field"), [("search", "query"), ("fixes", "error")])
def test_empty_or_endless_standard_input_is_one_clear_line(where: list[str], command: str, field: str) -> None:
    for given, said in ((b"", "was empty"), (b" \n\n", "held only blank space")):
        empty = cli(command, "-", *where, stdin=given)
        assert empty.returncode == 2 and empty.stdout == b""
        assert empty.stderr.decode().strip() == f"memlens: error: standard input {said}: no {field} to search for"
    endless = cli(command, "-", *where, stdin=b"x" * (MAX_PASTE_CHARS + 2))
    said = endless.stderr.decode()
    assert endless.returncode == 2 and "Traceback" not in said, said
    assert f"pipe its end instead (tail -n 40 FILE | memlens {command} -)" in said


def test_the_help_says_what_a_dash_reads(where: list[str]) -> None:
    for command in ("search", "fixes"):
        shown = cli(command, "--help", stdin=b"").stdout.decode()
        assert "'-': read from standard input" in " ".join(shown.split()), shown
