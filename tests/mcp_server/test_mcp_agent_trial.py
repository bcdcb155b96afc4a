"""What an agent trying `memlens mcp` through the SDK client ran into: an answer cut to fit that lost the message it
was asked around (or a session's end, or a summary's newest messages), a pasted traceback said back whole before
any hit, a `since` of 99999 years that answered "internal error", and an unknown tool whose error read
"[REDACTED:password] tool" because the name ended in `passwd`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession

from claude_lines import claude_line
from mcp_server.helpers import call, mcp_client, text_of, wait_until_indexed
from split_messages import claude_code as split_session

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


@asynccontextmanager
async def _indexed(tmp_path: Path, logs: Path, *more: str | Path) -> AsyncIterator[ClientSession]:
    """A real `memlens mcp` over the transcripts in `logs` (keyword only), once its first indexing is done."""
    flags: list[str | Path] = ["--scope", "all", "--no-embeddings", "--transcripts", logs, *more]
    async with mcp_client([*flags, "--index-dir", tmp_path / "index"], cwd=tmp_path) as session:
        await wait_until_indexed(session)
        yield session


async def test_an_answer_cut_to_fit_keeps_what_was_asked_for(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_session(logs / "claude")
    split_session(logs)  # a session ending with a compaction summary of its four messages
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"search": {"maxResponseChars": 4000, "excerptChars": 300}}))
    async with _indexed(tmp_path, logs, "--settings", settings) as session:
        # a window around a message keeps that message, and says there is more on both sides
        around = await call(session, "history", {"sessionKey": SESSION, "messageId": ANCHOR, "limit": MESSAGES})
        data = structured(around)
        assert data["truncated"] and data["cutToFit"]["messages"] > 0
        assert ANCHOR in ids(data) and data["hasMoreBefore"] and data["hasMoreAfter"]
        assert f"▶ [{ANCHOR}]" in text_of(around) and "messages left out to fit maxResponseChars" in text_of(around)

        # without an anchor the window is the session's end: its oldest messages go first
        end = structured(await call(session, "history", {"sessionKey": SESSION, "limit": MESSAGES}))
        assert end["truncated"] and ids(end)[-1] == f"m{MESSAGES - 1}" and end["hasMoreBefore"]

        # an expanded summary is kept newest first: the newest message of its span stays
        summary = structured(await call(session, "summaries_grep", {"pattern": "staging signing keys"}))
        summary_id = summary["results"][0]["summaryId"]
        expanded = await call(session, "summaries_expand", {"summaryId": summary_id, "tokenBudget": 50_000})
        data = structured(expanded)
        assert data["truncated"] and data["cutToFit"]["messages"] > 0
        assert data["messages"][-1]["text"] == "The same procedure, on the staging vault."
        assert len(text_of(expanded)) <= 4000 and len(json.dumps(data, ensure_ascii=False)) <= 4000


async def test_a_pasted_traceback_is_not_said_back_whole(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_session(logs / "claude")
    async with _indexed(tmp_path, logs) as session:
        for tool, arguments in (("search", {"query": TRACEBACK}), ("find_fixes", {"error": TRACEBACK})):
            head = text_of(await call(session, tool, arguments)).split("\n\n", 1)[0]  # what comes before any hit
            assert len(head) < 600, (tool, head)  # said back whole, it ran to 4,000 characters
        found = await call(session, "search", {"query": TRACEBACK})
        assert any(hit["messageId"] == "m3" for hit in structured(found)["results"])


async def test_bad_calls_answer_one_clear_line(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_session(logs / "claude")
    async with _indexed(tmp_path, logs) as session:
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


async def test_what_an_agent_reads_says_what_to_pass_and_where_else_to_look(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_session(logs / "claude")
    (logs / "claude" / "binary.jsonl").write_bytes(bytes(range(256)) * 4)  # a file in no transcript format
    (logs / "claude" / "truncated.jsonl").write_bytes(b"")  # empty: not of an unknown format
    async with _indexed(tmp_path, logs) as session:
        # every date field says it takes the relative forms the parser reads, `until` as `since`
        listed = {tool.name: tool.input_schema["properties"] for tool in (await session.list_tools()).tools}
        for tool, properties in listed.items():
            for field in ("since", "until"):
                if field in properties:
                    assert "7d" in properties[field]["description"], (tool, field)
                    assert "yesterday" in properties[field]["description"], (tool, field)
        for value in ("2d", "yesterday", "last tue"):  # what the description offers is taken
            assert not (await call(session, "search", {"query": "winch", "until": value})).is_error

        # an error pasted into a message is no tool's output: the empty answer says where it is found
        missed = text_of(await call(session, "find_fixes", {"error": "KeyError: 'ballast_weight'"}))
        assert missed.startswith("0 past occurrences") and "`search`" in missed
        found = structured(await call(session, "search", {"query": "KeyError: 'ballast_weight'"}))
        assert any(hit["messageId"] == "m3" for hit in found["results"])

        # files of no format are said in words, not as a format named ""
        stats = await call(session, "stats")
        assert structured(stats)["files"].get("", 0) >= 1
        assert '"": ' not in text_of(stats) and "in no transcript format" in text_of(stats)
        assert (structured(stats)["filesUnrecognised"], structured(stats)["filesEmpty"]) == (1, 1)
        assert "1 file in no transcript format" in text_of(stats) and "1 transcript empty" in text_of(stats)


async def test_a_project_no_session_worked_in_is_said(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_session(logs / "claude")  # its sessions worked in /w
    async with _indexed(tmp_path, logs) as session:
        for project in ("orbit-typo", "../../../../etc", "/w/elsewhere"):
            answer = await call(session, "search", {"query": "winch", "project": project})
            assert not structured(answer)["results"]
            assert f"no session worked in a folder named or under '{project}'" in text_of(answer)
        found = structured(await call(session, "search", {"query": "winch", "project": "w"}))
        assert found["results"] and "no session worked" not in found.get("note", "")
        # a project that has sessions, asked about what none of them says, is not said to be empty
        silent = await call(session, "search", {"query": "zeppelin", "project": "/w"})
        assert "no session worked" not in text_of(silent)
        # the sessions list says it alike, in its text and its structured answer
        for project in ("orbit-typo", "/w/elsewhere"):
            listed = await call(session, "sessions", {"project": project})
            said = f"no session worked in a folder named or under '{project}'"
            assert not structured(listed)["sessions"] and structured(listed)["note"] == said
            assert f"note: {said}" in text_of(listed)
        known = await call(session, "sessions", {"project": "w"})
        assert structured(known)["sessions"] and "note" not in structured(known)
        assert "no session worked" not in text_of(known)
        narrowed = await call(session, "sessions", {"project": "w", "query": "zeppelin-nowhere"})
        assert not structured(narrowed)["sessions"] and "note" not in structured(narrowed)  # the project is there


async def test_a_message_shown_whole_is_cut_only_as_far_as_the_bound_needs(tmp_path: Path) -> None:
    """`history {messageId, limit: 1}` shows a message whole; one longer than maxResponseChars is cut to what fits,
    not to a fixed 4,000 characters, and the text says so."""
    logs = tmp_path / "logs"
    write_session(logs / "claude")
    long_text = "the winch log: " + "pawl slipped at load step; " * 1500  # about 40,000 characters
    with (logs / "claude" / f"{SESSION}.jsonl").open("a") as transcript:
        line = claude_line(
            "user", "long", f"m{MESSAGES - 1}", long_text, session=SESSION, timestamp="2026-04-05T11:00:00Z"
        )
        transcript.write(json.dumps(line) + "\n")
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"search": {"maxResponseChars": 20000, "excerptChars": 300}}))
    async with _indexed(tmp_path, logs, "--settings", settings) as session:
        whole = await call(session, "history", {"sessionKey": SESSION, "messageId": "long", "limit": 1})
        data = structured(whole)
        shown = data["messages"][0]["text"]
        words = " ".join(shown.removesuffix("…").split())  # a message stored in parts is joined at line breaks
        assert data["truncated"] and " ".join(long_text.split()).startswith(words)
        assert 15_000 < len(shown) < len(long_text)  # as much as 20,000 characters of answer hold
        assert len(json.dumps(data, ensure_ascii=False)) <= 20000 and len(text_of(whole)) <= 20000
        assert f"texts longer than {data['textsCutTo']:,} characters cut to fit maxResponseChars" in text_of(whole)
