"""A whole sync that leaves every file wholly read keeps a fingerprint of the names and stats it found; the next sync
that finds the same reads no `files` row (files_fingerprint.py). What must hold: nothing a user does to a file is
missed because of it, any write to a file row forgets it, and it is never kept while a file waits to be read
(an unterminated last line, a failed read)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memlens.engine.engine import Engine
from memlens.engine.indexing import file_reader
from memlens.engine.indexing.file_reader import FileReader
from memlens.settings import Settings, merge

NOTE = "# Deploys\n\nThe pgbouncer pool holds 20 connections; raise it before the launch.\n"
LINE = (
    '{"type":"user","uuid":"u%d","parentUuid":null,"sessionId":"s1","timestamp":"2026-02-10T10:0%d:00Z",'
    '"message":{"role":"user","content":"%s"}}'
)


def settings() -> Settings:
    warnings: list[str] = []
    result = merge(Settings(), {"transcripts": {"agentDefaults": False}}, warnings)
    assert not warnings
    return result


def state_reads(monkeypatch: pytest.MonkeyPatch, engine: Engine) -> list[object]:
    """Every call of `catalog.file_states` from now on (the rows a sync compares with the stats)."""
    calls: list[object] = []
    real = engine.catalog.file_states

    def recorded(*args: Any) -> Any:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(engine.catalog, "file_states", recorded)
    return calls


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    ws, logs = tmp_path / "ws", tmp_path / "logs"
    (ws / "memory").mkdir(parents=True)
    logs.mkdir()
    for i in range(3):
        (ws / "memory" / f"n{i}.md").write_text(NOTE + f"\nmarker{i}\n")
    (logs / "s.jsonl").write_text(LINE % (1, 1, "where is the pgbouncer config?") + "\n")
    return ws, logs


def open_engine(tmp_path: Path, ws: Path, logs: Path) -> Engine:
    return Engine([ws], settings(), [logs], index_dir=tmp_path / "index", embedder=None)


def test_a_sync_that_finds_the_same_files_reads_no_row(
    tmp_path: Path, tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, logs = tree
    with open_engine(tmp_path, ws, logs) as engine:
        assert engine.sync().files_parsed == 4
        assert engine.catalog.files_fingerprint() is not None
        reads = state_reads(monkeypatch, engine)
        report = engine.sync()
        assert (report.files_unchanged, report.files_parsed, report.files_appended, report.files_deleted) == (
            4,
            0,
            0,
            0,
        )
        assert reads == []
    with open_engine(tmp_path, ws, logs) as engine:  # another process, as a CLI search is
        reads = state_reads(monkeypatch, engine)
        assert engine.sync().files_unchanged == 4 and reads == []


def _append(ws: Path, logs: Path) -> str:
    with (logs / "s.jsonl").open("a") as handle:
        handle.write(LINE % (2, 2, "the appended kestrel question") + "\n")
    return "kestrel"


def _rewrite_keeping_size_and_mtime(ws: Path, logs: Path) -> str:
    note = ws / "memory" / "n1.md"
    before = note.stat()
    note.write_text(note.read_text().replace("marker1", "osprey1"))
    os.utime(note, ns=(before.st_atime_ns, before.st_mtime_ns))  # only the ctime says it changed
    assert note.stat().st_size == before.st_size
    return "osprey1"


def _add(ws: Path, logs: Path) -> str:
    (ws / "memory" / "new.md").write_text(NOTE + "\nheron notes\n")
    return "heron"


def _rename(ws: Path, logs: Path) -> str:
    (ws / "memory" / "n2.md").rename(ws / "memory" / "renamed.md")
    return "marker2"


def _replace_by_rename(ws: Path, logs: Path) -> str:
    fresh = ws / "fresh.tmp"
    fresh.write_text(NOTE + "\nmarker0 became puffin\n")
    fresh.replace(ws / "memory" / "n0.md")  # a new inode under the old name
    return "puffin"


@pytest.mark.parametrize(
    "change", [_append, _rewrite_keeping_size_and_mtime, _add, _rename, _replace_by_rename], ids=lambda f: f.__name__
)
def test_every_change_after_a_kept_fingerprint_is_read(
    tmp_path: Path, tree: tuple[Path, Path], change: Callable[[Path, Path], str]
) -> None:
    ws, logs = tree
    with open_engine(tmp_path, ws, logs) as engine:
        engine.sync()
        engine.sync()
        assert engine.catalog.files_fingerprint() is not None
        word = change(ws, logs)
        report = engine.sync()
        assert report.files_parsed + report.files_appended >= 1
        assert engine.search(word, mode="keyword")["results"]


def test_deleting_a_file_after_a_kept_fingerprint_purges_it(tmp_path: Path, tree: tuple[Path, Path]) -> None:
    ws, logs = tree
    with open_engine(tmp_path, ws, logs) as engine:
        engine.sync()
        assert engine.search("marker2", mode="keyword")["results"]
        (ws / "memory" / "n2.md").unlink()
        assert engine.sync().files_deleted == 1
        assert not engine.search("marker2", mode="keyword")["results"]


def test_any_write_to_a_file_row_forgets_the_fingerprint(tmp_path: Path, tree: tuple[Path, Path]) -> None:
    ws, logs = tree
    with open_engine(tmp_path, ws, logs) as engine:
        engine.sync()
        assert engine.catalog.files_fingerprint() is not None
        _append(ws, logs)
        engine.sync_paths([logs / "s.jsonl"])  # the watcher's few files, not a whole sync
        assert engine.catalog.files_fingerprint() is None
        engine.sync()
        assert engine.catalog.files_fingerprint() is not None
        with engine.catalog.transaction() as db:  # by any statement: a trigger, not the code that writes
            db.execute("UPDATE files SET synced_at = 0 WHERE rowid = (SELECT MIN(rowid) FROM files)")
        assert engine.catalog.files_fingerprint() is None
        engine.sync()
        with engine.catalog.transaction() as db:
            db.execute("INSERT INTO aliases VALUES ('/elsewhere/a.md', '/elsewhere/b.md')")
        assert engine.catalog.files_fingerprint() is None


def test_no_fingerprint_while_a_last_line_waits(
    tmp_path: Path, tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, logs = tree
    with (logs / "s.jsonl").open("a") as handle:
        handle.write(LINE % (2, 2, "the unterminated grebe line"))  # no newline yet: it may still be written
    monkeypatch.setattr(file_reader, "QUIET_SECONDS", 1e9)  # still settling, however long the test takes
    with open_engine(tmp_path, ws, logs) as engine:
        engine.sync()
        assert not engine.search("grebe", mode="keyword")["results"]
        assert engine.catalog.files_fingerprint() is None
        engine.sync()
        assert engine.catalog.files_fingerprint() is None
        monkeypatch.setattr(file_reader, "QUIET_SECONDS", 0.0)  # now quiet, its stat the same as before
        engine.sync()
        assert engine.search("grebe", mode="keyword")["results"]
        assert engine.catalog.files_fingerprint() is not None


def test_no_fingerprint_while_a_file_waits_to_be_read_again(
    tmp_path: Path, tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, logs = tree
    real = FileReader.read
    failing = {"n1.md"}

    def read(self: FileReader, source: Any, *args: Any, **kwargs: Any) -> Any:
        if source.path.name in failing:
            raise OSError(5, "Input/output error")
        return real(self, source, *args, **kwargs)

    monkeypatch.setattr(FileReader, "read", read)
    with open_engine(tmp_path, ws, logs) as engine:
        assert engine.sync().errors
        assert engine.catalog.files_fingerprint() is None
        failing.clear()  # the disk recovered; the file itself did not change
        engine.sync()
        assert engine.search("marker1", mode="keyword")["results"]
        assert engine.catalog.files_fingerprint() is not None


def test_discovery_hands_the_sync_the_stat_its_walk_took(tmp_path: Path, tree: tuple[Path, Path]) -> None:
    ws, logs = tree
    with open_engine(tmp_path, ws, logs) as engine:
        sources = engine.sources()
    assert len(sources) == 4
    for source in sources:
        assert source.stat is not None
        now = os.stat(source.name)
        assert (source.stat.st_ino, source.stat.st_size, source.stat.st_mtime_ns) == (
            now.st_ino,
            now.st_size,
            now.st_mtime_ns,
        )


def test_the_count_of_files_not_indexed_reads_the_fingerprint_and_misses_no_change(
    tmp_path: Path, tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, logs = tree
    with open_engine(tmp_path, ws, logs) as engine:
        engine.sync()
        reads = state_reads(monkeypatch, engine)
        assert engine.stats()["filesNotIndexed"] == 0 and reads == []  # as the rows say: none read
        _append(ws, logs)
        _add(ws, logs)
        assert engine.stats()["filesNotIndexed"] == 2 and len(reads) == 1
        engine.sync()
        assert engine.stats()["filesNotIndexed"] == 0


def test_a_workspace_file_named_by_a_plain_path_is_in_the_fingerprint(
    tmp_path: Path, tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """MEMORY.md is found by its name, not by a walk, so no walk's stat comes with it: the fingerprint stats it
    itself, and is kept all the same."""
    ws, logs = tree
    (ws / "MEMORY.md").write_text("# Memory\n\nThe release train leaves on Thursdays.\n")
    with open_engine(tmp_path, ws, logs) as engine:
        assert engine.sync().files_parsed == 5
        assert engine.catalog.files_fingerprint() is not None
        reads = state_reads(monkeypatch, engine)
        assert engine.sync().files_unchanged == 5 and reads == []
        with (ws / "MEMORY.md").open("a") as handle:
            handle.write("\nThe gannet rollback is manual.\n")
        assert engine.sync().files_parsed == 1
        results = engine.search("gannet rollback", mode="keyword")["results"]
        assert results and results[0]["path"].endswith("MEMORY.md")
