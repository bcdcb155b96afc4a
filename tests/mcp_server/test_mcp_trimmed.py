"""MCP answers an agent can afford, through the real server and the SDK client: a history window caps each message
and says how to read it whole, a search names each session's title and resume command once, the `sessions` tool
finds a session by a file it touched, a tool it used or a command it ran, and `project` filters search and sessions."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from conftest import REPO
from mcp_server.helpers import call, mcp_client, text_of, wait_until_indexed
from memlens.mcp.render import render_search
from memlens.mcp.trimming import MESSAGE_CHARS, titles_once

FIXTURES = REPO / "tests" / "fixtures" / "transcripts"
SESSION = "a1b2c3d4-0000-4000-8000-00000000beef"


def write_long_session(folder: Path) -> None:
    """A Claude Code session in /home/me/orbit whose third message is a 12,000-character pasted log."""
    folder.mkdir(parents=True)
    base = {"sessionId": SESSION, "cwd": "/home/me/orbit", "isSidechain": False}
    texts = [
        ("user", "why does the orbit deploy hang at the migration step?"),
        ("assistant", "Let me look at the deploy log."),
        (
            "user",
            "here is the log:\n" + "\n".join(f"step {i}: migrating shard {i} ... waiting on lock" for i in range(300)),
        ),
        ("assistant", "The migration waits on an advisory lock held by the previous deploy."),
        ("user", "release the lock then"),
        ("assistant", "Released it; the deploy finished."),
    ]
    lines = []
    for n, (role, text) in enumerate(texts):
        message: dict[str, Any] = {"role": role, "content": text}
        if role == "assistant":
            message = {"role": role, "content": [{"type": "text", "text": text}], "model": "m", "id": f"msg{n}"}
        lines.append(
            json.dumps({**base, "type": role, "uuid": f"u{n}", "parentUuid": f"u{n - 1}" if n else None,
                        "timestamp": f"2026-04-05T10:0{n}:00Z", "message": message})
        )  # fmt: skip
    (folder / f"{SESSION}.jsonl").write_text("\n".join(lines) + "\n")


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    data = result.structured_content
    assert isinstance(data, dict)
    return data


async def test_answers_trimmed_sessions_by_file_and_project(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_long_session(logs / "claude")
    shutil.copytree(FIXTURES, logs / "repo")
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

        # history: the 12,000-character message is cut, and says how to read all of it
        window = await call(session, "history", {"sessionKey": SESSION, "limit": 6})
        data = structured(window)
        long = next(m for m in data["messages"] if m["text"].startswith("here is the log"))
        assert len(long["text"]) < MESSAGE_CHARS + 200 and "more characters" in long["text"]
        assert f'messageId: "{long["messageId"]}", limit: 1' in long["text"]
        assert len(text_of(window)) < 6 * (MESSAGE_CHARS + 300)
        whole = structured(
            await call(session, "history", {"sessionKey": SESSION, "messageId": long["messageId"], "limit": 1})
        )
        assert len(whole["messages"][0]["text"]) > 12_000

        # search: a session's title and resume command once, however many of its messages hit
        result = await call(session, "search", {"query": "deploy lock migration", "limit": 10, "mode": "keyword"})
        hits = structured(result)
        ours = [h for h in hits["results"] if h.get("sessionKey") == f"claude-code:{SESSION}"]
        assert ours and not any("title" in h or "resumeCommand" in h for h in hits["results"])
        label = hits["sessionTitles"][f"claude-code:{SESSION}"]
        assert label["title"] == "why does the orbit deploy hang at the migration step?"
        text = text_of(result)
        assert text.count(label["title"]) == 1 and text.count(label["resumeCommand"]) == 1

        # sessions: found by a file it edited, a tool it used, a command it ran (none in its title or folder)
        for words in ("billing/rounding.py", "apply_patch", "rg -n ROUND_"):
            listing = structured(await call(session, "sessions", {"query": words}))
            assert "codex:019ca1b3-2e4f-7a60-8c1d-3f5a7b9c0d2e" in {s["sessionKey"] for s in listing["sessions"]}
        assert structured(await call(session, "sessions", {"query": "no-such-file.py"}))["sessions"] == []

        # project: a folder's name in any case, for sessions and search
        orbit = structured(await call(session, "sessions", {"project": "Orbit"}))
        assert [s["sessionKey"] for s in orbit["sessions"]] == [f"claude-code:{SESSION}"]
        only = structured(await call(session, "search", {"query": "lock", "project": "orbit", "mode": "keyword"}))
        assert only["results"] and {h["sessionKey"] for h in only["results"]} == {f"claude-code:{SESSION}"}
        bad = await call(session, "sessions", {"project": "x" * 5000})
        assert bad.is_error and "project" in text_of(bad)


def test_a_session_with_many_hits_is_named_once() -> None:
    hit = {"kind": "transcript", "format": "codex", "score": 0.9, "role": "user", "excerpt": "x", "timestamp": None}
    one = {"sessionKey": "codex:a", "title": "fix the rounding", "resumeCommand": "codex resume a"}
    other = {"sessionKey": "codex:b", "title": "rename a column", "resumeCommand": "codex resume b"}
    results = [{**hit, **one, "messageId": f"L{n}"} for n in range(8)] + [{**hit, **other, "messageId": "L1"}]
    data = titles_once({"query": "q", "mode": "keyword", "results": results, "totalResults": 9})  # type: ignore[typeddict-item]
    assert data["sessionTitles"] == {
        "codex:a": {"title": "fix the rounding", "resumeCommand": "codex resume a"},
        "codex:b": {"title": "rename a column", "resumeCommand": "codex resume b"},
    }
    text = render_search(data)
    assert text.count("fix the rounding") == text.count("codex resume a") == 1
    assert text.count("rename a column") == text.count("codex resume b") == 1
    assert text.count("(session of hit 1)") == 7 and text.count("messageId L") == 9
