"""The writer lock's path as users and accidents leave it: something that is not a file (a directory, a FIFO, a
dangling symbolic link), or deleted under a running writer. Through the CLI and real `memlens watch` processes."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import pytest

from conftest import ctrl_c_reaches
from memlens.engine.engine import Engine
from memlens.errors import LockPathBroken
from memlens.settings import Settings
from note_index import cli, note_workspace, where


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return note_workspace(tmp_path / "ws")


def make_directory(lock: Path) -> None:
    lock.mkdir()
    (lock / "kept.txt").write_text("whatever someone put here is kept\n")


def make_fifo(lock: Path) -> None:
    os.mkfifo(lock)


def make_dangling_link(lock: Path) -> None:
    lock.symlink_to(lock.parent / "gone" / "writer.lock")


BROKEN = {
    "a directory": make_directory,
    "a FIFO": make_fifo,
    "a symbolic link to": make_dangling_link,
}


@pytest.mark.parametrize("kind", list(BROKEN))
def test_a_lock_path_that_is_not_a_file_is_one_error_and_reindex_full_recovers(
    kind: str, workspace: Path, tmp_path: Path
) -> None:
    index_dir = tmp_path / "index"
    flags = where(workspace, index_dir)
    assert cli("index", *flags).returncode == 0
    lock = index_dir / "writer.lock"
    lock.unlink()
    BROKEN[kind](lock)
    (workspace / "memory" / "b.md").write_text("# Oncall\n\nEscalate to the duty manager after 15 minutes.\n")

    index = cli("index", *flags)
    assert index.returncode == 2 and "Traceback" not in index.stderr
    [line] = index.stderr.splitlines()
    assert line.startswith(f"memlens: error: the writer lock {lock} is {kind}")
    assert "reindex --full" in line

    search = cli("search", "pager rotation", "--mode", "keyword", "--json", *flags)  # read-only, but it answers
    assert search.returncode == 0, search.stderr
    assert json.loads(search.stdout)["results"][0]["relPath"] == "memory/a.md"
    [warning] = search.stderr.splitlines()
    assert warning.startswith(f"memlens: the writer lock {lock} is {kind}")
    stats = json.loads(cli("stats", "--json", *flags).stdout)
    assert stats["readOnly"] and stats["filesNotIndexed"] == 1
    assert stats["notIndexedReason"].startswith(f"the writer lock {lock} is {kind}")

    recovered = cli("reindex", "--full", *flags)
    assert recovered.returncode == 0, recovered.stderr
    assert lock.is_file() and not lock.is_symlink()
    if kind == "a directory":  # set aside, never deleted with what it held
        [aside] = index_dir.glob("writer.lock.not-a-lock-*")
        assert (aside / "kept.txt").read_text().startswith("whatever")
    found = cli("search", "duty manager", "--mode", "keyword", "--json", *flags)
    assert json.loads(found.stdout)["results"][0]["relPath"] == "memory/b.md"
    assert found.stderr == ""
    assert cli("index", *flags).returncode == 0


def test_a_writer_whose_lock_was_deleted_takes_it_again(workspace: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    with Engine([workspace], settings(), index_dir=index_dir, embedder=False) as first:
        first.sync()
        (index_dir / "writer.lock").unlink()
        (workspace / "memory" / "b.md").write_text("# Oncall\n\nEscalate to the duty manager after 15 minutes.\n")
        first.sync()  # notices, locks the new file, writes
        assert first.writable and (index_dir / "writer.lock").is_file()
        assert first.search("duty manager", mode="keyword")["results"]
        with Engine([workspace], settings(), index_dir=index_dir, embedder=False) as second:
            assert not second.writable  # the retaken lock holds


def test_a_lock_replaced_by_a_directory_under_a_writer_is_said_and_reindex_full_recovers(
    workspace: Path, tmp_path: Path
) -> None:
    index_dir = tmp_path / "index"
    lock = index_dir / "writer.lock"
    with Engine([workspace], settings(), index_dir=index_dir, embedder=False) as engine:
        engine.sync()
        lock.unlink()
        lock.mkdir()
        with pytest.raises(LockPathBroken, match=f"the writer lock {lock} is a directory"):
            engine.sync()
        assert not engine.writable
        assert engine.search("pager rotation", mode="keyword")["results"]  # still answers, read-only
        engine.reindex(full=True)
        assert engine.writable and lock.is_file()
        engine.sync()


def settings() -> Settings:
    value = Settings()
    value.transcripts.agent_defaults = False
    return value


class Lines:
    """A process's output lines, read on a thread, so a test can wait for one without blocking on the pipe."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: list[str] = []
        self._changed = threading.Condition()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            with self._changed:
                self.lines.append(line)
                self._changed.notify_all()

    def wait_for(self, found: Callable[[str], bool], after: int = 0, timeout: float = 120) -> int:
        """The index of the first line from `after` on that `found` accepts."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for i in range(after, len(self.lines)):
                    if found(self.lines[i]):
                        return i
                left = deadline - time.monotonic()
                assert left > 0, f"no such line in {self.lines}"
                self._changed.wait(left)


Watcher = tuple[subprocess.Popen[str], Lines, Lines]  # the process, its stdout lines, its stderr lines


@pytest.fixture
def start_watch(workspace: Path, tmp_path: Path) -> Iterator[Callable[[], Watcher]]:
    """Starts `memlens watch` processes on one index; each is stopped (Ctrl-C) at the end."""
    started: list[Watcher] = []
    flags = ["--workspace", str(workspace), "--index-dir", str(tmp_path / "index"), "--no-embeddings"]

    def start() -> Watcher:
        process = subprocess.Popen(
            [sys.executable, "-m", "memlens", "watch", "--debounce-ms", "50", *flags],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=ctrl_c_reaches,
        )
        assert process.stdout is not None and process.stderr is not None
        started.append((process, Lines(process.stdout), Lines(process.stderr)))
        return started[-1]

    yield start
    for process, _, _ in started:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_two_watchers_after_the_lock_is_deleted_the_writer_takes_it_again(
    workspace: Path, tmp_path: Path, start_watch: Callable[[], Watcher]
) -> None:
    index_dir = tmp_path / "index"
    writer, writer_out, writer_err = start_watch()
    writer_out.wait_for(lambda line: "sync" in line or "files" in line)  # its first sync is done: it holds the lock
    reader, _, reader_err = start_watch()
    reader_err.wait_for(lambda line: "read-only" in line)  # the second one found the lock held
    (index_dir / "writer.lock").unlink()
    seen = len(writer_out.lines)
    (workspace / "memory" / "b.md").write_text("# Oncall\n\nEscalate to the duty manager after 15 minutes.\n")
    writer_out.wait_for(lambda line: "parsed" in line or "appended" in line, after=seen)
    assert any("took it again" in line for line in writer_err.lines), writer_err.lines
    assert writer.poll() is None and reader.poll() is None
    flags = where(workspace, index_dir)
    found = cli("search", "duty manager", "--mode", "keyword", "--json", "--no-sync", *flags)
    assert json.loads(found.stdout)["results"][0]["relPath"] == "memory/b.md"
    third = cli("index", *flags)  # the lock is held again: a third process may not write
    assert third.returncode == 2 and "read-only" in third.stderr
    db = sqlite3.connect(index_dir / "catalog.sqlite3")
    texts = [row[0] for row in db.execute("SELECT text FROM units")]
    db.close()
    assert len(texts) == len(set(texts)) == 2  # written once: the reader never wrote
