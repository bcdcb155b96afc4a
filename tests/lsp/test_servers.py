"""`memlens serve --tcp` with a real client on 127.0.0.1, and two `memlens serve` on one index: the second serves
read-only and follows the first one's commits."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.lsp.client import LanguageClient

from lsp.helpers import Prebuilt, copy_index, execute, init_params, stop_client
from transcript_fixtures import axolotl_session

pytestmark = [pytest.mark.asyncio(loop_scope="function"), pytest.mark.slow]  # real server processes


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def new_client() -> LanguageClient:
    client = LanguageClient("memlens-test", "1")
    client.statuses = []  # type: ignore[attr-defined]
    client.feature("memlens/indexStatus")(lambda params: client.statuses.append(params))  # type: ignore[attr-defined]
    client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)(lambda params: None)
    return client


async def open_session(client: LanguageClient, prebuilt: Prebuilt, index_dir: Path, extra: Path | None = None) -> None:
    overrides: dict[str, Any] = {}
    if extra is not None:
        transcripts = dict(prebuilt.options["transcripts"])
        overrides["transcripts"] = {**transcripts, "paths": [*transcripts["paths"], str(extra)]}
    await client.initialize_async(init_params(prebuilt, index_dir, **overrides))
    client.initialized(types.InitializedParams())


async def close_session(client: LanguageClient) -> None:
    await asyncio.wait_for(client.shutdown_async(None), 20)
    client.exit(None)
    await stop_client(client)


async def idle(client: LanguageClient) -> dict[str, Any]:
    """Wait until the server's index is open and not indexing; its stats."""
    stats: dict[str, Any] = {}

    async def poll() -> None:
        nonlocal stats
        while True:
            try:
                stats = await execute(client, "memlens.stats")
            except Exception:  # the engine is still opening
                stats = {}
            if stats and not stats["indexing"] and stats["totalChunks"] > 0:
                return
            await asyncio.sleep(0.2)

    await asyncio.wait_for(poll(), 120)
    return stats


async def test_serve_over_tcp(lsp_prebuilt: Prebuilt) -> None:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "memlens", "serve", "--tcp", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ, MEMLENS_LIVE_INDEXING="0"),
    )
    try:
        # no probe connection: the server serves the first client that connects and stops when it leaves
        client = None
        for _ in range(150):  # the server listens once Python has imported it
            assert server.poll() is None, f"memlens serve --tcp exited with {server.returncode}"
            attempt = new_client()
            try:
                await attempt.start_tcp("127.0.0.1", port)
            except OSError:
                await asyncio.sleep(0.1)
                continue
            client = attempt
            break
        assert client is not None, "memlens serve --tcp never listened"
        try:
            await asyncio.wait_for(open_session(client, lsp_prebuilt, copy_index(lsp_prebuilt, "tcp")), 60)
        except TimeoutError:
            server.terminate()
            raise AssertionError(f"no answer to initialize over TCP (exit {server.wait(10)})") from None
        stats = await idle(client)
        assert not stats["readOnly"]
        found = await execute(client, "memlens.search", {"query": "pgbouncer transaction mode", "mode": "keyword"})
        assert any("pgbouncer" in r["excerpt"].lower() for r in found["results"]), found
        await close_session(client)
    finally:
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(5)


async def test_second_server_is_read_only_and_follows_the_first(
    lsp_prebuilt: Prebuilt, tmp_path_factory: pytest.TempPathFactory
) -> None:
    index_dir = copy_index(lsp_prebuilt, "two-servers")
    extra = tmp_path_factory.mktemp("two-servers-transcripts")
    first, second = new_client(), new_client()
    await first.start_io(sys.executable, "-m", "memlens", "serve")
    await open_session(first, lsp_prebuilt, index_dir, extra)
    try:
        assert not (await idle(first))["readOnly"]
        await second.start_io(sys.executable, "-m", "memlens", "serve")
        await open_session(second, lsp_prebuilt, index_dir, extra)
        stats = await idle(second)
        assert stats["readOnly"], "the second server on one index must not write"
        query = {"query": "axolotl aquarium heater", "mode": "keyword"}
        assert (await execute(second, "memlens.search", query))["results"] == []
        with pytest.raises(Exception, match="read-only|another process"):
            await execute(second, "memlens.reindex", {})
        # the first server (the writer) indexes a new transcript; the second one finds it without being told
        axolotl_session(extra / "axolotl.jsonl")
        await execute(first, "memlens.reindex", {})
        assert (await execute(first, "memlens.search", query))["results"]
        found: list[Any] = []

        async def follows() -> bool:  # by keyword (tantivy) and by vector (the reloaded matrix)
            found[:] = (await execute(second, "memlens.search", query))["results"]
            vector = {**query, "mode": "vector", "limit": 3, "minScore": 0}
            found[1:] = (await execute(second, "memlens.search", vector))["results"][:1]
            return len(found) == 2 and all(r["relPath"].endswith("axolotl.jsonl") for r in found)

        deadline = asyncio.get_running_loop().time() + 30
        while not await follows():
            assert asyncio.get_running_loop().time() < deadline, "the read-only server never saw the commit"
            await asyncio.sleep(0.3)
    finally:
        for client in (second, first):
            try:
                await close_session(client)
            except Exception:
                await stop_client(client)


async def test_cancelling_the_initial_indexing(lsp_prebuilt: Prebuilt, tmp_path: Path) -> None:
    """A fresh index (every text to embed): the client cancels the work-done progress as soon as it begins; the
    progress ends as cancelled and the status says so. Ignoring the cancel ends it as "index up to date"."""
    client = new_client()
    progress: dict[str, list[Any]] = {}
    client.feature(types.PROGRESS)(lambda params: progress.setdefault(str(params.token), []).append(params.value))
    await client.start_io(sys.executable, "-m", "memlens", "serve")
    try:
        await open_session(client, lsp_prebuilt, tmp_path / "fresh-index")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60
        while not progress:
            assert loop.time() < deadline, "the initial indexing reported no progress"
            await asyncio.sleep(0.02)
        (token,) = progress
        client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))

        def ended() -> bool:
            return any(getattr(v, "kind", None) == "end" or "end" in str(v) for v in progress[token])

        while not ended():
            assert loop.time() < deadline + 60, "the cancelled progress never ended"
            await asyncio.sleep(0.1)
        last = progress[token][-1]
        message = last.message if hasattr(last, "message") else last.get("message")
        assert message == "cancelled", progress[token]
        stats = await execute(client, "memlens.stats")  # still answers; the backlog's pause: test_watcher_cancel
        # the cancel left work undone, whether it landed before the first batch committed (no chunk yet) or after
        assert stats["totalChunks"] == 0 or stats["chunksNeedingEmbeddings"] > 0, stats

        def statuses() -> list[Any]:
            said = client.statuses  # type: ignore[attr-defined]
            return [s.get("message") if isinstance(s, dict) else getattr(s, "message", None) for s in said]

        # the status line is a notification of its own, sent once the cancelled step has ended: it may come after
        # the progress's end and the stats answer, so it is waited for, not read at once
        while "cancelled" not in statuses():
            assert loop.time() < deadline + 90, statuses()
            await asyncio.sleep(0.1)
    finally:
        await close_session(client)
