"""`memlens mcp` end to end: the official MCP SDK client over stdio against a real server process on a real index."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

import pytest

from mcp_server.conftest import Corpus
from mcp_server.helpers import REPO, call, mcp_client, memlens, text_of, wait_until_indexed, wire

pytestmark = pytest.mark.slow  # real MCP server processes

TOOL_NAMES = {
    "search",
    "history",
    "sessions",
    "summaries_grep",
    "summaries_describe",
    "summaries_expand",
    "context",
    "find_fixes",
    "stats",
}
# built by concatenation so no scanner flags this file; the detector masks AKIA + 16 upper-case letters/digits
PLANTED_KEY = "AKIA" + "Q3EGRT7X2LMN4PZV"


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    data = result.structured_content
    assert isinstance(data, dict)
    return data


async def test_example_workspace_every_tool(example_copy: tuple[Path, Path]) -> None:
    workspace, index_dir = example_copy
    flags: list[str | Path] = ["--workspace", workspace, "--index-dir", index_dir, "--no-embeddings"]
    async with mcp_client(flags) as session:
        listed = (await session.list_tools()).tools
        assert {t.name for t in listed} == TOOL_NAMES
        for listed_tool in listed:
            assert listed_tool.description and len(listed_tool.description) > 80  # says when to use it
            assert listed_tool.input_schema["type"] == "object"
            assert listed_tool.output_schema is not None
        search_tool = next(t for t in listed if t.name == "search")
        assert search_tool.input_schema["required"] == ["query"]
        assert set(search_tool.input_schema["properties"]) >= {"query", "limit", "mode", "kind", "format", "role"}

        stats = await wait_until_indexed(session)
        assert stats["sessions"] >= 5 and stats["readOnly"] is False and stats["indexing"] is False

        # search: the README's question; hits name their session, title and resume command
        hits = structured(await call(session, "search", {"query": "dead-letter queue backing up", "limit": 5}))
        assert hits["results"] and hits["indexing"] is False
        # keyword mode (no embeddings): the session and its daily note lead, in either order
        fix = "claude-code:5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9"
        assert {r.get("sessionKey") or r["relPath"] for r in hits["results"][:2]} == {fix, "memory/2026-02-10.md"}
        top = next(r for r in hits["results"] if r.get("sessionKey") == fix)
        assert "title" not in top and "resumeCommand" not in top  # named once per session, in sessionTitles
        label = hits["sessionTitles"][fix]
        assert label["title"].startswith("the orders DLQ is backing up")
        assert label["resumeCommand"] == (
            "cd /home/maren/code/ledgerline && claude --resume 5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9"
        )
        text = text_of(await call(session, "search", {"query": "dead-letter queue backing up", "limit": 5}))
        assert "sessionKey claude-code:5b0e7d3c" in text and "claude --resume" in text
        assert hits["withheld"] >= 0 and all(r["confidence"] in ("strong", "possible", "weak") for r in hits["results"])
        # a threshold nothing reaches: the answer says what it withheld and how to see it
        strict = {"query": "dead-letter queue backing up", "limit": 5, "minScore": 0.999}
        withheld = structured(await call(session, "search", strict))
        assert withheld["results"] == [] and withheld["withheld"] == 5
        assert "5 weaker matches withheld" in text_of(await call(session, "search", strict))

        # history anchored on the hit, and the newest tail from a bare id prefix
        anchored = structured(
            await call(session, "history", {"sessionKey": top["sessionKey"], "messageId": top["messageId"], "limit": 5})
        )
        assert anchored["anchor"] == top["messageId"]
        assert top["messageId"] in [m["messageId"] for m in anchored["messages"]]
        assert anchored["title"] == label["title"] and anchored["resumeCommand"] == label["resumeCommand"]
        tail = structured(await call(session, "history", {"sessionKey": "5b0e7d3c", "limit": 3}))
        assert tail["sessionKey"] == top["sessionKey"] and len(tail["messages"]) == 3
        assert tail["hasMoreAfter"] is False and tail["hasMoreBefore"] is True

        # sessions: a title for each, resume commands where the agent has one, files and tools
        listing = structured(await call(session, "sessions", {}))
        assert listing["totalSessions"] == len(listing["sessions"]) == stats["sessions"]
        by_key = {s["sessionKey"]: s for s in listing["sessions"]}
        assert all(s["title"] for s in listing["sessions"])
        for s in listing["sessions"]:
            if s["format"] == "claude-code":
                assert s["resumeCommand"].endswith(f"claude --resume {s['sessionId']}")
            elif s["format"] == "codex":
                assert s["resumeCommand"].endswith(f"codex resume {s['sessionId']}")
            else:
                assert s["resumeCommand"] is None
        pgbouncer = by_key["claude-code:c84f2a19-6d3e-4b7a-95f1-0e2b7d4c8a63"]
        assert pgbouncer["title"] == "Postgres connection exhaustion: pgbouncer transaction pooling for Lambdas"
        assert any(f["edited"] for f in pgbouncer["filesTouched"])
        assert {"Bash", "Edit"} <= {t["name"] for t in pgbouncer["toolsUsed"]}
        # a SpecStory export by its first request, not its file name's slug ("lets do the blue green")
        blue_green = by_key["specstory:71f4c0e8-3a2d-4b96-8e5f-d20b9c7a1e36"]
        assert blue_green["title"].startswith("let's do the blue-green deploy of ledgerline-api v1.8.0")
        codex = next(s for s in listing["sessions"] if s["format"] == "codex")
        assert any(f["edited"] for f in codex["filesTouched"])  # from the apply_patch header
        page = structured(await call(session, "sessions", {"limit": 2}))
        seen = [s["sessionKey"] for s in page["sessions"]]
        while page["nextCursor"]:
            page = structured(await call(session, "sessions", {"limit": 2, "cursor": page["nextCursor"]}))
            seen += [s["sessionKey"] for s in page["sessions"]]
        assert seen == [s["sessionKey"] for s in listing["sessions"]]
        only_codex = structured(await call(session, "sessions", {"format": "codex", "query": "settlement"}))
        assert [s["format"] for s in only_codex["sessions"]] == ["codex"]

        # summaries: grep → describe → expand
        grep = structured(await call(session, "summaries_grep", {"pattern": "Nordlys"}))
        summary_id = grep["results"][0]["summaryId"]
        described = structured(await call(session, "summaries_describe", {"summaryId": summary_id}))
        assert described["covers"]["messageCount"] > 0 and "Nordlys" in described["text"]
        expanded = structured(await call(session, "summaries_expand", {"summaryId": summary_id, "tokenBudget": 150}))
        assert expanded["messages"] and expanded["tokens"] <= 150

        # context pack with citations
        pack = structured(await call(session, "context", {"question": "pgbouncer pool mode", "tokenBudget": 600}))
        assert pack["items"] and all(item["citation"] for item in pack["items"]) and pack["tokens"] <= 600
        assert "## Context for" in text_of(await call(session, "context", {"question": "pgbouncer pool mode"}))

        # bad arguments: isError saying what is wrong, and the server answers afterwards
        cases: list[tuple[str, dict[str, Any], str]] = [
            ("search", {"query": "x", "mode": "psychic"}, "mode must be one of hybrid, keyword, vector"),
            ("search", {}, "query is required"),
            ("search", {"query": "   "}, "query must not be empty"),
            ("search", {"query": "x", "limit": 0}, "limit must be 1..100, got 0"),
            ("search", {"query": "x", "limit": 10**12}, "limit must be 1..100, got 1000000000000"),
            ("context", {"question": "x" * 5000}, "question must be at most 4,000 characters, got 5,000"),
            ("search", {"query": "x", "since": "2026-03-01", "until": "2026-02-01"}, "must not be after until"),
            ("search", {"query": "x", "bogus": 1}, "unknown field(s): 'bogus'"),
            ("search", {"query": "x", "since": "someday"}, "since must be an ISO date"),
            ("history", {"sessionKey": top["sessionKey"], "limit": 501}, "limit must be 1..500, got 501"),
            ("sessions", {"limit": 0}, "limit must be 1..500, got 0"),
            ("summaries_grep", {"pattern": "x", "limit": 201}, "limit must be 1..200, got 201"),
            ("summaries_expand", {"summaryId": "chunk:1", "tokenBudget": 200_001}, "tokenBudget must be 1..200000"),
            ("context", {"question": "x", "tokenBudget": 49}, "tokenBudget must be 50..200000, got 49"),
            ("history", {"sessionKey": "no-such-session"}, "unknown session"),
            ("history", {"sessionKey": top["sessionKey"], "messageId": "nope"}, "is not in session"),
            ("summaries_describe", {"summaryId": "chunk:999999"}, "summary"),
            ("sessions", {"cursor": "not-a-cursor"}, "cursor"),
            ("no_such_tool", {}, "unknown tool"),
        ]
        for tool, arguments, expected in cases:
            result = await call(session, tool, arguments)
            assert result.is_error, (tool, arguments)
            assert expected in text_of(result), text_of(result)
            assert text_of(result).startswith(f"{tool}: ")
        pasted = await call(session, PLANTED_KEY, {})  # a key pasted as the tool's name: named back masked
        assert pasted.is_error and "unknown tool" in text_of(pasted) and PLANTED_KEY not in wire(pasted)
        stats_call = await call(session, "stats")
        assert structured(stats_call)["sessions"] == stats["sessions"]
        # its text says the counts per format as the CLI does, not as JSON
        per_format = ", ".join(
            f"{name} {count:,}" for name, count in sorted(structured(stats_call)["messages"].items())
        )
        assert f"messages: {per_format}\n" in text_of(stats_call) and "{" not in text_of(stats_call), text_of(
            stats_call
        )

        # a secret written while the server runs: indexed live, and never on the wire unmasked
        note = workspace / "memory" / "deploy-keys.md"
        note.write_text(f"# Deploy credentials\n\nThe zebracorn deploy user's key is {PLANTED_KEY} (rotate monthly).\n")
        deadline = time.monotonic() + 30
        while True:
            found = await call(session, "search", {"query": "zebracorn deploy key"})
            paths = [hit["relPath"] for hit in structured(found)["results"]]
            if "memory/deploy-keys.md" in paths or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.3)
        assert "memory/deploy-keys.md" in paths, "the watcher did not index the new note"
        assert PLANTED_KEY not in wire(found)
        assert "key is [REDACTED:aws-access-key] (rotate monthly)" in wire(found)
        checks: list[tuple[str, dict[str, Any]]] = [
            ("context", {"question": "zebracorn deploy user's key"}),
            ("history", {"sessionKey": top["sessionKey"], "limit": 50}),
        ]
        for tool, arguments in checks:
            assert PLANTED_KEY not in wire(await call(session, tool, arguments))

        # a second server on the same index serves read-only and still answers
        async with mcp_client(flags) as second:
            second_stats = structured(await call(second, "stats"))
            assert second_stats["readOnly"] is True
            assert structured(await call(second, "search", {"query": "pgbouncer"}))["results"]


async def test_answers_are_bounded_by_max_response_chars(example_copy: tuple[Path, Path], tmp_path: Path) -> None:
    workspace, index_dir = example_copy
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"search": {"maxResponseChars": 1500, "excerptChars": 300, "minScore": 0}}))
    flags: list[str | Path] = ["--workspace", workspace, "--index-dir", index_dir, "--no-embeddings"]
    async with mcp_client([*flags, "--settings", settings]) as session:
        await wait_until_indexed(session)
        bounded: list[tuple[str, dict[str, Any]]] = [
            ("search", {"query": "the queue pool offsite settlement", "limit": 50}),
            ("history", {"sessionKey": "claude-code:5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9", "limit": 200}),
            ("sessions", {"limit": 100}),
            ("context", {"question": "what happened with the queue and the pool?", "tokenBudget": 5000}),
        ]
        for tool, arguments in bounded:
            result = await call(session, tool, arguments)
            data = structured(result)
            assert len(text_of(result)) <= 1500, tool
            assert len(json.dumps(data, ensure_ascii=False)) <= 1500, tool
            assert data.get("truncated") is True, tool


# per corpus: the files the busiest Claude Code session touched at least, and a query its messages answer
TRANSCRIPT_FACTS = {"real": (10, "annotation state migration"), "synthetic": (1, "leap day reconciliation window")}


async def test_transcripts_through_the_tools(transcript_index: Corpus) -> None:
    flags = transcript_index.flags
    files_touched, query = TRANSCRIPT_FACTS[transcript_index.name]
    async with mcp_client([*flags, "--no-embeddings"]) as session:
        stats = await wait_until_indexed(session)
        listing = structured(await call(session, "sessions", {"limit": 500}))
        assert listing["totalSessions"] == stats["sessions"] >= 10
        assert all(s["title"] and len(s["title"]) <= 80 for s in listing["sessions"])
        claude = [s for s in listing["sessions"] if s["format"] == "claude-code"]
        assert claude and all(
            s["resumeCommand"] == f"cd {s['cwd']} && claude --resume {s['sessionId']}" for s in claude if s["cwd"]
        )
        busiest = max(claude, key=lambda s: s["filesTouchedTotal"])
        assert busiest["filesTouchedTotal"] >= files_touched and any(f["edited"] for f in busiest["filesTouched"])

        # history by a bare id prefix lands on the main session, not on one of its subagents
        main = next(s for s in claude if s["parentSessionKey"] is None and s["sessionKey"].endswith(s["sessionId"]))
        tail = structured(await call(session, "history", {"sessionKey": main["sessionId"][:8], "limit": 4}))
        assert tail["sessionKey"] == main["sessionKey"] and tail["title"] == main["title"]

        # an ambiguous prefix lists candidates
        ids = [s["sessionId"] for s in listing["sessions"]]
        shared_prefix = next((p for p in (i[:4] for i in ids) if len({i for i in ids if i.startswith(p)}) > 1), None)
        if shared_prefix:
            result = await call(session, "history", {"sessionKey": shared_prefix})
            assert result.is_error and "ambiguous" in text_of(result)

        hits = structured(await call(session, "search", {"query": query, "limit": 3}))
        assert hits["results"] and all(
            hits["sessionTitles"][h["sessionKey"]]["title"] for h in hits["results"] if h["kind"] != "memory"
        )


async def test_search_with_the_bundled_model(example_copy: tuple[Path, Path]) -> None:
    workspace, index_dir = example_copy
    async with mcp_client(["--workspace", workspace, "--index-dir", index_dir]) as session:
        stats = await wait_until_indexed(session)
        assert stats["provider"] != "none" and stats["chunksNeedingEmbeddings"] == 0
        hits = structured(await call(session, "search", {"query": "how did we fix the dead-letter queue backup?"}))
        assert hits["mode"] == "hybrid" and "note" not in hits
        assert hits["results"][0]["sessionKey"].startswith("claude-code:5b0e7d3c")


def test_cli_sessions_and_history_by_prefix(example_copy: tuple[Path, Path]) -> None:
    workspace, index_dir = example_copy
    flags: list[str | Path] = ["--workspace", workspace, "--index-dir", index_dir, "--no-embeddings"]
    table = memlens("sessions", *flags).stdout
    assert "TITLE" in table.splitlines()[0] and "Postgres connection exhaustion" in table
    page = json.loads(memlens("sessions", *flags, "--json", "--format", "claude-code").stdout)
    assert {s["format"] for s in page["sessions"]} == {"claude-code"}
    history = memlens("history", "c84f2a19", "--limit", "2", *flags).stdout
    assert "claude-code:c84f2a19-6d3e-4b7a-95f1-0e2b7d4c8a63" in history and "claude --resume c84f2a19" in history
    missing = memlens("history", "ffffffff", *flags, check=False)
    assert missing.returncode == 2 and "unknown session 'ffffffff'" in missing.stderr


def test_node_sdk_client(example_copy: tuple[Path, Path]) -> None:
    """An independent client (the TypeScript SDK from npm) lists the tools and searches over stdio."""
    node = shutil.which("node")
    sdk = REPO / "node_modules" / "@modelcontextprotocol" / "sdk"
    if node is None or not sdk.is_dir():
        pytest.skip("node or node_modules/@modelcontextprotocol/sdk is missing (run npm install)")
    workspace, index_dir = example_copy
    server = [sys.executable, "-m", "memlens", "mcp", "--workspace", str(workspace), "--index-dir", str(index_dir)]
    env = dict(os.environ, PYTHONPATH=str(REPO / "server"))
    done = subprocess.run(
        [node, str(Path(__file__).with_name("node_client.mjs")), *server, "--no-embeddings"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert set(answer["tools"]) == TOOL_NAMES
    assert answer["searchSchema"]["required"] == ["query"]
    assert answer["search"]["isError"] is False
    assert answer["search"]["structured"]["results"][0]["sessionKey"].startswith("claude-code:c84f2a19")
    assert "pgbouncer" in answer["search"]["text"].lower()
    assert answer["bad"]["isError"] is True and "mode must be one of" in answer["bad"]["text"]


def _listening_port(stderr: IO[str]) -> int:
    """The port of the server's "listening on http://HOST:PORT/mcp" line, read as the server says it."""
    for line in stderr:
        said = re.search(r"listening on http://127\.0\.0\.1:(\d+)/mcp", line)
        if said:
            return int(said.group(1))
    raise AssertionError("the server stopped before it said where it listens")


async def test_streamable_http_on_a_port_the_system_picks(example_copy: tuple[Path, Path]) -> None:
    """`--http 127.0.0.1:0` serves the same tools over streamable HTTP on localhost, on a free port the system picks,
    which the server says on its "listening on" line (no port guessed free and raced for)."""
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    workspace, index_dir = example_copy
    server = subprocess.Popen(
        [sys.executable, "-m", "memlens", "mcp", "--http", "127.0.0.1:0", "--workspace", str(workspace)]
        + ["--index-dir", str(index_dir), "--no-embeddings"],
        env=dict(os.environ, PYTHONPATH=str(REPO / "server")),
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        port = await asyncio.wait_for(asyncio.to_thread(_listening_port, server.stderr), 60)
        assert port != 0
        url = f"http://127.0.0.1:{port}/mcp"
        async with streamable_http_client(url) as (read, write, *_), ClientSession(read, write) as session:
            await session.initialize()
            assert {t.name for t in (await session.list_tools()).tools} == TOOL_NAMES
            hits = structured(await call(session, "search", {"query": "pgbouncer"}))
            assert hits["results"][0]["sessionKey"].startswith("claude-code:c84f2a19")
    finally:
        server.terminate()
        server.communicate(timeout=30)


async def test_the_servers_error_line_reaches_the_tests_standard_error(capfd: pytest.CaptureFixture[str]) -> None:
    """The test client hands the server file descriptor 2, wherever the SDK was first imported: its default is
    the `sys.stderr` of that moment, a `capsys` buffer without a descriptor after a test using `capsys`, and no
    server could start ("UnsupportedOperation: fileno")."""
    from mcp import MCPError

    with pytest.RaisesGroup(pytest.RaisesExc(MCPError, match="Connection closed"), flatten_subgroups=True):
        async with asyncio.timeout(60), mcp_client(["--no-such-flag"]):
            pass
    assert "memlens: error: unrecognized arguments: --no-such-flag" in capfd.readouterr().err
