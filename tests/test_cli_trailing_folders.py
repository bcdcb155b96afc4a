"""A folder typed after the query, as `rg PATTERN PATH`: `memlens search heartbeat ~/notes` searches ~/notes and says
so, where every word was joined into the query before and a user read "no results" of a search never made. A bare
word, a path that names no folder or a file, and every word after `--` stay in the query (the last two said on
stderr); a command without a query is told to write `--workspace`. Each case runs the real CLI in a process of its
own, over a folder of memory notes searched by keyword (no model), with a HOME of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memlens.cli.trailing_folders import split_off_folders


def notes(folder: Path, text: str) -> Path:
    """A project folder of one memory note holding `text`."""
    (folder / "memory").mkdir(parents=True)
    (folder / "memory" / "ops.md").write_text(f"# Ops\n\n{text}\n", encoding="utf-8")
    return folder


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A HOME with no agent's transcript folder, a current folder that is no project, and two projects of notes."""
    notes(tmp_path / "notes", "The heartbeat interval was raised to 30s after the watchdog killed workers.")
    notes(tmp_path / "more", "A second heartbeat note, about the standby's heartbeat.")
    (tmp_path / "elsewhere").mkdir()
    return tmp_path


def memlens(
    home: Path, *args: str, stdin: str | None = None, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR", "CLICOLOR_FORCE")}
    env = clean | {"HOME": str(home), "XDG_CACHE_HOME": str(home / "cache")} | (env or {})
    return subprocess.run(
        [sys.executable, "-m", "memlens", args[0], "--no-embeddings", *args[1:]],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=env,
        cwd=cwd or home / "elsewhere",
        input=stdin,
    )


def summary(stdout: str) -> str:
    """A search's summary line (folded on a narrow terminal: its lines joined), the lines after its one hit."""
    return " ".join(line.strip() for line in stdout.split("watchdog")[-1].splitlines()[1:])


@pytest.mark.slow  # CLI processes
def test_a_folder_after_the_query_is_searched_and_named_in_the_summary_line(home: Path) -> None:
    found = memlens(home, "search", "heartbeat", str(home / "notes"))
    assert found.returncode == 0, found.stderr
    assert "memory/ops.md:1" in found.stdout and "watchdog" in found.stdout
    said = f"1 result in {home / 'notes'} · keyword · "
    assert summary(found.stdout).startswith(said), found.stdout
    narrow = memlens(home, "search", "heartbeat", str(home / "notes"), env={"COLUMNS": "40"})
    assert summary(narrow.stdout).startswith(said), narrow.stdout  # folded, never cut: the path stays whole
    assert all(len(line) <= 40 for line in narrow.stdout.splitlines() if " " in line.strip())

    nothing = memlens(home, "search", "zebra", str(home / "notes"))
    assert (nothing.returncode, nothing.stdout) == (1, "")
    assert f"memlens: no results in {home / 'notes'} for 'zebra'" in nothing.stderr.splitlines()

    as_json = memlens(home, "search", "heartbeat", str(home / "notes"), "--json")
    assert json.loads(as_json.stdout)["query"] == "heartbeat"
    assert f"memlens: searched {home / 'notes'} (named on the command line, as --workspace)" in as_json.stderr


@pytest.mark.slow  # CLI processes
def test_several_folders_are_all_searched_and_each_written_as_a_path(home: Path) -> None:
    both = memlens(home, "search", "heartbeat", "./notes", "more/", "--json", cwd=home)
    answer = json.loads(both.stdout)
    assert answer["query"] == "heartbeat"
    assert {Path(hit["path"]).parent.parent for hit in answer["results"]} == {home / "notes", home / "more"}
    assert f"searched {home / 'notes'} and {home / 'more'}" in both.stderr

    with_flag = memlens(home, "search", "heartbeat", "./more", "--workspace", str(home / "notes"), "--json", cwd=home)
    assert len(json.loads(with_flag.stdout)["results"]) == 2  # the flag's folder and the typed one

    here = memlens(home, "search", "heartbeat", ".", "--json", cwd=home / "more")
    assert [Path(hit["path"]).parent.parent for hit in json.loads(here.stdout)["results"]] == [home / "more"]


@pytest.mark.slow  # CLI processes
def test_a_bare_word_a_missing_path_a_file_and_words_after_dashes_stay_in_the_query(home: Path) -> None:
    bare = memlens(home, "search", "heartbeat", "notes", "--json", cwd=home)  # a folder `notes` exists here
    assert json.loads(bare.stdout)["query"] == "heartbeat notes"
    assert "searched" not in bare.stderr and "as words" not in bare.stderr

    missing = memlens(home, "search", "heartbeat", "./gone", "--json", cwd=home)
    assert json.loads(missing.stdout)["query"] == "heartbeat ./gone"
    said = [line for line in missing.stderr.splitlines() if "as words" in line]
    assert said == ["memlens: searching for './gone' as words: no such folder; after `--` no word is read as a folder"]

    file = home / "notes" / "memory" / "ops.md"
    of_a_file = memlens(home, "search", "heartbeat", str(file), "--json")
    assert json.loads(of_a_file.stdout)["query"] == f"heartbeat {file}"
    assert f"it is a file, and a search looks in folders (its own: {file.parent})" in of_a_file.stderr

    dashes = memlens(home, "search", "--json", "--", "heartbeat", str(home / "notes"))
    assert json.loads(dashes.stdout)["query"] == f"heartbeat {home / 'notes'}"
    assert "as words" not in dashes.stderr and "searched" not in dashes.stderr

    alone = memlens(home, "search", str(home / "notes"), "--json")  # the first word is the query, as rg's pattern
    assert json.loads(alone.stdout)["query"] == str(home / "notes")


@pytest.mark.slow  # CLI processes
def test_a_query_from_stdin_and_a_pasted_error_take_a_folder_too(home: Path) -> None:
    piped = memlens(home, "search", "-", str(home / "notes"), "--json", stdin="watchdog killed workers\n")
    answer = json.loads(piped.stdout)
    assert answer["query"].strip() == "watchdog killed workers" and answer["results"], piped.stderr

    fixes = memlens(home, "fixes", "ECONNREFUSED", "127.0.0.1:5432", str(home / "notes"))
    assert fixes.returncode == 1
    said = f"memlens: no past tool output matches that error in {home / 'notes'}"
    assert said in fixes.stderr.splitlines(), fixes.stderr


@pytest.mark.slow  # CLI processes
def test_a_command_without_a_query_is_told_to_name_its_folder_with_workspace(home: Path) -> None:
    for command in (["sessions"], ["history", "5b0e7d3c"], ["stats"], ["index"]):
        told = memlens(home, *command, str(home / "notes"))
        assert told.returncode == 2 and told.stdout == ""
        assert f"a folder to look in is given as --workspace {home / 'notes'}" in told.stderr, told.stderr
        assert told.stderr.count("\n") == 1 and "Traceback" not in told.stderr


def test_the_rule_reads_only_last_words_written_as_paths_that_name_folders(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    assert split_off_folders(["x", a, b], options_ended=False).folders == [tmp_path / "a", tmp_path / "b"]
    assert split_off_folders(["x", a, "y"], options_ended=False).words == ["x", a, "y"]  # in the middle: words
    assert split_off_folders(["x", a, a], options_ended=False).folders == [tmp_path / "a"]  # each once
    assert split_off_folders([a], options_ended=False).words == [a]
    assert split_off_folders(["x", a], options_ended=True).folders == []
    kept = split_off_folders(["x", str(tmp_path / "c"), a], options_ended=False)
    assert kept.words == ["x", str(tmp_path / "c")] and kept.folders == [tmp_path / "a"]
    assert kept.kept is not None and "no such folder" in kept.kept
