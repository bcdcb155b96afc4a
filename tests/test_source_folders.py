"""The index remembers its folders: a command that names fewer folders than the index was built from neither removes
nor hides the others, says in one line which it also holds, and `memlens sources` lists them; only `memlens sources
remove DIR` forgets one. Through the real CLI (subprocesses), keyword-only to stay quick."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

import pytest

from conftest import EXAMPLE_WORKSPACE

DLQ_QUERY = "dead-letter queue backup"


class Cli:
    """`memlens` in a subprocess, with a private home folder (no real agent folders) and one index."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.workspace = root / "ws"
        self.transcripts = self.home / "notes" / "transcripts"  # under home: shown as ~/notes/transcripts
        self.index = root / "index"
        self.home.mkdir()
        self.workspace.mkdir()
        shutil.copyfile(EXAMPLE_WORKSPACE / "MEMORY.md", self.workspace / "MEMORY.md")
        shutil.copytree(EXAMPLE_WORKSPACE / "transcripts", self.transcripts)

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "memlens", *args]
        command += ["--workspace", str(self.workspace), "--index-dir", str(self.index), "--no-embeddings"]
        env = {**os.environ, "HOME": str(self.home)}
        result = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False, env=env)
        if check and result.returncode not in (0, 1):
            raise AssertionError(f"memlens {' '.join(args)} failed: {result.stderr}")
        return result

    def search(self, query: str = DLQ_QUERY, *args: str) -> tuple[dict[str, Any], str]:
        result = self.run("search", query, "--mode", "keyword", "--json", "--limit", "50", *args)
        return json.loads(result.stdout), result.stderr

    def sources(self) -> list[dict[str, Any]]:
        return json.loads(self.run("sources", "--json").stdout)["sources"]  # type: ignore[no-any-return]

    def total_chunks(self) -> int:
        return int(json.loads(self.run("stats", "--json").stdout)["totalChunks"])


def hits_under(response: dict[str, Any], folder: Path) -> list[dict[str, Any]]:
    return [hit for hit in response["results"] if hit["path"].startswith(str(folder) + "/")]


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path)


@pytest.mark.parametrize("named_by", ["flag", "settings"])
def test_a_command_naming_fewer_folders_keeps_and_searches_the_others(cli: Cli, named_by: str) -> None:
    if named_by == "flag":
        cli.run("index", "--transcripts", str(cli.transcripts))
    else:
        settings = cli.root / "settings.json"
        settings.write_text(json.dumps({"transcripts": {"paths": [str(cli.transcripts)]}}))
        cli.run("index", "--settings", str(settings))
    built = cli.total_chunks()
    assert built > 10

    response, stderr = cli.search()  # neither the flag nor the settings file this time
    assert hits_under(response, cli.transcripts), "the folder's transcripts are still searched"
    assert "removed" not in stderr
    assert "this index also holds ~/notes/transcripts (memlens sources lists them)" in stderr
    assert stderr.count("also holds") == 1
    quiet = cli.run("search", DLQ_QUERY, "--mode", "keyword", "-q")
    assert quiet.returncode == 0 and quiet.stdout == "" and quiet.stderr == "", "-q: the note is left out too"
    assert cli.total_chunks() == built

    (folder,) = [s for s in cli.sources() if s["path"] == str(cli.transcripts)]
    assert folder["displayPath"] == "~/notes/transcripts" and folder["kind"] == "transcripts"
    assert folder["files"] == 5 and folder["units"] > 0 and folder["named"] is False
    expected = "memlens index --transcripts" if named_by == "flag" else "memlens.transcripts.paths"
    assert expected in folder["addedFrom"]


def test_a_dropped_folder_inside_the_workspace_is_named_too(cli: Cli) -> None:
    """A transcript folder inside the workspace (`transcripts.paths: ["logs"]`) is not read by the workspace's memory
    globs: once no setting names it, the line names it as well."""
    inside = cli.workspace / "logs"
    shutil.move(cli.transcripts, inside)
    settings = cli.root / "settings.json"
    settings.write_text(json.dumps({"transcripts": {"paths": ["logs"]}}))
    cli.run("index", "--settings", str(settings))
    response, stderr = cli.search()
    assert hits_under(response, inside)
    assert f"this index also holds {inside} (memlens sources lists them)" in stderr


def test_sources_lists_and_remove_forgets_one_folder(cli: Cli) -> None:
    cli.run("index", "--transcripts", str(cli.transcripts))
    listed = cli.run("sources").stdout
    assert "~/notes/transcripts  [transcripts]  5 files" in listed
    assert "added from: memlens index --transcripts" in listed
    assert f"{cli.workspace}  [memory]  1 file," in listed

    removed = cli.run("sources", "remove", str(cli.transcripts))
    assert removed.returncode == 0
    assert removed.stdout.strip() == "removed ~/notes/transcripts from the index (5 files)"
    assert [s["path"] for s in cli.sources()] == [str(cli.workspace)]
    response, stderr = cli.search()
    assert not hits_under(response, cli.transcripts)
    assert "also holds" not in stderr
    assert cli.total_chunks() == int(json.loads(cli.run("stats", "--json").stdout)["totalChunks"])

    again = cli.run("sources", "remove", str(cli.transcripts), check=False)
    assert again.returncode == 2
    assert again.stderr.strip() == (
        "memlens: error: ~/notes/transcripts is not a folder this index holds (memlens sources lists them)"
    )
    named = cli.run("sources", "remove", str(cli.workspace), check=False)
    assert named.returncode == 2 and "is named by this command" in named.stderr
    assert "Traceback" not in again.stderr + named.stderr


@pytest.mark.parametrize("named_as", ["shown", "raw bytes"])
def test_a_folder_whose_name_is_not_utf8_is_listed_and_removed(cli: Cli, named_as: str) -> None:
    """`sources` shows such a name escaped; `sources remove` takes it as shown or as the shell passes the bytes."""
    odd = cli.home / "notes" / os.fsdecode(b"t\xff")
    shutil.move(cli.transcripts, odd)
    cli.run("index", "--transcripts", os.fsdecode(odd))
    listed = cli.run("sources").stdout
    assert "~/notes/t\\xff  [transcripts]  5 files" in listed

    folder = str(cli.home / "notes" / "t\\xff") if named_as == "shown" else os.fsdecode(odd)
    removed = cli.run("sources", "remove", folder)
    assert removed.returncode == 0, removed.stderr
    assert removed.stdout.strip() == "removed ~/notes/t\\xff from the index (5 files)"
    assert [s["path"] for s in cli.sources()] == [str(cli.workspace)]


def test_remove_needs_a_folder(cli: Cli) -> None:
    result = cli.run("sources", "remove", check=False)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "memlens: error: memlens sources remove needs the folder to forget (memlens sources lists them)"
    )


def test_an_index_from_before_remembered_folders_keeps_them(cli: Cli) -> None:
    """A catalog with files but no recorded folders (an older memlens): the first sync records a folder for the
    files no named folder holds instead of removing them."""
    cli.run("index", "--transcripts", str(cli.transcripts))
    built = cli.total_chunks()
    with sqlite3.connect(cli.index / "catalog.sqlite3") as db:
        db.execute("DELETE FROM roots")
    (cli.index / "roots.json").unlink()
    response, stderr = cli.search()
    assert hits_under(response, cli.transcripts) and "removed" not in stderr
    # said by the first command already: a folder for each folder the files lie in
    assert "memlens: this index also holds ~/notes/transcripts/claude-code, " in stderr
    assert cli.total_chunks() == built
    kept = [s for s in cli.sources() if s["path"].startswith(str(cli.transcripts))]
    assert kept and all(s["addedFrom"] == "an index built before memlens remembered its folders" for s in kept)
    assert sum(s["files"] for s in kept) == 5


def test_a_damaged_catalog_started_anew_keeps_its_folders(cli: Cli) -> None:
    """A damaged catalog is set aside and started anew; the folders it was built from come back from the copy beside
    it, so the rebuild re-reads them though this command does not name them."""
    cli.run("index", "--transcripts", str(cli.transcripts))
    built = cli.total_chunks()
    for stale in cli.index.glob("catalog.sqlite3*"):
        stale.unlink()
    (cli.index / "catalog.sqlite3").write_bytes(b"this is not a database" * 100)
    response, stderr = cli.search()
    assert hits_under(response, cli.transcripts)
    assert "this index also holds ~/notes/transcripts (memlens sources lists them)" in stderr
    assert cli.total_chunks() == built
    assert list(cli.index.glob("catalog.sqlite3.damaged-*"))


def test_a_narrower_scope_hides_but_does_not_remove(cli: Cli) -> None:
    """`--scope all` reads every project's Claude Code sessions; a later run with the workspace scope hides the
    other projects' sessions (their cwd lies elsewhere) but keeps them indexed, so `--scope all` shows them again
    without reading them anew."""
    other = cli.home / ".claude" / "projects" / "-home-maren-code-ledgerline"
    shutil.copytree(cli.transcripts / "claude-code", other)
    first = cli.run("index", "--scope", "all").stdout
    assert "parsed" in first
    built = cli.total_chunks()
    assert built > 1

    hidden, stderr = cli.search("dead-letter queue")
    assert not hits_under(hidden, other)
    assert "removed" not in stderr
    assert cli.total_chunks() == built

    shown, stderr = cli.search("dead-letter queue", "--scope", "all")
    assert hits_under(shown, other)
    assert "parsed" not in stderr


def test_a_folder_gone_as_a_whole_keeps_its_files_until_it_is_removed(cli: Cli) -> None:
    """A remembered transcript folder that is missing as a whole (an unmounted disk, a share not connected yet) kept
    nothing: the next search's sync removed every file of it, and the disk plugged in again was read (and embedded)
    anew. Now its files stay as last read, the sync says so in one line, and `sources remove` still forgets it."""
    cli.run("index", "--transcripts", str(cli.transcripts))
    before, _ = cli.search()
    assert hits_under(before, cli.transcripts)
    unplugged = cli.transcripts.with_name("unplugged")
    cli.transcripts.rename(unplugged)

    during, stderr = cli.search()
    assert [h["id"] for h in hits_under(during, cli.transcripts)] == [
        h["id"] for h in hits_under(before, cli.transcripts)
    ]
    said = [line for line in stderr.splitlines() if "is missing" in line]
    assert said == [
        "memlens: ~/notes/transcripts is missing: its 5 files stay indexed as last read "
        "(`memlens sources remove` forgets them)"
    ], stderr
    assert next(s for s in cli.sources() if s["path"] == str(cli.transcripts))["files"] == 5

    unplugged.rename(cli.transcripts)
    back = cli.run("index")
    assert "0 parsed" in back.stdout and "0 removed" in back.stdout, back.stdout  # nothing to read again

    cli.transcripts.rename(unplugged)
    removed = cli.run("sources", "remove", str(cli.transcripts))
    assert removed.stdout.strip() == "removed ~/notes/transcripts from the index (5 files)"
    after, stderr = cli.search()
    assert not hits_under(after, cli.transcripts) and "is missing" not in stderr


def _lines_into(stream: IO[str], lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line)


def test_a_folder_gone_as_a_whole_under_a_running_watch_keeps_its_files(cli: Cli) -> None:
    """The watcher's deletions, through a real `memlens watch`: the folder moved away (an unmounted disk) gives the
    watcher a deletion for each of its files; it keeps them as last read and says so in one line, as a sync does."""
    cli.run("index", "--transcripts", str(cli.transcripts))
    files = next(s for s in cli.sources() if s["path"] == str(cli.transcripts))["files"]
    command = [sys.executable, "-m", "memlens", "watch", "--workspace", str(cli.workspace)]
    command += ["--index-dir", str(cli.index), "--no-embeddings"]
    env = {**os.environ, "HOME": str(cli.home)}
    watch = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    lines: queue.Queue[str] = queue.Queue()
    assert watch.stderr is not None
    threading.Thread(target=_lines_into, args=(watch.stderr, lines), daemon=True).start()
    try:
        said = [lines.get(timeout=120)]  # a bound for a watcher that never says it, not a wait for one
        while "Ctrl-C stops" not in said[-1]:  # it watches from here on
            said.append(lines.get(timeout=120))
        cli.transcripts.rename(cli.transcripts.with_name("unplugged"))
        while "is missing" not in said[-1]:  # the watcher's deletions, taken in
            said.append(lines.get(timeout=120))
        assert said[-1].strip() == (
            f"memlens: ~/notes/transcripts is missing: its {files} files stay indexed as last read "
            "(`memlens sources remove` forgets them)"
        ), said
        assert next(s for s in cli.sources() if s["path"] == str(cli.transcripts))["files"] == files
        stats = json.loads(cli.run("stats", "--json").stdout)
        assert sum(stats["files"].values()) == files + 1, stats  # and the workspace's MEMORY.md
    finally:
        watch.send_signal(signal.SIGTERM)
        watch.communicate(timeout=120)
    assert watch.returncode in (0, 128 + signal.SIGTERM)
