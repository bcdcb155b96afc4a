"""Two `memlens mcp` started while another process held the writer lock (another window's server, a `stats` of a
second) serve read-only; once it lets go, one of them takes the writer's place and indexes a new transcript, and the
other stays read-only and finds it behind the new writer. Through real processes and the SDK's client."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession

from mcp_server.helpers import call, mcp_client, memlens
from note_index import held_by
from transcript_fixtures import axolotl_session

pytestmark = pytest.mark.slow  # real server processes

TAKEOVER_WAIT_SECONDS = 90.0


async def stats(session: ClientSession) -> dict[str, Any]:
    result = await call(session, "stats")
    assert not result.is_error and isinstance(result.structured_content, dict)
    return result.structured_content


async def finds_axolotl(session: ClientSession) -> bool:
    result = await call(session, "search", {"query": "axolotl aquarium heater", "mode": "keyword"})
    assert not result.is_error and isinstance(result.structured_content, dict)
    return any(r["relPath"].endswith("axolotl.jsonl") for r in result.structured_content["results"])


async def test_one_of_two_read_only_servers_takes_over_when_the_writer_lets_go(tmp_path: Path) -> None:
    workspace, extra, index_dir = tmp_path / "ws", tmp_path / "transcripts", tmp_path / "index"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "a.md").write_text("# Pager\n\nThe pager rotation moved to Tuesdays.\n")
    extra.mkdir()
    flags: list[str | Path] = ["--workspace", workspace, "--index-dir", index_dir, "--transcripts", extra]
    memlens("index", *flags, "--no-embeddings")
    with held_by(index_dir, "serve") as let_go:  # another window's server
        async with mcp_client([*flags, "--no-embeddings"]) as first, mcp_client([*flags, "--no-embeddings"]) as second:
            for session in (first, second):
                assert (await stats(session))["readOnlyReason"] == f"`memlens serve` (pid {os.getpid()}) writes it"
            let_go()  # the writer's window closed

            deadline = time.monotonic() + TAKEOVER_WAIT_SECONDS
            read_only = [True, True]
            while all(read_only):
                assert time.monotonic() < deadline, "neither read-only server took the writer's place"
                await asyncio.sleep(0.2)
                read_only = [(await stats(session))["readOnly"] for session in (first, second)]
            writer, reader = (first, second) if not read_only[0] else (second, first)
            assert (await stats(reader))["readOnly"], "both servers write the index"

            axolotl_session(extra / "axolotl.jsonl")  # a new transcript, after the first window closed
            for session in (writer, reader):  # indexed by the new writer; found by the other behind it
                while not await finds_axolotl(session):
                    assert time.monotonic() < deadline, "the new transcript was never found"
                    await asyncio.sleep(0.2)
            assert not (await stats(writer))["readOnly"] and (await stats(reader))["readOnly"]
            assert (await stats(reader))["readOnlyReason"].startswith("`memlens mcp` (pid ")  # the new writer, named
