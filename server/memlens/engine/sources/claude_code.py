"""Parses Claude Code session JSONL (~/.claude/projects/*/<session>.jsonl and its subagents/ transcripts).

Indexed: user text, assistant text plus tool-call inputs (one record per API message: consecutive lines
sharing `message.id` are merged), compaction summaries (`isCompactSummary` users, `{"type":"summary"}` lines),
and prompts the user queued mid-turn (`queue-operation` enqueue then remove: they never get a user line of
their own), and tool results (`tool_result` blocks of user lines, as kind "tool" records trimmed and marked by
tool_output.py, named after their `tool_use`). Skipped: thinking, images, isMeta users, command echoes and harness
injections (see common.clean_user_text), and bookkeeping lines (progress, system, file-history-snapshot, ...).
Skipped lines still carry parent links, which are resolved through so every record points at a record.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from .base import ParseResult, TranscriptRecord
from .common import (
    DEFAULT_TOOL_INPUT_MAX_CHARS,
    LineGuard,
    ParentLinks,
    clean_user_text,
    finish,
    head_objects,
    iter_json_objects,
    line_ref,
    parse_timestamp,
    pending_call_line,
    render_tool_call,
    tool_call_summary,
)
from .tool_output import blocks_text, tool_record

logger = logging.getLogger(__name__)

_LINE_TYPES = frozenset(
    {"user", "assistant", "summary", "progress", "system", "file-history-snapshot", "queue-operation"}
)


@dataclass
class _Group:
    """Consecutive assistant lines of one API message, merged into one record."""

    message_key: str
    first_uuid: str
    parent: str | None
    timestamp: float | None
    position: int
    sidechain: bool
    uuids: list[str] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)


def _text_blocks(content: object) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    ]


def _raw_parent(obj: dict[str, Any]) -> str | None:
    parent = obj.get("parentUuid") or obj.get("logicalParentUuid")  # compact_boundary: null parent, logical link
    return parent if isinstance(parent, str) else None


class _State:
    """Per-parse state: the records so far, the open assistant group and the parent links."""

    def __init__(self, result: ParseResult, max_chars: int, force_sidechain: bool) -> None:
        self.result = result
        self.max_chars = max_chars
        self.force_sidechain = force_sidechain
        self.links = ParentLinks()
        self.group: _Group | None = None
        self.queued: tuple[int, str, str, float | None] | None = None  # line, id, text, time
        self.tool_names: dict[str, str] = {}  # tool_use id → tool name, to name its result
        self.tool_calls: dict[str, str] = {}  # tool_use id → what it called (tool_call_summary), for its result
        self.pending: dict[str, int] = {}  # tool_use id with no result yet → its message's first line
        self.line_index = 0  # which record of its line the one being read is (`common.line_ref`)

    def add(self, record: TranscriptRecord, line_uuid: str | None) -> None:
        self.flush()
        self.links.own(line_uuid, record)
        self.result.records.append(record)

    def flush(self) -> None:
        group, self.group = self.group, None
        if group is None:
            return
        text = "\n\n".join(p for p in group.parts if p).strip()
        if not text:
            return  # thinking-only or empty message: its lines stay transparent links
        record = TranscriptRecord(
            message_id=group.first_uuid,
            role="assistant",
            text=text,
            timestamp=group.timestamp,
            position=group.position,
            uuid=group.uuids[-1],
            parent_uuid=group.parent,
            is_sidechain=group.sidechain,
        )
        for uuid in group.uuids:
            self.links.own(uuid, record)
        self.result.records.append(record)

    def sidechain(self, obj: dict[str, Any]) -> bool:
        return self.force_sidechain or obj.get("isSidechain") is True


class ClaudeCodeParser:
    """Claude Code JSONL transcripts."""

    format: ClassVar[str] = "claude-code"

    def __init__(self, tool_input_max_chars: int = DEFAULT_TOOL_INPUT_MAX_CHARS) -> None:
        self.tool_input_max_chars = tool_input_max_chars

    def sniff(self, head: list[str], path: Path) -> bool:
        for obj in head_objects(head):
            kind = obj.get("type")
            if not isinstance(kind, str) or kind not in _LINE_TYPES:
                continue
            if "sessionId" in obj or (kind == "summary" and "leafUuid" in obj):
                return True
            if kind == "file-history-snapshot" and "snapshot" in obj:
                return True
        return False

    def parse(self, data: bytes, path: Path, start_line: int = 1, *, final: bool = False) -> ParseResult:
        is_subagent = path.parent.name == "subagents" and path.stem.startswith("agent-")
        result = ParseResult(format=self.format, session_id="")
        state = _State(result, self.tool_input_max_chars, is_subagent)
        for line_no, index, obj in iter_json_objects(data, start_line, result, final=final):
            state.line_index = index
            with LineGuard(result, line_no):
                if not result.session_id and isinstance(obj.get("sessionId"), str):
                    result.session_id = obj["sessionId"]
                if result.cwd is None and isinstance(obj.get("cwd"), str):
                    result.cwd = obj["cwd"]
                state.links.line(obj.get("uuid"), _raw_parent(obj), line_no)
                self._line(state, line_no, obj)
        # what a later append may continue: the open assistant message (even one with no text yet) and a queued
        # prompt not yet handed over
        open_lines = [state.group.position] if state.group is not None else []
        if state.queued is not None:
            open_lines.append(state.queued[0])
        end_line = start_line + data.count(b"\n", 0, result.consumed_bytes)
        if (pending := pending_call_line(state.pending, end_line)) is not None:
            open_lines.append(pending)  # its result, when it comes, is read with it
        state.flush()
        state.links.resolve_all(result.records)
        result.records.sort(key=lambda r: r.position)
        result.resume_line = min(open_lines) if open_lines else None
        result.anchor_ids = state.links.anchor_ids(result.records, result.resume_line or end_line)
        line_session = result.session_id
        result.session_id = line_session or path.stem
        result.session_from_path = not line_session
        if is_subagent:
            result.agent_id = path.stem.removeprefix("agent-")
            result.parent_session_id = line_session or path.parent.parent.name
        return finish(result)

    def _line(self, state: _State, line_no: int, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        if kind == "assistant":
            self._assistant(state, line_no, obj)
        elif kind == "user":
            self._user(state, line_no, obj)
        elif kind == "summary":
            self._summary_line(state, line_no, obj)
        elif kind == "queue-operation":
            self._queue(state, line_no, obj)

    def _assistant(self, state: _State, line_no: int, obj: dict[str, Any]) -> None:
        message = obj.get("message")
        uuid = obj.get("uuid")
        if not isinstance(message, dict) or not isinstance(uuid, str):
            return
        message_key = message.get("id")
        key = message_key if isinstance(message_key, str) else uuid
        if state.group is None or state.group.message_key != key:
            state.flush()
            state.group = _Group(
                key,
                uuid,
                _raw_parent(obj),
                parse_timestamp(obj.get("timestamp")),
                line_no,
                state.sidechain(obj),
            )
        state.group.uuids.append(uuid)
        self._remember_tools(state, message.get("content"), state.group.position)
        state.group.parts.extend(self._assistant_parts(message.get("content")))

    def _assistant_parts(self, content: object) -> list[str]:
        if isinstance(content, str):
            return [content.strip()]
        parts: list[str] = []
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"].strip())
            elif block.get("type") in ("tool_use", "server_tool_use"):
                parts.append(
                    render_tool_call(str(block.get("name", "")), block.get("input"), self.tool_input_max_chars)
                )
        return parts

    @staticmethod
    def _remember_tools(state: _State, content: object, line_no: int) -> None:
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and isinstance(block.get("id"), str) and isinstance(block.get("name"), str):
                state.tool_names[block["id"]] = block["name"]
                state.pending[block["id"]] = line_no
                summary = tool_call_summary(block["name"], block.get("input"))
                if summary is not None:
                    state.tool_calls[block["id"]] = summary

    def _tool_results(self, state: _State, line_no: int, obj: dict[str, Any], content: object) -> None:
        """One record for the tool_result blocks of a user line (parallel calls each get a line of their own)."""
        results = (
            [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
            if isinstance(content, list)
            else []
        )
        if not results:
            return
        uuid = obj.get("uuid")
        for block in results:
            state.pending.pop(str(block.get("tool_use_id")), None)
        records = [
            tool_record(
                output=blocks_text(block.get("content")),
                tool_name=state.tool_names.get(str(block.get("tool_use_id"))),
                call_id=block.get("tool_use_id") if isinstance(block.get("tool_use_id"), str) else None,
                message_id=f"{uuid}" if index == 0 else f"{uuid}:{index}",
                timestamp=parse_timestamp(obj.get("timestamp")),
                position=line_no,
                is_error=block.get("is_error") is True,
                call=state.tool_calls.get(str(block.get("tool_use_id"))),
            )
            for index, block in enumerate(results)
        ]
        kept = [r for r in records if r is not None]
        if not kept:
            return
        record = kept[0]
        if len(kept) > 1:
            record.text = "\n\n".join(r.text for r in kept)
            record.error = any(r.error for r in kept)
        record.uuid = uuid if isinstance(uuid, str) else None
        record.parent_uuid = _raw_parent(obj)
        record.is_sidechain = state.sidechain(obj)
        # no flush: a result may sit between lines of one streamed assistant message (records are sorted at the end)
        state.links.own(record.uuid, record)
        state.result.records.append(record)

    def _user(self, state: _State, line_no: int, obj: dict[str, Any]) -> None:
        message = obj.get("message")
        uuid = obj.get("uuid")
        if obj.get("isMeta") or not isinstance(message, dict) or not isinstance(uuid, str):
            return
        texts = _text_blocks(message.get("content"))
        if not texts:
            self._tool_results(state, line_no, obj, message.get("content"))
            return
        summary = obj.get("isCompactSummary") is True
        text = "\n\n".join(t.strip() if summary else clean_user_text(t) for t in texts).strip()
        if not text:
            return  # tool results only, command echoes, interruptions: the line stays a transparent link
        record = TranscriptRecord(
            message_id=uuid,
            role="assistant" if summary else "user",
            text=text,
            timestamp=parse_timestamp(obj.get("timestamp")),
            position=line_no,
            kind="summary" if summary else "message",
            uuid=uuid,
            parent_uuid=_raw_parent(obj),
            is_sidechain=state.sidechain(obj),
        )
        state.add(record, uuid)

    def _summary_line(self, state: _State, line_no: int, obj: dict[str, Any]) -> None:
        text = obj.get("summary")
        if not isinstance(text, str) or not text.strip():
            return
        leaf = obj.get("leafUuid")
        message_id = f"summary:{leaf}" if isinstance(leaf, str) else f"L{line_ref(line_no, state.line_index)}"
        record = TranscriptRecord(message_id, "assistant", text.strip(), None, line_no, kind="summary")
        state.add(record, None)

    def _queue(self, state: _State, line_no: int, obj: dict[str, Any]) -> None:
        """A prompt queued mid-turn, then removed from the queue, was handed to the model inside the turn."""
        operation = obj.get("operation")
        content = obj.get("content")
        if operation == "enqueue" and isinstance(content, str):
            text = clean_user_text(content)
            ref = f"Q{line_ref(line_no, state.line_index)}"
            state.queued = (
                (line_no, ref, text, parse_timestamp(obj.get("timestamp"))) if text[:1] not in ("", "/") else None
            )
        elif operation == "remove" and state.queued is not None:
            queued_line, queued_id, text, timestamp = state.queued
            state.queued = None
            record = TranscriptRecord(queued_id, "user", text, timestamp, queued_line)
            record.is_sidechain = state.force_sidechain
            state.result.records.append(record)  # no flush: it may sit between lines of one assistant message
