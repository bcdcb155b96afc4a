"""Over MCP (the official SDK client and a real `memlens mcp` process): a search hit's `reference` opens that hit in
`history` given as its `sessionKey`, for two SpecStory sessions whose ids (their file names) and message ids share
the prefixes a fixed-length reference would print."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcp_server.helpers import call, mcp_client, text_of, wait_until_indexed
from test_reference_twins import WORD, _specstory


def _structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    data = result.structured_content
    assert isinstance(data, dict)
    return data


@pytest.mark.slow  # a real MCP server process
async def test_mcp_history_opens_each_hits_reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no agent's default folders of the machine running the tests
    folder = tmp_path / "transcripts"
    _specstory(folder, 1)
    _specstory(folder, 2)
    (tmp_path / "ws").mkdir()
    flags: list[str | Path] = [
        "--workspace",
        tmp_path / "ws",
        "--transcripts",
        folder,
        "--index-dir",
        tmp_path / "i",
        "--no-embeddings",
    ]
    async with mcp_client(flags) as session:
        await wait_until_indexed(session)
        hits = _structured(await call(session, "search", {"query": WORD, "mode": "keyword", "minScore": 0}))["results"]
        assert len({h["sessionKey"] for h in hits}) == 2 and len({h["reference"] for h in hits}) == len(hits)
        for hit in hits:
            opened = _structured(await call(session, "history", {"sessionKey": hit["reference"], "limit": 3}))
            assert (opened["sessionKey"], opened["anchor"]) == (hit["sessionKey"], hit["messageId"])
