"""Parses SpecStory Markdown exports (.specstory/history/*.md): a record per `_**User**_`/`_**Agent**_` block.

Kept: the block's prose, and for each `<tool-use>` block a short "[Tool] description" (the text SpecStory
writes outside code fences, else the first non-output fence such as a bash command), truncated. Dropped:
`<think>` sections (thinking), command echoes such as `<command-name>` and
`<local-command-stdout>`, and blocks left empty. The `---` separating blocks is removed; a `---` inside a
message (a Markdown rule) stays. SpecStory has no ids: message_id is "L<header line>".

SpecStory writes one `_**Agent**_` block per content block of a reply. A block holding only bare tool stubs (an
"[Edit]" with no description: useless as a search unit of its own) is folded into the agent message before it in
the same turn (or the next one, if it opens the turn); tool uses with a description stay messages, as in Claude Code.
`_**Agent - sidechain (…)**_` blocks are a subagent's turns: each run of consecutive sidechain blocks becomes
records marked is_sidechain with their own agent_id ("sidechain-L<first header line>"), which ingest stores as a
subagent session linked to this one, instead of being folded into the parent's agent message.
A tool use's output fences (```text and the like) become a kind "tool" record after its block's message, trimmed and
marked by tool_output.py (message_id "L<header line>:T<n>").
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import ClassVar

from memlens.engine.text_encoding import decode_counted, sniff_encoding

from .base import ParseResult, Role, TranscriptRecord
from .common import (
    CALL_SUMMARY_MAX_CHARS,
    DEFAULT_TOOL_INPUT_MAX_CHARS,
    LineGuard,
    clean_user_text,
    count_replaced,
    finish,
    iter_complete_lines,
    parse_timestamp,
    truncate,
)
from .tool_output import tool_record

logger = logging.getLogger(__name__)

_HEADER_RE = re.compile(
    r"^_\*\*(User|Agent|Assistant)\b(\s*-\s*sidechain\b)?(?:\s*\(([^)]*)\))?\*\*_\s*$", re.IGNORECASE
)
_TIMESTAMP_RE = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z?")
# the id, and what runs on from it up to a space: a token pasted as the id is kept whole, never cut at its first `:`
# or `~` into a piece no detector knows (`9393629714` of a Telegram bot token)
_SESSION_RE = re.compile(r"<!--.*?\bSession\s+([\w.-]+[^\s()<>]*)")
_TOOL_OPEN_RE = re.compile(r"<tool-use\b[^>]*?data-tool-name=\"([^\"]*)\"")
_FENCE_RE = re.compile(r"^\s*(```+|~~~+)\s*(\S*)")
_OUTPUT_FENCES = frozenset({"", "text", "txt", "output", "console", "diff"})
_MARKUP = ("<summary>", "<details>", "</details>", "<tool-use", "</tool-use>")
_STUBS_RE = re.compile(r"(?:\[[^\]\n]{1,80}\]\s*)+")
_FILENAME_TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}_\d{2}-\d{2}(?:-\d{2})?Z?-")


def _tool_description(name: str, lines: list[str], max_chars: int) -> str:
    """A short description of a <tool-use> block: its prose outside fences, else its first input fence."""
    body = _tool_body(lines)
    return f"[{name}] {truncate(body, max_chars)}" if body else f"[{name}]"


def _tool_body(lines: list[str]) -> str:
    """A <tool-use> block's prose outside fences, else its first input fence, on one line."""
    prose: list[str] = []
    fences: list[tuple[str, list[str]]] = []
    fence: tuple[str, list[str]] | None = None
    for line in lines:
        match = _FENCE_RE.match(line)
        if match:
            if fence is None:
                fence = (match.group(2).lower(), [])
                fences.append(fence)
            else:
                fence = None
            continue
        if fence is not None:
            fence[1].append(line)
        elif line.strip() and not any(tag in line for tag in _MARKUP):
            prose.append(line.strip())
    if not prose:
        prose = next((body for lang, body in fences if lang not in _OUTPUT_FENCES), [])
    return " ".join(" ".join(prose).split())


def _tool_output_text(lines: list[str]) -> str:
    """The text of a <tool-use> block's output fences (```text and the like), joined."""
    outputs: list[list[str]] = []
    fence: list[str] | None = None
    for line in lines:
        match = _FENCE_RE.match(line)
        if match:
            if fence is None:
                fence = []
                if match.group(2).lower() in _OUTPUT_FENCES - {"diff"}:
                    outputs.append(fence)
            else:
                fence = None
        elif fence is not None:
            fence.append(line)
    return "\n".join("\n".join(body) for body in outputs).strip()


class _Block:
    """One `_**User**_` or `_**Agent**_` block being collected."""

    def __init__(self, role: Role, position: int, timestamp: float | None, sidechain: bool) -> None:
        self.role = role
        self.position = position
        self.timestamp = timestamp
        self.sidechain = sidechain
        self.prose = False  # holds text of its own, not only tool uses
        self.parts: list[str] = []
        self.lines: list[str] = []
        self.tool_name: str | None = None
        self.tool_lines: list[str] = []
        self.in_think = False
        # (tool name, what it called, output fences' text) of each closed tool use
        self.tool_outputs: list[tuple[str, str | None, str]] = []

    def feed(self, line: str, max_chars: int) -> None:
        if self.in_think:
            self.in_think = "</think>" not in line
        elif self.tool_name is not None:
            self._tool_line(line, max_chars)
        elif line.lstrip().startswith("<think>"):
            self.in_think = "</think>" not in line
        elif (tool := _TOOL_OPEN_RE.search(line)) is not None:
            self._prose(self._text())
            self.tool_name = tool.group(1) or "tool"
            self._tool_line(line, max_chars)
        else:
            self.lines.append(line)

    def _tool_line(self, line: str, max_chars: int, force_close: bool = False) -> None:
        self.tool_lines.append(line)
        if self.tool_name is not None and (force_close or "</tool-use>" in line):
            self.parts.append(_tool_description(self.tool_name, self.tool_lines, max_chars))
            output = _tool_output_text(self.tool_lines)
            if output:
                body = _tool_body(self.tool_lines)
                self.tool_outputs.append((self.tool_name, truncate(body, CALL_SUMMARY_MAX_CHARS) or None, output))
            self.tool_name, self.tool_lines = None, []

    def inside_markup(self) -> bool:
        return self.in_think or self.tool_name is not None

    def _text(self) -> str:
        text, self.lines = "\n".join(self.lines).strip(), []
        return text

    def finish(self, max_chars: int) -> str:
        if self.tool_name is not None:  # an unterminated tool block
            self._tool_line("", max_chars, force_close=True)
        tail = self._text()
        tail = without_closing_rule(tail)  # the separator before the next block
        self._prose(clean_user_text(tail) if self.role == "user" else tail)
        return "\n\n".join(p for p in self.parts if p).strip()

    def _prose(self, text: str) -> None:
        self.parts.append(text)
        self.prose = self.prose or bool(text.strip())


class _Chains:
    """Turns finished blocks into records: the main conversation and each sidechain run kept apart, tool-only
    agent blocks folded into their turn's agent message."""

    def __init__(self, result: ParseResult) -> None:
        self.result = result
        self.agent_id: str | None = None  # the sidechain run being read, if any
        self.last: dict[str | None, TranscriptRecord] = {}  # each chain's agent message open for tool folds
        self.pending: dict[str | None, TranscriptRecord] = {}  # tool-only blocks that opened a turn

    def emit(self, block: _Block | None, max_chars: int) -> None:
        if block is None:
            return
        if block.sidechain and self.agent_id is None:
            self.agent_id = f"sidechain-L{block.position}"
        elif not block.sidechain:
            self.agent_id = None
        chain = self.agent_id
        text = block.finish(max_chars)
        self._message(block, text, chain)
        self._tool_records(block, chain)  # after the message that made the calls (records sort stably by line)

    def _message(self, block: _Block, text: str, chain: str | None) -> None:
        if not text:
            return
        stub = block.role == "assistant" and not block.prose and _STUBS_RE.fullmatch(text) is not None
        if block.role == "user":
            self._end_turn(chain)
        elif stub and chain in self.last:
            self.last[chain].text += "\n\n" + text
            return
        elif stub:
            opened = self.pending.get(chain)
            if opened is not None:
                opened.text += "\n\n" + text
            else:
                self.pending[chain] = self._record(block, text, chain)
            return
        record = self._record(block, text, chain)
        if block.role == "assistant":
            opened = self.pending.pop(chain, None)
            if opened is not None:  # stubs that opened the turn: the reply they belong to starts here
                record.text = f"{opened.text}\n\n{record.text}"
                record.position, record.message_id = opened.position, opened.message_id
                record.timestamp = opened.timestamp
            self.last[chain] = record
        self.result.records.append(record)

    def close(self) -> None:
        for chain in list(self.pending):
            self._end_turn(chain)

    def _end_turn(self, chain: str | None) -> None:
        self.last.pop(chain, None)
        stub = self.pending.pop(chain, None)
        if stub is not None:  # stubs with no agent message in their turn: kept as a message of their own
            self.result.records.append(stub)

    def _tool_records(self, block: _Block, chain: str | None) -> None:
        """A record for each tool use's output in `block` (SpecStory has no call ids: the block's line names it)."""
        for index, (name, call, output) in enumerate(block.tool_outputs):
            record = tool_record(
                output=output,
                tool_name=name,
                call_id=None,
                message_id=f"L{block.position}:T{index + 1}",
                timestamp=block.timestamp,
                position=block.position,
                is_sidechain=chain is not None,
                call=call,
            )
            if record is not None:
                record.agent_id = chain
                self.result.records.append(record)

    @staticmethod
    def _record(block: _Block, text: str, chain: str | None) -> TranscriptRecord:
        record = TranscriptRecord(f"L{block.position}", block.role, text, block.timestamp, block.position)
        record.is_sidechain = chain is not None
        record.agent_id = chain
        return record


class SpecStoryParser:
    """SpecStory Markdown history files."""

    format: ClassVar[str] = "specstory"

    def __init__(self, tool_input_max_chars: int = DEFAULT_TOOL_INPUT_MAX_CHARS) -> None:
        self.tool_input_max_chars = tool_input_max_chars

    def sniff(self, head: list[str], path: Path) -> bool:
        return any("Generated by SpecStory" in line or _HEADER_RE.match(line.strip()) for line in head)

    def parse(self, data: bytes, path: Path, start_line: int = 1, *, final: bool = False) -> ParseResult:
        encoding, bom = sniff_encoding(data)
        if start_line == 1 and encoding != "utf-8":  # UTF-16/32 (a Windows editor): parsed as UTF-8
            decoded = decode_counted(data, cut=not final)
            text = decoded.text
            complete = text if final else text[: text.rfind("\n") + 1]
            result = self._parse(complete.encode("utf-8", "replace"), path, start_line, final=final)
            result.consumed_bytes = bom + len(complete.encode(encoding, "replace")) if complete else 0
            if final:
                result.consumed_bytes = len(data)
            if decoded.replaced:
                count_replaced(result, start_line, decoded.replaced)
            return result
        return self._parse(data, path, start_line, final=final)

    def _parse(self, data: bytes, path: Path, start_line: int, *, final: bool = False) -> ParseResult:
        result = ParseResult(format=self.format, session_id="", title=self._title(path))
        chains = _Chains(result)
        block: _Block | None = None
        for line_no, line in iter_complete_lines(data, start_line, result, final=final):
            with LineGuard(result, line_no):
                header = _HEADER_RE.match(line.strip())
                if header and (block is None or not block.inside_markup()):
                    chains.emit(block, self.tool_input_max_chars)
                    block = self._open(header, line_no)
                elif block is not None:
                    block.feed(line, self.tool_input_max_chars)
                elif not result.session_id and (session := _SESSION_RE.search(line)):
                    result.session_id = session.group(1)
        with LineGuard(result, block.position if block is not None else start_line):
            chains.emit(block, self.tool_input_max_chars)
        chains.close()
        result.records.sort(key=lambda r: r.position)
        result.session_id = result.session_id or path.stem
        return finish(result)

    @staticmethod
    def _open(header: re.Match[str], line_no: int) -> _Block:
        role: Role = "user" if header.group(1).lower() == "user" else "assistant"
        stamp = _TIMESTAMP_RE.search(header.group(3) or "")
        return _Block(role, line_no, parse_timestamp(stamp.group(0)) if stamp else None, bool(header.group(2)))

    @staticmethod
    def _title(path: Path) -> str | None:
        """The file name minus its timestamp: "2026-01-16_16-48-38Z-the-code" -> "the code"."""
        slug = _FILENAME_TS_RE.sub("", path.stem)
        if slug == path.stem:
            return None
        return slug.replace("-", " ").strip() or None


def without_closing_rule(text: str) -> str:
    r"""`text` without a `---` line that ends it, stripped: what `re.sub(r"\n\s*---\s*$", "", "\n" + text).strip()`
    gives, in one pass. That regex tried each line break against the whitespace after it, so a block of 20,000 blank
    lines cost 0.55 s and ten times as many a hundred times that."""
    text = ("\n" + text).rstrip()
    if text.endswith("---"):
        before = text[:-3].rstrip()
        if "\n" in text[len(before) : -3]:
            text = before
    return text.strip()
