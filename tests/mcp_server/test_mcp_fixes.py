"""The MCP tool `find_fixes` through the official SDK client, on a real `memlens mcp` over the shared real transcripts
(or the committed synthetic ones without ../shared): a pasted error line that lives only in a tool's output finds its
session and the messages that fixed it."""

from __future__ import annotations

import pytest

from mcp_server.conftest import Corpus
from mcp_server.helpers import call, mcp_client, text_of, wait_until_indexed

pytestmark = pytest.mark.slow  # a real MCP server process

# per corpus: the pasted error line, the session it is from, and words of what was done next
PASTED = {
    "real": (
        "fatal: The current branch spotter-gqc has no upstream branch.",
        "claude-code:258c7280-ae70-4798-800f-63464d01a85d",
        "git push --set-upstream origin spotter-gqc",
    ),
    "synthetic": (
        "TypeError: unsupported operand type(s) for +: 'float' and 'decimal.Decimal'",
        "claude-code:6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d",
        "wrapping each in Decimal(str(price))",
    ),
}


async def test_find_fixes_answers_a_pasted_error(transcript_index: Corpus) -> None:
    flags = transcript_index.flags
    error, spotter, fix = PASTED[transcript_index.name]
    async with mcp_client([*flags, "--no-embeddings"]) as session:
        listed = {t.name: t for t in (await session.list_tools()).tools}
        assert "paste the error line" in (listed["find_fixes"].description or "")  # tells the agent when to use it
        await wait_until_indexed(session)
        result = await call(session, "find_fixes", {"error": error})
        assert not result.is_error
        data = result.structured_content
        assert isinstance(data, dict)
        first = data["fixes"][0]
        assert (first["sessionKey"], first["error"]) == (spotter, True)
        assert fix in first["after"][0]["text"]
        text = text_of(result)
        assert "what followed:" in text and f"sessionKey {spotter}" in text
        bad = await call(session, "find_fixes", {"error": "x", "limit": 0})
        assert bad.is_error and "limit must be 1..20, got 0" in text_of(bad)
