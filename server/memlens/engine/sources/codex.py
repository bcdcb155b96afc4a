"""Parses Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl).

Indexed: `response_item` messages of role user/assistant (user messages that are injected context such as
`<environment_context>` or `# AGENTS.md instructions` are dropped), tool-call inputs (function_call,
custom_tool_call, local_shell_call, web_search_call) attached to the preceding assistant message of the
same turn, tool outputs (function_call_output, custom_tool_call_output) as kind "tool" records trimmed and
marked by tool_output.py (named after their call; a JSON output's `metadata.exit_code` read), and `compacted`
summaries. The `event_msg` user_message/agent_message lines usually duplicate the
response items, but some rollouts record a turn's messages only as events: per turn (from one `task_started` event
to the next) and role, the events are used only when no kept `response_item` message of that role carries the
turn, so nothing is indexed twice and no turn loses its user's request.
Skipped: developer/system messages, reasoning, turn_context, token_count and other events.
Codex has no message ids: message_id is "L<line>" (`common.line_ref`: "L<line>.2" for a line's second record, what
a crashed writer left), and there are no branches (uuid/parent_uuid stay None).
A later append may still drop or keep the open turn's events, so a parse resumes from the open turn's start.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any, ClassVar

from .base import ParseResult, Role, TranscriptRecord
from .common import (
    DEFAULT_TOOL_INPUT_MAX_CHARS,
    LineGuard,
    finish,
    head_objects,
    iter_json_objects,
    line_ref,
    parse_json_arguments,
    parse_timestamp,
    render_tool_call,
    tool_call_summary,
)
from .tool_output import tool_record

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
_TOOL_OUTPUT_TYPES = frozenset({"function_call_output", "custom_tool_call_output"})
_UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)
_EVENT_ROLES: dict[str, Role] = {"user_message": "user", "agent_message": "assistant"}
_TURN_STARTS = frozenset({"task_started", "turn_started"})


def _message_text(payload: dict[str, Any], role: str) -> str:
    content = payload.get("content")
    if isinstance(content, str):
        content = [{"type": "input_text", "text": content}]
    texts: list[str] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict) or block.get("type") not in ("input_text", "output_text", "text"):
            continue
        text = block.get("text")
        if not isinstance(text, str) or (role == "user" and text.lstrip().startswith(_INJECTED_PREFIXES)):
            continue
        texts.append(text.strip())
    return "\n\n".join(t for t in texts if t)


def _call_input(payload: dict[str, Any]) -> tuple[str, object]:
    """A tool call item's tool name and input, whichever of the call types it is."""
    kind = payload.get("type")
    if kind == "function_call":
        return str(payload.get("name", "")), parse_json_arguments(payload.get("arguments"))
    if kind == "custom_tool_call":
        return str(payload.get("name", "")), payload.get("input")
    raw_action = payload.get("action")
    action: dict[str, Any] = raw_action if isinstance(raw_action, dict) else {}
    if kind == "local_shell_call":
        return "shell", {"command": action.get("command")}
    return "web_search", action.get("query") or action.get("url")


def _tool_call(payload: dict[str, Any], max_chars: int) -> str:
    return render_tool_call(*_call_input(payload), max_chars)


def _output_and_exit(raw: object) -> tuple[str, int | None]:
    """A tool output's text and exit code: a JSON `{"output": …, "metadata": {"exit_code": …}}` string, or plain
    text whose "Exit code: N" / "Process exited with code N" line says it."""
    if isinstance(raw, dict):
        raw = raw.get("content") if isinstance(raw.get("content"), str) else ""
    if not isinstance(raw, str):
        return "", None
    parsed = parse_json_arguments(raw) if raw.lstrip().startswith("{") else None
    if isinstance(parsed, dict) and isinstance(parsed.get("output"), str):
        metadata = parsed.get("metadata")
        code = metadata.get("exit_code") if isinstance(metadata, dict) else None
        return parsed["output"], code if isinstance(code, int) and not isinstance(code, bool) else None
    match = _EXIT_LINE.search(raw[:2000])
    return raw, int(match.group(1)) if match else None


_EXIT_LINE = re.compile(r"^(?:Exit code:|Process exited with code) *(-?\d+)", re.MULTILINE)


class _State:
    """Per-parse state: records so far, the assistant record tool calls attach to, and the open turn."""

    def __init__(self, result: ParseResult, max_chars: int, start_line: int) -> None:
        self.result = result
        self.max_chars = max_chars
        self.attach_to: TranscriptRecord | None = None
        self.turn_start = start_line
        self.turn_roles: set[str] = set()  # roles a kept response_item message carries in the open turn
        self.turn_events: list[TranscriptRecord] = []  # records made from event messages in the open turn
        self.dropped: set[int] = set()  # id() of event records a response item duplicates
        self.tool_names: dict[str, str] = {}  # call id → tool name, to name its output
        self.tool_calls: dict[str, str] = {}  # call id → what it called (tool_call_summary), for its output
        self.line_id = ""  # the message id of a record the line being read makes

    def add(self, role: Role, text: str, line_no: int, timestamp: float | None, kind: str = "message") -> None:
        record = TranscriptRecord(self.line_id, role, text, timestamp, line_no)
        if kind == "summary":
            record.kind = "summary"
        self.result.records.append(record)
        self.attach_to = record if role == "assistant" and kind == "message" else None

    def event(self, role: Role, text: str, line_no: int, timestamp: float | None) -> None:
        self.add(role, text, line_no, timestamp)
        self.turn_events.append(self.result.records[-1])

    def tool_call(self, text: str, line_no: int, timestamp: float | None) -> None:
        if self.attach_to is None:
            self.add("assistant", text, line_no, timestamp)
        else:
            self.attach_to.text = f"{self.attach_to.text}\n{text}"

    def close_turn(self, next_start: int) -> None:
        """Drop the closing turn's event records that a response item carries; start the next turn."""
        self.dropped.update(id(r) for r in self.turn_events if r.role in self.turn_roles)
        self.turn_events, self.turn_roles = [], set()
        self.turn_start = next_start
        self.attach_to = None


class CodexParser:
    """Codex CLI rollout JSONL."""

    format: ClassVar[str] = "codex"

    def __init__(self, tool_input_max_chars: int = DEFAULT_TOOL_INPUT_MAX_CHARS) -> None:
        self.tool_input_max_chars = tool_input_max_chars

    def sniff(self, head: list[str], path: Path) -> bool:
        return any(
            isinstance(obj.get("type"), str) and obj["type"] in _LINE_TYPES and isinstance(obj.get("payload"), dict)
            for obj in head_objects(head)
        )

    def parse(self, data: bytes, path: Path, start_line: int = 1, *, final: bool = False) -> ParseResult:
        result = ParseResult(format=self.format, session_id="")
        state = _State(result, self.tool_input_max_chars, start_line)
        for line_no, index, obj in iter_json_objects(data, start_line, result, final=final):
            state.line_id = f"L{line_ref(line_no, index)}"
            with LineGuard(result, line_no):
                payload = obj.get("payload")
                if isinstance(payload, dict):
                    kind = obj.get("type")
                    timestamp = parse_timestamp(obj.get("timestamp"))
                    self._line(state, line_no, kind if isinstance(kind, str) else "", payload, timestamp)
        result.resume_line = state.turn_start  # the open turn: an append may still carry its events
        state.close_turn(0)
        if state.dropped:
            result.records = [r for r in result.records if id(r) not in state.dropped]
        if not result.session_id:
            result.session_from_path = True
            match = _UUID_RE.search(path.stem)
            result.session_id = match.group(0) if match else path.stem
        return finish(result)

    def _line(self, state: _State, line_no: int, kind: str, payload: dict[str, Any], ts: float | None) -> None:
        raw_item = payload.get("type")
        item = raw_item if isinstance(raw_item, str) else ""
        if kind == "session_meta":
            self._meta(state.result, payload)
        elif kind == "response_item" and item == "message":
            role = payload.get("role")
            if role in ("user", "assistant"):
                text = _message_text(payload, str(role))
                if text:
                    state.add("user" if role == "user" else "assistant", text, line_no, ts)
                    state.turn_roles.add(str(role))
        elif kind == "response_item" and item in _TOOL_OUTPUT_TYPES:
            self._tool_output(state, line_no, payload, ts)
        elif kind == "response_item" and item in _TOOL_CALL_TYPES:
            if isinstance(payload.get("call_id"), str):
                state.tool_names[payload["call_id"]] = str(payload.get("name") or item.removesuffix("_call"))
                name, tool_input = _call_input(payload)
                # a function's arguments are JSON: a string that is not says nothing of the call
                plain = item == "function_call" and not isinstance(tool_input, dict)
                summary = None if plain else tool_call_summary(name, tool_input)
                if summary is not None:
                    state.tool_calls[payload["call_id"]] = summary
            state.tool_call(_tool_call(payload, state.max_chars), line_no, ts)
        elif kind == "compacted":
            message = payload.get("message")
            if isinstance(message, str) and message.strip():
                state.add("assistant", message.strip(), line_no, ts, kind="summary")
        elif kind == "event_msg" and item in _TURN_STARTS:
            state.close_turn(line_no)
        elif kind == "event_msg" and item in _EVENT_ROLES:
            message = payload.get("message")
            if isinstance(message, str) and message.strip():
                state.event(_EVENT_ROLES[item], message.strip(), line_no, ts)

    @staticmethod
    def _tool_output(state: _State, line_no: int, payload: dict[str, Any], ts: float | None) -> None:
        call_id = payload.get("call_id") if isinstance(payload.get("call_id"), str) else None
        output, exit_code = _output_and_exit(payload.get("output"))
        record = tool_record(
            output=output,
            tool_name=state.tool_names.get(call_id or ""),
            call_id=call_id,
            message_id=state.line_id,
            timestamp=ts,
            position=line_no,
            exit_code=exit_code,
            call=state.tool_calls.get(call_id or ""),
        )
        if record is not None:
            state.result.records.append(record)  # the assistant message its calls attach to stays open for more

    @staticmethod
    def _meta(result: ParseResult, payload: dict[str, Any]) -> None:
        if not result.session_id and isinstance(payload.get("id"), str):
            result.session_id = payload["id"]
        if result.cwd is None and isinstance(payload.get("cwd"), str):
            result.cwd = payload["cwd"]
