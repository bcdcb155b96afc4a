"""`memlens serve` opened while another process held the writer lock (here a `stats` that held it the moment the
server started; the same as another window's server that is closed later) serves read-only, then takes the
writer's place once the lock is let go: it says so once, indexes a transcript added after, and `stats` calls it
the writer."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

from lsp.helpers import Prebuilt, copy_index, execute
from lsp.test_servers import close_session, idle, new_client, open_session
from note_index import held_by
from transcript_fixtures import axolotl_session

pytestmark = [pytest.mark.asyncio(loop_scope="function"), pytest.mark.slow]  # a real server process

TAKEOVER_WAIT_SECONDS = 90.0
TAKEN = "the other memlens process stopped writing this index; this window indexes it now"


def messages(statuses: list[Any]) -> list[str]:
    said = [s.get("message") if isinstance(s, dict) else getattr(s, "message", None) for s in statuses]
    return [message for message in said if message]


async def test_a_read_only_server_takes_over_when_the_writer_lets_go(
    lsp_prebuilt: Prebuilt, tmp_path_factory: pytest.TempPathFactory
) -> None:
    index_dir = copy_index(lsp_prebuilt, "takeover")
    extra = tmp_path_factory.mktemp("takeover-transcripts")
    client = new_client()
    query = {"query": "axolotl aquarium heater", "mode": "keyword"}
    with held_by(index_dir, "stats") as let_go:
        await client.start_io(sys.executable, "-m", "memlens", "serve")
        try:
            await open_session(client, lsp_prebuilt, index_dir, extra)
            assert (await idle(client))["readOnly"], "a server opened beside a writer must not write"
            let_go()  # the `stats` finished
            axolotl_session(extra / "axolotl.jsonl")

            loop = asyncio.get_running_loop()
            deadline = loop.time() + TAKEOVER_WAIT_SECONDS
            while (await execute(client, "memlens.stats"))["readOnly"]:
                assert loop.time() < deadline, "the server never took the writer's place"
                await asyncio.sleep(0.2)
            while not (await execute(client, "memlens.search", query))["results"]:
                assert loop.time() < deadline, "the new writer never indexed the transcript added after"
                await asyncio.sleep(0.2)
            said = messages(client.statuses)  # type: ignore[attr-defined]
            assert said.count(TAKEN) == 1, said
            assert any("read-only" in message for message in said[: said.index(TAKEN)]), said
        finally:
            await close_session(client)
