"""A reader opened beside a writer (a second editor window's server, an MCP server started while a `stats` held the
lock) takes the writer's place once the writer lets go, in place: it takes in the last writer's commits, writes,
and `stats` calls it the writer. Of two readers, one takes the lock and the other goes on reading behind it; a
reason not to write other than another writer is said once and not tried again. The servers' side, through real
processes: tests/lsp/test_takeover.py and tests/mcp_server/test_mcp_takeover.py."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import pytest

from memlens.engine.engine import Engine
from memlens.engine.writer_takeover import WriterTakeover
from memlens.settings import Settings
from note_index import note_workspace


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return note_workspace(tmp_path / "ws")


def settings() -> Settings:
    value = Settings()
    value.transcripts.agent_defaults = False
    return value


def open_engine(workspace: Path, index_dir: Path) -> Engine:
    return Engine([workspace], settings(), index_dir=index_dir, embedder=False, command="serve")


def note(workspace: Path, name: str, text: str) -> None:
    (workspace / "memory" / name).write_text(f"# {name}\n\n{text}\n")


def found(engine: Engine, query: str) -> list[str]:
    return [hit["relPath"] for hit in engine.search(query, mode="keyword")["results"]]


def test_a_reader_takes_over_once_the_writer_lets_go(workspace: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    writer = open_engine(workspace, index_dir)
    writer.sync()
    with open_engine(workspace, index_dir) as reader:
        assert not reader.writable and reader.stats()["readOnly"]
        assert not reader.take_over()  # the writer still holds it
        note(workspace, "b.md", "Escalate to the duty manager after 15 minutes.")
        writer.sync()
        writer.close()  # the first window closed, after its last commit

        assert reader.take_over()
        assert reader.writable and not reader.stats()["readOnly"]
        assert found(reader, "duty manager") == ["memory/b.md"]  # the last writer's commit, taken in
        note(workspace, "c.md", "The canary deploy waits for the smoke tests.")
        report = reader.sync()
        assert report.files_parsed == 1 and found(reader, "canary smoke") == ["memory/c.md"]
        assert not reader.take_over()  # already the writer: nothing more to take
        with open_engine(workspace, index_dir) as third:
            assert not third.writable  # the lock is held for good, not tried and let go
    with open_engine(workspace, index_dir) as after:
        assert after.writable  # and let go with the engine


def test_of_two_readers_one_takes_over_and_the_other_follows_it(workspace: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    writer = open_engine(workspace, index_dir)
    writer.sync()
    with open_engine(workspace, index_dir) as first, open_engine(workspace, index_dir) as second:
        writer.close()
        assert first.take_over()
        assert not second.take_over() and not second.writable and second.write_problem is None
        note(workspace, "b.md", "Escalate to the duty manager after 15 minutes.")
        first.sync()
        assert found(second, "duty manager") == ["memory/b.md"]  # follows the new writer's commits
        assert second.stats()["readOnly"]
    with open_engine(workspace, index_dir) as again:
        assert again.writable


def test_a_closed_reader_takes_nothing(workspace: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    with open_engine(workspace, index_dir) as writer:
        writer.sync()
        reader = open_engine(workspace, index_dir)
        reader.close()
    assert not reader.take_over()
    with open_engine(workspace, index_dir) as after:
        assert after.writable


def wait_until(condition: threading.Event | WriterTakeover, seconds: float = 60.0) -> None:
    """Until the event is set, or the takeover stopped trying (bounded: a takeover that tries for ever fails)."""
    deadline = time.monotonic() + seconds
    while not (condition.is_set() if isinstance(condition, threading.Event) else not condition.trying):
        assert time.monotonic() < deadline, "still waiting"
        time.sleep(0.01)


def test_the_thread_takes_over_and_says_so_once(
    workspace: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    index_dir = tmp_path / "index"
    writer = open_engine(workspace, index_dir)
    writer.sync()
    taken = threading.Event()
    with open_engine(workspace, index_dir) as reader:
        takeover = WriterTakeover(reader, on_taken=taken.set, every=0.01)
        with caplog.at_level(logging.WARNING, logger="memlens"):
            takeover.start()
            writer.close()
            wait_until(taken)
            wait_until(takeover)
        takeover.stop()
        assert reader.writable
        said = [r.getMessage() for r in caplog.records if "writes it now" in r.getMessage()]
        assert said == [f"the index's writer let go of {index_dir}; this process writes it now"]


def test_a_problem_other_than_another_writer_is_said_once_and_not_tried_again(
    workspace: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    index_dir = tmp_path / "index"
    lock = index_dir / "writer.lock"
    writer = open_engine(workspace, index_dir)
    writer.sync()
    taken = threading.Event()
    with open_engine(workspace, index_dir) as reader:
        writer.close()
        lock.unlink()
        lock.mkdir()  # no lock can live there: trying again cannot help
        takeover = WriterTakeover(reader, on_taken=taken.set, every=0.01)
        with caplog.at_level(logging.WARNING, logger="memlens"):
            takeover.start()
            wait_until(takeover)
        takeover.stop()
        assert not taken.is_set() and not reader.writable
        said = [r.getMessage() for r in caplog.records if "writer lock" in r.getMessage()]
        assert len(said) == 1 and said[0].startswith(f"the writer lock {lock} is a directory"), said
        assert found(reader, "pager rotation") == ["memory/a.md"]  # still answers, read-only
