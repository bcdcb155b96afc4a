"""The language server's state, in process: reads (search, stats, hover) run beside the one writer, never queued
behind it. The writer is held by a job that waits for the test, so "during a write" is a fact, not a race."""

from __future__ import annotations

import asyncio
import shutil
import threading
from pathlib import Path

from pygls.lsp.server import LanguageServer

from conftest import EXAMPLE_WORKSPACE, example_settings
from memlens.engine.engine import Engine
from memlens.lsp.state import ServerState

HOLD_SECONDS = 60.0  # only a guard against a hung test: the held job is released by the test itself


async def test_search_and_stats_are_answered_while_the_writer_is_busy(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    shutil.copytree(EXAMPLE_WORKSPACE, workspace)
    state = ServerState(LanguageServer("memlens-test", "0"), live_indexing=False)
    with Engine([workspace], example_settings(), index_dir=tmp_path / "index", embedder=False) as engine:
        engine.sync()
        release, holding = threading.Event(), threading.Event()

        def held_write() -> str:  # stands for a reindex: it holds the writer until the reads are answered
            holding.set()
            release.wait(HOLD_SECONDS)
            return "written"

        writing = asyncio.ensure_future(state.write(held_write))
        assert await asyncio.to_thread(holding.wait, HOLD_SECONDS)
        try:
            stats = await state.read(engine.stats)
            found = await state.read(lambda: engine.search("pgbouncer", mode="keyword"))
            assert not writing.done()  # the writer is still held: the reads did not wait for it
            assert stats["totalChunks"] > 0 and found["results"]
        finally:
            release.set()
        assert await writing == "written"
    state.writer.shutdown(wait=True)
    state.readers.shutdown(wait=True)
