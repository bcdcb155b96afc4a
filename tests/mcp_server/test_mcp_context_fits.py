"""A context pack asked for with a large `tokenBudget` is built within what the MCP answer can carry: built past it
and then cut to fit maxResponseChars, it kept two of thirteen passages, so a larger budget gave an agent fewer
sources than the default one."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from claude_lines import claude_line
from mcp_server.helpers import call, mcp_client, text_of, wait_until_indexed

SESSIONS = 8


def write_sessions(folder: Path) -> None:
    """SESSIONS Claude Code sessions, each a question about the orbit winch and a long answer."""
    folder.mkdir(parents=True)
    for n in range(SESSIONS):
        session = str(uuid.UUID(int=n + 1))
        answer = f"session {n}: the orbit winch pawl slipped under load; " + "ballast girder rudder sprocket " * 300
        lines = [
            claude_line(
                "user",
                "q",
                None,
                f"why does the orbit winch slip ({n})?",
                session=session,
                timestamp=f"2026-04-0{n + 1}T10:00:00Z",
            ),
            claude_line("assistant", "a", "q", answer, session=session, timestamp=f"2026-04-0{n + 1}T10:01:00Z"),
        ]
        (folder / f"{session}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def sources(answer: Any) -> set[str]:
    assert not answer.is_error, text_of(answer)
    return {item["sessionKey"] for item in answer.structured_content["items"]}


async def test_a_larger_budget_never_gives_fewer_sources(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_sessions(logs / "claude")
    flags: list[str | Path] = [
        "--scope",
        "all",
        "--no-embeddings",
        "--transcripts",
        logs,
        "--index-dir",
        tmp_path / "index",
    ]
    async with mcp_client(flags, cwd=tmp_path) as session:
        await wait_until_indexed(session)
        question = {"question": "why does the orbit winch slip"}
        default = sources(await call(session, "context", question))
        largest = await call(session, "context", question | {"tokenBudget": 200_000})
        assert len(sources(largest)) >= len(default) > 1
        assert "cutToFit" not in largest.structured_content
        assert largest.structured_content["tokenBudgetAsked"] == 200_000
        assert "tokenBudget 200,000 is more than maxResponseChars holds" in text_of(largest)
