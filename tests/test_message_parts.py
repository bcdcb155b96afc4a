"""A message stored in several units (its parts: longer than `chunking.messagePartChars`) counts once at every door
(engine/message_count.py): the "+N messages" of `memlens index`, `memlens stats`, the session list of the CLI and
MCP, a compaction summary's `covers`, and a search hit's chunk. Each counted each part: a session of four messages
showed six. Small sessions of each format (split_messages.py) at the default settings, and the real transcripts in
../shared with parts of 1,000 characters (a message of every format among them is split)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import FIXTURES
from mcp_server.helpers import call, mcp_client, memlens
from memlens.engine.engine import Engine
from memlens.settings import Settings, merge
from split_messages import MESSAGES, MIDDLE, OPENING, write_every_format

pytestmark = pytest.mark.slow  # CLI and MCP server processes

FORMATS = {"claude-code", "codex", "openclaw", "specstory"}


def _where(tmp_path: Path, folder: Path) -> list[str]:
    return ["--transcripts", str(folder), "--index-dir", str(tmp_path / "index"), "--no-embeddings", "--scope", "all"]


def _engine(tmp_path: Path, folder: Path, part_chars: int) -> Engine:
    transcripts = {"agentDefaults": False, "paths": [str(folder)]}
    settings = merge(Settings(), {"transcripts": transcripts, "chunking": {"messagePartChars": part_chars}})
    (tmp_path / "ws").mkdir(exist_ok=True)
    return Engine([tmp_path / "ws"], settings, index_dir=tmp_path / "index", embedder=None)


def _history_messages(engine: Engine, key: str) -> list[str]:
    """The texts of a session's messages as its transcript shows them (a message in parts shown whole, as one)."""
    history = engine.history(key, limit=500)
    assert not history["hasMoreBefore"] and not history["hasMoreAfter"], key
    return [m["text"] for m in history["messages"] if m["kind"] == "message"]


async def test_a_message_in_parts_counts_once_at_the_cli_and_mcp(tmp_path: Path) -> None:
    folder = tmp_path / "transcripts"
    write_every_format(folder)
    where = _where(tmp_path, folder)
    indexed = memlens("index", *where)
    added = re.search(r"\+(\d+) messages?", indexed.stdout + indexed.stderr)
    assert added, indexed.stdout + indexed.stderr
    assert int(added.group(1)) == MESSAGES * len(FORMATS)
    stats = json.loads(memlens("stats", "--json", *where).stdout)
    assert stats["messages"] == dict.fromkeys(FORMATS, MESSAGES)
    with_the_model = [arg for arg in where if arg != "--no-embeddings"]  # what waits for vectors: every message
    waiting = json.loads(memlens("stats", "--json", *with_the_model).stdout)
    assert waiting["pendingMessages"] == MESSAGES * len(FORMATS), waiting
    sessions = json.loads(memlens("sessions", "--json", "--no-sync", *where).stdout)["sessions"]
    assert {s["format"]: s["messageCount"] for s in sessions} == dict.fromkeys(FORMATS, MESSAGES)
    table = memlens("sessions", "--no-sync", *where).stdout
    assert re.search(rf"\s{MESSAGES}\s+6a1f0c3e\b", table), table  # the MSGS column, before the session
    for key in (s["sessionKey"] for s in sessions):
        history = json.loads(memlens("history", key, "--json", "--limit", "50", *where).stdout)
        assert [m["kind"] for m in history["messages"]].count("message") == MESSAGES, key  # shown whole: 4
    # a hit's chunk counts the messages that begin in it: the one of the long message's first part begins it, the
    # one of its second part only goes on with it
    for word, count in ((OPENING, 1), (MIDDLE, 0)):
        hits = json.loads(memlens("search", word, "--json", "--mode", "keyword", "--no-sync", *where).stdout)
        matched = [h for h in hits["results"] if word in h["excerpt"]]  # not the weaker hits around them
        assert {h["format"] for h in matched} == FORMATS, word
        assert {h["messageCount"] for h in matched} == {count}, (word, matched)

    async with mcp_client(where) as client:
        listed = (await call(client, "sessions", {"limit": 50})).structured_content
        assert isinstance(listed, dict)
        assert {s["format"]: s["messageCount"] for s in listed["sessions"]} == dict.fromkeys(FORMATS, MESSAGES)
        stated = (await call(client, "stats")).structured_content
        assert isinstance(stated, dict) and stated["messages"] == dict.fromkeys(FORMATS, MESSAGES)
        found = (await call(client, "summaries_grep", {"pattern": "staging signing keys"})).structured_content
        assert isinstance(found, dict) and found["results"], found
        summary = found["results"][0]["summaryId"]
        described = await call(client, "summaries_describe", {"summaryId": summary})
        assert f"covers {MESSAGES} messages" in "".join(getattr(b, "text", "") for b in described.content)
        expanded = await call(client, "summaries_expand", {"summaryId": summary, "tokenBudget": 100_000})
        listed_messages = expanded.structured_content
        assert isinstance(listed_messages, dict)
        assert listed_messages["totalMessages"] == len(listed_messages["messages"]) == MESSAGES
        assert any(MIDDLE in m["text"] and OPENING in m["text"] for m in listed_messages["messages"])  # whole


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="the real transcripts (../shared) are not here")
def test_the_real_transcripts_count_each_message_once_in_parts_of_a_thousand(tmp_path: Path) -> None:
    with _engine(tmp_path, FIXTURES, 1000) as engine:
        report = engine.sync()
        sessions = engine.sessions(limit=500)["sessions"]
        split: set[str] = set()
        for session in sessions:
            texts = _history_messages(engine, session["sessionKey"])
            # a session's own key shows each message once, as counted; a copy's (`KEY~name`: a resumed session's
            # file) shows every message its file holds, and counts those no other file keeps (catalog/copies.py)
            if "~" in session["sessionKey"]:
                assert 0 < session["messageCount"] <= len(texts), session["sessionKey"]
            else:
                assert session["messageCount"] == len(texts), session["sessionKey"]
            if any(len(text) > 1000 for text in texts):
                split.add(session["format"])
        assert split == FORMATS  # a message of every format is stored in parts
        by_format: dict[str, int] = {}
        for session in sessions:
            by_format[session["format"]] = by_format.get(session["format"], 0) + session["messageCount"]
        assert engine.stats()["messages"] == by_format
        assert report.messages_added == sum(by_format.values())
