"""The LoCoMo dataset as memlens benchmarks read it: conversations of dated sessions of turns, questions with the
turns that hold their evidence (malformed evidence ids repaired or counted), and each conversation written as OpenClaw
transcripts, one session a file, for an index to read."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

TURN_SPACING = timedelta(seconds=10)
_EVIDENCE = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")
_WELL_FORMED = re.compile(r"D\d+:[1-9]\d*")
_SESSION = re.compile(r"session_(\d+)")


@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str


@dataclass
class Session:
    number: int
    start: datetime
    turns: list[Turn]


@dataclass
class Question:
    text: str
    category: int
    evidence: list[str]


@dataclass
class EvidenceCounts:
    """How the evidence ids parsed: as written, repaired (malformed but readable), skipped, or naming no turn."""

    clean: int = 0
    repaired: int = 0
    skipped: int = 0
    unknown: int = 0
    examples: list[str] = field(default_factory=list)

    def add(self, other: EvidenceCounts) -> None:
        self.clean += other.clean
        self.repaired += other.repaired
        self.skipped += other.skipped
        self.unknown += other.unknown
        self.examples += [e for e in other.examples if e not in self.examples][:10]


@dataclass
class Conversation:
    name: str
    speaker_a: str
    speaker_b: str
    sessions: list[Session]
    questions: list[Question]
    evidence: EvidenceCounts


def parse_session_date(text: str) -> datetime:
    """LoCoMo's "1:56 pm on 8 May, 2023" as a UTC datetime."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def parse_evidence(raw: Iterable[object], counts: EvidenceCounts) -> list[str]:
    """Normalised dia_ids (`D8:6; D9:17` → two ids, `D:11:26` → D11:26, `D30:05` → D30:5); unreadable ones counted."""
    ids: list[str] = []
    for item in raw:
        text = str(item).strip()
        found = [f"D{int(a)}:{int(b)}" for a, b in _EVIDENCE.findall(text)]
        if not found:
            counts.skipped += 1
            counts.examples.append(text)
        elif len(found) == 1 and _WELL_FORMED.fullmatch(text):
            counts.clean += 1
        else:
            counts.repaired += 1
            counts.examples.append(text)
        ids += [i for i in found if i not in ids]
    return ids


def load_conversation(path: Path, max_sessions: int | None = None, max_questions: int | None = None) -> Conversation:
    data = json.loads(path.read_text(encoding="utf-8"))
    if "conversation" in data and isinstance(data["conversation"], dict):  # the locomo10.json layout
        data = {**data["conversation"], "qa": data.get("qa", [])}
    sessions: list[Session] = []
    for key, turns in data.items():
        match = _SESSION.fullmatch(key)
        if not match or not isinstance(turns, list) or not turns:
            continue
        number = int(match.group(1))
        start = parse_session_date(data[f"session_{number}_date_time"])
        sessions.append(Session(number, start, [_turn(t) for t in turns]))
    sessions.sort(key=lambda s: s.number)
    if max_sessions is not None:
        sessions = sessions[:max_sessions]
    known = {t.dia_id for s in sessions for t in s.turns}
    counts = EvidenceCounts()
    questions: list[Question] = []
    for qa in data.get("qa", []):
        evidence = parse_evidence(qa.get("evidence") or [], counts)
        present = [e for e in evidence if e in known]
        if max_sessions is None:
            counts.unknown += len(evidence) - len(present)
            counts.examples += [e for e in evidence if e not in known]
        elif len(present) != len(evidence):
            continue  # truncated conversation: keep only questions answerable from the kept sessions
        questions.append(Question(str(qa["question"]), int(qa["category"]), present))
    if max_questions is not None:
        questions = questions[:max_questions]
    return Conversation(path.stem, str(data["speaker_a"]), str(data["speaker_b"]), sessions, questions, counts)


def _turn(raw: dict[str, Any]) -> Turn:
    text = str(raw.get("text") or "").strip()
    caption = raw.get("blip_caption")
    if isinstance(caption, str) and caption.strip():
        text = f"{text} [shares a photo of {caption.strip()}]".strip()
    return Turn(str(raw["dia_id"]), str(raw["speaker"]), text)


def _stamp(when: datetime) -> str:
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def write_transcripts(conversation: Conversation, folder: Path) -> list[Path]:
    """One OpenClaw JSONL v3 session per LoCoMo session; message id = dia_id, "Speaker: text" as the text."""
    folder.mkdir(parents=True, exist_ok=True)
    roles = {conversation.speaker_a: "user", conversation.speaker_b: "assistant"}
    paths: list[Path] = []
    for session in conversation.sessions:
        session_id = f"locomo-{conversation.name}-session-{session.number}"
        lines = [{"type": "session", "version": 3, "id": session_id, "timestamp": _stamp(session.start), "cwd": "/"}]
        parent: str | None = None
        for i, turn in enumerate(session.turns):
            when = _stamp(session.start + i * TURN_SPACING)
            content = [{"type": "text", "text": f"{turn.speaker}: {turn.text}"}]
            message = {"role": roles.get(turn.speaker, "assistant"), "content": content}
            lines.append(
                {"type": "message", "id": turn.dia_id, "parentId": parent, "timestamp": when, "message": message}
            )
            parent = turn.dia_id
        path = folder / f"{session_id}.jsonl"
        text = "".join(json.dumps(line) + "\n" for line in lines)
        if not path.exists() or path.read_text(encoding="utf-8") != text:  # unchanged: a cached index stays valid
            path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths
