"""Over MCP (the official SDK client, a real `memlens mcp` process): a search of an index its start-up sync left
empty says that the index is empty, where the sync looked and what would find something, in both faces of the
answer (the structured `emptyIndex` and the text), not a bare "0 results"."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import REPO
from mcp_server.helpers import call, mcp_client, text_of, wait_until_indexed


@pytest.mark.slow  # a real MCP server process
async def test_mcp_search_of_an_empty_index_says_what_would_find_something(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    shutil.copytree(REPO / "tests" / "fixtures" / "transcripts" / "codex", home / ".codex" / "sessions")
    monkeypatch.setenv("HOME", str(home))  # an agent's folder holding only other projects' sessions
    workspace = tmp_path / "ws"
    workspace.mkdir()
    async with mcp_client(["--workspace", workspace, "--index-dir", tmp_path / "i", "--no-embeddings"]) as session:
        await wait_until_indexed(session)
        result = await call(session, "search", {"query": "webhook retries"})
        data = result.structured_content
        assert isinstance(data, dict) and not result.is_error and data["results"] == []
        empty = data["emptyIndex"]
        assert empty["finds"] == [
            {
                "folder": "~/.codex/sessions",
                "count": 3,
                "more": False,
                "flag": "--scope all",
                "setting": 'memlens.scope "all"',
            }
        ]
        text = text_of(result)
        looked = f"(the index is empty: looked in {workspace.resolve()} (given by --workspace) for MEMORY.md"
        assert looked in text, text
        step = "(3 transcript files of other projects are in ~/.codex/sessions: --scope all reads them)"
        assert step in text, text
