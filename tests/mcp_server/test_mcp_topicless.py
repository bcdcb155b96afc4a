"""Over MCP (the official SDK client, a real `memlens mcp` process): a query of only stop words searches nothing and
the answer's note, in both its faces, says why; the same words quoted find the message that holds them."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_server.helpers import call, mcp_client, text_of, wait_until_indexed
from test_topicless_queries import HAMLET, _transcripts


@pytest.mark.slow  # a real MCP server process
async def test_mcp_says_a_query_of_stop_words_names_no_topic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no agent's default folders of the machine running the tests
    (tmp_path / "ws").mkdir()
    flags: list[str | Path] = ["--workspace", tmp_path / "ws", "--transcripts", _transcripts(tmp_path / "t")]
    async with mcp_client([*flags, "--index-dir", tmp_path / "i", "--no-embeddings"]) as session:
        await wait_until_indexed(session)
        result = await call(session, "search", {"query": "to be or not"})
        data = result.structured_content
        assert isinstance(data, dict) and not result.is_error
        assert data["results"] == [] and data["namesNoTopic"] is True
        assert "note: nothing searched: only stop words" in text_of(result)
        quoted = (await call(session, "search", {"query": '"to be or not"'})).structured_content
        assert isinstance(quoted, dict) and [r["messageId"] for r in quoted["results"]] == [HAMLET]
