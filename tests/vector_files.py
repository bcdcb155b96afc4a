"""Small vector files written straight through `vector_file.write`, for the tests of the file and of the benchmarks
that read one: the columns a test does not care about get plain defaults (ids 0…n-1, zero codes, hashes, times
and sequence numbers, every facet "x")."""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from memlens.engine.vectors import vector_file
from memlens.engine.vectors.labels import Labels
from memlens.engine.vectors.quantized_rows import QuantizedRows
from memlens.engine.vectors.vector_index import VectorIndex


def write_vector_file(
    path: Path,
    rows: QuantizedRows | Iterable[QuantizedRows],
    *,
    count: int,
    code_bytes: int,
    stamp: str = "s",
    model: str = "m",
    ids: np.ndarray | None = None,
    codes: np.ndarray | None = None,
    ts: np.ndarray | None = None,
    labels: Sequence[str] | None = None,
) -> None:
    """`rows` (one block, or blocks in order) as the vector file at `path`, `count` rows with `code_bytes` of sign
    code each; `labels` (one per row) for every facet."""
    vector_file.write(
        path,
        stamp=stamp,
        model=model,
        ids=ids if ids is not None else np.arange(count),
        row_slices=[rows] if isinstance(rows, QuantizedRows) else rows,
        codes=codes if codes is not None else np.zeros((count, code_bytes), np.uint8),
        hashes=np.zeros((count, vector_file.HASH_BYTES), np.uint8),
        ts=ts if ts is not None else np.zeros(count),
        seq=np.zeros(count, np.int64),
        categories={name: Labels.of(labels or ["x"] * count) for name in vector_file.CATEGORIES},
    )


def held_text_hashes(index: VectorIndex) -> set[str]:
    """The text hashes (as the catalog's `units.embed_text_hash`) of every row `index` holds."""
    return {bytes(row).hex() for row in index._current().hashes}


def narrow_codes(path: Path) -> None:
    """The vector file as the layout before (MLVEC06) kept it: the same sections, the codes 48 bytes a row."""
    data = bytearray(path.read_bytes())
    length = int.from_bytes(data[8:12], "little")
    header = json.loads(bytes(data[12 : 12 + length]))
    offset, nbytes = header["sections"]["codes"]
    count = nbytes // 64
    narrow = np.frombuffer(bytes(data[offset : offset + nbytes]), np.uint8).reshape(count, 64)[:, :48].tobytes()
    data[offset : offset + nbytes] = narrow.ljust(nbytes, b"\0")
    header["sections"]["codes"] = [offset, count * 48]
    checksum = 0
    for name in vector_file.SMALL:
        if name not in vector_file.UNCHECKED:
            start, size = header["sections"][name]
            checksum = zlib.crc32(bytes(data[start : start + size]), checksum)
    header["crc"] = f"{checksum:08x}"
    encoded = json.dumps(header, separators=(",", ":")).encode()
    assert len(encoded) == length  # the same length: the sections stay where they are
    data[: 12 + length] = vector_file.NARROW_CODES_MAGIC + struct.pack("<I", length) + encoded
    path.write_bytes(bytes(data))
