"""Over MCP (the official SDK client, a real `memlens mcp` process): a transcript with a hand copy beside it
(`s.jsonl.bak`) is one session whose messages `stats`, `sessions` and `history` count and show once."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mcp_server.helpers import call, mcp_client, wait_until_indexed
from test_files_that_change import KEY, SESSION, write_messages


@pytest.mark.slow  # a real MCP server process
async def test_mcp_counts_a_copied_sessions_messages_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no agent's default folders of the machine running the tests
    folder = tmp_path / "claude"
    folder.mkdir()
    path = folder / f"{SESSION}.jsonl"
    write_messages(path, 0, 4)
    shutil.copy(path, f"{path}.bak")
    flags: list[str | Path] = ["--scope", "all", "--no-embeddings", "--transcripts", folder]
    async with mcp_client([*flags, "--index-dir", tmp_path / "index"]) as session:
        stats = await wait_until_indexed(session)
        assert (sum(stats["messages"].values()), stats["sessions"]) == (4, 1)
        listed = (await call(session, "sessions", {})).structured_content
        assert isinstance(listed, dict)
        assert [(s["sessionKey"], s["messageCount"]) for s in listed["sessions"]] == [(KEY, 4)]
        history = (await call(session, "history", {"sessionKey": KEY, "limit": 50})).structured_content
        assert isinstance(history, dict)
        assert [m["messageId"] for m in history["messages"]] == ["u0", "u1", "u2", "u3"]
