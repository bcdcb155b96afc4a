"""One message count for a session at every door: the engine's (engine/message_count.py: what its people and agent
wrote, not tool outputs nor summaries), shown alike by `memlens sessions` (its MSGS column and `--json`), MCP's
`sessions` tool and the transcript's own messages. The example's DLQ session holds 13 tool outputs beside them."""

from __future__ import annotations

import json
import re

import pytest

from mcp_server.helpers import call, mcp_client
from memlens.engine.engine import Engine
from test_cli_terminal import memlens, where

pytestmark = pytest.mark.slow  # CLI and MCP server processes

DLQ_SESSION = "claude-code:5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9"


async def test_every_door_shows_the_same_count_without_tool_outputs(example: Engine) -> None:
    counts: dict[str, tuple[int, int]] = {}  # session: (messages, tool outputs) of its whole transcript
    for session in example.sessions(limit=500)["sessions"]:
        kinds = [m["kind"] for m in example.history(session["sessionKey"], limit=500)["messages"]]
        counts[session["sessionKey"]] = (kinds.count("message"), kinds.count("tool"))
        assert session["messageCount"] == kinds.count("message"), session["sessionKey"]
    assert counts[DLQ_SESSION][1] > 0  # a session with tool outputs is among them
    example.close()  # the CLI and the MCP server open the index themselves
    listed = json.loads(memlens("sessions", "--no-sync", "--json", *where(example)).stdout)["sessions"]
    assert {s["sessionKey"]: s["messageCount"] for s in listed} == {k: n for k, (n, _) in counts.items()}
    table = memlens("sessions", "--no-sync", *where(example)).stdout.splitlines()
    row = next(line for line in table if " 5b0e7d3c " in line)
    assert re.search(rf"\s{counts[DLQ_SESSION][0]}\s+5b0e7d3c ", row), row  # MSGS, right before SESSION
    async with mcp_client([*where(example), "--no-embeddings"]) as client:
        answer = await call(client, "sessions", {"limit": 500})
        shown = answer.structured_content
        assert isinstance(shown, dict)
        assert {s["sessionKey"]: s["messageCount"] for s in shown["sessions"]} == {k: n for k, (n, _) in counts.items()}
        text = "".join(getattr(block, "text", "") for block in answer.content)
        assert f"{counts[DLQ_SESSION][0]} messages" in text
