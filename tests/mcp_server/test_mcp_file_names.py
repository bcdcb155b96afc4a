"""`memlens mcp` with file names that are not UTF-8 and one file under two names (issue 31, items 2 and 4): the
answers show paths escaped, stats counts the aliases, and live indexing goes on after watchfiles fails on a name."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

from mcp.client.session import ClientSession

from mcp_server.helpers import call, mcp_client, wait_until_indexed

SESSION = "4f0c2b9e-5d1a-4c3b-8e7f-6a5b4c3d2e1f"


def _transcript(word: str, session: str = SESSION) -> bytes:
    line = {
        "parentUuid": None,
        "isSidechain": False,
        "type": "user",
        "sessionId": session,
        "uuid": f"u-{session[:6]}",
        "timestamp": "2026-02-10T10:00:00.000Z",
        "message": {"role": "user", "content": f"message about the {word} rollout plan"},
    }
    return (json.dumps(line) + "\n").encode()


def _at(folder: Path, name: bytes) -> Path:
    return Path(os.fsdecode(bytes(folder) + b"/" + name))


async def _search(session: ClientSession, word: str) -> list[dict[str, object]]:
    result = await call(session, "search", {"query": word, "mode": "keyword"})
    assert not result.is_error
    data = result.structured_content
    assert isinstance(data, dict)
    results: list[dict[str, object]] = data["results"]
    return results


async def test_mcp_shows_escaped_names_counts_aliases_and_keeps_watching(tmp_path: Path) -> None:
    workspace, transcripts = tmp_path / "ws", tmp_path / "tr"
    (workspace / "memory").mkdir(parents=True)
    transcripts.mkdir()
    note = _at(workspace / "memory", b"n\xff\tx.md")
    note.write_text("# Note\n\nthe tapiroddnote decision\n")
    (transcripts / "s.jsonl").write_bytes(_transcript("tapirsession"))
    os.link(transcripts / "s.jsonl", transcripts / "t-hard.jsonl")
    flags: list[str | Path] = [
        "--workspace",
        workspace,
        "--transcripts",
        transcripts,
        "--index-dir",
        tmp_path / "index",
    ]
    async with mcp_client([*flags, "--no-embeddings"]) as session:
        stats = await wait_until_indexed(session)
        assert stats["aliases"] == 1, stats  # (reading n\xff… at start-up may already have failed watchfiles once)
        found = await _search(session, "tapiroddnote")
        assert [r["path"] for r in found] == [f"{workspace}/memory/n\\xff\\tx.md"]
        assert [r["path"] for r in await _search(session, "tapirsession")] == [str(transcripts / "s.jsonl")]

        # while the server runs: a transcript whose name watchfiles cannot decode, and one beside it
        _at(transcripts, b"live\xff.jsonl").write_bytes(_transcript("tapirlive", session=SESSION.replace("4f", "5a")))
        (transcripts / "next.jsonl").write_bytes(_transcript("tapirnext", session=SESSION.replace("4f", "6b")))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if await _search(session, "tapirlive") and await _search(session, "tapirnext"):
                break
            await asyncio.sleep(0.3)
        assert [r["path"] for r in await _search(session, "tapirlive")] == [f"{transcripts}/live\\xff.jsonl"]
        assert await _search(session, "tapirnext")
        stats = (await call(session, "stats")).structured_content
        assert isinstance(stats, dict) and stats["watcherErrors"] >= 1
