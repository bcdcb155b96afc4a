"""Parses Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl).

Indexed: `response_item` messages of role user/assistant (user messages that are injected context such as
`<environment_context>` or `# AGENTS.md instructions` are dropped), tool-call inputs (function_call,
custom_tool_call, local_shell_call, web_search_call) attached to the preceding assistant message of the
same turn, and `compacted` summaries. The `event_msg` user_message/agent_message lines duplicate the
response items and are used only when the data holds no `response_item` line at all (older rollouts).
Skipped: developer/system messages, reasoning, tool outputs, turn_context, token_count and other events.
Codex has no message ids: message_id is "L<line>", and there are no branches (uuid/parent_uuid stay None).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any, ClassVar

from .base import ParseResult, Role, TranscriptRecord
from .common import (
    DEFAULT_TOOL_INPUT_MAX_CHARS,
    head_objects,
    iter_json_objects,
    parse_json_arguments,
    parse_timestamp,
    render_tool_call,
)

logger = logging.getLogger(__name__)

_LINE_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
_INJECTED_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<developer_instructions>",
    "# AGENTS.md instructions",
    "<INSTRUCTIONS>",
    "<permissions",
    "<collaboration_mode>",
    "<skills_instructions>",
    "<plugins_instructions>",
    "<turn_aborted>",
    "<user_shell_command>",
    "<subagent_notification>",
)
_TOOL_CALL_TYPES = frozenset({"function_call", "custom_tool_call", "local_shell_call", "web_search_call"})
_UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)
_EVENT_ROLES: dict[str, Role] = {"user_message": "user", "agent_message": "assistant"}


def _message_text(payload: dict[str, Any], role: str) -> str:
    texts: list[str] = []
    for block in payload.get("content") or []:
        if not isinstance(block, dict) or block.get("type") not in ("input_text", "output_text", "text"):
            continue
        text = block.get("text")
        if not isinstance(text, str) or (role == "user" and text.lstrip().startswith(_INJECTED_PREFIXES)):
            continue
        texts.append(text.strip())
    return "\n\n".join(t for t in texts if t)


def _tool_call(payload: dict[str, Any], max_chars: int) -> str:
    kind = payload.get("type")
    if kind == "function_call":
        return render_tool_call(str(payload.get("name", "")), parse_json_arguments(payload.get("arguments")), max_chars)
    if kind == "custom_tool_call":
        return render_tool_call(str(payload.get("name", "")), payload.get("input"), max_chars)
    raw_action = payload.get("action")
    action: dict[str, Any] = raw_action if isinstance(raw_action, dict) else {}
    if kind == "local_shell_call":
        return render_tool_call("shell", {"command": action.get("command")}, max_chars)
    return render_tool_call("web_search", action.get("query") or action.get("url"), max_chars)


class _State:
    """Per-parse state: records so far and the assistant record tool calls attach to."""

    def __init__(self, result: ParseResult, max_chars: int, use_events: bool) -> None:
        self.result = result
        self.max_chars = max_chars
        self.use_events = use_events
        self.attach_to: TranscriptRecord | None = None

    def add(self, role: Role, text: str, line_no: int, timestamp: float | None, kind: str = "message") -> None:
        record = TranscriptRecord(f"L{line_no}", role, text, timestamp, line_no)
        if kind == "summary":
            record.kind = "summary"
        self.result.records.append(record)
        self.attach_to = record if role == "assistant" and kind == "message" else None

    def tool_call(self, text: str, line_no: int, timestamp: float | None) -> None:
        if self.attach_to is None:
            self.add("assistant", text, line_no, timestamp)
        else:
            self.attach_to.text = f"{self.attach_to.text}\n{text}"


class CodexParser:
    """Codex CLI rollout JSONL."""

    format: ClassVar[str] = "codex"

    def __init__(self, tool_input_max_chars: int = DEFAULT_TOOL_INPUT_MAX_CHARS) -> None:
        self.tool_input_max_chars = tool_input_max_chars

    def sniff(self, head: list[str], path: Path) -> bool:
        return any(
            obj.get("type") in _LINE_TYPES and isinstance(obj.get("payload"), dict) for obj in head_objects(head)
        )

    def parse(self, data: bytes, path: Path, start_line: int = 1) -> ParseResult:
        result = ParseResult(format=self.format, session_id="")
        lines = list(iter_json_objects(data, start_line, result))
        use_events = not any(obj.get("type") == "response_item" for _, obj in lines)
        state = _State(result, self.tool_input_max_chars, use_events)
        for line_no, obj in lines:
            payload = obj.get("payload")
            if isinstance(payload, dict):
                self._line(state, line_no, str(obj.get("type")), payload, parse_timestamp(obj.get("timestamp")))
        if not result.session_id:
            match = _UUID_RE.search(path.stem)
            result.session_id = match.group(0) if match else path.stem
        return result

    def _line(self, state: _State, line_no: int, kind: str, payload: dict[str, Any], ts: float | None) -> None:
        item = payload.get("type")
        if kind == "session_meta":
            self._meta(state.result, payload)
        elif kind == "response_item" and item == "message":
            role = payload.get("role")
            if role in ("user", "assistant"):
                text = _message_text(payload, str(role))
                if text:
                    state.add("user" if role == "user" else "assistant", text, line_no, ts)
        elif kind == "response_item" and item in _TOOL_CALL_TYPES:
            state.tool_call(_tool_call(payload, state.max_chars), line_no, ts)
        elif kind == "compacted":
            message = payload.get("message")
            if isinstance(message, str) and message.strip():
                state.add("assistant", message.strip(), line_no, ts, kind="summary")
        elif kind == "event_msg" and state.use_events and item in _EVENT_ROLES:
            message = payload.get("message")
            if isinstance(message, str) and message.strip():
                state.add(_EVENT_ROLES[str(item)], message.strip(), line_no, ts)

    @staticmethod
    def _meta(result: ParseResult, payload: dict[str, Any]) -> None:
        if not result.session_id and isinstance(payload.get("id"), str):
            result.session_id = payload["id"]
        if result.cwd is None and isinstance(payload.get("cwd"), str):
            result.cwd = payload["cwd"]
