"""An agent that asks while `memlens mcp` builds a new index for the first time is told so: a bare "0 results" then
read as "this was never discussed", and the agent moved on. The start-up sync is held still by not starting the live
indexer until the first answers are in; the SDK's own client talks to the real server in-process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client

from mcp_server.helpers import text_of
from memlens.engine import Engine
from memlens.engine.watcher import LiveIndexer
from memlens.mcp.server import McpState, build_server
from memlens.settings import Settings

FIRST_TIME = "the index is still being built for the first time"


@pytest.fixture()
def new_index(tmp_path: Path) -> Iterator[Engine]:
    """An engine on a workspace with one memory note and an index no sync ever committed to."""
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "winch.md").write_text("# Winch\n\nThe winch pawl was replaced with a bronze one.\n")
    settings = Settings()
    settings.transcripts.agent_defaults = False
    with Engine([workspace], settings, index_dir=tmp_path / "index", embedder=False) as engine:
        yield engine


async def test_answers_during_the_first_build_say_so_and_stop_once_it_is_done(new_index: Engine) -> None:
    live = LiveIndexer(new_index)
    state = McpState(new_index, live)  # as `memlens mcp` makes it, before its indexer starts
    async with Client(build_server(state)) as client:
        early = await client.call_tool("search", {"query": "winch pawl"})
        assert not early.is_error and early.structured_content is not None
        assert early.structured_content["results"] == []
        assert early.structured_content["firstIndexing"] is True
        assert FIRST_TIME in text_of(early)
        assert FIRST_TIME in text_of(await client.call_tool("stats", {}))
        live.start()
        try:
            assert live.ready.wait(60), "the start-up sync committed"
            found = await client.call_tool("search", {"query": "winch pawl"})
            assert found.structured_content is not None and found.structured_content["results"]
            assert "firstIndexing" not in found.structured_content
            assert FIRST_TIME not in text_of(found)
        finally:
            live.stop()


async def test_a_restart_on_a_built_index_is_not_a_first_build(new_index: Engine) -> None:
    new_index.sync()
    state = McpState(new_index, LiveIndexer(new_index))  # its start-up sync not run yet, but the index was built
    async with Client(build_server(state)) as client:
        answer = await client.call_tool("search", {"query": "winch pawl"})
        assert answer.structured_content is not None and answer.structured_content["results"]
        assert FIRST_TIME not in text_of(answer)
