"""A server opened while another process still makes the index (a first `memlens index`, a rebuild) waits for it
and opens, where it failed for good and stayed down until restarted. The in-flight state is planted as in
test_readers_beside_a_writer.py: the test holds the writer lock, named as `memlens index`, beside a half-made keyword
index; letting go is that process finishing."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from pathlib import Path

import pytest

from mcp_server.helpers import call, mcp_client
from memlens.engine.engine import Engine
from memlens.engine.opening import opened_when_ready
from memlens.errors import IndexBeingMade
from memlens.settings import Settings
from note_index import cli, held_by, note_workspace, where


def half_made_keyword_index(index_dir: Path) -> None:
    """The keyword folder as the writer leaves it a moment after it made it."""
    keyword = index_dir / "keyword"
    for part in keyword.iterdir():
        if part.name != "memlens-schema":
            part.unlink()
    (keyword / "meta.json").write_text("{")


@pytest.mark.slow  # a CLI process builds the index
def test_an_open_waits_for_the_writer_making_the_index_and_then_opens(tmp_path: Path) -> None:
    workspace, index_dir = note_workspace(tmp_path / "ws"), tmp_path / "index"
    assert cli("index", *where(workspace, index_dir)).returncode == 0
    half_made_keyword_index(index_dir)
    waits: list[IndexBeingMade] = []
    with held_by(index_dir, "index") as let_go:

        def waiting(exc: IndexBeingMade) -> None:
            waits.append(exc)
            let_go()  # the first index finishes

        def opened() -> Engine:
            return Engine([workspace], Settings(), index_dir=index_dir, embedder=False, command="serve")

        with pytest.raises(IndexBeingMade):  # without waiting: the one line, as before
            opened()
        with opened_when_ready(opened, seconds=60, on_wait=waiting) as engine:
            assert engine.writable  # the lock was let go: this process writes now, and mends the keyword index
            engine.sync()
            assert engine.search("pager rotation", limit=3, mode="keyword")["results"][0]["relPath"] == "memory/a.md"
    [wait] = waits
    assert wait.what.startswith(f"the index at {index_dir} is being written by `memlens index` (pid {os.getpid()})")


@pytest.mark.slow  # real server processes
async def test_memlens_mcp_started_beside_a_first_index_serves_once_it_is_made(tmp_path: Path) -> None:
    workspace, index_dir = note_workspace(tmp_path / "ws"), tmp_path / "index"
    flags = where(workspace, index_dir)
    assert cli("index", *flags).returncode == 0
    half_made_keyword_index(index_dir)
    with held_by(index_dir, "index") as let_go:
        finishes = threading.Timer(3, let_go)  # the first index finishes while the server starts (or waits)
        finishes.start()
        try:
            async with asyncio.timeout(120), mcp_client(flags) as session:
                result = await call(session, "search", {"query": "pager rotation", "mode": "keyword"})
                assert not result.is_error and isinstance(result.structured_content, dict), result
                assert [r["relPath"] for r in result.structured_content["results"]] == ["memory/a.md"]
                stats = await call(session, "stats")
                assert isinstance(stats.structured_content, dict) and not stats.structured_content["readOnly"]
        finally:
            finishes.join()
    assert json.loads(cli("stats", "--json", *flags).stdout)["totalChunks"] == 1
