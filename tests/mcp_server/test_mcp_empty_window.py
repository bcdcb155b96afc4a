"""Over MCP (the official SDK client, a real `memlens mcp` process): a search whose since/until window holds no
message says so in both faces of the answer, naming the window and the nearest message; a window holding messages
of which none match is the usual no results."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_server.helpers import call, mcp_client, text_of, wait_until_indexed
from test_empty_window import write_days


@pytest.mark.slow  # a real MCP server process
async def test_mcp_says_a_window_holds_no_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no agent's default folders of the machine running the tests
    root = write_days(tmp_path / "days")
    (root / "ws" / ".memlens.json").write_text('{"display": {"timeZone": "UTC"}}')
    flags: list[str | Path] = ["--workspace", root / "ws", "--transcripts", root / "transcripts"]
    async with mcp_client([*flags, "--index-dir", tmp_path / "i", "--no-embeddings"]) as session:
        await wait_until_indexed(session)
        result = await call(session, "search", {"query": "billing", "since": "2099-01-01"})
        data = result.structured_content
        assert isinstance(data, dict) and not result.is_error and data["results"] == []
        assert data["emptyWindow"]["sinceInFuture"] is True
        assert data["emptyWindow"]["nearestBefore"] == "2025-03-05T10:00:30+00:00"
        text = text_of(result)
        assert "note: since 2099-01-01 is after today; nothing was written since 2099-01-01 (UTC)" in text, text
        assert "the last message before it is from 2025-03-05 10:00" in text, text
        held = await call(session, "search", {"query": "zqxjkvw", "since": "2025-03-03", "until": "2025-03-03"})
        assert isinstance(held.structured_content, dict) and "emptyWindow" not in held.structured_content
        assert "nothing was written" not in text_of(held)
