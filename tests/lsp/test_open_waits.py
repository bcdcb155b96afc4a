"""`memlens serve` started while another process still makes the index (a first `memlens index`, here planted: the
test holds the writer lock as `memlens index`, beside a half-made keyword index) says once that it waits,
answers a request meanwhile at once with why, and opens once that process finishes; it failed for good before and
stayed down until the editor restarted it."""

from __future__ import annotations

import asyncio
import sys

import pytest
from lsprotocol import types

from lsp.helpers import Prebuilt, copy_index, execute
from lsp.test_servers import close_session, idle, new_client, open_session
from note_index import held_by

pytestmark = [pytest.mark.asyncio(loop_scope="function"), pytest.mark.slow]  # a real server process

WAIT_SECONDS = 90.0


async def test_serve_beside_an_index_being_made_waits_for_it_then_opens(lsp_prebuilt: Prebuilt) -> None:
    index_dir = copy_index(lsp_prebuilt, "open-waits")
    keyword = index_dir / "keyword"
    for part in keyword.iterdir():  # as the writer leaves it a moment after it made the folder
        if part.name != "memlens-schema":
            part.unlink()
    (keyword / "meta.json").write_text("{")
    client = new_client()
    shown: list[str] = []
    client.feature(types.WINDOW_SHOW_MESSAGE)(lambda params: shown.append(params.message))
    with held_by(index_dir, "index") as let_go:
        await client.start_io(sys.executable, "-m", "memlens", "serve")
        try:
            await open_session(client, lsp_prebuilt, index_dir)
            loop = asyncio.get_running_loop()
            deadline = loop.time() + WAIT_SECONDS
            while not any("waiting for it to finish" in message for message in shown):
                assert loop.time() < deadline, "the server never said it waits for the index"
                await asyncio.sleep(0.2)
            with pytest.raises(Exception, match=r"is being written by `memlens index` \(pid"):
                await execute(client, "memlens.stats")  # at once, not after the engine's wait
            let_go()  # the first index finishes
            stats = await idle(client)
            assert not stats["readOnly"] and stats["totalChunks"] > 0
            hits = await execute(client, "memlens.search", {"query": "dead letter queue", "mode": "keyword"})
            assert hits["results"]
        finally:
            await close_session(client)
    [waiting] = [message for message in shown if "waiting" in message]  # said once
    assert waiting.startswith(f"memlens: the index at {index_dir} is being written by `memlens index` (pid")
