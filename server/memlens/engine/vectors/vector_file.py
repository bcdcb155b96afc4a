"""The vectors of the index's units, on disk beside the catalog: their one stored copy, opened at start.

Reading 150k vectors from SQLite row by row was most of a 100k warm start (1.7 s CPU) and its float copy most of its
memory. This file holds each unit's row (its id, its vector as an int8 row with its scale and each value's 4-bit
remainder (quantized_rows.py), its sign code and the columns filters need) in one flat layout: the int8 rows a search
re-ranks are mapped read-only while they are at most MAP_VALUES_BYTES and read with pread past that, the remainders of
the few it returns are read with pread (quantized_rows.FileRows), the small columns (ids, scales, codes, metadata) are
read into memory and checksummed. No float copy of a vector is kept here. Each row keeps its text's hash (20 bytes): a
row is the vector of that text whichever unit it was made for, so rows outlive a re-parse that gives their units new
ids, and a row whose id SQLite handed to another text is never taken for that text's (vector_index.reconciled).

Its header carries the catalog stamp it reflects (`Catalog.vector_stamp`), the model and the dimension; a file whose
stamp disagrees is repaired by the writer (its rows matched to the units again), one of another model, dimension or
size, truncated or damaged holds nothing (`read` returns None): its units are embedded again. It is written whole to a
temporary file and renamed over the old one, so a reader sees the old or the new; the changes after it go to its log
(vector_log.py), whose last record carries the stamp on (`read_current`).

Layout: 8-byte magic, 4-byte little-endian header length, a JSON header, then page-aligned sections.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import logging
import mmap
import os
import re
import struct
import uuid
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Literal

from memlens.engine.lazy import lazy_module
from memlens.engine.vectors import vector_log
from memlens.engine.vectors.labels import Labels, Names
from memlens.engine.vectors.quantized_rows import FileRows, QuantizedRows, code_width, remainder_width, scan_width

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_module("numpy")

log = logging.getLogger(__name__)

# 07: the sign codes stored at the width the scan reads (quantized_rows.scan_width); a file of an older layout is
# rebuilt (06: codes of dim / 8 bytes, read still: padded as they are read; 05: without the rows' text hashes; 04:
# remainders in sixteenths, 03: with float16 rows, 02: with float32 rows, 01: float32 rows only)
MAGIC = b"MLVEC07\n"
NARROW_CODES_MAGIC = b"MLVEC06\n"  # read as it is (its codes padded in memory) until the file is next written
HASHLESS_MAGIC = b"MLVEC05\n"  # the 06 layout without the hashes: read only to move a catalog's vectors into a file
FAMILY = b"MLVEC"
ALIGN = 4096
WRITE_ROWS = 8192  # the matrix is written in slices of this many rows: never a second full copy in memory
CATEGORIES = ("kind", "format", "role", "session")
NUMBERS = (("ids", "<i8"), ("ts", "<f8"), ("seq", "<i8"), ("scales", "<f4"))
HASH_BYTES = 20  # a row's text hash: the sha1 the catalog keeps as `units.embed_text_hash`, in binary
SMALL = (*(name for name, _ in NUMBERS), "codes", "hashes", *CATEGORIES)  # mapped, checksummed in this order...
# ...but the hashes: only the writer reads them (a new unit's text looked up, a file matched to the catalog's units),
# so a process that opens the index to search never reads their pages (20 MB at a million rows); a damaged hash
# matches no text, and its unit is embedded again
UNCHECKED = frozenset({"hashes"})
# A search re-ranks 1,000 int8 rows spread over the whole file. Mapped, they cost nothing to read once resident, but
# all of them end up resident (the kernel maps a touched row's whole folio): 359 MB at 980,000 rows after a few
# hundred searches. Read with pread, nothing stays resident, and each row costs a read (1,000 rows: about 1.2 ms CPU
# a search, bench/vector_rows_ab.py). So the rows are mapped while that costs at most this much memory (174k rows of
# 384 dimensions), and read past it.
MAP_VALUES_BYTES = 64 << 20


@dataclass(frozen=True)
class StoredRows:
    """What the file holds: the int8 rows are mapped or read on demand, their remainders read on demand, everything
    else is in memory."""

    ids: np.ndarray
    matrix: QuantizedRows
    codes: np.ndarray
    ts: np.ndarray
    seq: np.ndarray
    categories: dict[str, Labels]  # one per name in CATEGORIES
    hashes: np.ndarray | None  # uint8 [n, HASH_BYTES]: each row's text hash (text_hash_bytes); None: HASHLESS_MAGIC
    stamp: str = ""  # the catalog stamp the file was written at
    log_id: str = ""  # names the file's log of later changes (vector_log.py); "" in a file from before logs
    older_layout: bool = False  # read from a file of a layout before MAGIC (written afresh at the next compaction)


def file_for(directory: Path, model: str) -> Path:
    return directory / f"vectors-{re.sub(r'[^A-Za-z0-9._-]+', '_', model)}.bin"


def text_hash_bytes(text_hash: str) -> bytes:
    """A unit's text hash (`units.embed_text_hash`, the sha1's hex) as a row of the file keeps it: its 20 bytes. A
    hash of another form (never made by the indexer) is hashed again, so equal hashes still give equal bytes."""
    if len(text_hash) == 2 * HASH_BYTES:
        try:
            return bytes.fromhex(text_hash)
        except ValueError:
            pass
    return hashlib.sha1(text_hash.encode("utf-8", "surrogatepass")).digest()


def _aligned(offset: int) -> int:
    return -(-offset // ALIGN) * ALIGN


def write(
    path: Path,
    *,
    stamp: str,
    model: str,
    ids: np.ndarray,
    row_slices: Iterable[QuantizedRows],
    codes: np.ndarray,
    hashes: np.ndarray,
    ts: np.ndarray,
    seq: np.ndarray,
    categories: dict[str, Labels],
) -> str:
    """Write atomically (temporary file, then rename), then start its empty log; returns the log's id.
    `row_slices`: the rows in order, a slice at a time, adding up to len(ids); `codes` is [n, dim / 8] (kept padded
    to the scan's width) or at that width already, `hashes` [n, HASH_BYTES]. The header goes in last: its checksum
    covers the scales, which are only known once every slice has been written. The file's bytes reach the disk
    before its name does, and its name before the call returns: a row the catalog counts as stored is never only in
    the OS's cache."""
    count, stored_width = int(len(ids)), int(codes.shape[1])
    small: dict[str, np.ndarray] = {
        "ids": np.ascontiguousarray(ids, dtype="<i8"),
        "ts": np.ascontiguousarray(ts, dtype="<f8"),
        "seq": np.ascontiguousarray(seq, dtype="<i8"),
        "codes": _padded_codes(np.asarray(codes, dtype=np.uint8), count=count, width=stored_width),
        "hashes": np.ascontiguousarray(hashes, dtype=np.uint8),
    }
    if small["hashes"].shape != (count, HASH_BYTES):
        raise ValueError(f"hashes of shape {small['hashes'].shape} for {count} rows")
    tables: dict[str, list[str]] = {}
    for name in CATEGORIES:  # each name in use once, in order of first use
        codes_in_use, tables[name] = categories[name].compact()
        small[name] = np.ascontiguousarray(codes_in_use, dtype="<i4")
    slices = iter(row_slices)
    first = next(slices, None)
    dim = first.dim if first is not None else stored_width * 8
    sizes = _section_sizes(count, dim)
    log_id = uuid.uuid4().hex
    header: dict[str, Any] = {"model": model, "stamp": stamp, "count": count, "dim": dim, "tables": tables}
    header["log"] = log_id
    header["crc"] = "0" * 8  # fixed width: the real checksum replaces it without moving anything
    sections: dict[str, list[int]] = {}
    for _ in range(2):  # sizes first, then offsets (the header's own length decides where the sections start)
        header_bytes = json.dumps({**header, "sections": sections}, separators=(",", ":")).encode()
        offset = _aligned(len(MAGIC) + 4 + len(header_bytes))
        sections = {}
        for name in sizes:
            sections[name] = [offset, sizes[name]]
            offset = _aligned(offset + sizes[name])
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        with tmp.open("wb") as out:
            scales: list[np.ndarray] = []
            written = 0
            for part in itertools.chain([first], slices) if first is not None else ():  # one slice at a time
                out.seek(sections["values"][0] + written * dim)
                out.write(np.ascontiguousarray(part.values_array(), dtype=np.int8).data)  # the slice itself, no copy
                out.seek(sections["remainders"][0] + written * remainder_width(dim))
                out.write(np.ascontiguousarray(part.remainders_array(), dtype=np.uint8).data)
                scales.append(np.asarray(part.scales, dtype="<f4"))
                written += len(part)
            small["scales"] = np.concatenate(scales) if scales else np.empty(0, "<f4")
            if len(small["scales"]) != count:
                raise ValueError(f"matrix has {len(small['scales'])} rows for {count} ids")
            checksum = 0
            for name in SMALL:
                out.seek(sections[name][0])
                out.write(small[name].data)  # contiguous: written and checksummed without a copy
                if name not in UNCHECKED:
                    checksum = zlib.crc32(small[name].data, checksum)
            out.truncate(offset)
            header_bytes = json.dumps(
                {**header, "crc": f"{checksum:08x}", "sections": sections}, separators=(",", ":")
            ).encode()
            if len(MAGIC) + 4 + len(header_bytes) > sections["values"][0]:
                raise RuntimeError("vector file header outgrew its first pages")  # cannot happen: sizes are fixed
            out.seek(0)
            out.write(MAGIC + struct.pack("<I", len(header_bytes)) + header_bytes)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
        sync_directory(path.parent)
    finally:
        tmp.unlink(missing_ok=True)
    vector_log.start(vector_log.log_for(path), log_id)  # a crash before this leaves the old log, naming another file
    return log_id


def sync_directory(directory: Path) -> None:
    """Make a rename in `directory` durable (its entry on disk); a platform that cannot open a folder skips it."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def read(path: Path, *, stamp: str | None, model: str, dim: int, hashless: bool = False) -> StoredRows | None:
    """The rows, or None when the file is missing, stale (stamp, model, dimension) or damaged: never raises.
    `stamp` None: whatever stamp the file records (its log may carry it on). `hashless`: a file of the layout before
    the hashes is read too (its `hashes` None)."""
    try:
        return _read(path, stamp=stamp, model=model, dim=dim, hashless=hashless)
    except FileNotFoundError:
        return None
    except Exception as exc:  # damaged in any way: its units are embedded again
        log.warning(
            "vector file %s is unreadable (%s: %s); its units wait to be embedded", path, type(exc).__name__, exc
        )
        return None


def read_current(
    path: Path, *, stamp: str, model: str, dim: int
) -> tuple[StoredRows, vector_log.LogContents | None] | None:
    """The file's rows and its log's changes when together they are at `stamp`; None when they are missing,
    stale, damaged, or the log is torn (the catalog moved past what it holds): never raises."""
    rows = read(path, stamp=None, model=model, dim=dim)
    if rows is None:
        return None
    changes = _log_at(path, stamp=stamp, file_stamp=rows.stamp, log_id=rows.log_id, dim=dim)
    return None if changes is False else (rows, changes)


def is_current(path: Path, *, stamp: str, model: str, dim: int) -> bool:
    """Whether `read_current` would find the file and its log at `stamp`, from the file's header and the log alone:
    never its columns. The writer asks this to learn whether the file lost rows the catalog marks as held
    (vector_writer.pending); loading a million rows to learn that none were lost was most of a `memlens index` that
    found nothing changed. Damage inside the columns, which only their checksum shows, is not seen here: the file's
    next read finds it and matches its rows to the units again, as it does for any damaged file. Never raises."""
    try:
        with path.open("rb") as handle:
            header = _header(handle, stamp=None, model=model, dim=dim, hashless=False)
    except FileNotFoundError:
        return False
    except Exception as exc:  # damaged in any way: the read that matches it again says how
        log.debug("vector file %s header unreadable: %s", path, exc)
        return False
    if header is None:
        return False
    changes = _log_at(path, stamp=stamp, file_stamp=header.stamp, log_id=header.log_id, dim=dim)
    return changes is not False


def _log_at(
    path: Path, *, stamp: str, file_stamp: str, log_id: str, dim: int
) -> vector_log.LogContents | None | Literal[False]:
    """The log's changes (None: a file without a log, or no log) when the file and its log reach `stamp`; False when
    they do not, or the log is unreadable or torn."""
    changes: vector_log.LogContents | None = None
    if log_id:
        try:
            changes = vector_log.read(vector_log.log_for(path), log_id, dim)
        except OSError as exc:
            log.warning("vector log beside %s is unreadable (%s); matching its rows to the catalog's units", path, exc)
            return False
    if changes is not None and changes.torn:
        log.info("vector log beside %s ends in a damaged record; matching its rows to the catalog's units", path)
        return False
    reached = changes.stamp if changes is not None and changes.stamp is not None else file_stamp
    if reached != stamp:
        log.info("vector file %s is behind the catalog; rebuilding it", path)
        return False
    return changes


@dataclass(frozen=True)
class _Header:
    """What a file's header says, checked against the file's size and the layout of its row count."""

    fields: dict[str, Any]
    hashed: bool  # MAGIC or NARROW_CODES_MAGIC, not HASHLESS_MAGIC
    padded: bool  # MAGIC: the codes at the scan's width; else at dim / 8 bytes
    count: int
    sections: dict[str, list[int]]

    @property
    def stamp(self) -> str:
        return str(self.fields["stamp"])

    @property
    def log_id(self) -> str:
        return str(self.fields.get("log", ""))


def _header(handle: BinaryIO, *, stamp: str | None, model: str, dim: int, hashless: bool) -> _Header | None:
    """The header of the open file, or None when it is of an older layout, another model or dimension, or (with
    `stamp`) another stamp; raises when it is not a vector file or its sections disagree with its size or count."""
    size = os.fstat(handle.fileno()).st_size
    head = handle.read(len(MAGIC) + 4)
    magic = head[: len(MAGIC)]
    padded, hashed = magic == MAGIC, magic in (MAGIC, NARROW_CODES_MAGIC)
    if not hashed and not (hashless and magic == HASHLESS_MAGIC):
        if head.startswith(FAMILY):
            log.info("vector file %s has an older layout; rebuilding it", handle.name)
            return None
        raise ValueError("not a memlens vector file")
    (length,) = struct.unpack("<I", head[len(MAGIC) :])
    header = json.loads(handle.read(length))
    if (stamp is not None and header["stamp"] != stamp) or header["model"] != model:
        log.info("vector file %s is behind the catalog; rebuilding it", handle.name)
        return None
    count = int(header["count"])
    if count and int(header["dim"]) != dim:
        log.info("vector file %s has dimension %s, not %s; rebuilding it", handle.name, header["dim"], dim)
        return None
    sections = header["sections"]
    for name, (offset, nbytes) in sections.items():
        if offset + nbytes > size:
            raise ValueError(f"truncated: section {name} ends at {offset + nbytes}, the file at {size}")
    expected = _section_sizes(count, dim, padded=padded)
    if not hashed:
        del expected["hashes"]
    if {name: nbytes for name, (_, nbytes) in sections.items()} != expected:
        raise ValueError("section sizes disagree with the row count")
    return _Header(header, hashed, padded, count, sections)


def _read(path: Path, *, stamp: str | None, model: str, dim: int, hashless: bool) -> StoredRows | None:
    with path.open("rb") as handle:
        found = _header(handle, stamp=stamp, model=model, dim=dim, hashless=hashless)
        if found is None:
            return None
        header, hashed, padded, count = found.fields, found.hashed, found.padded, found.count
        sections = found.sections
        small_names = SMALL if hashed else tuple(name for name in SMALL if name != "hashes")
        small: dict[str, np.ndarray] = {}
        checksum = 0
        # Mapped, not read: a process that opens the index to answer one search (the CLI) pays neither a copy of
        # these columns (about 90 MB at a million rows) nor the faults of fresh memory to hold it, and their pages
        # stay the page cache's. The file is never written in place (a rewrite is a new file, renamed over it), so
        # a mapping always sees the file whose header was checked above.
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        for name in small_names:
            offset, nbytes = sections[name]
            dtype = np.dtype(_dtype(name))
            stored = np.frombuffer(mapped, dtype=dtype, count=nbytes // dtype.itemsize, offset=offset)
            if name not in UNCHECKED:
                checksum = zlib.crc32(stored.data, checksum)
            if name == "codes":  # mapped at the scan's width, or (an older file) padded to it in memory
                stored = _padded_codes(stored, count=count, width=nbytes // count if count else code_width(dim))
            elif name == "hashes":
                stored = stored.reshape(count, HASH_BYTES)
            small[name] = stored
        if f"{checksum:08x}" != header["crc"]:
            raise ValueError("checksum mismatch")
        values: np.ndarray | FileRows = np.empty((0, dim), np.int8)
        remainders: np.ndarray | FileRows = np.empty((0, remainder_width(dim)), np.uint8)
        if count:  # mapped or read through this handle: the file whose header was just checked
            start = sections["values"][0]
            if count * dim <= MAP_VALUES_BYTES:
                values = np.memmap(handle, dtype=np.int8, mode="r", offset=start, shape=(count, dim))
            else:
                values = FileRows(os.dup(handle.fileno()), offset=start, count=count, dim=dim, dtype="i1")
            remainders = FileRows(
                os.dup(handle.fileno()),
                offset=sections["remainders"][0],
                count=count,
                dim=remainder_width(dim),
                dtype="u1",
            )
    categories: dict[str, Labels] = {}
    for name in CATEGORIES:
        table = [str(label) for label in header["tables"][name]]
        index = small[name]
        if len(index) and (index.min() < 0 or index.max() >= len(table)):
            raise ValueError(f"{name} codes out of range")
        categories[name] = Labels(index.astype(np.int32, copy=False), Names(table))
    return StoredRows(  # the columns are of these dtypes already (on a little-endian machine): kept, not copied
        ids=small["ids"].astype(np.int64, copy=False),
        matrix=QuantizedRows(values, small["scales"].astype(np.float32, copy=False), remainders),
        codes=small["codes"],
        ts=small["ts"].astype(np.float64, copy=False),
        seq=small["seq"].astype(np.int64, copy=False),
        categories=categories,
        hashes=small["hashes"] if hashed else None,
        stamp=str(header["stamp"]),
        log_id=str(header.get("log", "")),
        older_layout=not padded,
    )


def _padded_codes(stored: np.ndarray, *, count: int, width: int) -> np.ndarray:
    """The sign codes (`width` bytes a row), each row zero-padded to the search's scan width
    (quantized_rows.scan_width): `stored` itself, as rows, when they are that wide (a mapping of the file is what the
    scan then reads: no copy, 63 MB at a million rows that stay the page cache's), else a copy."""
    rows = stored.reshape(count, width)
    if width == scan_width(width):
        return np.ascontiguousarray(rows)
    padded = np.zeros((count, scan_width(width)), np.uint8)
    padded[:, :width] = rows
    return padded


def release_pages(matrix: np.ndarray | FileRows) -> None:
    """Let go of the pages of int8 rows mapped from a vector file that this process has read (madvise DONTNEED: the
    data stays in the page cache and on disk, and comes back on the next read). Rewriting the file reads every row
    of the old one, and through a mapping all of them then stayed resident, counted in RSS (233 MB at 150k rows of
    float32, before the rows were int8). Anything else (rows read with pread, in memory, a platform without
    madvise) is left as it is."""
    mapping = getattr(matrix, "_mmap", None)  # numpy.memmap's mapping
    if isinstance(mapping, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
        with contextlib.suppress(OSError, ValueError):
            mapping.madvise(mmap.MADV_DONTNEED)


def release_mapped(column: np.ndarray) -> None:
    """Let go of the resident pages of the mapping behind a small column `read` mapped (madvise DONTNEED, as
    `release_pages`), once the rows in use no longer read it: replaying a log or an update copies every small column
    into memory, and the mapped pages it read to do so (ids, codes, hashes, facets: 120 MB at a million rows) then
    stayed in the process's RSS beside the copies. Whatever still reads the mapping (the scales of the file's rows)
    faults its pages back in. A column not mapped from a file is left as it is."""
    base: object = column
    while isinstance(base, np.ndarray):
        base = base.base
    if isinstance(base, memoryview):  # np.frombuffer's view of the mapping
        base = base.obj
    if isinstance(base, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
        with contextlib.suppress(OSError, ValueError):
            base.madvise(mmap.MADV_DONTNEED)


def _section_sizes(count: int, dim: int, *, padded: bool = True) -> dict[str, int]:
    """Each section's bytes, in the file's order: the int8 rows, their remainders, then the small columns (the
    codes at the scan's width, or with `padded` False at dim / 8 bytes, as files before MAGIC kept them)."""
    codes = scan_width(code_width(dim)) if padded else code_width(dim)
    widths = {"values": dim, "remainders": remainder_width(dim), "codes": codes, "hashes": HASH_BYTES}
    widths |= {name: np.dtype(_dtype(name)).itemsize for name in SMALL if name not in widths}
    return {name: count * widths[name] for name in ("values", "remainders", *SMALL)}


def _dtype(name: str) -> str:
    if name in ("codes", "hashes"):
        return "u1"
    if name in CATEGORIES:
        return "<i4"
    return dict(NUMBERS)[name]
