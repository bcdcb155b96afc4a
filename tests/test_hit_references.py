"""A search hit's short reference (`SESSION:MESSAGE`, the first word of each hit in the terminal) opens that hit's
own session in `history`: a subagent's hit names its parent's session id, and two sessions may share the id's
first eight characters; the message part tells them apart."""

from __future__ import annotations

import json
from pathlib import Path

from memlens.cli.hits import reference, split_reference
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


def _transcripts(folder: Path) -> Path:
    claude = folder / "claude-code"
    (claude / MAIN / "subagents").mkdir(parents=True)
    (claude / f"{MAIN}.jsonl").write_text(
        _line(MAIN, "m-0001", None, "user", "Why does the kiln controller overshoot?", 1)
        + "\n"
        + _line(MAIN, "m-0002", "m-0001", "assistant", "I asked a subagent to read the kiln PID loop.", 2)
        + "\n",
        encoding="utf-8",
    )
    (claude / MAIN / "subagents" / "agent-b7e1.jsonl").write_text(
        _line(MAIN, "s-0001", None, "user", "Read the thermocouple smoothing code.", 3, isSidechain=True)
        + "\n"
        + _line(MAIN, "s-0002", "s-0001", "assistant", "The thermocouple filter lags by four seconds.", 4)
        + "\n",
        encoding="utf-8",
    )
    (claude / f"{TWIN}.jsonl").write_text(
        _line(TWIN, "t-0001", None, "user", "Does the thermocouple need recalibration?", 5)
        + "\n"
        + _line(TWIN, "t-0002", "t-0001", "assistant", "Yes: the thermocouple reads six degrees low.", 6)
        + "\n",
        encoding="utf-8",
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
            session, message = split_reference(reference(hit))
            assert session == str(hit.get("sessionId"))[:8]  # the short form the terminal shows, shared by all three
            opened = e.history(session, message_id=message)
            assert (opened["sessionKey"], opened["anchor"]) == (hit["sessionKey"], hit["messageId"])
        # without a message, the short prefix still names the main session or says it is ambiguous, as before
        assert e.history(MAIN)["sessionKey"] == f"claude-code:{MAIN}"
