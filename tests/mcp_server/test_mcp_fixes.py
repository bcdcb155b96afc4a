"""The MCP tool `find_fixes` through the official SDK client, on a real `memlens mcp` over the shared transcripts: a
pasted error line that lives only in a tool's output finds its session and the messages that fixed it."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_server.helpers import call, mcp_client, text_of, wait_until_indexed

pytestmark = pytest.mark.slow  # a real MCP server process

SPOTTER = "claude-code:258c7280-ae70-4798-800f-63464d01a85d"


async def test_find_fixes_answers_a_pasted_error(shared_index: tuple[list[str], Path]) -> None:
    flags, _ = shared_index
    async with mcp_client([*flags, "--no-embeddings"]) as session:
        listed = {t.name: t for t in (await session.list_tools()).tools}
        assert "paste the error line" in (listed["find_fixes"].description or "")  # tells the agent when to use it
        await wait_until_indexed(session)
        result = await call(
            session, "find_fixes", {"error": "fatal: The current branch spotter-gqc has no upstream branch."}
        )
        assert not result.is_error
        data = result.structured_content
        assert isinstance(data, dict)
        first = data["fixes"][0]
        assert (first["sessionKey"], first["error"]) == (SPOTTER, True)
        assert "git push --set-upstream origin spotter-gqc" in first["after"][0]["text"]
        text = text_of(result)
        assert "what followed:" in text and f"sessionKey {SPOTTER}" in text
        bad = await call(session, "find_fixes", {"error": "x", "limit": 0})
        assert bad.is_error and "limit must be 1..20, got 0" in text_of(bad)
