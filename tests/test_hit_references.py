"""A search hit's short reference (`SESSION:MESSAGE`, the first word of each hit in the terminal) opens that hit's
own session in `history`: a subagent's hit names its parent's session id, and two sessions may share the id's
first eight characters; the message part tells them apart."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memlens.cli.hits import reference
from memlens.engine.engine import Engine
from memlens.settings import Settings

MAIN = "5e551011-aaaa-4bbb-8ccc-000000000001"
TWIN = "5e551011-ffff-4bbb-8ccc-000000000002"  # the same first eight characters as MAIN


def _line(session: str, uuid: str, parent: str | None, role: str, text: str, minute: int, **extra: object) -> str:
    return json.dumps(
        {
            "parentUuid": parent,
            "type": role,
            "sessionId": session,
            "cwd": "/home/dev/kiln",
            "uuid": uuid,
            "timestamp": f"2026-03-02T09:{minute:02d}:00.000Z",
            "message": {"role": role, "content": text},
            **extra,
        }
    )


def _write_session(path: Path, *lines: str) -> None:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def _transcripts(folder: Path) -> Path:
    claude = folder / "claude-code"
    (claude / MAIN / "subagents").mkdir(parents=True)
    _write_session(
        claude / f"{MAIN}.jsonl",
        _line(MAIN, "m-0001", None, "user", "Why does the kiln controller overshoot?", 1),
        _line(MAIN, "m-0002", "m-0001", "assistant", "I asked a subagent to read the kiln PID loop.", 2),
    )
    _write_session(
        claude / MAIN / "subagents" / "agent-b7e1.jsonl",
        _line(MAIN, "s-0001", None, "user", "Read the thermocouple smoothing code.", 3, isSidechain=True),
        _line(MAIN, "s-0002", "s-0001", "assistant", "The thermocouple filter lags by four seconds.", 4),
    )
    _write_session(
        claude / f"{TWIN}.jsonl",
        _line(TWIN, "t-0001", None, "user", "Does the thermocouple need recalibration?", 5),
        _line(TWIN, "t-0002", "t-0001", "assistant", "Yes: the thermocouple reads six degrees low.", 6),
    )
    return folder


def test_every_hits_reference_opens_its_own_session(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    settings = Settings()
    settings.transcripts.agent_defaults = False
    folder = _transcripts(tmp_path / "transcripts")
    with Engine([tmp_path / "ws"], settings, extra_transcripts=[folder], index_dir=tmp_path / "i", embedder=False) as e:
        e.sync()
        hits = e.search("thermocouple", mode="keyword", min_score=0)["results"]
        assert {h["sessionKey"] for h in hits} == {f"claude-code:{MAIN}/agent-b7e1", f"claude-code:{TWIN}"}
        for hit in hits:
            assert reference(hit) == hit["reference"]  # the engine's, which the terminal shows
            session, message = hit["reference"].split(":")
            assert str(hit["sessionId"]).startswith(session) and str(hit["messageId"]).startswith(message)
            assert session == {MAIN: "5e551011-a", TWIN: "5e551011-f"}[str(hit["sessionId"])]  # as git grows a hash
            opened = e.history(hit["reference"])
            assert (opened["sessionKey"], opened["anchor"]) == (hit["sessionKey"], hit["messageId"])
        # without a message, the short prefix still names the main session or says it is ambiguous, as before
        assert e.history(MAIN)["sessionKey"] == f"claude-code:{MAIN}"


def _rollout(folder: Path, session: str, started: str, question: str) -> None:
    """A Codex CLI rollout: its id is a UUIDv7 (time first), its messages' ids are line numbers (`L2`, …)."""
    lines = [
        {"timestamp": started, "type": "session_meta", "payload": {"id": session, "timestamp": started, "cwd": "/k"}},
        {
            "timestamp": started,
            "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": question}]},
        },
    ]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"rollout-{started[:19].replace(':', '-')}-{session}.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8"
    )


def _same_minute(tmp_path: Path) -> Path:
    """Two Codex sessions started 25 s apart: UUIDv7 ids with the same first eight characters, the same message
    ids."""
    folder = tmp_path / "codex" / "2026" / "05" / "11"
    _rollout(folder, "019e1625-789d-76c0-80ab-3724b5ddb799", "2026-05-11T08:26:55.000Z", "why is the kiln so hot")
    _rollout(folder, "019e1625-9a01-7d11-8e2f-0a1b2c3d4e5f", "2026-05-11T08:27:20.000Z", "is the kiln hot again")
    return tmp_path / "codex"


def test_two_codex_sessions_started_in_the_same_minute_have_different_references(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    _same_minute(tmp_path)
    settings = Settings()
    settings.transcripts.agent_defaults = False
    with Engine(
        [tmp_path / "ws"], settings, extra_transcripts=[tmp_path / "codex"], index_dir=tmp_path / "i", embedder=False
    ) as engine:
        engine.sync()
        hits = engine.search("kiln hot", mode="keyword", min_score=0)["results"]
        assert len({h["sessionKey"] for h in hits}) == 2 and len({h["messageId"] for h in hits}) == 1
        for hit in hits:
            assert hit["reference"].startswith(str(hit["sessionId"])[:13] + ":")  # the whole timestamp
            opened = engine.history(hit["reference"])
            assert (opened["sessionKey"], opened["anchor"]) == (hit["sessionKey"], hit["messageId"])


@pytest.mark.slow  # a CLI process
def test_the_session_list_tells_apart_sessions_that_share_eight_characters(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    where = ["--workspace", tmp_path / "ws", "--transcripts", _same_minute(tmp_path), "--index-dir", tmp_path / "i"]
    listed = subprocess.run(
        [sys.executable, "-m", "memlens", "sessions", *map(str, where), "--no-embeddings"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, "HOME": str(tmp_path)},
    ).stdout
    shown = [line.split()[4] for line in listed.splitlines() if line.startswith("2026-")]
    assert sorted(shown) == ["019e1625-7", "019e1625-9"]  # as long as tells them apart, as git abbreviates
