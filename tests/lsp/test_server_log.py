"""The language server's log (its stderr, the editor's output channel) holds no traceback for a request the client
sent wrong: the answer says what was wrong, once, to the client."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from lsp.helpers import Prebuilt, copy_index, execute, stop_client
from lsp.test_servers import idle, new_client, open_session

pytestmark = [pytest.mark.asyncio(loop_scope="function"), pytest.mark.slow]  # real server processes

BAD_REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("memlens.search", {"query": "x", "limit": 2**63}),
    ("memlens.search", {"query": "x", "filters": {"since": "2026-02-30"}}),
    ("memlens.history", {"sessionKey": "no-such-session"}),
    ("memlens.summaries.describe", {"summaryId": "chunk:99999999999999999999"}),
]


async def test_a_bad_argument_leaves_no_traceback_in_the_server_log(lsp_prebuilt: Prebuilt, tmp_path: Path) -> None:
    client = new_client()
    await client.start_io(sys.executable, "-m", "memlens", "serve")
    try:
        await open_session(client, lsp_prebuilt, copy_index(lsp_prebuilt, "log"))
        await idle(client)
        for command, argument in BAD_REQUESTS:
            with pytest.raises(JsonRpcInvalidParams):
                await execute(client, command, argument)
        await asyncio.wait_for(client.shutdown_async(None), 60)
    finally:
        client.exit(None)
        server = client._server  # the process pygls started: its stderr is a pipe nobody else reads
        await stop_client(client)
    assert server is not None and server.stderr is not None
    log = (await asyncio.wait_for(server.stderr.read(), 60)).decode("utf-8", "replace")
    assert "Traceback" not in log, log
