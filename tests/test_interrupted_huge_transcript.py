"""An interrupted `memlens index` stops inside one huge transcript at the next slice's end (file_reader.SLICE_BYTES)
and keeps it as far as it was read: the first Ctrl-C or SIGTERM ends the read of the file being read when the slice
under way has committed, not when the whole file has; the line says how much of it was kept; the next run reads the
rest as an append and ends with the index one uninterrupted build makes.

A real `memlens` process reads a folder newest first: three one-session files, a long session (the fourth), two older
files. Its slices are made 16 KB (blocks too, so the first slice is one block), and it is held still as it starts to
read the long session's second slice, its reader wrapped to wait on a FIFO: the signal always comes inside that
file's read, and the slice being read when it came is the last one kept. No sleep races the process."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from memlens_runs import (
    HELD_IN_ITS_SECOND_SLICE,
    LONG,
    claude_folder_flags,
    index_contents,
    release_fifo,
    run_memlens,
    wait_for_marker,
    write_claude_session,
    write_long_session,
)

pytestmark = pytest.mark.slow  # real processes

SLICE = 16 * 1024

HOLDING_MEMLENS = HELD_IN_ITS_SECOND_SLICE + "raise SystemExit(main(sys.argv[5:]))\n"

STOPS = {"ctrl-c": signal.SIGINT, "sigterm": signal.SIGTERM}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Sessions 5, 4, 3 (newest), the long one, then 1 and 0, each file dated in that order."""
    claude = tmp_path / "claude"
    claude.mkdir()
    for n in (0, 1, 3, 4, 5):
        path = write_claude_session(claude, n)
        os.utime(path, (1_700_000_000 + 1000 * n,) * 2)
    write_long_session(claude / f"{LONG}.jsonl")
    os.utime(claude / f"{LONG}.jsonl", (1_700_000_000 + 2000,) * 2)
    return claude


def _read_of_long(tmp_path: Path) -> tuple[int, int]:
    """(bytes read, size) the catalog records of the long session's file."""
    with sqlite3.connect(tmp_path / "index" / "catalog.sqlite3") as db:
        row = db.execute("SELECT parsed_bytes, size FROM files WHERE path LIKE ?", (f"%{LONG}.jsonl",)).fetchone()
    return int(row[0]), int(row[1])


def _built(tmp_path: Path, name: str, files: dict[str, bytes]) -> dict[str, object]:
    """The index one uninterrupted `memlens index` makes of a folder holding `files`."""
    folder = tmp_path / name / "claude"
    folder.mkdir(parents=True)
    for file_name, data in files.items():
        (folder / file_name).write_bytes(data)
    built = run_memlens("index", *claude_folder_flags(tmp_path / name), cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    return index_contents(tmp_path / name / "index")


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB"


@pytest.mark.parametrize("stop", STOPS)
def test_a_stop_inside_a_huge_transcript_keeps_it_as_far_as_it_was_read(
    tmp_path: Path, folder: Path, stop: str
) -> None:
    reached, release = tmp_path / "reached", tmp_path / "release"
    os.mkfifo(release)
    long_file = folder / f"{LONG}.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDING_MEMLENS, str(SLICE), long_file.name, str(reached), str(release)]
        + ["index", *claude_folder_flags(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    wait_for_marker(reached, process)
    process.send_signal(STOPS[stop])
    release_fifo(release, process)  # the second slice is read on, and commits: then the read stops
    out, err = process.communicate(timeout=120)

    status, said = (143, "stopped by SIGTERM") if stop == "sigterm" else (130, "interrupted")
    assert process.returncode == status, err
    read, size = _read_of_long(tmp_path)
    data = long_file.read_bytes()
    assert SLICE < read < 3 * SLICE and size == read < len(data), "two slices kept, recorded as that long a file"
    line = err.splitlines()[-1]
    assert line.startswith(f"memlens: {said}; kept 3 files"), err
    partly = "1 file partly" if stop == "ctrl-c" else "1 partly"  # (as long a line as fits in 80 columns)
    assert f", {partly} ({_megabytes(read)} of {_megabytes(len(data))}), 2 left" in line, err
    assert len(line) <= 80 and "Traceback" not in err and out == ""

    kept = index_contents(tmp_path / "index")
    short = {
        f"6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a{n:02d}.jsonl": (
            folder / f"6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a{n:02d}.jsonl"
        ).read_bytes()
        for n in (3, 4, 5)
    }
    assert kept == _built(tmp_path, "cut", {**short, long_file.name: data[:read]}), "what was read before the stop"

    again = run_memlens("index", "--json", *claude_folder_flags(tmp_path), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert (report["filesParsed"], report["filesAppended"], report["filesUnchanged"]) == (2, 1, 3)
    whole = {path.name: path.read_bytes() for path in folder.iterdir()}
    assert index_contents(tmp_path / "index") == _built(tmp_path, "whole", whole), "as one uninterrupted build"


@pytest.mark.parametrize(
    ("head", "counts", "said"),
    [
        ("memlens: interrupted", (1, 0, 34_000_000), "memlens: interrupted; kept 1 file partly (34 MB of 300 MB)"),
        (
            "memlens: interrupted",
            (4, 2, 112_000_000),
            "memlens: interrupted; kept 3 files, 1 file partly (112 MB of 300 MB), 2 left",
        ),
        (
            "memlens: stopped by SIGTERM",
            (4, 2, 112_000_000),
            "memlens: stopped by SIGTERM; kept 3 files, 1 partly (112 MB of 300 MB), 2 left",
        ),
    ],
)
def test_the_line_says_the_file_kept_partly_in_80_columns(head: str, counts: tuple[int, int, int], said: str) -> None:
    """Read, left and the bytes kept of a 300 MB session (the file read partly is among those read); only the file
    read partly: that alone, no "kept 0 files"."""
    from memlens.cli.commands import _what_an_interruption_keeps
    from memlens.engine.indexing.indexer import SyncReport

    read, left, kept = counts
    report = SyncReport(files_parsed=read, files_left=left, messages_added=45_000, files_partly=1)
    report.partly_read_bytes, report.partly_size_bytes = kept, 300_000_000
    assert head + _what_an_interruption_keeps("index", report, head=head) == said
