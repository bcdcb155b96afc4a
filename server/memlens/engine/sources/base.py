"""The one small interface every transcript parser implements, and the records it produces."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Literal, Protocol

Role = Literal["user", "assistant"]
RecordKind = Literal["message", "summary", "tool"]


@dataclass(slots=True)
class TranscriptRecord:
    """One searchable unit of a transcript: a user or assistant message, a compaction summary, or a tool call's
    output (kind "tool", trimmed by tool_output.py; `call_id` names its call, `error` says it failed).

    `uuid`/`parent_uuid` carry the transcript's own branch links (Claude Code parentUuid, OpenClaw parentId);
    formats without branches leave them None and every record is on the active branch.
    """

    message_id: str
    role: Role
    text: str
    timestamp: float | None  # seconds since the epoch, UTC
    position: int  # 1-based line number in the source file where the record starts (a line's records share it)
    kind: RecordKind = "message"
    uuid: str | None = None
    parent_uuid: str | None = None
    is_sidechain: bool = False
    agent_id: str | None = None  # for a sidechain inside a parent's file (SpecStory): the subagent it belongs to
    error: bool = False  # a tool result that failed: is_error, a non-zero exit, a traceback
    call_id: str | None = None  # a tool result's call id, as its format names it
    part: int = 0  # 0: a whole message or its first part; 1, 2, ...: the parts after it (ingest.split_record)


@dataclass(slots=True)
class ParseResult:
    """What a parser read from one transcript file."""

    format: str
    session_id: str
    records: list[TranscriptRecord] = field(default_factory=list)
    cwd: str | None = None
    parent_session_id: str | None = None  # set for subagent transcripts (sidechains)
    agent_id: str | None = None  # subagent id, e.g. "a485154"
    title: str | None = None
    bad_lines: int = 0  # malformed lines skipped
    replaced: int = 0  # invalid bytes, NULs and lone surrogates in kept lines, each become U+FFFD
    errors: list[str] = field(default_factory=list)  # one short message per skipped line (bounded)
    consumed_bytes: int = 0  # bytes fully parsed; a trailing partial line is not consumed
    # Incremental parsing. Lines appended later may continue a record (a streamed assistant message, a Codex turn):
    # `resume_line` is the first line from which a fresh parse reproduces every record at or after it (None: the
    # end of the consumed data). `anchor_ids` are the ids a record parsed from there may name as its parent and
    # still extend the active branch linearly (the last record before `resume_line` and the skipped lines that
    # resolve to it); empty for formats without parent links.
    resume_line: int | None = None
    anchor_ids: list[str] = field(default_factory=list)
    session_from_path: bool = False  # no line named the session: its id is the file name's (an append may name it)


class TranscriptParser(Protocol):
    """A parser for one transcript format. Stateless: one instance serves every file."""

    format: ClassVar[str]

    def sniff(self, head: list[str], path: Path) -> bool:
        """True if the first non-empty lines of a file (decoded) look like this format."""
        ...

    def parse(self, data: bytes, path: Path, start_line: int = 1, *, final: bool = False) -> ParseResult:
        """Parse file content (the whole file, or the tail appended since the last parse, whose first line is
        `start_line`). Never raises, whatever the content: bad lines are counted and skipped with a reason. A
        trailing line without a newline is left unconsumed (it may still be being written), not counted as bad;
        with `final` (the data ends where a quiet file does) it is read and consumed like any other line."""
        ...
