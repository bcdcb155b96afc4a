"""Reads one changed file into parsed content: a memory note, a whole transcript (streamed block by block), or only
the tail appended since the last sync when the file simply grew. Parsing only: the index writer (indexer.py) records
what cannot be read and stores what this returns.

A last line without a newline may still be being written, so it waits, unread, while the file keeps changing; once
the file has been quiet for QUIET_SECONDS (or for `reindex`, when the file is not growing) it is read like any other
line. Its record is then the file's open end: the next append is parsed again from that line's start (it may turn
out to continue that line, or to have been its newline), so nothing is stored twice or lost.

A huge transcript of a format read append-wise is read a slice at a time (SLICE_BYTES, ending at a record boundary):
each slice is content `cut` there, which the writer records as a file that long, and the next slice is read as an
append to it. The indexer commits each slice before it reads the next, so a cancel waits for one slice at most and
keeps what was read; the next sync goes on from there as it reads a file that grew."""

from __future__ import annotations

import errno
import json
import os
import time
from pathlib import Path
from typing import BinaryIO

from memlens.engine.catalog import FileRow, FileState
from memlens.engine.indexing.discovery import MEMORY, SourceFile, not_a_file
from memlens.engine.indexing.file_identity import same_file
from memlens.engine.indexing.ingest import (
    HEAD_BYTES,
    FileContent,
    head_hash,
    note_date,
    parse_transcript,
    parse_transcript_stream,
    read_memory,
    resume_point,
    transcript_content,
)
from memlens.engine.sources import continues_branch, make_parsers
from memlens.settings import ChunkingSettings

# what one slice of a huge transcript reads (past what an append parses again): a cancel waits for its parsing,
# redaction and storing at most, about 2.5 s of CPU (0.43 s to parse 16 MB, 0.7 s to redact it, the rest to store
# it); a stop 15 s into a 300 MB session took 0.7 s of CPU (bench/big_transcript_stop.py)
SLICE_BYTES = 16 * 1024 * 1024
MAX_MEMORY_BYTES = 64 * 1024 * 1024  # a bigger note is indexed up to there, and the cut is reported
APPENDABLE = {"claude-code", "codex", "openclaw"}
END_BYTES = 4096  # the last bytes a read took, hashed with the head: changed, the file was rewritten, not appended
QUIET_SECONDS = 2.0  # a file unchanged this long has its unterminated last line read (the watcher re-checks then)


def is_quiet(stat: os.stat_result, now: float | None = None) -> bool:
    """Whether a file has not changed for QUIET_SECONDS."""
    return (time.time() if now is None else now) - stat.st_mtime >= QUIET_SECONDS


def read_digest(handle: BinaryIO, head: bytes, parsed_bytes: int) -> str:
    """The hashes of the first HEAD_BYTES and of the last END_BYTES of the file's first `parsed_bytes`: a file that
    grew with both unchanged was appended to; one rewritten longer (same head, another ending) is read whole."""
    start = max(min(HEAD_BYTES, parsed_bytes), parsed_bytes - END_BYTES)
    handle.seek(start)
    end = handle.read(parsed_bytes - start)
    return f"{head_hash(head[: min(HEAD_BYTES, parsed_bytes)])}:{head_hash(end)}"


def tail_waiting(row: FileState, stat: os.stat_result) -> bool:
    """Whether the last read of this unchanged transcript stopped before its end (an unterminated last line that
    was still settling, or more than one read takes): it is read again once the file is quiet."""
    return row.kind == "transcript" and bool(row.format) and 0 < row.parsed_bytes < row.size == stat.st_size


class FileReader:
    """Parses files with one chunking configuration and the parsers it implies."""

    def __init__(self, chunking: ChunkingSettings) -> None:
        self.chunking = chunking
        self.parsers = make_parsers(chunking.tool_input_max_chars)

    def read(
        self,
        source: SourceFile,
        row: FileRow | None,
        stat: os.stat_result,
        *,
        settled: bool = False,
        whole: bool = False,
    ) -> tuple[FileContent, bool]:
        """(content, whether it is only an appended tail) of a changed file, `row` being what the catalog recorded
        of it. An unterminated last line is read when the file is quiet, or `settled` (reindex) and not growing.
        A huge transcript is read one slice at a time (`FileContent.cut`; the module says how), unless `whole`.
        Raises OSError when the file cannot be read; any other exception means it could not be parsed."""
        kind = not_a_file(os.stat(source.path).st_mode)  # now: it may have been replaced since the walk
        if kind is not None:  # opening a FIFO would wait for a writer, holding the index's one writer
            raise OSError(errno.EINVAL, f"{kind}, not a regular file")
        with source.path.open("rb") as handle:
            now = os.fstat(handle.fileno())
            unchanged = (now.st_size, now.st_mtime_ns) == (stat.st_size, stat.st_mtime_ns)
            final = unchanged and (settled or is_quiet(stat))
            head = handle.read(HEAD_BYTES)
            handle.seek(0)
            content, appended = self._read_open(source, row, stat, handle, head, final=final, whole=whole)
            content.head_digest = read_digest(handle, head, content.parsed_bytes)
        return content, appended

    def _read_open(
        self,
        source: SourceFile,
        row: FileRow | None,
        stat: os.stat_result,
        handle: BinaryIO,
        head: bytes,
        *,
        final: bool,
        whole: bool,
    ) -> tuple[FileContent, bool]:
        """A note whole (up to MAX_MEMORY_BYTES); a transcript from its resume point when it only grew and its head is
        unchanged, else from its start; a transcript no parser recognises as empty content of no format (stats lists
        it). Unless `whole`, an appended tail is read a slice at a time, and so is a transcript never read before (a
        file read before and not only grown is read to its end: its slices would not continue what is stored)."""
        path = source.path
        if source.kind == MEMORY:
            data = handle.read(MAX_MEMORY_BYTES + 1)
            return read_memory(data, self.chunking, note_date(path), max_bytes=MAX_MEMORY_BYTES), False
        if self._can_append(row, stat) and row is not None:
            if read_digest(handle, head, row.parsed_bytes) == row.head_hash:
                handle.seek(row.resume_bytes)
                rest = max(0, stat.st_size - row.resume_bytes)
                # a slice past what is parsed again, to the end of a line: each slice reads on from the last
                tail = handle.read(rest if whole else min(rest, row.parsed_bytes - row.resume_bytes + SLICE_BYTES))
                if len(tail) < rest and not tail.endswith(b"\n"):
                    tail += handle.readline()
                cut = len(tail) < rest
                appended = self._parse_tail(path, row, tail, final=final and not cut)
                if appended is not None:
                    appended.cut = cut
                    return appended, True
            handle.seek(0)
        first_read = row is None or row.parsed_bytes <= 0  # (reindex --full reads every file from its start)
        stop_after = SLICE_BYTES if first_read and not whole else None
        parsed = parse_transcript_stream(
            handle, path, self.parsers, final=final, stop_after=stop_after, stops=APPENDABLE
        )
        if parsed is None:
            empty = holds_no_line(head, stat.st_size)
            return FileContent(kind="transcript", format="", parsed_bytes=stat.st_size, empty=empty), False
        content = transcript_content(parsed.result, self.chunking)
        content.next_line = 1 + parsed.lines
        content.resume_line, content.resume_bytes = parsed.resume_line, parsed.resume_bytes
        content.cut = parsed.cut
        if parsed.result.session_from_path:  # the session id may still come: the next append re-parses it all
            content.resume_line, content.resume_bytes = 1, 0
        return content, False

    def _can_append(self, row: FileRow | None, stat: os.stat_result) -> bool:
        return (
            row is not None
            and row.format in APPENDABLE
            and row.session_key is not None
            and 0 < row.parsed_bytes <= stat.st_size
            and 0 < row.resume_bytes <= row.parsed_bytes  # 0: the next append is parsed with the whole file
            and row.orphaned == 0  # broken links: the whole file is parsed again, so orphan counts stay exact
            and stat.st_size != row.size  # same size yet changed: rewritten, maybe anywhere (file_identity.py)
            and same_file(row, stat)  # another file renamed over this name is read whole
        )

    def _parse_tail(self, path: Path, row: FileRow, tail: bytes, *, final: bool) -> FileContent | None:
        """Parse the file from its resume point (the start of the last record an append may continue) to the end;
        None when the result would not simply continue the active branch (the whole file is parsed again)."""
        result = parse_transcript(tail, path, row.resume_line, row.format, self.parsers, final=final)
        anchors: list[str] = json.loads(row.anchor_ids or "[]")
        if result is None or not continues_branch(result.records, anchors):
            return None
        content = transcript_content(result, self.chunking, active_only=False)
        content.anchor_ids = content.anchor_ids or anchors  # no record before the new resume point: same anchor
        overlap = row.parsed_bytes - row.resume_bytes
        if overlap > 0 and (row.bad_lines or row.replaced):  # the lines parsed again were counted already
            # as the last read saw them: `final` reproduces an unterminated last line it read (it ended there)
            earlier = parse_transcript(tail[:overlap], path, row.resume_line, row.format, self.parsers, final=True)
            content.bad_lines -= earlier.bad_lines if earlier is not None else 0
            content.replaced -= earlier.replaced if earlier is not None else 0
        content.parsed_bytes = row.resume_bytes + result.consumed_bytes
        content.next_line = row.resume_line + tail.count(b"\n", 0, result.consumed_bytes)
        content.resume_line, content.resume_bytes = resume_point(
            result, tail, row.resume_line, row.resume_bytes, start_known=True
        )
        content.replace_from_line = row.resume_line
        return content


BLANK = b" \t\r\n\f\v\x00"  # what a file holding nothing else is empty of (NULs: the zeros a crash leaves)
BYTE_ORDER_MARKS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")


def holds_no_line(head: bytes, size: int) -> bool:
    """Whether a transcript of `size` bytes starting with `head` holds nothing to read: blank space, a byte-order
    mark, and at most the start of a first line still being written (no newline ends it)."""
    if size > len(head):  # (longer than a head: a first line that long is not one being started)
        return False
    for mark in BYTE_ORDER_MARKS:
        head = head.removeprefix(mark)
    whole = head[: head.rfind(b"\n") + 1]
    return not whole.strip(BLANK)
