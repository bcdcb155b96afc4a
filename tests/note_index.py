"""One memory note in a workspace, the CLI run on it (as this user or as `nobody`) and the writer lock held by the
test: what the lock, fault, reader, read-only and takeover tests share."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from memlens.engine.indexing.writer_holder import forget_holder, record_holder
from memlens.engine.indexing.writer_lock import WriterLock

NOTE = "# Pager\n\nThe pager rotation moved to Tuesdays after the spring reorg.\n"


def note_workspace(root: Path) -> Path:
    """A workspace at `root` holding NOTE as memory/a.md."""
    (root / "memory").mkdir(parents=True)
    (root / "memory" / "a.md").write_text(NOTE)
    return root


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memlens", *args], capture_output=True, text=True, timeout=300)


def where(workspace: Path, index_dir: Path) -> list[str]:
    return ["--workspace", str(workspace), "--index-dir", str(index_dir), "--no-embeddings"]


def as_nobody(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """The CLI run as user `nobody` (root can write anywhere: permission faults need another user)."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("running as another user needs root and setpriv")
    drop = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    env = dict(os.environ, HOME=str(home))
    return subprocess.run(
        [*drop, sys.executable, "-m", "memlens", *args], capture_output=True, text=True, timeout=300, env=env
    )


@contextmanager
def folder_others_may_enter(prefix: str) -> Iterator[Path]:
    """A folder other users may enter (pytest's own is closed to them), removed after."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def held_by(index_dir: Path, command: str) -> Iterator[Callable[[], None]]:
    """This test's process holds the writer lock, named as a `memlens COMMAND` would name itself; it yields the call
    that lets go before the block ends (as that process ending would)."""
    index_dir.mkdir(parents=True, exist_ok=True)
    lock = WriterLock(index_dir / "writer.lock")
    assert lock.acquire()
    record_holder(index_dir, command)

    def let_go() -> None:
        if lock.still_held():
            forget_holder(index_dir)  # only while it still names this process: a successor's name stays
        lock.release()

    try:
        yield let_go
    finally:
        let_go()
