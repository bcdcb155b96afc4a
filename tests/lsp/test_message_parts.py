"""The editor's counts of a session whose message is stored in several units (its parts): the Sessions view's
`messageCount`, the statistics' messages by format and a compaction summary's `covers` count it once, as its
transcript shows it (engine/message_count.py). They counted each part: four messages showed as six. The real server
over stdio, as the editor drives it, on a small session of each format (split_messages.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp.helpers import SERVER_COMMAND, execute, lsp_fixture
from split_messages import MESSAGES, MIDDLE, OPENING, write_every_format

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]

FORMATS = {"claude-code", "codex", "openclaw", "specstory"}


@lsp_fixture(scope="module", config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[None]:
    root = tmp_path_factory.mktemp("message-parts")
    write_every_format(root / "transcripts")
    (root / "workspace").mkdir()
    options = {
        "indexDir": str(root / "index"),
        "transcripts": {"paths": [str(root / "transcripts")], "agentDefaults": False},
        "embedding": {"enabled": False},
    }
    params = types.InitializeParams(
        capabilities=types.ClientCapabilities(),
        workspace_folders=[types.WorkspaceFolder(uri=(root / "workspace").as_uri(), name="workspace")],
        initialization_options=options,
    )
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


async def _indexed(client: LanguageClient) -> list[dict[str, Any]]:
    """The session list once the initial indexing has read every format's session."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 120
    while True:
        listed = await execute(client, "memlens.sessions", {"limit": 50})
        stats = await execute(client, "memlens.stats", {})
        if {s["format"] for s in listed["sessions"]} == FORMATS and not stats["indexing"]:
            return list(listed["sessions"])
        assert loop.time() < deadline, listed
        await asyncio.sleep(0.2)


async def test_the_sessions_view_and_stats_count_a_message_in_parts_once(client: LanguageClient) -> None:
    sessions = await _indexed(client)
    assert {s["format"]: s["messageCount"] for s in sessions} == dict.fromkeys(FORMATS, MESSAGES)
    for session in sessions:
        history = await execute(client, "memlens.history", {"sessionKey": session["sessionKey"], "limit": 50})
        shown = [m["text"] for m in history["messages"] if m["kind"] == "message"]
        assert len(shown) == MESSAGES and any(OPENING in t and MIDDLE in t for t in shown)  # the long one whole
    stats = await execute(client, "memlens.stats", {})
    assert stats["messages"] == dict.fromkeys(FORMATS, MESSAGES)


async def test_a_summary_covers_a_message_in_parts_once(client: LanguageClient) -> None:
    await _indexed(client)
    found = await execute(client, "memlens.summaries.grep", {"pattern": "staging signing keys"})
    summary = found["results"][0]["summaryId"]
    described = await execute(client, "memlens.summaries.describe", {"summaryId": summary})
    expanded = await execute(client, "memlens.summaries.expand", {"summaryId": summary, "tokenBudget": 100_000})
    assert described["covers"]["messageCount"] == expanded["totalMessages"] == len(expanded["messages"]) == MESSAGES
