"""The changes made to the vector rows since the vector file was written, appended beside it.

Rewriting the whole vector file after a watcher's append cost what the index holds (at 150k units, most of an
append's time); so a change is appended here instead (`vectors-<model>.log`): the ids a step removed and the rows
it added, as VectorIndex.update made them, and with each record the catalog stamp the file and its log now reflect.
The vector file is written afresh (compacted) only now and then (vector_index.py), and a fresh file starts an empty
log. Opening an index replays the log over the mapped file instead of reading the catalog.

The log belongs to one vector file: its first bytes name the file's `log_id` (a random id in the file's header),
and a log naming another is ignored. Each record is framed (length, CRC-32) and written with one append; a record
cut short or damaged ends the log there and marks it torn, and a torn log is not trusted: the catalog's state is
past what it holds, so the caller matches the rows of the file and the whole records to the catalog's units as for
any stale file (vector_index.reconciled): what the lost records held is embedded again.

Record: b"MLVR", payload length and CRC-32 (little-endian u32 each), then the payload: a u32 length, a JSON header
(stamp, and per step the counts and category tables) and each step's arrays in `_ARRAYS` order.
"""

from __future__ import annotations

import json
import os
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlens.engine.lazy import lazy_module
from memlens.engine.vectors.labels import Labels, Names
from memlens.engine.vectors.quantized_rows import remainder_width

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_module("numpy")

MAGIC = b"MLVLOG04"  # 04: each row's text hash (03: without; 02: remainders in sixteenths; 01: float16 rows): not read
HASH_BYTES = 20  # as vector_file.HASH_BYTES
RECORD = b"MLVR"
FRAME = struct.Struct("<4sII")
CATEGORIES = ("kind", "format", "role", "session")


@dataclass(frozen=True)
class LogStep:
    """One VectorIndex.update: the ids whose rows went (the re-added ones among them), then the rows added."""

    removed: np.ndarray  # int64 [r]
    ids: np.ndarray  # int64 [m]
    ts: np.ndarray  # float64 [m]
    seq: np.ndarray  # int64 [m]
    scales: np.ndarray  # float32 [m]
    codes: np.ndarray  # uint8 [m, dim / 8]
    values: np.ndarray  # int8 [m, dim]
    remainders: np.ndarray  # uint8 [m, remainder_width(dim)] (quantized_rows.pack_remainders)
    hashes: np.ndarray  # uint8 [m, HASH_BYTES]: each added row's text hash (vector_file.text_hash_bytes)
    categories: dict[str, Labels]  # one per name in CATEGORIES

    @property
    def added(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class LogContents:
    stamp: str | None  # the last record's stamp (None: no record)
    steps: list[LogStep]
    torn: bool  # a record was cut short or damaged: what follows it is lost
    size: int  # bytes up to the end of the last whole record


def log_for(vector_path: Path) -> Path:
    return vector_path.with_suffix(".log")


def start(path: Path, log_id: str) -> None:
    """An empty log for the vector file with `log_id` (written aside, then renamed over any older log)."""
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        with tmp.open("wb") as out:
            out.write(MAGIC + log_id.encode("ascii"))
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def append(path: Path, log_id: str, *, stamp: str, steps: Sequence[LogStep]) -> int:
    """Append one record (the steps, then the stamp they bring the file to); the log's size after it. The record is
    on disk when this returns (fsync): the writer marks units ready in the catalog only after their rows are here
    (vector_writer.py). A failed write is cut back off, so the log never keeps half a record it could be extended
    after."""
    payload = _encode(stamp, steps)
    frame = FRAME.pack(RECORD, len(payload), zlib.crc32(payload))
    with path.open("r+b") as handle:
        head = handle.read(len(MAGIC) + len(log_id))
        if head != MAGIC + log_id.encode("ascii"):
            raise ValueError(f"{path} belongs to another vector file")
        end = handle.seek(0, os.SEEK_END)
        try:
            handle.write(frame + payload)
            handle.flush()
            os.fsync(handle.fileno())
        except BaseException:
            handle.truncate(end)
            raise
        return end + len(frame) + len(payload)


def read(path: Path, log_id: str, dim: int) -> LogContents | None:
    """The records of the log of the vector file `log_id` (None: no log, or one for another file)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    start_at = len(MAGIC) + len(log_id)
    if data[:start_at] != MAGIC + log_id.encode("ascii"):
        return None
    stamp: str | None = None
    steps: list[LogStep] = []
    offset = start_at
    while offset < len(data):
        if len(data) - offset < FRAME.size:
            return LogContents(stamp, steps, True, offset)
        tag, length, crc = FRAME.unpack_from(data, offset)
        payload = data[offset + FRAME.size : offset + FRAME.size + length]
        if tag != RECORD or len(payload) != length or zlib.crc32(payload) != crc:
            return LogContents(stamp, steps, True, offset)
        try:
            record_stamp, record_steps = _decode(payload, dim)
        except (ValueError, KeyError, TypeError):
            return LogContents(stamp, steps, True, offset)
        stamp = record_stamp
        steps += record_steps
        offset += FRAME.size + length
    return LogContents(stamp, steps, False, offset)


_ARRAYS = (("removed", "<i8"), ("ids", "<i8"), ("ts", "<f8"), ("seq", "<i8"), ("scales", "<f4"))


def _encode(stamp: str, steps: Sequence[LogStep]) -> bytes:
    parts: list[bytes] = []
    described: list[dict[str, Any]] = []
    for step in steps:
        tables: dict[str, list[str]] = {}
        indexes: list[bytes] = []
        for name in CATEGORIES:
            index, tables[name] = step.categories[name].compact()
            indexes.append(np.ascontiguousarray(index, dtype="<i4").tobytes())
        described.append({"removed": len(step.removed), "added": step.added, "tables": tables})
        for name, dtype in _ARRAYS:
            parts.append(np.ascontiguousarray(getattr(step, name), dtype=dtype).tobytes())
        parts.append(np.ascontiguousarray(step.codes, dtype=np.uint8).tobytes())
        parts.append(np.ascontiguousarray(step.values, dtype=np.int8).tobytes())
        parts.append(np.ascontiguousarray(step.remainders, dtype=np.uint8).tobytes())
        parts.append(np.ascontiguousarray(step.hashes, dtype=np.uint8).tobytes())
        parts += indexes
    header = json.dumps({"stamp": stamp, "steps": described}, separators=(",", ":")).encode()
    return struct.pack("<I", len(header)) + header + b"".join(parts)


def _decode(payload: bytes, dim: int) -> tuple[str, list[LogStep]]:
    (length,) = struct.unpack_from("<I", payload)
    header = json.loads(payload[4 : 4 + length])
    offset = 4 + length
    code_width = (dim + 7) // 8

    def take(dtype: str, count: int, width: int = 1) -> np.ndarray:
        nonlocal offset
        nbytes = count * width * np.dtype(dtype).itemsize
        if offset + nbytes > len(payload):
            raise ValueError("record shorter than its header says")
        array = np.frombuffer(payload, dtype=dtype, count=count * width, offset=offset)
        offset += nbytes
        return array.reshape(count, width) if width > 1 else array

    steps: list[LogStep] = []
    for step in header["steps"]:
        removed, added = int(step["removed"]), int(step["added"])
        arrays = {name: take(dtype, removed if name == "removed" else added) for name, dtype in _ARRAYS}
        codes = take("u1", added, code_width).reshape(added, code_width)
        values = take("i1", added, dim).reshape(added, dim)
        remainders = take("u1", added, remainder_width(dim)).reshape(added, remainder_width(dim))
        hashes = take("u1", added, HASH_BYTES).reshape(added, HASH_BYTES)
        categories: dict[str, Labels] = {}
        for name in CATEGORIES:
            table = [str(label) for label in step["tables"][name]]
            index = take("<i4", added)
            if len(index) and (index.min() < 0 or index.max() >= len(table)):
                raise ValueError(f"{name} codes out of range")
            categories[name] = Labels(index.astype(np.int32), Names(table))
        steps.append(
            LogStep(
                removed=arrays["removed"].astype(np.int64),
                ids=arrays["ids"].astype(np.int64),
                ts=arrays["ts"].astype(np.float64),
                seq=arrays["seq"].astype(np.int64),
                scales=arrays["scales"].astype(np.float32),
                codes=codes,
                values=values,
                remainders=remainders,
                hashes=hashes,
                categories=categories,
            )
        )
    if offset != len(payload):
        raise ValueError("record longer than its header says")
    return str(header["stamp"]), steps
