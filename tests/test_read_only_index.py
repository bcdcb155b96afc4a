"""An index in a folder this user may only read (as a read-only mount or a backup snapshot is to everyone): the
commands that read answer from it and write nothing; those that must write say why they cannot. Run as user
`nobody` (root may write anywhere)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from note_index import NOTE, as_nobody, folder_others_may_enter


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    with folder_others_may_enter("memlens-read-only-") as folder:
        yield folder


def listing(folder: Path) -> dict[str, tuple[bytes, int]]:
    files = (p for p in folder.rglob("*") if p.is_file())
    return {str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns) for p in files}


@pytest.mark.slow  # CLI processes
def test_an_index_this_user_may_only_read_answers_and_writes_nothing(shared_tmp: Path) -> None:
    """Every command exited 2 saying to give this user write access (or to remount), `stats` too."""
    workspace, index_dir, home = shared_tmp / "ws", shared_tmp / "index", shared_tmp / "home"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "a.md").write_text(NOTE)
    home.mkdir()
    shutil.chown(home, "nobody")
    where = ["--workspace", str(workspace), "--index-dir", str(index_dir), "--no-embeddings"]
    built = subprocess.run([sys.executable, "-m", "memlens", "index", *where], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    for path in [index_dir, *index_dir.rglob("*")]:  # root's, and only readable by others
        path.chmod(0o755 if path.is_dir() else 0o644)
    before = listing(index_dir)

    stats = as_nobody("stats", "--json", *where, home=home)
    assert stats.returncode == 0, stats.stderr
    answer = json.loads(stats.stdout)
    assert answer["readOnly"] and answer["totalChunks"] == 1 and answer["files"] == {"markdown": 1}

    assert answer["readOnlyReason"] == "this user cannot write its folder: permission denied"
    views = set(Path(tempfile.gettempdir()).glob("memlens-keyword-view-*"))
    for mode in ("keyword", "hybrid"):  # tantivy writes a lock file to open an index: opened through links
        search = as_nobody("search", "pager rotation", "--mode", mode, "--json", *where, home=home)
        assert search.returncode == 0, search.stderr
        assert [hit["relPath"] for hit in json.loads(search.stdout)["results"]] == ["memory/a.md"]
        assert search.stderr == (
            f"memlens: the index at {index_dir} cannot be written (permission denied); answering from it as it is\n"
        )
    assert set(Path(tempfile.gettempdir()).glob("memlens-keyword-view-*")) == views  # the links are removed
    sessions = as_nobody("sessions", *where, home=home)
    assert sessions.returncode == 1 and sessions.stderr.count("\n") == 2, sessions.stderr  # the same line; none held
    assert sessions.stderr.endswith("\nmemlens: no sessions\n") and sessions.stdout == ""

    cannot = (
        f"memlens: error: could not update the index at {index_dir}: permission denied; give this user write access "
        "to it (or point memlens.indexDir elsewhere); searches answer from the last update\n"
    )
    for command in ("index", "watch"):  # a watch said it once per change and kept watching
        done = as_nobody(command, *where, home=home)
        assert done.returncode == 2 and done.stderr == cannot, done.stderr
    assert listing(index_dir) == before  # nothing written, nothing touched
