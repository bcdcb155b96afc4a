"""Faults: SIGKILL mid-sync, two processes on one index, vanished / unreadable / non-UTF-8 / huge files."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES
from killed_runs import killed_at_random
from memlens.engine.catalog import Catalog
from memlens.engine.engine import Engine
from memlens.engine.indexing.discovery import TRANSCRIPT, SourceFile
from memlens.errors import IndexUnavailable
from memlens.settings import Settings

HERE = Path(__file__).resolve().parent
SHARED_FIXTURES = FIXTURES  # the real transcripts in ../shared, when present
SYNTHETIC_FIXTURES = HERE / "fixtures" / "transcripts"


def settings() -> Settings:
    value = Settings()
    value.transcripts.agent_defaults = False
    return value


def keyword_engine(workspace: Path, transcripts: Path, index_dir: Path) -> Engine:
    return Engine([workspace], settings(), [transcripts], index_dir, embedder=False)


def index_cmd(workspace: Path, transcripts: Path, index_dir: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "memlens",
        "index",
        "--no-embeddings",
        "--workspace",
        str(workspace),
        "--transcripts",
        str(transcripts),
        "--index-dir",
        str(index_dir),
    ]


def catalog_snapshot(index_dir: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """The units' texts as read (`plain_units`): the bytes stored depend on the text dictionary, trained at the first
    commit past compressed_text.TRAIN_AFTER units, and where a sync's batches end depends on where it resumed."""
    catalog = Catalog(index_dir / "catalog.sqlite3")
    units = catalog.db.execute(
        """SELECT f.path, u.message_id, u.role, u.kind, u.text FROM plain_units u JOIN files f ON f.id = u.file_id
           ORDER BY f.path, u.seq"""
    ).fetchall()
    catalog.close()
    db = sqlite3.connect(index_dir / "catalog.sqlite3")
    chunks = db.execute(
        """SELECT f.path, c.kind, c.line_start, c.line_end, c.message_count FROM chunks c
           JOIN files f ON f.id = c.file_id ORDER BY f.path, c.line_start"""
    ).fetchall()
    db.close()
    return units, chunks


@pytest.fixture
def corpus(tmp_path: Path) -> tuple[Path, Path]:
    """Eight copies of every real transcript (../shared), or 60 of the small committed synthetic ones without it:
    enough that a sync takes a few seconds to kill."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "MEMORY.md").write_text("# Memory\n\nThe deploy runbook lives in docs/deploy.md.\n")
    transcripts = tmp_path / "transcripts"
    source, copies = (SHARED_FIXTURES, 8) if SHARED_FIXTURES.is_dir() else (SYNTHETIC_FIXTURES, 60)
    for copy in range(copies):
        shutil.copytree(source, transcripts / f"copy-{copy}")
    return workspace, transcripts


@pytest.mark.slow  # kills indexing processes
def test_sigkill_at_random_points_then_finish_equals_fresh_rebuild(corpus: tuple[Path, Path], tmp_path: Path) -> None:
    workspace, transcripts = corpus
    index_dir = tmp_path / "killed"
    kills = killed_at_random(index_cmd(workspace, transcripts, index_dir), seed=20261129, tries=12, within=(0.4, 2.5))
    assert kills >= 1, "the sync finished before any kill: make the corpus larger"
    finished = subprocess.run(index_cmd(workspace, transcripts, index_dir), capture_output=True, text=True, check=True)
    assert "sync:" in finished.stdout

    reference_dir = tmp_path / "fresh"
    with keyword_engine(workspace, transcripts, reference_dir) as fresh:
        fresh.sync()
    killed_units, killed_chunks = catalog_snapshot(index_dir)
    fresh_units, fresh_chunks = catalog_snapshot(reference_dir)
    assert killed_units == fresh_units  # same messages, no duplicates, nothing lost
    assert killed_chunks == fresh_chunks
    with keyword_engine(workspace, transcripts, index_dir) as reopened:  # derived indexes agree after reopening
        assert reopened.keyword.num_docs() == len(killed_units)
        assert reopened.keyword.generation() == reopened.catalog.generation()


@pytest.mark.slow  # a second process
def test_second_process_serves_read_only(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "a.md").write_text("# Pager\n\nThe pager rotation moved to Tuesdays.\n")
    index_dir = tmp_path / "index"
    with Engine([workspace], settings(), index_dir=index_dir, embedder=False) as writer:
        writer.sync()
        base = [sys.executable, "-m", "memlens"]
        flags = ["--workspace", str(workspace), "--index-dir", str(index_dir), "--no-embeddings"]
        search = subprocess.run(
            [*base, "search", "pager rotation", "--json", *flags], capture_output=True, text=True, check=True
        )
        assert json.loads(search.stdout)["results"]
        index = subprocess.run([*base, "index", *flags], capture_output=True, text=True)
        assert index.returncode == 2 and "read-only" in index.stderr
        (workspace / "memory" / "b.md").write_text("# Oncall\n\nEscalate to the duty manager after 15 minutes.\n")
        writer.sync()
        later = subprocess.run(
            [*base, "search", "duty manager escalate", "--json", *flags], capture_output=True, text=True, check=True
        )
        assert json.loads(later.stdout)["results"][0]["relPath"] == "memory/b.md"
        reader = Engine([workspace], settings(), index_dir=index_dir, embedder=False)
        assert not reader.writable
        with pytest.raises(IndexUnavailable, match="read-only"):
            reader.sync()
        reader.close()
    db = sqlite3.connect(index_dir / "catalog.sqlite3")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@pytest.mark.slow  # CLI processes
def test_bad_files_are_skipped_and_the_rest_indexed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    workspace = tmp_path / "ws"
    transcripts = tmp_path / "transcripts"
    (workspace / "memory").mkdir(parents=True)
    transcripts.mkdir()
    (workspace / "memory" / "latin1.md").write_bytes("# Café\n\nOrder at the caf\xe9 counter.\n".encode("latin-1"))
    good = {
        "type": "user",
        "sessionId": "s1",
        "uuid": "u1",
        "parentUuid": None,
        "timestamp": "2026-02-10T10:00:00.000Z",
        "message": {"role": "user", "content": "findable marker text"},
    }
    huge = dict(good, uuid="u2", parentUuid="u1", message={"role": "user", "content": "enormous " * 1_200_000})
    (transcripts / "s1.jsonl").write_text(json.dumps(good) + "\n" + json.dumps(huge) + "\n")
    locked = transcripts / "locked.jsonl"
    locked.write_text(json.dumps(dict(good, sessionId="s2")) + "\n")
    original_open = Path.open

    def open_or_refuse(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self == locked:
            raise PermissionError(13, "Permission denied", str(self))
        return original_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", open_or_refuse)
    with keyword_engine(workspace, transcripts, tmp_path / "index") as engine:
        sources = engine.sources()
        vanished = SourceFile(transcripts / "vanished.jsonl", TRANSCRIPT, transcripts)
        report = engine.indexer.sync([*sources, vanished])
        assert report.files_failed == 2  # the unreadable one and the vanished one
        assert any("Permission denied" in e for e in report.errors)
        assert engine.search("findable marker", mode="keyword")["results"]
        assert engine.search("counter", mode="keyword")["results"][0]["relPath"] == "memory/latin1.md"
        stored = engine.catalog.db.execute("SELECT MAX(LENGTH(text)) FROM plain_units").fetchone()[0]
        assert stored <= 100_000  # the 10 MB line is indexed, its text capped


@pytest.mark.slow  # a 100 MB transcript
def test_100_mb_transcript_streams_with_bounded_memory(tmp_path: Path) -> None:
    workspace, transcripts = tmp_path / "ws", tmp_path / "transcripts"
    workspace.mkdir()
    transcripts.mkdir()
    big = transcripts / "big.jsonl"
    output = "x" * 99_000
    with big.open("w") as handle:
        parent = None
        for i in range(1050):  # ~100 MB: a short user message and a tool result per turn (trimmed; no message)
            uuid = f"u{i}"
            handle.write(
                json.dumps(
                    {
                        "type": "user",
                        "sessionId": "big",
                        "uuid": uuid,
                        "parentUuid": parent,
                        "timestamp": "2026-02-10T10:00:00.000Z",
                        "message": {"role": "user", "content": f"question number {i}"},
                    }
                )
                + "\n"
            )
            handle.write(
                json.dumps(
                    {
                        "type": "user",
                        "sessionId": "big",
                        "uuid": f"r{i}",
                        "parentUuid": uuid,
                        "timestamp": "2026-02-10T10:00:01.000Z",
                        "message": {
                            "role": "user",
                            "content": [{"type": "tool_result", "tool_use_id": "t", "content": output}],
                        },
                    }
                )
                + "\n"
            )
            parent = f"r{i}"
    assert big.stat().st_size > 100_000_000
    # measure the indexing process alone: a wrapper reports its only child's peak RSS
    measure = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, capture_output=True); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    wrapper = [sys.executable, "-c", measure, *index_cmd(workspace, transcripts, tmp_path / "index")]
    peak_mb = int(subprocess.run(wrapper, check=True, capture_output=True, text=True).stdout) / 1024
    assert peak_mb < 400, f"peak RSS {peak_mb:.0f} MB for a {big.stat().st_size >> 20} MB transcript"
    with keyword_engine(workspace, transcripts, tmp_path / "index") as engine:
        assert engine.stats()["messages"] == {"claude-code": 1050}
        assert engine.search('"question number 1049"', mode="keyword")["results"]
