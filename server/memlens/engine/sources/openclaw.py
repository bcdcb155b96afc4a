"""Parses OpenClaw session JSONL v3 (~/.openclaw/agents/<agent>/sessions/*.jsonl): entries linked by parentId.

Indexed: `message` entries of role user (text blocks) and assistant (text blocks plus toolCall inputs), and
`compaction` / `branch_summary` entries as summaries, and toolResult messages as kind "tool" records trimmed and
marked by tool_output.py (`isError`, or a `details.status` of "error"). Skipped: thinking and image blocks,
the startup prompt OpenClaw injects as a user message after /new or /reset, and bookkeeping entries
(thinking_level_change, model_change, custom such as model-snapshot, label, ...). Skipped entries keep their
parent links, resolved through so each record's parent_uuid names a record (active-branch selection needs it).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, ClassVar

from .base import ParseResult, Role, TranscriptRecord
from .common import (
    DEFAULT_TOOL_INPUT_MAX_CHARS,
    LineGuard,
    ParentLinks,
    finish,
    head_objects,
    iter_json_objects,
    parse_timestamp,
    pending_call_line,
    render_tool_call,
    tool_call_summary,
)
from .tool_output import blocks_text, tool_record

logger = logging.getLogger(__name__)

_INJECTED_USER_PREFIXES = ("A new session was started via /new or /reset.",)
_SUMMARY_TYPES = frozenset({"compaction", "branch_summary"})


def _is_entry(obj: dict[str, Any]) -> bool:
    message = obj.get("message")
    return (
        obj.get("type") == "message"
        and "id" in obj
        and "parentId" in obj
        and isinstance(message, dict)
        and "role" in message
    )


class _Calls:
    """What each toolCall of the assistant messages called (tool_call_summary), by its id, for its result's header;
    and the calls whose result has not come yet, with their line."""

    def __init__(self) -> None:
        self.summaries: dict[str, str] = {}
        self.pending: dict[str, int] = {}

    def remember(self, obj: dict[str, Any], line_no: int) -> None:
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) and message.get("role") == "assistant" else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "toolCall" and isinstance(block.get("id"), str):
                self.pending[block["id"]] = line_no
                summary = tool_call_summary(str(block.get("name", "")), block.get("arguments"))
                if summary is not None:
                    self.summaries[block["id"]] = summary

    def answered(self, call_id: str) -> str | None:
        """The summary of the call a result answers (None if unknown); the call awaits nothing more."""
        self.pending.pop(call_id, None)
        return self.summaries.get(call_id)


class OpenClawParser:
    """OpenClaw session JSONL, version 3."""

    format: ClassVar[str] = "openclaw"

    def __init__(self, tool_input_max_chars: int = DEFAULT_TOOL_INPUT_MAX_CHARS) -> None:
        self.tool_input_max_chars = tool_input_max_chars

    def sniff(self, head: list[str], path: Path) -> bool:
        for obj in head_objects(head):
            if obj.get("type") == "session" and isinstance(obj.get("version"), int) and "id" in obj:
                return True
            if _is_entry(obj):
                return True
        return False

    def parse(self, data: bytes, path: Path, start_line: int = 1, *, final: bool = False) -> ParseResult:
        result = ParseResult(format=self.format, session_id="")
        links = ParentLinks()
        calls = _Calls()
        for line_no, _, obj in iter_json_objects(data, start_line, result, final=final):
            with LineGuard(result, line_no):
                self._line(result, links, calls, line_no, obj)
        links.resolve_all(result.records)
        end_line = start_line + data.count(b"\n", 0, result.consumed_bytes)
        # nothing stays open but a call awaiting its result: resume at it, or at the end
        result.resume_line = pending_call_line(calls.pending, end_line)
        result.anchor_ids = links.anchor_ids(result.records, result.resume_line or end_line)
        result.session_from_path = not result.session_id
        result.session_id = result.session_id or path.stem
        return finish(result)

    def _line(self, result: ParseResult, links: ParentLinks, calls: _Calls, line_no: int, obj: dict[str, Any]) -> None:
        if obj.get("type") == "session":
            session_id = obj.get("id")
            if not result.session_id and isinstance(session_id, str | int) and not isinstance(session_id, bool):
                result.session_id = str(session_id)
            result.cwd = obj.get("cwd") if isinstance(obj.get("cwd"), str) else result.cwd
            return
        links.line(obj.get("id"), obj.get("parentId"), line_no)
        calls.remember(obj, line_no)
        record = self._record(line_no, obj, calls)
        if record is not None:
            links.own(record.uuid, record)
            result.records.append(record)

    def _record(self, line_no: int, obj: dict[str, Any], calls: _Calls) -> TranscriptRecord | None:
        entry_id = obj.get("id")
        if not isinstance(entry_id, str):
            return None
        parent = obj.get("parentId") if isinstance(obj.get("parentId"), str) else None
        kind = obj.get("type")
        if isinstance(kind, str) and kind in _SUMMARY_TYPES:
            summary = obj.get("summary")
            if not isinstance(summary, str) or not summary.strip():
                return None
            return TranscriptRecord(
                entry_id,
                "assistant",
                summary.strip(),
                self._timestamp(obj),
                line_no,
                "summary",
                entry_id,
                parent,
            )
        message = obj.get("message")
        if kind == "message" and isinstance(message, dict) and message.get("role") == "toolResult":
            return self._tool_result(line_no, obj, message, entry_id, parent, calls)
        if kind != "message" or not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            return None
        role: Role = "user" if message["role"] == "user" else "assistant"
        text = self._text(message.get("content"), role)
        if not text:
            return None
        return TranscriptRecord(entry_id, role, text, self._timestamp(obj), line_no, "message", entry_id, parent)

    def _tool_result(
        self,
        line_no: int,
        obj: dict[str, Any],
        message: dict[str, Any],
        entry_id: str,
        parent: str | None,
        calls: _Calls,
    ) -> TranscriptRecord | None:
        details = message.get("details")
        failed = message.get("isError") is True or (isinstance(details, dict) and details.get("status") == "error")
        name, call_id = message.get("toolName"), message.get("toolCallId")
        return tool_record(
            output=blocks_text(message.get("content")),
            tool_name=name if isinstance(name, str) else None,
            call_id=call_id if isinstance(call_id, str) else None,
            message_id=entry_id,
            timestamp=self._timestamp(obj),
            position=line_no,
            is_error=failed,
            uuid=entry_id,
            parent_uuid=parent,
            call=calls.answered(call_id) if isinstance(call_id, str) else None,
        )

    def _text(self, content: object, role: str) -> str:
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        parts: list[str] = []
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"].strip())
            elif block.get("type") == "toolCall" and role == "assistant":
                parts.append(
                    render_tool_call(str(block.get("name", "")), block.get("arguments"), self.tool_input_max_chars)
                )
        text = "\n\n".join(p for p in parts if p)
        if role == "user" and text.startswith(_INJECTED_USER_PREFIXES):
            return ""
        return text

    @staticmethod
    def _timestamp(obj: dict[str, Any]) -> float | None:
        stamp = parse_timestamp(obj.get("timestamp"))
        message = obj.get("message")
        if stamp is None and isinstance(message, dict):
            stamp = parse_timestamp(message.get("timestamp"))
        return stamp
