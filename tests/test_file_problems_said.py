"""What `memlens index` and `memlens stats` say about a file that was indexed with a problem (invalid bytes read as
U+FFFD): that it was read, not "skipped", and its count once, not again as a reason; and about one that was not read
at all (a FIFO): skipped, with why, and counted as not read rather than as a file in no known format; said once, not
again at every sync after (a search's, a watcher's) while it stays as it was; and each problem once a run, not
also again under the summary."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def memlens(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(tmp_path / "home"), "COLUMNS": "200"}
    command = [sys.executable, "-m", "memlens", *args, "--workspace", str(tmp_path / "ws")]
    command += ["--index-dir", str(tmp_path / "index"), "--no-embeddings"]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=env, check=False)


def test_a_file_with_replaced_bytes_is_said_to_be_read_and_counted_once(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "MEMORY.md").write_bytes(b"# caf\xe9\n\nbad bytes \xff\xfe about the zebrafish rollout\n")
    indexed = memlens(tmp_path, "index")
    assert indexed.returncode == 0, indexed.stderr
    about = [line for line in indexed.stderr.splitlines() if "MEMORY.md" in line]
    assert about and not any("skipped" in line for line in about), indexed.stderr
    found = memlens(tmp_path, "search", "zebrafish", "--no-sync")
    assert found.returncode == 0 and "zebrafish" in found.stdout  # it was indexed: "skipped" was untrue
    stats = memlens(tmp_path, "stats")
    line = next(line for line in stats.stdout.splitlines() if "MEMORY.md" in line)
    assert line.count("invalid bytes replaced") == 1 and "3 invalid bytes replaced" in line, line


def test_a_name_that_is_no_file_is_said_skipped_and_counted_as_not_read(tmp_path: Path) -> None:
    (tmp_path / "ws" / "memory").mkdir(parents=True)
    (tmp_path / "ws" / "MEMORY.md").write_text("# Notes\n\nthe zebrafish rollout\n")
    os.mkfifo(tmp_path / "ws" / "memory" / "pipe.md")
    indexed = memlens(tmp_path, "index")
    assert indexed.returncode == 0, indexed.stderr
    assert "skipped" in indexed.stderr and "pipe.md: not indexed: a named pipe (FIFO)" in indexed.stderr
    stats = memlens(tmp_path, "stats").stdout
    assert "files: markdown 1 · not read 1\n" in stats, stats
    assert "pipe.md · not indexed: a named pipe (FIFO), not a regular file" in stats


def test_a_skipped_file_is_said_once_then_listed_but_not_said_again_at_each_sync(tmp_path: Path) -> None:
    (tmp_path / "ws" / "memory").mkdir(parents=True)
    (tmp_path / "ws" / "MEMORY.md").write_text("# Notes\n\nthe zebrafish rollout\n")
    os.symlink("loop-b.md", tmp_path / "ws" / "memory" / "loop-a.md")
    os.symlink("loop-a.md", tmp_path / "ws" / "memory" / "loop-b.md")
    first = memlens(tmp_path, "index")
    assert first.returncode == 0 and "memlens: skipped " in first.stderr and "a symbolic link in a loop" in first.stderr
    again = memlens(tmp_path, "index")
    assert again.returncode == 0 and "memlens: skipped " not in again.stderr, again.stderr
    assert "problem: " in again.stdout + again.stderr and "a symbolic link in a loop" in again.stdout + again.stderr
    searched = memlens(tmp_path, "search", "zebrafish")
    assert searched.returncode == 0 and "loop" not in searched.stderr, searched.stderr
    (tmp_path / "ws" / "memory" / "loop-b.md").unlink()
    os.mkfifo(tmp_path / "ws" / "memory" / "loop-b.md")  # another problem: said
    changed = memlens(tmp_path, "index")
    assert "memlens: skipped " in changed.stderr and "loop-b.md: not indexed: a named pipe (FIFO)" in changed.stderr


def test_each_problem_is_said_once_a_run_with_its_path_and_reason_and_counted_in_the_summary(tmp_path: Path) -> None:
    memory = tmp_path / "ws" / "memory"
    memory.mkdir(parents=True)
    (tmp_path / "ws" / "MEMORY.md").write_text("# Notes\n\nthe zebrafish rollout\n")
    os.mkfifo(memory / "pipe.md")
    os.mkfifo(os.fsdecode(bytes(memory) + b"/caf\xe9-pipe.md"))  # a name that is not UTF-8
    os.symlink("loop-b.md", memory / "loop-a.md")
    os.symlink("loop-a.md", memory / "loop-b.md")
    (memory / "bytes.md").write_bytes(b"# bytes\n\nbad bytes \xff\xfe in the zebrafish notes\n")
    for run in ("first", "again"):  # met (said as met), then known (listed once after the summary)
        indexed = memlens(tmp_path, "index")
        lines = (indexed.stdout + indexed.stderr).splitlines()
        assert indexed.returncode == 0, lines
        for name in ("/pipe.md: ", "-pipe.md: ", "/loop-a.md: ", "/loop-b.md: "):
            assert len([line for line in lines if name in line]) == 1, (run, name, lines)
        # read with replaced bytes: indexed, its reason listed once; unchanged after, so not read (nor said) again
        assert len([line for line in lines if "/bytes.md: " in line]) == (run == "first"), (run, lines)
        assert sum("not indexed: a named pipe" in line for line in lines) == 2, (run, lines)
        assert sum("a symbolic link in a loop" in line for line in lines) == 2, (run, lines)
        assert any(line.startswith("sync: ") and "4 files unreadable" in line for line in lines), (run, lines)
