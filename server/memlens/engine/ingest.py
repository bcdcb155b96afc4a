"""Turns one file's bytes into chunks and search units (parsing and chunking only; no storage)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from memlens.engine.markdown_chunker import chunk_markdown
from memlens.engine.sources import PARSERS, detect_format, get_parser, read_head, select_active_branch
from memlens.engine.sources.base import ParseResult, TranscriptParser, TranscriptRecord
from memlens.engine.transcript_chunker import group_messages
from memlens.settings import ChunkingSettings

HEAD_BYTES = 4096
STREAM_BLOCK = 16 * 1024 * 1024
MAX_UNIT_CHARS = 64_000  # a 10 MB message is indexed by its head; the file keeps the rest
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
EMBED_TEXT_CHARS = 2000  # the model reads ~256 word pieces; more text only costs time


@dataclass(slots=True)
class UnitSpec:
    kind: str  # memory | transcript | summary
    text: str
    embed_text: str
    message_id: str | None = None
    role: str | None = None
    ts: float | None = None
    position: int | None = None
    line_end: int | None = None
    uuid: str | None = None

    @property
    def embed_hash(self) -> str:
        return text_hash(self.embed_text)


@dataclass(slots=True)
class ChunkSpec:
    kind: str
    units: list[UnitSpec]
    line_start: int | None = None
    line_end: int | None = None
    heading: str | None = None

    @property
    def ts_start(self) -> float | None:
        times = [u.ts for u in self.units if u.ts is not None]
        return min(times) if times else None

    @property
    def ts_end(self) -> float | None:
        times = [u.ts for u in self.units if u.ts is not None]
        return max(times) if times else None


@dataclass(slots=True)
class SessionSpec:
    session_id: str
    format: str
    parent_session_id: str | None = None
    agent_id: str | None = None
    cwd: str | None = None
    title: str | None = None


@dataclass(slots=True)
class FileContent:
    kind: str  # memory | transcript
    format: str
    chunks: list[ChunkSpec] = field(default_factory=list)
    session: SessionSpec | None = None
    records: list[TranscriptRecord] = field(default_factory=list)
    bad_lines: int = 0
    errors: list[str] = field(default_factory=list)
    parsed_bytes: int = 0
    next_line: int = 1
    head_digest: str = ""  # sha1 of the first min(HEAD_BYTES, parsed_bytes) bytes: detects a rewritten head


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def head_hash(data: bytes) -> str:
    return hashlib.sha1(data[:HEAD_BYTES]).hexdigest()


def note_date(path: Path) -> float | None:
    """The day a dated note is about (`memory/2026-02-10.md` → that midnight UTC), so time filters find it."""
    match = _DATE.search(path.name)
    if match is None:
        return None
    try:
        year, month, day = map(int, match.groups())
        return datetime(year, month, day, tzinfo=UTC).timestamp()
    except ValueError:
        return None


def read_memory(data: bytes, chunking: ChunkingSettings, ts: float | None = None) -> FileContent:
    text = data.decode("utf-8", errors="replace")
    content = FileContent(kind="memory", format="markdown", parsed_bytes=len(data))
    for chunk in chunk_markdown(text, chunking.markdown_min_chars, chunking.markdown_max_chars):
        indexed = chunk.index_text
        unit = UnitSpec(
            kind="memory",
            text=indexed,
            embed_text=indexed[:EMBED_TEXT_CHARS],
            position=chunk.line_start,
            line_end=chunk.line_end,
            ts=ts,
        )
        heading = " › ".join(chunk.heading_path) or None
        content.chunks.append(ChunkSpec("memory", [unit], chunk.line_start, chunk.line_end, heading))
    return content


def parse_transcript(
    data: bytes,
    path: Path,
    start_line: int = 1,
    format_hint: str = "",
    parsers: list[TranscriptParser] = PARSERS,
) -> ParseResult | None:
    """Parse with the parser for this file's format (sniffed unless given); None if no parser recognises it."""
    parser = get_parser(format_hint, parsers) if format_hint else detect_format(read_head(data), path, parsers)
    return parser.parse(data, path, start_line) if parser is not None else None


def parse_transcript_stream(
    handle: BinaryIO, path: Path, parsers: list[TranscriptParser] = PARSERS, block_bytes: int = STREAM_BLOCK
) -> tuple[ParseResult | None, int]:
    """Parse a transcript block by block, so a huge file never sits in memory whole.

    Returns (result, lines consumed). Links that cross a block boundary through skipped lines cannot be resolved by
    the parser; such a record is attached to the last record before its block (transcripts grow linearly).
    """
    data = handle.read(block_bytes)
    parser = detect_format(read_head(data), path, parsers)
    if parser is None:
        return None, 0
    start_line = 1
    total: ParseResult | None = None
    while True:
        more = handle.read(block_bytes) if len(data) >= block_bytes else b""
        result = parser.parse(data, path, start_line)
        if total is None:
            total = result
        else:
            _link_across_blocks(total.records, result.records)
            total.records.extend(result.records)
            total.bad_lines += result.bad_lines
            total.errors.extend(result.errors[: max(0, 20 - len(total.errors))])
            total.consumed_bytes += result.consumed_bytes
        start_line += data.count(b"\n", 0, result.consumed_bytes)
        if not more:
            return total, start_line - 1
        data = data[result.consumed_bytes :] + more


def _link_across_blocks(before: list[TranscriptRecord], block: list[TranscriptRecord]) -> None:
    known = {r.uuid for r in before if r.uuid} | {r.uuid for r in block if r.uuid}
    last = next((r.uuid for r in reversed(before) if r.uuid and not r.is_sidechain), None)
    for record in block:
        if record.parent_uuid is not None and record.parent_uuid not in known:
            record.parent_uuid = last
        if record.uuid and not record.is_sidechain:
            last = record.uuid


def record_unit(record: TranscriptRecord) -> UnitSpec:
    text = record.text[:MAX_UNIT_CHARS]
    return UnitSpec(
        kind="summary" if record.kind == "summary" else "transcript",
        text=text,
        embed_text=text[:EMBED_TEXT_CHARS],
        message_id=record.message_id,
        role=record.role,
        ts=record.timestamp,
        position=record.position,
        uuid=record.uuid,
    )


def chunk_records(records: list[TranscriptRecord], chunking: ChunkingSettings) -> list[ChunkSpec]:
    chunks: list[ChunkSpec] = []
    groups = group_messages(records, chunking.gap_seconds, chunking.max_messages, chunking.max_chars)
    for group in groups:
        units = [record_unit(records[i]) for i in group]
        positions = [u.position for u in units if u.position is not None]
        chunks.append(
            ChunkSpec(
                kind=units[0].kind,
                units=units,
                line_start=min(positions) if positions else None,
                line_end=max(positions) if positions else None,
            )
        )
    return chunks


def transcript_content(result: ParseResult, chunking: ChunkingSettings, active_only: bool = True) -> FileContent:
    records = select_active_branch(result.records) if active_only else result.records
    records = [r for r in records if r.text.strip()]
    session = SessionSpec(
        session_id=result.session_id,
        format=result.format,
        parent_session_id=result.parent_session_id,
        agent_id=result.agent_id,
        cwd=result.cwd,
        title=result.title,
    )
    return FileContent(
        kind="transcript",
        format=result.format,
        chunks=chunk_records(records, chunking),
        session=session,
        records=records,
        bad_lines=result.bad_lines,
        errors=list(result.errors),
        parsed_bytes=result.consumed_bytes,
    )
