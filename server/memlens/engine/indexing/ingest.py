"""Turns one file's bytes into chunks and search units (parsing and chunking only; no storage)."""

from __future__ import annotations

import codecs
import dataclasses
import hashlib
import os
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from memlens.engine.indexing.markdown_chunker import chunk_markdown
from memlens.engine.indexing.transcript_chunker import group_messages, split_text
from memlens.engine.sources import PARSERS, WIDE_HEAD_LINES, detect_format_in, get_parser, split_branches
from memlens.engine.sources.base import ParseResult, TranscriptParser, TranscriptRecord
from memlens.engine.sources.common import REPLACED_REASON, errors_before_line
from memlens.engine.sources.tool_output import scored_text
from memlens.engine.terminal_codes import without_terminal_codes
from memlens.engine.text_encoding import decode_counted, sniff_json_encoding
from memlens.settings import ChunkingSettings

MEMORY_FORMAT = "markdown"  # the format a memory note is recorded under (files.format), as `stats` lists it

HEAD_BYTES = 4096
STREAM_BLOCK = 16 * 1024 * 1024
MAX_CARRY_BLOCKS = 4  # a record still open at a block's end is carried into the next block up to this size
MAX_UNIT_CHARS = 64_000  # no unit is longer: a longer message is split into several units (parts)
MAX_MESSAGE_CHARS = 2_000_000  # a message's text past this (a pasted 10 MB log) is not indexed; the file keeps it
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
EMBED_TEXT_CHARS = 2000  # the model reads ~256 word pieces; more text only costs time


@dataclass(slots=True)
class UnitSpec:
    kind: str  # memory | transcript | summary | tool
    text: str
    embed_text: str
    message_id: str | None = None
    role: str | None = None
    ts: float | None = None
    position: int | None = None
    line_end: int | None = None
    uuid: str | None = None
    error: bool = False  # a tool result that failed (sources/tool_output.py)
    part: int = 0  # which part of its message (TranscriptRecord.part): what counts it once (message_count.py)

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
    agent_id: str | None = None  # a chunk of a sidechain stored as its own subagent session (FileContent.subsessions)

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
    replaced: int = 0  # characters read as U+FFFD: invalid bytes, NULs, lone surrogates (their messages are kept)
    errors: list[str] = field(default_factory=list)
    parsed_bytes: int = 0
    next_line: int = 1
    head_digest: str = ""  # what was read, hashed at both ends (file_reader.read_digest): detects a rewrite
    subsessions: list[SessionSpec] = field(default_factory=list)  # sidechains in this file, by agent_id
    orphaned: int = 0  # messages kept by the broken-chain rule (sources.branches)
    # incremental parsing: where the next append is parsed from (see ParseResult.resume_line), and for an append,
    # the line from which the stored units are replaced by this content's
    resume_line: int = 1
    resume_bytes: int = 0
    anchor_ids: list[str] = field(default_factory=list)
    replace_from_line: int | None = None
    # the read stopped at a record boundary before the file's end (one slice of a huge transcript): the catalog
    # records the file as `parsed_bytes` long, so the rest is read as an append to a file that had that length
    cut: bool = False
    # a transcript holding no whole line but blank space (0 bytes, a truncation, only the start of its first line):
    # read by no parser, yet not of a format memlens cannot read; `stats` says it is empty
    empty: bool = False


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


def read_memory(
    data: bytes, chunking: ChunkingSettings, ts: float | None = None, *, max_bytes: int | None = None
) -> FileContent:
    """Chunk a memory note. `data` longer than `max_bytes` is indexed up to there, and the cut is reported in
    `errors` (the file's problems in stats)."""
    cut = max_bytes is not None and len(data) > max_bytes
    if cut:
        data = data[:max_bytes]
    decoded = decode_counted(data, cut=cut)
    text = without_terminal_codes(decoded.text)
    content = FileContent(kind="memory", format=MEMORY_FORMAT, parsed_bytes=len(data), replaced=decoded.replaced)
    if decoded.replaced:
        content.errors.append(f"{REPLACED_REASON} ({decoded.replaced})")
    if cut:
        content.errors.append(f"note cut: only its first {len(data):,} bytes are indexed (the limit for one note)")
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
    *,
    final: bool = False,
) -> ParseResult | None:
    """Parse with the parser for this file's format (sniffed unless given); None if no parser recognises it.
    `final`: the data ends where the file does and the file is quiet, so an unterminated last line is read too."""
    parser = get_parser(format_hint, parsers) if format_hint else detect_format_in(data, path, parsers)
    return parser.parse(data, path, start_line, final=final) if parser is not None else None


@dataclass(slots=True)
class StreamParse:
    """A whole file parsed block by block: the result, its complete lines, and where an append resumes."""

    result: ParseResult
    lines: int
    resume_line: int
    resume_bytes: int
    cut: bool = False  # stopped at a block's end past `stop_after` bytes, before the file's end


def resume_point(result: ParseResult, data: bytes, start_line: int, base: int, *, start_known: bool) -> tuple[int, int]:
    """(line, absolute byte offset) from which an append must be parsed again, for `data` parsed from `start_line`
    at byte `base`. A resume line at the data's first line is kept only when that line is `start_known` to be a
    good start (a file's first line, or a tail's resume line); otherwise the whole file is parsed again."""
    end_line = start_line + data.count(b"\n", 0, result.consumed_bytes)
    line = end_line if result.resume_line is None else min(max(result.resume_line, start_line), end_line)
    if line == start_line:
        return (start_line, base) if start_known else (1, 0)
    offset = -1
    for _ in range(line - start_line):
        offset = data.index(b"\n", offset + 1)
    return line, base + offset + 1


def parse_transcript_stream(
    handle: BinaryIO,
    path: Path,
    parsers: list[TranscriptParser] = PARSERS,
    block_bytes: int | None = None,
    *,
    final: bool = False,
    stop_after: int | None = None,
    stops: Collection[str] = (),
) -> StreamParse | None:
    """Parse a transcript block by block (of STREAM_BLOCK bytes unless told), so a huge file never sits in memory
    whole; `final` as for `parse_transcript` (it applies to the last block). With `stop_after`, a file of one of the
    formats `stops` is read only up to the end of the first block that ends past that many bytes (`cut`), where an
    append would resume: the rest is read as an append is. A file whose resume point is its start (no line named its
    session yet, a UTF-16 file) is read on to its end.

    A record still open at a block's end (a streamed assistant message, a Codex turn) is parsed again with the next
    block from its first line, as an append is, so a block boundary never splits a message or changes its id; a
    block that one open record fills is read together with the next (up to MAX_CARRY_BLOCKS blocks; a longer record
    is split there). Links that cross a block boundary through skipped lines cannot be resolved by the parser; such
    a record is attached to the last record before its block (transcripts grow linearly). None if no parser
    recognises it.
    """
    block_bytes = block_bytes or STREAM_BLOCK
    origin = handle.tell()
    data, ended, parser = _sniff(handle, b"", path, parsers, block_bytes)
    if parser is None and not ended and data.count(b"\n") < WIDE_HEAD_LINES:
        # first lines longer than a sniff holds (a 70 MB first prompt): the lines after them decide the format, and
        # the parse below reads every line from the first, as it reads a long line anywhere
        parser = _sniff_past_long_lines(handle, path, parsers, block_bytes)
        handle.seek(origin)
        data = handle.read(block_bytes)
        ended = len(data) < block_bytes
    if parser is None:
        return None
    encoding, bom = sniff_json_encoding(data)
    reader: BinaryIO | _AsUtf8 = handle
    if encoding != "utf-8":
        # UTF-16/32 is parsed as UTF-8: a block after the first has no byte-order mark to tell its encoding, and a
        # newline byte may sit inside a character (U+010A), so lines are cut and counted in UTF-8 only. An append's
        # resume offset would not be a file offset: the whole file is parsed again when it grows (such files come
        # from a tool that saves them whole)
        handle.seek(origin + bom)
        reader = _AsUtf8(handle, encoding)
        data = reader.read(block_bytes)
        ended = len(data) < block_bytes
    resumable = encoding == "utf-8"
    start_line, base = 1, 0
    total: ParseResult | None = None
    while True:
        result = parser.parse(data, path, start_line, final=final and ended)
        whole = ended or _leave_open_record(parser, result, data, path, start_line=start_line, base=base)
        if not whole and len(data) < MAX_CARRY_BLOCKS * block_bytes:  # one open record fills the block: read on
            more = reader.read(block_bytes)
            data, ended = data + more, len(more) < block_bytes
            continue
        if total is None:
            total = result
        else:
            _link_across_blocks(total.records, result.records)
            total.records.extend(result.records)
            total.bad_lines += result.bad_lines
            total.replaced += result.replaced
            total.errors.extend(result.errors[: max(0, 20 - len(total.errors))])
            total.consumed_bytes += result.consumed_bytes
            total.anchor_ids = result.anchor_ids
        resume = resume_point(result, data, start_line, base, start_known=start_line == 1)
        start_line += data.count(b"\n", 0, result.consumed_bytes)
        base += result.consumed_bytes
        if ended:
            if isinstance(reader, _AsUtf8):
                total.consumed_bytes = reader.file_offset(data[result.consumed_bytes :])
                total.replaced += reader.replaced
            return StreamParse(total, start_line - 1, *(resume if resumable else (1, 0)))
        if (
            stop_after is not None
            and resumable  # (the file is read as it is: its offsets are the file's)
            and handle.tell() - origin >= stop_after
            and parser.format in stops
            and resume[1] > 0
            and not total.session_from_path
        ):
            return StreamParse(total, start_line - 1, *resume, cut=True)
        more = reader.read(block_bytes)
        data, ended = data[result.consumed_bytes :] + more, len(more) < block_bytes


class _AsUtf8:
    """A UTF-16 or UTF-32 file (from its first character) read as UTF-8, `read(n)` returning n bytes until its end
    as a file's `read` does; characters it cannot decode become U+FFFD, counted in `replaced`."""

    def __init__(self, handle: BinaryIO, encoding: str) -> None:
        self._handle = handle
        self._encoding = encoding
        self._replacing = codecs.getincrementaldecoder(encoding)(errors="replace")
        self._dropping = codecs.getincrementaldecoder(encoding)(errors="ignore")
        self._buffer = b""
        self.replaced = 0

    def read(self, size: int) -> bytes:
        while len(self._buffer) < size:
            raw = self._handle.read(size)
            text = self._replacing.decode(raw, final=not raw)
            self.replaced += text.count("\ufffd") - self._dropping.decode(raw, final=not raw).count("\ufffd")
            self._buffer += text.encode("utf-8")
            if not raw:
                break
        given, self._buffer = self._buffer[:size], self._buffer[size:]
        return given

    def file_offset(self, unread: bytes) -> int:
        """At the file's end: the file offset where `unread`, the last bytes `read` returned, begins."""
        text = unread.decode("utf-8", errors="replace")
        return self._handle.tell() - len(text.encode(self._encoding, errors="replace"))


def _sniff(
    handle: BinaryIO, data: bytes, path: Path, parsers: list[TranscriptParser], block_bytes: int
) -> tuple[bytes, bool, TranscriptParser | None]:
    """(the data read, whether the file ended, the parser its lines name): `data` and the blocks after it, read on
    while first lines longer than a block are still open, up to MAX_CARRY_BLOCKS blocks."""
    more = handle.read(block_bytes)
    data, ended = data + more, len(more) < block_bytes
    parser = detect_format_in(data, path, parsers)
    while (
        parser is None
        and not ended
        and data.count(b"\n") < WIDE_HEAD_LINES
        and len(data) < MAX_CARRY_BLOCKS * block_bytes
    ):
        more = handle.read(block_bytes)  # first lines longer than a block: sniffed once they are whole
        data, ended = data + more, len(more) < block_bytes
        parser = detect_format_in(data, path, parsers)
    return data, ended, parser


def _sniff_past_long_lines(
    handle: BinaryIO, path: Path, parsers: list[TranscriptParser], block_bytes: int
) -> TranscriptParser | None:
    """The parser the lines after the open long line name, each long line passed over block by block (never held
    whole); None at the file's end or once WIDE_HEAD_LINES lines named none. UTF-8 only: in UTF-16 a newline byte
    may sit inside a character, and such a file's first line is sniffed within MAX_CARRY_BLOCKS blocks alone."""
    while block := handle.read(block_bytes):
        newline = block.find(b"\n")
        if newline < 0:
            continue  # still inside the long line
        handle.seek(newline + 1 - len(block), os.SEEK_CUR)
        data, ended, parser = _sniff(handle, b"", path, parsers, block_bytes)
        if parser is not None or ended or data.count(b"\n") >= WIDE_HEAD_LINES:
            return parser
    return None


def _leave_open_record(
    parser: TranscriptParser, result: ParseResult, data: bytes, path: Path, *, start_line: int, base: int
) -> bool:
    """Make `result` end where the record still open at its block's end starts (what it counted of the lines from
    there is taken back: the next block reads them again). False when that record starts at the block's start."""
    line, offset = resume_point(result, data, start_line, base, start_known=True)
    cut = offset - base
    if cut >= result.consumed_bytes:
        return True  # nothing open
    if cut <= 0:
        return False
    carried = parser.parse(data[cut : result.consumed_bytes], path, line)
    result.records = [r for r in result.records if r.position < line]
    result.bad_lines -= carried.bad_lines
    result.replaced -= carried.replaced
    result.errors = errors_before_line(result.errors, line)
    result.consumed_bytes = cut
    return True


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
    kind = record.kind if record.kind in ("summary", "tool") else "transcript"
    return UnitSpec(
        kind=kind,
        text=text,
        embed_text=scored_text(text, kind)[:EMBED_TEXT_CHARS],  # as the keyword index reads it: no call of a header
        message_id=record.message_id,
        role=record.role,
        ts=record.timestamp,
        position=record.position,
        uuid=record.uuid,
        error=record.error,
        part=record.part,
    )


def split_record(record: TranscriptRecord, max_chars: int) -> list[TranscriptRecord]:
    """A message longer than `max_chars` as several parts (same message id, position and time, numbered on from
    the record's own `part`: a stored part read back for an append stays a later part), so all of its text is
    searchable; each part becomes a unit of its own."""
    limit = max(1, min(max_chars, MAX_UNIT_CHARS))
    if len(record.text) <= limit:
        return [record]
    texts = split_text(record.text[:MAX_MESSAGE_CHARS], limit)
    return [dataclasses.replace(record, text=text, part=record.part + i) for i, text in enumerate(texts)]


def chunk_records(
    records: list[TranscriptRecord], chunking: ChunkingSettings, agent_id: str | None = None
) -> list[ChunkSpec]:
    part_chars = min(chunking.message_part_chars, chunking.max_chars)
    parts = [part for record in records for part in split_record(record, part_chars)]
    chunks: list[ChunkSpec] = []
    groups = group_messages(parts, chunking.gap_seconds, chunking.max_messages, chunking.max_chars)
    for group in groups:
        units = [record_unit(parts[i]) for i in group]
        positions = [u.position for u in units if u.position is not None]
        chunks.append(
            ChunkSpec(
                kind="summary" if units[0].kind == "summary" else "transcript",  # a tool result shares its chunk
                units=units,
                line_start=min(positions) if positions else None,
                line_end=max(positions) if positions else None,
                agent_id=agent_id,
            )
        )
    return chunks


def transcript_content(result: ParseResult, chunking: ChunkingSettings, active_only: bool = True) -> FileContent:
    """Chunks and units of a parsed transcript: with `active_only`, the records the branch rule keeps
    (sources.branches); sidechain records with an agent_id (SpecStory) go to subagent sessions of their own."""
    records = result.records
    orphaned = 0
    if active_only:
        selection = split_branches(records)
        records, orphaned = selection.records, selection.orphaned
    records = [r for r in records if r.text.strip()]
    main = [r for r in records if r.agent_id is None]
    side: dict[str, list[TranscriptRecord]] = {}
    for record in records:
        if record.agent_id is not None:
            side.setdefault(record.agent_id, []).append(record)
    session = SessionSpec(
        session_id=result.session_id,
        format=result.format,
        parent_session_id=result.parent_session_id,
        agent_id=result.agent_id,
        cwd=result.cwd,
        title=result.title,
    )
    chunks = chunk_records(main, chunking)
    subsessions = []
    for agent_id, agent_records in side.items():
        subsessions.append(
            SessionSpec(result.session_id, result.format, result.session_id, agent_id, result.cwd, result.title)
        )
        chunks += chunk_records(agent_records, chunking, agent_id)
    return FileContent(
        kind="transcript",
        format=result.format,
        chunks=chunks,
        session=session,
        records=records,
        bad_lines=result.bad_lines,
        replaced=result.replaced,
        errors=list(result.errors),
        parsed_bytes=result.consumed_bytes,
        subsessions=subsessions,
        orphaned=orphaned,
        anchor_ids=list(result.anchor_ids),
    )
