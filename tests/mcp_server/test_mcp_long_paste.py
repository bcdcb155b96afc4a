"""A pasted traceback far longer than a query's bound, through the official MCP SDK client on a real `memlens mcp`:
`find_fixes` and `search` read its end and say what of its start was left out, in the structured answer and in the
text an agent reads; past the most a tool takes at all, the call fails with one clear message. A date no calendar
has is a note in a query, an error as `since`; so is a numeric date that reads as two days."""

from __future__ import annotations

from pathlib import Path

import pytest

from long_paste import EXCEPTION, FIX_WORDS, SESSION, traceback_text, write_transcripts
from mcp_server.helpers import call, mcp_client, memlens, text_of, wait_until_indexed
from memlens.requests import MAX_PASTE_CHARS, MAX_QUERY_CHARS

pytestmark = pytest.mark.slow  # a real MCP server process


async def test_a_long_traceback_through_mcp(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    flags = ["--workspace", str(tmp_path / "ws"), "--index-dir", str(tmp_path / "index")]
    flags += ["--transcripts", str(write_transcripts(tmp_path / "transcripts"))]
    memlens("index", *flags, "--no-embeddings")
    pasted = traceback_text()
    async with mcp_client([*flags, "--no-embeddings"]) as session:
        listed = {t.name: t for t in (await session.list_tools()).tools}
        schema = listed["find_fixes"].input_schema["properties"]["error"]
        assert schema["maxLength"] == MAX_PASTE_CHARS
        assert f"over {MAX_QUERY_CHARS:,} characters, its first line and last lines are read" in schema["description"]
        await wait_until_indexed(session)
        result = await call(session, "find_fixes", {"error": pasted})
        assert not result.is_error, text_of(result)
        data = result.structured_content
        assert isinstance(data, dict)
        assert (
            data["fixes"][0]["sessionKey"] == f"claude-code:{SESSION}"
            and FIX_WORDS in data["fixes"][0]["after"][0]["text"]
        )
        assert data["error"].endswith(EXCEPTION) and data["leftOut"]["chars"] > 0
        lines = data["leftOut"]["lines"]
        assert f"({lines} lines of the error after its first were left out" in text_of(result)
        searched = await call(session, "search", {"query": pasted, "minScore": 0})
        assert not searched.is_error and "lines of the query after its first were left out" in text_of(searched)
        dated = await call(session, "search", {"query": "what overflowed on February 30"})
        assert '"February 30" is not a date (February has 29 days at most)' in text_of(dated)
        assert dated.structured_content and dated.structured_content["unreadDates"][0]["text"] == "February 30"
        either = await call(session, "search", {"query": "what overflowed on 11/02/2026"})
        assert '"11/02/2026" could be 11 February or 2 November 2026: searched as words' in text_of(either)
        assert either.structured_content and either.structured_content["ambiguousDates"] == [
            {"text": "11/02/2026", "readings": ["2026-02-11", "2026-11-02"]}
        ]
        flag = await call(session, "search", {"query": "quux", "since": "2026-02-30"})
        assert flag.is_error and "since must be a day that exists, got '2026-02-30'" in text_of(flag)
        huge = await call(session, "find_fixes", {"error": "x = 1\n" * (MAX_PASTE_CHARS // 6 + 1)})
        assert huge.is_error and f"at most {MAX_PASTE_CHARS:,} characters" in text_of(huge)
        assert "paste those" in text_of(huge) and len(text_of(huge)) < 300
