"""Helpers shared by the transcript parsers: lines, JSON objects, timestamps, tool inputs, parent links."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from .base import ParseResult, TranscriptRecord

logger = logging.getLogger(__name__)

MAX_ERRORS = 20
DEFAULT_TOOL_INPUT_MAX_CHARS = 500
_SHELL_TOOLS = frozenset({"bash", "shell", "exec", "exec_command", "local_shell", "run_shell_command"})
_COMMAND_KEYS = ("command", "cmd")

# Claude Code's command echo and harness-injected user texts (also found in SpecStory exports of Claude Code).
_INJECTED_USER_PREFIXES = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<task-notification>",
    "<system-reminder>",
    "<user-prompt-submit-hook>",
    "[Request interrupted by user",
)
_COMMAND_NAME_RE = re.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.DOTALL)
_COMMAND_ARGS_RE = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)


def add_error(result: ParseResult, message: str) -> None:
    """Record one skipped-line message, keeping the list bounded."""
    if len(result.errors) < MAX_ERRORS:
        result.errors.append(message)


def iter_complete_lines(data: bytes, start_line: int, result: ParseResult) -> Iterator[tuple[int, str]]:
    """Yield (line number, decoded line) for every newline-terminated line and set result.consumed_bytes.

    A trailing line without a newline is neither yielded nor consumed: it may still be being written.
    """
    end = data.rfind(b"\n") + 1  # 0 when there is no complete line at all
    result.consumed_bytes = end
    if end == 0:
        return
    for offset, raw in enumerate(data[: end - 1].split(b"\n")):
        yield start_line + offset, raw.decode("utf-8", errors="replace").rstrip("\r")


def iter_json_objects(data: bytes, start_line: int, result: ParseResult) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each complete JSON-object line; count and skip the bad ones."""
    for line_no, line in iter_complete_lines(data, start_line, result):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            result.bad_lines += 1
            add_error(result, f"line {line_no}: invalid JSON ({str(exc)[:80]})")
            continue
        if not isinstance(obj, dict):
            result.bad_lines += 1
            add_error(result, f"line {line_no}: not a JSON object")
            continue
        yield line_no, obj


def head_objects(head: list[str]) -> list[dict[str, Any]]:
    """The JSON objects among the head lines (bad lines ignored): what sniffers look at."""
    objects = []
    for line in head:
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            objects.append(obj)
    return objects


def parse_timestamp(value: object) -> float | None:
    """Epoch seconds (UTC) from an ISO-8601 string or an epoch number in seconds or milliseconds."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) / 1000.0 if value > 1e11 else float(value)
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip().replace(" ", "T", 1)
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def truncate(text: str, max_chars: int) -> str:
    """Cut text to max_chars characters, marking the cut with an ellipsis."""
    return text if len(text) <= max_chars else text[: max(max_chars - 1, 0)].rstrip() + "…"


def _compact_value(value: object) -> str:
    if isinstance(value, str):
        return " ".join(value.split())
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _shell_command(value: object) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(part, str) for part in value):
        if len(value) >= 3 and value[-2] in ("-c", "-lc"):
            return str(value[-1])  # ["bash", "-lc", "cmd"] -> "cmd"
        return " ".join(value)
    return None


def render_tool_call(name: str, tool_input: object, max_chars: int) -> str:
    """A readable one-line rendering of a tool call's input, e.g. "[Bash] git push --force"."""
    label = f"[{name or 'tool'}]"
    body = ""
    if isinstance(tool_input, dict):
        command = next((tool_input[k] for k in _COMMAND_KEYS if k in tool_input), None)
        shell = _shell_command(command) if name.lower() in _SHELL_TOOLS else None
        if shell is not None:
            body = " ".join(shell.split())
        else:
            body = " ".join(f"{k}={_compact_value(v)}" for k, v in tool_input.items() if v not in (None, ""))
    elif tool_input not in (None, ""):
        body = _compact_value(tool_input)
    return f"{label} {truncate(body, max_chars)}" if body else label


def parse_json_arguments(arguments: object) -> object:
    """Tool arguments given as a JSON string (Codex function_call) decoded when possible."""
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return arguments


def clean_user_text(text: str) -> str:
    """User text minus Claude Code harness echoes; a slash command with arguments becomes "/name args"."""
    stripped = text.strip()
    if stripped.startswith(_INJECTED_USER_PREFIXES):
        return ""
    name = _COMMAND_NAME_RE.search(stripped)
    if name and (stripped.startswith("<command-") or stripped.startswith("<command-name>")):
        args = _COMMAND_ARGS_RE.search(stripped)
        arg_text = args.group(1).strip() if args else ""
        return f"{name.group(1)} {arg_text}" if arg_text else ""
    return stripped


class ParentLinks:
    """Resolves raw parent ids through lines that produced no record (tool results, progress, ...)."""

    def __init__(self) -> None:
        self._raw_parent: dict[str, str | None] = {}
        self._owner: dict[str, TranscriptRecord] = {}

    def line(self, uuid: object, parent: object) -> None:
        """Remember one line's raw parent link."""
        if isinstance(uuid, str) and uuid:
            self._raw_parent[uuid] = parent if isinstance(parent, str) and parent else None

    def own(self, uuid: object, record: TranscriptRecord) -> None:
        """Mark a line as part of a record: links to it resolve to record.uuid."""
        if isinstance(uuid, str) and uuid:
            self._owner[uuid] = record

    def resolve(self, parent: str | None) -> str | None:
        """The nearest record uuid up the chain; an id missing from the data is returned as is."""
        seen: set[str] = set()
        while parent is not None and parent not in seen:
            seen.add(parent)
            if parent in self._owner:
                return self._owner[parent].uuid
            if parent not in self._raw_parent:
                return parent
            parent = self._raw_parent[parent]
        return None

    def resolve_all(self, records: list[TranscriptRecord]) -> None:
        """Replace each record's raw parent_uuid with its resolved parent."""
        for record in records:
            record.parent_uuid = self.resolve(record.parent_uuid)
