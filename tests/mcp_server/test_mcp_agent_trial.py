"""What an agent trying `memlens mcp` through the SDK client ran into: a `since` of 99999 years that answered
"internal error", and an unknown tool whose error read "[REDACTED:password] tool" because the name ended in
`passwd`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from claude_lines import claude_line
from mcp_server.helpers import call, mcp_client, text_of, wait_until_indexed

SESSION = "c0ffee00-1111-4222-8333-444455556666"
MESSAGES = 40
ANCHOR = f"m{MESSAGES // 2}"
TRACEBACK = (
    "Traceback (most recent call last):\n"
    + '  File "/srv/orbit/app.py", line 12, in handler\n    return route(request)\n' * 60
    + "KeyError: 'ballast_weight'"
)


def write_session(folder: Path) -> None:
    """A Claude Code session of MESSAGES messages of about 600 characters each, the last one its end; one user
    message pasted a traceback whose last line names `ballast_weight`."""
    folder.mkdir(parents=True)
    lines = []
    for n in range(MESSAGES):
        role = "user" if n % 2 == 0 else "assistant"
        text = f"message {n} about the orbit winch " + "ballast girder rudder " * 28
        if n == 3:
            text = "pytest fails:\n" + TRACEBACK
        if n == MESSAGES - 1:
            text = "the end: the winch pawl was replaced and the tests pass"
        parent = f"m{n - 1}" if n else None
        lines.append(claude_line(role, f"m{n}", parent, text, session=SESSION, timestamp=f"2026-04-05T10:{n:02d}:00Z"))
    (folder / f"{SESSION}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    data = result.structured_content
    assert isinstance(data, dict)
    return data


def ids(data: dict[str, Any]) -> list[str]:
    return [m["messageId"] for m in data["messages"]]


async def test_bad_calls_answer_one_clear_line(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_session(logs / "claude")
    flags: list[str | Path] = ["--scope", "all", "--no-embeddings", "--transcripts", logs]
    async with mcp_client([*flags, "--index-dir", tmp_path / "index"], cwd=tmp_path) as session:
        await wait_until_indexed(session)
        expected = {
            ("search", "since", "99999y"): "search: since must not reach back before the year 1, got '99999y'",
            ("sessions", "until", "9999y"): "sessions: until must not reach back before the year 1, got '9999y'",
        }
        for (tool, field, value), message in expected.items():
            arguments: dict[str, Any] = {field: value} | ({"query": "winch"} if tool == "search" else {})
            refused = await call(session, tool, arguments)
            assert refused.is_error and text_of(refused) == message
            assert not (await call(session, "stats")).is_error

        strange = await call(session, "../../etc/passwd", {})
        assert strange.is_error and "[REDACTED" not in text_of(strange)
        assert text_of(strange).startswith("../../etc/passwd: unknown tool '../../etc/passwd'; the tools are: search")
        # a secret an argument carries is still masked where the error says it back
        masked = await call(session, "history", {"sessionKey": "password: Hunter2-Xy9q"})
        assert masked.is_error and "Hunter2-Xy9q" not in text_of(masked)
