"""Registry of transcript parsers: format detection by content, file parsing and active-branch selection."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

from memlens.engine.text_encoding import decode_text, sniff_encoding, sniff_json_encoding

from .base import ParseResult, TranscriptParser, TranscriptRecord
from .branches import BranchSelection, continues_branch, select_active_branch, split_branches
from .claude_code import ClaudeCodeParser
from .codex import CodexParser
from .openclaw import OpenClawParser
from .specstory import SpecStoryParser

logger = logging.getLogger(__name__)

__all__ = [
    "PARSERS",
    "BranchSelection",
    "ParseResult",
    "TranscriptParser",
    "TranscriptRecord",
    "WIDE_HEAD_LINES",
    "continues_branch",
    "detect_format",
    "detect_format_in",
    "get_parser",
    "make_parsers",
    "parse_file",
    "read_head",
    "select_active_branch",
    "split_branches",
]


def make_parsers(tool_input_max_chars: int | None = None) -> list[TranscriptParser]:
    """One parser per format; `tool_input_max_chars` bounds the tool-call input kept with a message."""
    if tool_input_max_chars is None:
        return [ClaudeCodeParser(), CodexParser(), OpenClawParser(), SpecStoryParser()]
    limit = tool_input_max_chars
    return [ClaudeCodeParser(limit), CodexParser(limit), OpenClawParser(limit), SpecStoryParser(limit)]


PARSERS: list[TranscriptParser] = make_parsers()

HEAD_LINES = 5
_HEAD_BYTES = 256 * 1024
# A transcript's first lines may all be of no use to a sniffer (bad lines, lines of a kind no parser knows yet, a
# first prompt longer than _HEAD_BYTES): the wider look takes this many JSON-object lines from all the data given.
WIDE_HEAD_LINES = 200


def get_parser(format_name: str, parsers: list[TranscriptParser] = PARSERS) -> TranscriptParser | None:
    """The parser for a format name such as "claude-code"."""
    return next((p for p in parsers if p.format == format_name), None)


def read_head(data: bytes, max_lines: int = HEAD_LINES) -> list[str]:
    """The first non-empty lines of some file content, decoded (what sniffers look at)."""
    head: list[str] = []
    if sniff_encoding(data)[0] != "utf-8":  # UTF-16/32 (SpecStory markdown saved by a Windows editor)
        raws = [line.encode() for line in decode_text(data[:_HEAD_BYTES]).split("\n")]
    else:
        raws = data[:_HEAD_BYTES].split(b"\n")
    for raw in raws:
        line = raw.decode("utf-8", errors="replace").strip().removeprefix("\ufeff")
        if line:
            head.append(line)
            if len(head) >= max_lines:
                break
    return head


def object_lines(data: bytes, max_lines: int = WIDE_HEAD_LINES) -> list[str]:
    """The first lines of `data` that hold a JSON object (a line beginning with `{`), decoded: what a sniffer sees
    when the head named no format (a last line cut short fails to decode there and counts for nothing)."""
    encoding, bom = sniff_json_encoding(data)
    if encoding != "utf-8":
        lines: Iterator[str] = iter(data[bom:].decode(encoding, errors="replace").split("\n"))
    else:
        lines = (raw.decode("utf-8", errors="replace") for raw in _lines(data))
    head: list[str] = []
    for line in lines:
        stripped = line.strip().removeprefix("\ufeff")
        if stripped.startswith("{"):
            head.append(stripped)
            if len(head) >= max_lines:
                break
    return head


def _lines(data: bytes) -> Iterator[bytes]:
    """`data.split(b"\\n")` one line at a time: the caller stops early, and a block is 16 MB."""
    start = 0
    while (end := data.find(b"\n", start)) >= 0:
        yield data[start:end]
        start = end + 1
    yield data[start:]


def detect_format_in(data: bytes, path: Path, parsers: list[TranscriptParser] = PARSERS) -> TranscriptParser | None:
    """The parser for a file whose content begins with `data`: judged by its first non-empty lines, else by its
    first WIDE_HEAD_LINES JSON-object lines, so a file is never lost for its first lines alone. The wider look
    takes JSON lines only: markdown that merely mentions a transcript format further down stays what it is."""
    return detect_format(read_head(data), path, parsers) or detect_format(object_lines(data), path, parsers)


def _path_hint(parser: TranscriptParser, path: Path) -> bool:
    """Where a parser's files usually live: used only to break ties between content matches."""
    parts = set(path.parts)
    hints = {
        "claude-code": ".claude" in parts or path.parent.name == "subagents",
        "codex": path.name.startswith("rollout-") or ".codex" in parts,
        "openclaw": ".openclaw" in parts,
        "specstory": path.suffix == ".md" or ".specstory" in parts,
    }
    return hints.get(parser.format, False)


def detect_format(
    head_lines: list[str], path: Path, parsers: list[TranscriptParser] = PARSERS
) -> TranscriptParser | None:
    """The parser whose sniffer accepts the head lines; the path decides only between several matches."""
    matches = []
    for parser in parsers:
        try:
            if parser.sniff(head_lines, path):
                matches.append(parser)
        except Exception:  # a sniffer must never take detection down
            logger.exception("sniffer %s failed on %s", parser.format, path)
    if len(matches) > 1:
        hinted = [p for p in matches if _path_hint(p, path)]
        matches = hinted or matches
    return matches[0] if matches else None


def parse_file(path: Path, data: bytes | None = None, start_line: int = 1) -> ParseResult | None:
    """Detect the format and parse a file (or, with start_line > 1, the tail `data` appended to it).

    The format is sniffed from the file's own head (from `data` when it is the whole file). None when the file
    cannot be read or no parser recognises it.
    """
    try:
        if data is None:
            data = path.read_bytes()
        if start_line == 1:
            head_bytes = data
        else:
            with path.open("rb") as handle:
                head_bytes = handle.read(_HEAD_BYTES)
    except OSError as exc:
        logger.warning("cannot read transcript %s: %s", path, exc)
        return None
    parser = detect_format_in(head_bytes, path)
    if parser is None:
        logger.debug("no transcript parser recognises %s", path)
        return None
    return parser.parse(data, path, start_line)
