"""An editor that closes while a command is still running (a reindex, a search waiting for the index): `shutdown`
answers, the command ends, and the server exits cleanly.

pygls cancels every request still in flight when `shutdown` arrives, iterating over the dict of them while each
cancel's callback removes its request from that dict: "RuntimeError: dictionary changed size during iteration", and
the shutdown request failed with an internal error (and a traceback in the editor's log).
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from pathlib import Path

import pytest

from lsp.helpers import Prebuilt, copy_index, execute, stop_client
from lsp.test_servers import idle, new_client, open_session

pytestmark = [pytest.mark.asyncio(loop_scope="function"), pytest.mark.slow]  # real server processes


async def test_shutdown_while_commands_run_answers_and_ends_them(lsp_prebuilt: Prebuilt, tmp_path: Path) -> None:
    client = new_client()
    await client.start_io(sys.executable, "-m", "memlens", "serve")
    index_dir = copy_index(lsp_prebuilt, "shutdown")
    # another writer holds the catalog (as a second memlens would for a moment): the reindex waits on SQLite's busy
    # timeout, so it is in flight when the editor closes however fast this machine is
    holder = sqlite3.connect(index_dir / "catalog.sqlite3", isolation_level=None)
    try:
        await open_session(client, lsp_prebuilt, index_dir)
        await idle(client)
        holder.execute("BEGIN EXCLUSIVE")
        running = [asyncio.ensure_future(execute(client, "memlens.reindex", {"full": True}))]
        running += [asyncio.ensure_future(execute(client, "memlens.search", {"query": "pgbouncer"})) for _ in range(3)]
        await asyncio.sleep(0.3)
        assert not running[0].done(), "the reindex ended while the catalog was held: nothing was in flight"
        await asyncio.wait_for(client.shutdown_async(None), 60)  # answered, not an internal error
        holder.execute("ROLLBACK")
        for request in running:  # each ends: with its answer, or cancelled
            try:
                await asyncio.wait_for(request, 60)
            except TimeoutError:
                raise AssertionError("a command in flight at shutdown never ended") from None
            except Exception as exc:
                assert "cancel" in str(exc).lower(), exc
    finally:
        holder.close()
        client.exit(None)  # ends the server whatever happened above
        await stop_client(client)
