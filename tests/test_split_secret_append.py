"""A token cut between two messages, the second appended later: the incremental sync masks both parts, as a rebuild
does (the appended tail alone cannot mask the part already stored, so the whole file is read again)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from planted_secrets import SPLIT, leaked_fragments

SESSION = "7e1d2c3b-4a5f-4e6d-8c7b-9a0b1c2d3e99"


def line(role: str, text: str, n: int) -> str:
    message: dict[str, object] = {"role": role, "content": text}
    if role == "assistant":
        message = {"id": f"msg_{n}", "role": role, "content": [{"type": "text", "text": text}]}
    parent = f"u{n - 1}" if n > 1 else None
    record = {"type": role, "sessionId": SESSION, "uuid": f"u{n}", "parentUuid": parent, "cwd": "/w"}
    return json.dumps({**record, "timestamp": f"2026-03-01T10:00:0{n}Z", "message": message}) + "\n"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memlens", *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("redact_index", [True, False])
def test_a_token_finished_in_an_appended_message_is_masked_in_both(tmp_path: Path, redact_index: bool) -> None:
    split = SPLIT[1]
    folder = tmp_path / "claude"
    folder.mkdir()
    transcript = folder / f"{SESSION}.jsonl"
    transcript.write_text(
        line("user", "set up the registry", 1) + line("assistant", "ok", 2) + line("user", split.first, 3)
    )
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"privacy": {"redactIndex": redact_index}}))
    where = ["--transcripts", str(folder), "--index-dir", str(tmp_path / "index"), "--no-embeddings"]
    where += ["--scope", "all", "--settings", str(settings)]
    assert cli("index", *where).returncode == 0
    with transcript.open("a") as out:
        out.write(line("assistant", split.second, 4))
    assert cli("index", *where).returncode == 0  # the appended line, incrementally
    shown = ""
    for query in ("paste long parts", "rest"):  # each message alone, as a search hit
        found = cli("search", query, "--json", "--mode", "keyword", "--no-sync", *where)
        assert found.returncode == 0, found.stderr
        shown += found.stdout
    assert "paste it in two parts" in shown  # the stored half was found
    assert leaked_fragments(shown, length=8, planted=split.halves()) == [], shown
    history = cli("history", f"claude-code:{SESSION}", "--json", "--limit", "50", *where)
    texts = [m["text"] for m in json.loads(history.stdout)["messages"]]
    assert any("rest of it" in text for text in texts), texts  # the appended message was indexed
    assert cli("reindex", "--full", *where).returncode == 0
    rebuilt = cli("history", f"claude-code:{SESSION}", "--json", "--limit", "50", *where)
    assert [m["text"] for m in json.loads(rebuilt.stdout)["messages"]] == texts  # incremental equals rebuild
