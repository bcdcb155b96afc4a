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


def _ending_in_a_cut_token(tmp_path: Path, first_half: str) -> Path:
    """A Claude Code transcript of three messages, the last ending in the first half of a token."""
    folder = tmp_path / "claude"
    folder.mkdir()
    transcript = folder / f"{SESSION}.jsonl"
    transcript.write_text(
        line("user", "set up the registry", 1) + line("assistant", "ok", 2) + line("user", first_half, 3)
    )
    return transcript


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memlens", *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("redact_index", [True, False])
def test_a_token_finished_in_an_appended_message_is_masked_in_both(tmp_path: Path, redact_index: bool) -> None:
    split = SPLIT[1]
    transcript = _ending_in_a_cut_token(tmp_path, split.first)
    folder = transcript.parent
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


def test_a_token_finished_in_a_message_appended_to_a_copy_is_masked_as_a_rebuild_masks_it(tmp_path: Path) -> None:
    """The message before an appended tail is the file's, whichever file of the session keeps it: appended to a
    hand copy whose messages the live transcript keeps (catalog/copies.py), the tail that finishes a token cut in
    the copy's last message is masked as a rebuild masks it."""
    from memlens.engine.engine import Engine
    from memlens.settings import Settings

    split = SPLIT[1]
    transcript = _ending_in_a_cut_token(tmp_path, split.first)
    folder = transcript.parent
    copy = folder / f"{SESSION}.jsonl.bak"
    copy.write_bytes(transcript.read_bytes())
    settings = Settings()
    settings.transcripts.agent_defaults = False
    settings.scope = "all"

    def stored(engine: Engine, path: Path) -> list[str]:
        """The texts the index holds of one file (the live one never saw the token's second half: its first half
        alone is no token there, as a rebuild leaves it)."""
        sql = "SELECT u.text FROM plain_units u JOIN files f ON f.id = u.file_id WHERE f.path = ? ORDER BY u.seq"
        return [str(r[0]) for r in engine.catalog.db.execute(sql, (str(path),))]

    with Engine([], settings, [folder], tmp_path / "index", embedder=False) as engine:
        engine.sync()
        with copy.open("a") as out:
            out.write(line("assistant", split.second, 4))
        engine.sync_paths([copy])
        texts, live = stored(engine, copy), stored(engine, transcript)
        assert any("rest of it" in text for text in texts), texts  # the appended message was indexed
        assert leaked_fragments("\n".join(texts), length=8, planted=split.halves()) == [], texts
        engine.reindex(full=True)
        assert (stored(engine, copy), stored(engine, transcript)) == (texts, live)  # incremental equals rebuild
