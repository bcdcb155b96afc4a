"""A process that reads an index another process writes (a `stats` beside a first `memlens index`) changes nothing
on disk and says in one line what it found; a command run to write (`index`) waits for a short-lived command that
holds the writer lock, and is told who holds it otherwise. The in-flight states are planted by the test: it holds
the writer lock itself (named as another command would name it), beside a part left half-made."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memlens.engine.engine import Engine
from memlens.engine.indexing.writer_holder import HOLDER_FILE, read_holder
from memlens.settings import Settings
from note_index import cli, held_by, note_workspace, where


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return note_workspace(tmp_path / "ws")


def listing(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.slow  # CLI processes
def test_a_reader_beside_a_half_made_keyword_index_leaves_it_alone_and_says_so(workspace: Path, tmp_path: Path) -> None:
    """`memlens stats` beside a first `memlens index` found the keyword folder half-made, wiped it ("unreadable;
    recreating it") under the writer, and died with `internal error: ValueError: An IO error occurred`."""
    index_dir = tmp_path / "index"
    flags = where(workspace, index_dir)
    assert cli("index", *flags).returncode == 0
    keyword = index_dir / "keyword"
    for part in keyword.iterdir():  # as the writer leaves it a moment after it made the folder
        if part.name != "memlens-schema":
            part.unlink()
    (keyword / "meta.json").write_text("{")  # tantivy's half-written index description
    before = listing(keyword)
    with held_by(index_dir, "index"):
        search = cli("search", "pager rotation", "--mode", "keyword", *flags)
        stats = cli("stats", "--json", *flags)
    assert search.returncode == 2 and search.stderr.count("\n") == 1, search.stderr
    assert search.stderr.startswith(
        f"memlens: error: the index at {index_dir} is being written by `memlens index` (pid"
    )
    assert "keyword index" in search.stderr and "try again when it finishes" in search.stderr
    assert "internal error" not in search.stderr and "recreating" not in search.stderr
    # stats answers from the catalog, and says in one line why the keyword index is not counted on
    assert stats.returncode == 0 and json.loads(stats.stdout)["totalChunks"] > 0, stats.stderr
    [said] = stats.stderr.splitlines()
    assert said.startswith(f"memlens: the index at {index_dir} is being written by `memlens index` (pid")
    assert "its keyword index is half-made or unreadable" in said and said.endswith(
        "these counts come from its catalog"
    )
    assert listing(keyword) == before  # nothing wiped, nothing written
    assert cli("reindex", "--full", *flags).returncode == 0  # the writer, once it is one, rebuilds it
    found = cli("search", "pager rotation", "--mode", "keyword", "--json", *flags)
    assert json.loads(found.stdout)["results"][0]["relPath"] == "memory/a.md", found.stderr


@pytest.mark.slow  # CLI processes
def test_stats_beside_a_keyword_index_being_created_answers_from_the_catalog(workspace: Path, tmp_path: Path) -> None:
    """`memlens stats` while `memlens index` (re)creates the keyword index failed with one line; the catalog it
    counts from was there all along."""
    index_dir = tmp_path / "index"
    flags = where(workspace, index_dir)
    assert cli("index", *flags).returncode == 0
    expected = json.loads(cli("stats", "--json", *flags).stdout)
    shutil.rmtree(index_dir / "keyword")  # as the writer leaves it before it makes the folder anew
    with held_by(index_dir, "index"):
        stats = cli("stats", "--json", *flags)
        plain = cli("stats", *flags)
    assert stats.returncode == 0 and plain.returncode == 0, stats.stderr
    answer = json.loads(stats.stdout)
    assert answer["totalChunks"] == expected["totalChunks"] > 0 and answer["readOnly"]
    assert (
        stats.stderr
        == plain.stderr
        == (
            f"memlens: the index at {index_dir} is being written by `memlens index` (pid {os.getpid()}) (its keyword "
            "index is being created); these counts come from its catalog\n"
        )
    )
    assert not (index_dir / "keyword").exists()  # a reader makes nothing


@pytest.mark.slow  # CLI processes
def test_a_reader_beside_a_catalog_being_made_never_sets_it_aside_or_creates_one(
    workspace: Path, tmp_path: Path
) -> None:
    """A reader took a catalog it could not read for damaged, set it aside and started a new one: under a writer
    still creating it. A reader of an index with no catalog yet created one."""
    index_dir = tmp_path / "index"
    flags = where(workspace, index_dir)
    with held_by(index_dir, "index"):
        empty = cli("stats", *flags)
        assert empty.returncode == 2 and empty.stderr.count("\n") == 1, empty.stderr
        assert "is being written by `memlens index`" in empty.stderr and "it has no catalog yet" in empty.stderr
        assert not (index_dir / "catalog.sqlite3").exists() and not (index_dir / "keyword").exists()
        (index_dir / "catalog.sqlite3").write_bytes(b"SQLite format 3\x00" + b"\x00" * 84)  # a header, no page yet
        half = cli("search", "pager", "--mode", "keyword", *flags)
    assert half.returncode == 2 and half.stderr.count("\n") == 1, half.stderr
    assert "is being written by `memlens index`" in half.stderr and "catalog" in half.stderr
    assert sorted(p.name for p in index_dir.iterdir()) == ["catalog.sqlite3", "writer.lock"]  # none set aside
    assert "Traceback" not in half.stderr and "internal error" not in half.stderr


@pytest.mark.slow  # CLI processes
def test_index_waits_for_a_short_lived_command_that_holds_the_lock(workspace: Path, tmp_path: Path) -> None:
    """A `stats` (or a `search` syncing first) that took the lock a moment before a just-started `memlens index`
    made the index exit 2 saying another `index`, `watch`, `serve` or `mcp` was writing: it now says once whom it
    waits for, and indexes once that one lets go."""
    index_dir = tmp_path / "index"
    flags = where(workspace, index_dir)
    assert cli("index", *flags).returncode == 0
    (workspace / "memory" / "b.md").write_text("# Oncall\n\nEscalate to the duty manager after 15 minutes.\n")
    with held_by(index_dir, "stats"):
        index = subprocess.Popen(
            [sys.executable, "-m", "memlens", "index", *flags],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert index.stderr is not None
        said = index.stderr.readline()  # held until it has said it: it cannot take the lock before this block ends
    out, rest = index.communicate(timeout=300)
    waiting = f"waiting for `memlens stats` (pid {os.getpid()}) to finish writing the index at {index_dir}"
    assert said == f"memlens: {waiting}\n"
    assert index.returncode == 0, rest
    assert "1 parsed" in out and rest == "", (out, rest)
    found = cli("search", "duty manager", "--mode", "keyword", "--json", "--no-sync", *flags)
    assert json.loads(found.stdout)["results"][0]["relPath"] == "memory/b.md"


@pytest.mark.slow  # CLI processes
@pytest.mark.parametrize("command", ["watch", "serve", "mcp"])
def test_index_beside_a_long_lived_writer_names_it_and_does_not_wait(
    command: str, workspace: Path, tmp_path: Path
) -> None:
    index_dir = tmp_path / "index"
    flags = where(workspace, index_dir)
    assert cli("index", *flags).returncode == 0
    with held_by(index_dir, command):
        index = cli("index", *flags)
        stats = json.loads(cli("stats", "--json", *flags).stdout)
    assert index.returncode == 2 and index.stderr.count("\n") == 1, index.stderr
    assert index.stderr == (
        f"memlens: error: `memlens {command}` (pid {os.getpid()}) is writing the index at {index_dir} and brings it "
        "up to date; this one opens it read-only\n"
    )
    assert stats["readOnly"] and stats["readOnlyReason"] == f"`memlens {command}` (pid {os.getpid()}) writes it"


def test_the_writer_names_itself_beside_the_lock_while_it_holds_it(workspace: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    settings = Settings()
    with Engine([workspace], settings, index_dir=index_dir, embedder=False, command="stats") as writer:
        assert writer.writable
        holder = read_holder(index_dir)
        assert holder is not None and (holder.command, holder.pid) == ("stats", os.getpid())
        with Engine([workspace], settings, index_dir=index_dir, embedder=False, command="search") as reader:
            assert not reader.writable
            assert reader.stats()["readOnly"]
            assert reader.stats()["readOnlyReason"] == f"`memlens stats` (pid {os.getpid()}) writes it"
        assert writer.stats()["readOnlyReason"] is None
        assert read_holder(index_dir) == holder  # a reader's close leaves the writer's name alone
    assert not (index_dir / HOLDER_FILE).exists()


@pytest.mark.slow  # CLI processes
@pytest.mark.parametrize("command", ["index", "search", "watch", "serve"])
def test_a_search_beside_a_writer_at_work_says_its_answer_may_be_partial(
    command: str, workspace: Path, tmp_path: Path
) -> None:
    """Beside a first `memlens index` still reading files, a search answers from what it has committed: said, so
    that "no results" is not read as "not there". A lasting writer (`watch`, `serve`) keeps the index live: nothing
    to say."""
    index_dir = tmp_path / "index"
    flags = where(workspace, index_dir)
    assert cli("index", *flags).returncode == 0
    with held_by(index_dir, command):
        found = cli("search", "pager rotation", *flags)
    assert found.returncode == 0 and "rotation" in found.stdout, found.stderr
    said = f"memlens: `memlens {command}` (pid {os.getpid()}) is updating the index; answering from what it has"
    assert (said in found.stderr) == (command in ("index", "search")), found.stderr
