"""A session with compaction summaries is counted alike at every door (engine/message_count.py): `memlens stats` and
the "+N messages" of a sync counted its summaries as messages, the session list did not."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from claude_lines import claude_line
from memlens.engine.engine import Engine
from memlens.settings import Settings, merge

SESSION = "3c2b1a09-8f7e-4d6c-9b5a-4f3e2d1c0b15"


def _transcript(folder: Path) -> Path:
    """Two messages, a tool call and its output, a compaction summary (an `isCompactSummary` user line) and a
    `summary` line, then two messages more: four messages, one tool output, two summaries."""

    def row(kind: str, n: int, content: object, **extra: object) -> str:
        line = claude_line(
            kind, f"u{n}", f"u{n - 1}" if n > 1 else None, content, session=SESSION, timestamp=f"2026-03-01T10:0{n}:00Z"
        )
        return json.dumps({**line, **extra}) + "\n"

    call = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls deploy"}}
    output = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "kustomization.yaml rollout.yaml"}
    lines = [
        row("user", 1, "why does the canary rollout stall at forty percent"),
        row("assistant", 2, [{"type": "text", "text": "Let me look at the rollout manifests."}, call]),
        row("user", 3, [output]),
        row("user", 4, "Summary: the canary rollout stalls on its analysis template", isCompactSummary=True),
        json.dumps({"type": "summary", "summary": "Canary rollout stall investigation", "leafUuid": "u4"}) + "\n",
        row("assistant", 5, "The analysis template queries a metric that no longer exists."),
        row("user", 6, "rename the metric in the template then"),
    ]
    path = folder / f"{SESSION}.jsonl"
    path.write_text("".join(lines))
    return path


def test_summaries_are_counted_nowhere_as_messages(tmp_path: Path) -> None:
    folder = tmp_path / "claude"
    folder.mkdir()
    _transcript(folder)
    settings = merge(Settings(), {"transcripts": {"agentDefaults": False, "paths": [str(folder)]}})
    (tmp_path / "ws").mkdir()
    with Engine([tmp_path / "ws"], settings, index_dir=tmp_path / "index", embedder=None) as engine:
        report = engine.sync()
        key = f"claude-code:{SESSION}"
        kinds = [m["kind"] for m in engine.history(key, limit=50)["messages"]]
        assert kinds.count("summary") == 2 and kinds.count("tool") == 1  # the summaries were read as summaries
        messages = kinds.count("message")
        assert report.messages_added == messages == sum(engine.stats()["messages"].values())
        assert [s["messageCount"] for s in engine.sessions(limit=10)["sessions"]] == [messages]
        summary = engine.search("analysis template stalls", limit=5)["results"]
        counted = {r["messageId"]: r.get("messageCount") for r in summary}
        assert counted, summary
        # a hit's count is of its chunk's messages: a summary's chunk holds none
        summaries = [n for m, n in counted.items() if m is not None and (m.startswith("summary:") or m == "u4")]
        assert summaries and all(n == 0 for n in summaries), counted
        grep = engine.summaries_grep("analysis template")["results"]
        assert grep, "no summary found"
        covers = engine.summaries_describe(grep[0]["summaryId"])["covers"]
        expanded = engine.summaries_expand(grep[0]["summaryId"])
        # what the summary replaced, as its expansion lists it: the two messages and the tool output between them
        assert covers["messageCount"] == expanded["totalMessages"] == len(expanded["messages"]) == 3


def test_the_index_line_and_stats_count_the_sessions_messages(tmp_path: Path) -> None:
    folder = tmp_path / "claude"
    folder.mkdir()
    _transcript(folder)
    where = ["--transcripts", str(folder), "--index-dir", str(tmp_path / "index"), "--no-embeddings", "--scope", "all"]

    def memlens(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "memlens", *args], capture_output=True, text=True, timeout=300)

    indexed = memlens("index", *where)
    assert indexed.returncode == 0, indexed.stderr
    added = re.search(r"\+(\d+) messages?", indexed.stdout + indexed.stderr)
    assert added, indexed.stdout + indexed.stderr
    stats = json.loads(memlens("stats", "--json", *where).stdout)
    sessions = json.loads(memlens("sessions", "--json", "--no-sync", *where).stdout)["sessions"]
    assert int(added.group(1)) == sum(stats["messages"].values()) == sessions[0]["messageCount"] == 4
