"""Helpers shared by the transcript parsers: lines, JSON objects, timestamps, tool inputs, parent links.

This is the validated boundary between file content and the index: nothing read from a file may raise past a
parser. Lines that are not JSON objects, nest too deeply or make a parser fail are counted as bad lines with a
reason (`LineGuard`), timestamps outside 1970..2100 become None.

A line that is a message keeps its message whatever odd bytes its strings hold: invalid UTF-8 (0xFF, overlong forms,
encoded surrogates), NUL bytes and lone UTF-16 surrogates (a JSON `"\\ud800"` escape, what `JSON.stringify` writes
for a string cut mid-emoji) become U+FFFD, so UTF-8, SQLite, tantivy and JSON output never see them; raw control
characters inside a string (a stray CR, a tab) are read as the characters they are. Each replacement is counted in
`ParseResult.replaced` with the reason "invalid bytes replaced" on its line. A line that is not JSON as a whole keeps
every whole record on it, in order (two records whose newline a crashed writer lost, a record behind or before the
bytes of a torn write: `torn_lines.py`), its problem said on its line. The records of one line share its number;
`line_ref` gives each its own name.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from types import TracebackType
from typing import Any

from memlens.engine.terminal_codes import without_terminal_codes
from memlens.engine.text_encoding import sniff_json_encoding
from memlens.redaction import clear_cut, find_secrets

from .base import ParseResult, TranscriptRecord
from .torn_lines import records_on_line

logger = logging.getLogger(__name__)

MAX_ERRORS = 20
MAX_ANCHOR_IDS = 500
EPOCH_MIN = 0.0  # 1970-01-01T00:00:00Z
EPOCH_MAX = 4102444800.0  # 2100-01-01T00:00:00Z: later (or earlier) times are "unknown"
_UNSAFE_CHARS = re.compile("[\x00\ud800-\udfff]")  # NUL and lone surrogates: what UTF-8/SQLite/tantivy refuse
_UNSAFE_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})")  # a JSON escape that decodes to one
REPLACED_REASON = "invalid bytes replaced"
# control characters inside strings accepted; one decoder, as json.loads with keyword arguments builds one per call
_JSON = json.JSONDecoder(strict=False)
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


def count_bad_line(result: ParseResult, line_no: int, reason: str) -> None:
    """Count one skipped line and remember why (bounded)."""
    result.bad_lines += 1
    add_error(result, f"line {line_no}: {reason}")


def _error_line(error: str) -> int | None:
    """The line a message as `count_bad_line` writes it is about (None: about no line)."""
    number = error.removeprefix("line ").split(":", 1)[0]
    return int(number) if error.startswith("line ") and number.isdigit() else None


def errors_from_line(errors: list[str], first_line: int) -> list[str]:
    """The bad-line messages about lines at or after `first_line`, and those about no line."""
    return [e for e in errors if (line := _error_line(e)) is None or line >= first_line]


def errors_before_line(errors: list[str], first_line: int) -> list[str]:
    """The bad-line messages about lines before `first_line`, and those about no line."""
    return [e for e in errors if (line := _error_line(e)) is None or line < first_line]


class LineGuard:
    """`with LineGuard(result, line_no): ...` turns any exception while handling one line into a counted bad line
    (the exception type is the reason), so one line can never fail its file."""

    __slots__ = ("line_no", "result")

    def __init__(self, result: ParseResult, line_no: int) -> None:
        self.result = result
        self.line_no = line_no

    def __enter__(self) -> LineGuard:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool:
        if exc_type is None or not issubclass(exc_type, Exception):
            return False
        logger.debug("line %d skipped: %s: %s", self.line_no, exc_type.__name__, exc)
        count_bad_line(self.result, self.line_no, f"unexpected {exc_type.__name__}")
        return True


def scrub(text: str) -> str:
    """The text with every NUL and lone UTF-16 surrogate replaced by U+FFFD (valid pairs were joined by the JSON
    decoder)."""
    return _UNSAFE_CHARS.sub("\ufffd", text) if _UNSAFE_CHARS.search(text) else text


def scrub_counted(text: str) -> tuple[str, int]:
    """`scrub`, and how many characters it replaced."""
    return _UNSAFE_CHARS.subn("\ufffd", text) if _UNSAFE_CHARS.search(text) else (text, 0)


def decode_line(raw: bytes, encoding: str = "utf-8") -> tuple[str, int]:
    """A line's bytes as text, and how many invalid bytes (or NULs) became U+FFFD on the way."""
    try:
        text = raw.decode(encoding)
        replaced = 0
    except UnicodeDecodeError:
        text = raw.decode(encoding, errors="replace")
        replaced = text.count("\ufffd") - raw.decode(encoding, errors="ignore").count("\ufffd")
    if "\x00" in text:
        replaced += text.count("\x00")
        text = text.replace("\x00", "\ufffd")
    return text, replaced


def count_replaced(result: ParseResult, line_no: int, replaced: int) -> None:
    """Count characters replaced by U+FFFD on one line (its message is kept) and say why, once per line."""
    if replaced:
        result.replaced += replaced
        add_error(result, f"line {line_no}: {REPLACED_REASON} ({replaced})")


def _scrub_value(value: Any) -> tuple[Any, int]:
    """A decoded JSON value with NULs and lone surrogates in its strings (keys too) replaced; the count."""
    if isinstance(value, str):
        return scrub_counted(value)
    if isinstance(value, list):
        total = 0
        items = []
        for item in value:
            clean, count = _scrub_value(item)
            items.append(clean)
            total += count
        return items, total
    if isinstance(value, dict):
        total = 0
        pairs = {}
        for key, item in value.items():
            clean_key, key_count = scrub_counted(key)
            clean, count = _scrub_value(item)
            pairs[clean_key] = clean
            total += key_count + count
        return pairs, total
    return value, 0


def _scrub_optional(text: str | None) -> str | None:
    return None if text is None else scrub(text)


def finish(result: ParseResult) -> ParseResult:
    """The last step of every parse: scrub lone surrogates from every string that leaves the parser, and take
    terminal control codes out of the texts and the title (terminal_codes.py)."""
    result.session_id = scrub(result.session_id)
    result.cwd = _scrub_optional(result.cwd)
    result.parent_session_id = _scrub_optional(result.parent_session_id)
    result.agent_id = _scrub_optional(result.agent_id)
    result.title = None if result.title is None else without_terminal_codes(scrub(result.title))
    result.errors = [scrub(e) for e in result.errors]
    result.anchor_ids = [scrub(a) for a in result.anchor_ids]
    for record in result.records:
        record.text = without_terminal_codes(scrub(record.text))
        record.message_id = scrub(record.message_id)
        record.uuid = _scrub_optional(record.uuid)
        record.parent_uuid = _scrub_optional(record.parent_uuid)
        record.agent_id = _scrub_optional(record.agent_id)
    return result


def iter_complete_lines(
    data: bytes, start_line: int, result: ParseResult, *, final: bool = False
) -> Iterator[tuple[int, str]]:
    """Yield (line number, decoded line) for every newline-terminated line and set result.consumed_bytes; invalid
    bytes and NULs become U+FFFD, counted on their line (`count_replaced`).

    A trailing line without a newline is neither yielded nor consumed: it may still be being written. With `final`
    (the data ends where the file does and the file is quiet) it is a line like any other, and consumed.
    """
    for line_no, line, replaced in _decoded_lines(data, start_line, result, final):
        count_replaced(result, line_no, replaced)
        yield line_no, line


def _decoded_lines(data: bytes, start_line: int, result: ParseResult, final: bool) -> Iterator[tuple[int, str, int]]:
    """(line number, text, characters replaced) of each line `iter_complete_lines` yields; sets consumed_bytes."""
    encoding, bom = sniff_json_encoding(data)
    if encoding != "utf-8":
        yield from _wide_lines(data, start_line, result, final, encoding=encoding, bom=bom)
        return
    end = data.rfind(b"\n") + 1  # 0 when there is no complete line at all
    if final and end < len(data):
        end = len(data) + 1  # the unterminated last line, as if its newline were there
    result.consumed_bytes = min(end, len(data))
    if end == 0:
        return
    for offset, raw in enumerate(data[: end - 1].split(b"\n")):
        line, replaced = decode_line(raw)
        line = line.rstrip("\r")
        yield start_line + offset, line.removeprefix("\ufeff") if offset == 0 and start_line == 1 else line, replaced


def _wide_lines(
    data: bytes, start_line: int, result: ParseResult, final: bool, *, encoding: str, bom: int
) -> Iterator[tuple[int, str, int]]:
    """`_decoded_lines` of UTF-16 or UTF-32 data (a transcript saved again by a Windows tool, PowerShell's `>`): a
    newline counts only at a character boundary, so consumed_bytes stays an offset into the file's own bytes."""
    newline = "\n".encode(encoding)
    width = len(newline)
    starts, ends = [bom], []
    position = bom
    while (found := data.find(newline, position)) >= 0:
        if (found - bom) % width:  # the newline's bytes straddle two characters: not a newline
            position = found + 1
            continue
        ends.append(found)
        starts.append(found + width)
        position = found + width
    if final and starts[-1] < len(data):
        ends.append(len(data))  # the unterminated last line, as if its newline were there
    result.consumed_bytes = len(data) if final else (starts[-1] if ends else 0)
    for offset, (start, end) in enumerate(zip(starts, ends, strict=False)):
        line, replaced = decode_line(data[start:end], encoding)
        yield start_line + offset, line.rstrip("\r"), replaced


def line_ref(line_no: int, index: int) -> str:
    """How an id made from a record's line names it: `12` for the first record of line 12, `12.2` for the second
    a crashed writer left on it (`torn_lines.py`), ... The same line reads as the same records on every parse, so a
    name stays the record's across re-reads and appends."""
    return str(line_no) if index == 0 else f"{line_no}.{index + 1}"


def iter_json_objects(
    data: bytes, start_line: int, result: ParseResult, *, final: bool = False
) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """Yield (line number, index on its line, object) for each record of the complete lines (a line's one JSON
    object, index 0; or each whole record on a line that is not JSON as a whole, `torn_lines.py`, its problem said
    on its line); count and skip the bad lines. Raw control characters inside strings are accepted (`strict=False`:
    a stray CR or tab is the character it is); invalid bytes, NULs and the lone surrogates escapes decode to become
    U+FFFD, counted on the line (a bad line is counted as bad only)."""
    for line_no, line, replaced in _decoded_lines(data, start_line, result, final):
        if not line.strip():
            continue
        try:
            objects = [_JSON.decode(line)]
        except ValueError as exc:
            found = records_on_line(line, _JSON)
            if found is None:
                count_bad_line(result, line_no, f"invalid JSON ({str(exc)[:80]})")
                continue
            objects = list(found.records)
            add_error(result, f"line {line_no}: {found.problem()}")
        except RecursionError:
            count_bad_line(result, line_no, "JSON nested too deeply")
            continue
        if not isinstance(objects[0], dict):
            count_bad_line(result, line_no, "not a JSON object")
            continue
        if "\\u" in line and _UNSAFE_ESCAPE.search(line):
            for index, obj in enumerate(objects):
                objects[index], escaped = _scrub_value(obj)
                replaced += escaped
        count_replaced(result, line_no, replaced)
        for index, obj in enumerate(objects):
            yield line_no, index, obj


def head_objects(head: list[str]) -> list[dict[str, Any]]:
    """The JSON objects among the head lines, every record of a line that is not JSON as a whole too (bad lines
    ignored): what sniffers look at."""
    objects = []
    for line in head:
        try:
            obj = _JSON.decode(line)
        except (ValueError, RecursionError):
            found = records_on_line(line, _JSON)
            objects += found.records if found is not None else []
            continue
        if isinstance(obj, dict):
            objects.append(obj)
    return objects


def parse_timestamp(value: object) -> float | None:
    """Epoch seconds (UTC) from an ISO-8601 string or an epoch number in seconds or milliseconds.

    None ("unknown") for anything else, including non-finite or huge numbers and times outside 1970..2100.
    """
    try:
        seconds = _epoch_seconds(value)
    except (ValueError, OverflowError, OSError, TypeError):
        return None
    if seconds is None or not math.isfinite(seconds) or not EPOCH_MIN <= seconds < EPOCH_MAX:
        return None
    return seconds


def _epoch_seconds(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        if not -(10**16) < value < 10**16:  # also keeps float() away from 400-digit integers
            return None
        return value / 1000.0 if value > 1e11 else float(value)
    if isinstance(value, float):
        return value / 1000.0 if value > 1e11 else value
    if not isinstance(value, str) or not value.strip() or len(value) > 64:
        return None
    text = value.strip().replace(" ", "T", 1)
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    parsed = datetime.fromisoformat(text)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def truncate(text: str, max_chars: int) -> str:
    """Cut text to max_chars characters, marking the cut with an ellipsis; a secret the cut would run through is
    left out whole (`clear_cut`): its first characters alone are a piece no later redaction knows."""
    if len(text) <= max_chars:
        return text
    return text[: clear_cut(text, max(max_chars - 1, 0))].rstrip() + "…"


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


# A call whose result has not come yet holds a parse's resume line back to it, so the result, appended later, is read
# with its call (and named by it); a call this many lines back with no result (an interrupted session) no longer does.
PENDING_CALL_LINES = 1000
CALL_SUMMARY_MAX_CHARS = 120  # what a tool output's header keeps of the call that made it
# The argument that says what a call was about, most telling first: a Grep's pattern before the folder it searched.
_SUMMARY_KEYS = (
    "file_path",
    "notebook_path",
    "pattern",
    "path",
    "url",
    "query",
    "command",
    "cmd",
    "description",
    "name",
)
_PATCH_FILE_RE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.MULTILINE)


def tool_call_summary(name: str, tool_input: object) -> str | None:
    """What a call was, in one short line for its output's header: a shell command as `$ git status`, else the
    argument that names what it read or searched (a file, a pattern, a URL, a query), else its first short string
    argument; None when the input says nothing short. Its first line only, cut to CALL_SUMMARY_MAX_CHARS."""
    summary: str | None = None
    if isinstance(tool_input, dict):
        command = next((tool_input[k] for k in _COMMAND_KEYS if k in tool_input), None)
        shell = _shell_command(command) if name.lower() in _SHELL_TOOLS else None
        if shell is not None and shell.strip():
            return _summary_line("$ " + shell.strip())
        summary = next((v for k in _SUMMARY_KEYS if isinstance(v := tool_input.get(k), str) and v.strip()), None)
        if summary is None:
            summary = next(
                (
                    v
                    for k, v in tool_input.items()
                    if isinstance(v, str)
                    and v.strip()
                    and len(v) <= 200
                    and "\n" not in v.strip()
                    and _said_alone(k, v)
                ),
                None,
            )
    elif isinstance(tool_input, str) and tool_input.strip():
        patched = _PATCH_FILE_RE.search(tool_input)  # Codex's apply_patch: the patch text names its files
        summary = patched.group(1) if patched else None if tool_input.lstrip().startswith("***") else tool_input
    return _summary_line(summary) if summary is not None else None


def _said_alone(key: str, value: str) -> bool:
    """Whether an argument's value may head its output without its key: not when the key is what makes it a secret
    (`password=…` is one the detector knows by its key; `hunter2Horse` alone it cannot tell from any word). Asked
    only of the arguments a summary falls back on, until one answers yes (one scan of a short text, at parse)."""
    return not find_secrets(f"{key}={value}")


def pending_call_line(pending: dict[str, int], end_line: int) -> int | None:
    """The first line of the earliest call in `pending` (call id → its record's first line) that still awaits its
    result, of those fewer than PENDING_CALL_LINES before `end_line`."""
    return min((line for line in pending.values() if line > end_line - PENDING_CALL_LINES), default=None)


def _summary_line(text: str) -> str | None:
    line = text.strip().split("\n", 1)[0].strip()
    line = " ".join(line.split())
    return truncate(line, CALL_SUMMARY_MAX_CHARS) if line else None


def parse_json_arguments(arguments: object) -> object:
    """Tool arguments given as a JSON string (Codex function_call) decoded when possible."""
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except (ValueError, RecursionError):
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
        self._line_of: dict[str, int] = {}
        self._owner: dict[str, TranscriptRecord] = {}

    def line(self, uuid: object, parent: object, line_no: int = 0) -> None:
        """Remember one line's raw parent link."""
        if isinstance(uuid, str) and uuid:
            self._raw_parent[uuid] = parent if isinstance(parent, str) and parent else None
            self._line_of.setdefault(uuid, line_no)

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

    def anchor_ids(self, records: list[TranscriptRecord], before_line: int) -> list[str]:
        """The last main-line record before `before_line` and the ids of the lines before that line which resolve
        to it: the parents a record parsed from `before_line` on may name while continuing the branch linearly."""
        anchor = next(
            (r for r in reversed(records) if r.uuid and not r.is_sidechain and r.position < before_line), None
        )
        if anchor is None or anchor.uuid is None:
            return []
        ids = [anchor.uuid]
        for uuid, line_no in self._line_of.items():
            if anchor.position <= line_no < before_line and uuid != anchor.uuid and self.resolve(uuid) == anchor.uuid:
                ids.append(uuid)
                if len(ids) >= MAX_ANCHOR_IDS:
                    break  # an append naming a dropped one is re-parsed whole: slower, still correct
        return ids
