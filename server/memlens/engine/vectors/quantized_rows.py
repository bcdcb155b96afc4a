"""Unit vectors as the vector search reads them: int8 rows with a scale each for scoring candidates, and each int8
value's rounding remainder in 4 bits beside them for the few that are returned.

A float32 row of the bundled model is 1.5 KB; 150k of them are 230 MB, and the re-rank of every query reads 1,000
rows scattered over all of them. Mapped from disk, those reads paged in (and counted in the process's RSS) the
whole matrix within a query or two: the kernel maps a file's large folios whole, 1-2 MB per touched row. So the
candidates are scored from int8 rows (row ≈ values × scale, the scale being the row's largest magnitude over 127):
a quarter of the space, and cosines within about 1e-3; mapped from the vector file while small, read from it with
pread (FileRows) past that, since mapped int8 rows ended up just as resident a few hundred searches later
(vector_file.MAP_VALUES_BYTES). Those errors reorder near-ties (recall@10 against a float32 scan: 0.968 at 150k
real and grown rows from int8 alone, bench/RESULTS.md), so the rows a search returns are scored again from the int8
values plus their remainders: row ≈ (values + remainder / 15) × scale, about 12 bits a component, cosines within
about 1e-4 (recall@10 in bench/RESULTS.md), for half a byte a component where float16 took two. The remainders are
read with pread (no mapping: nothing stays resident) or held in memory.

This is also the form a catalog before schema 5 kept a vector in (vector_snapshot.encode_vector: scale, int8 values,
remainders).
Quantising the rows this form gives back yields the very same values, remainders and scale (the remainders stop at
±7/15, short of the ±1/2 where a value would round the other way), so a search gives the same answer whether the
rows came from such a catalog, the vector file or a fresh embedding.
"""

from __future__ import annotations

import os
import threading
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memlens.engine.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_module("numpy")

LEVELS = 127  # int8 values run from -127 to 127 (never -128: the scale is symmetric)
STEPS = 15  # an int8 value's remainder (-0.5 to 0.5) is kept in fifteenths, -7 to 7, stored + 8, two to a byte
OFFSET = 8  # what a remainder is stored with added (0 is never stored)
BLOCK = 8192  # rows quantised at a time
COALESCE_BYTES = 4096  # rows of a file this close are read at once (FileRows)


class FileRows:
    """Rows of one dtype in a vector file (the int8 rows, or their packed remainders), read with pread into memory
    for each request: nothing is mapped, so the rows a search read stay in the OS's page cache, which no process is
    charged for, not in the searching process's RSS. Mapped, the int8 rows a 980,000-message index's searches
    touched were all resident (359 MB) after a few hundred searches: each search reads 1,000 rows spread over the
    whole file, and the kernel maps a touched row's whole folio. It keeps its own descriptor of the file (closed
    with it), so a rewrite that renames a new file over the path leaves these rows reading the file they were
    written in."""

    def __init__(self, fd: int, *, offset: int, count: int, dim: int, dtype: str) -> None:
        self.offset, self.count, self.dim = offset, count, dim
        self.dtype = np.dtype(dtype)
        self._fd = fd
        self._lock = threading.Lock()  # only for platforms without pread (seek and read share the position)
        weakref.finalize(self, os.close, self._fd)

    def __len__(self) -> int:
        return self.count

    @property
    def shape(self) -> tuple[int, int]:
        return (self.count, self.dim)

    def stored(self, indices: np.ndarray | slice) -> np.ndarray:
        """The rows at `indices` (any order, repeats allowed; a slice) as stored. They are read in file order, rows
        less than COALESCE_BYTES apart in one read: a read costs about as much as copying a few kilobytes."""
        if isinstance(indices, slice):
            indices = np.arange(self.count)[indices]
        indices = np.asarray(indices, dtype=np.int64)
        if not len(indices):
            return np.empty((0, self.dim), self.dtype)
        if indices.min() < 0 or indices.max() >= self.count:
            raise IndexError(f"row out of range 0..{self.count - 1}")
        width = self.dim * self.dtype.itemsize
        if indices[-1] - indices[0] + 1 == len(indices) and bool((np.diff(indices) == 1).all()):
            out = np.empty((len(indices), self.dim), self.dtype)  # one run in order (a rewrite's slices)
            self._read_into(out, self.offset + int(indices[0]) * width)
            return out
        order = np.argsort(indices, kind="stable")
        wanted = indices[order]
        breaks = np.flatnonzero(np.diff(wanted) > max(1, COALESCE_BYTES // max(1, width))) + 1
        firsts = wanted[np.r_[0, breaks]]
        lasts = wanted[np.r_[breaks - 1, len(wanted) - 1]]
        lengths = lasts - firsts + 1
        data = self._read_runs((self.offset + firsts * width).tolist(), (lengths * width).tolist())
        block = np.frombuffer(data, self.dtype).reshape(-1, self.dim)
        run_of = np.zeros(len(wanted), np.int64)
        run_of[breaks] = 1
        np.cumsum(run_of, out=run_of)
        ahead = np.cumsum(lengths) - lengths  # rows of the block before each run
        out = np.empty((len(indices), self.dim), self.dtype)
        out[order] = block[wanted - firsts[run_of] + ahead[run_of]]
        return out

    def _read_into(self, target: np.ndarray, position: int) -> None:
        view = target.data.cast("B")
        if hasattr(os, "preadv"):
            done = os.preadv(self._fd, [view], position)
        else:
            with self._lock:
                os.lseek(self._fd, position, os.SEEK_SET)
                done = os.readv(self._fd, [view])
        if done != len(view):
            raise OSError(f"vector file ended early: {done} of {len(view)} bytes at {position}")

    def _read_runs(self, positions: list[int], sizes: list[int]) -> bytes:
        """The bytes at each (position, size), one after another. os.pread per run, joined: about 1 µs a run,
        a third less than preadv into slices of one buffer."""
        if hasattr(os, "pread"):
            read = os.pread
            data = b"".join([read(self._fd, size, position) for position, size in zip(positions, sizes, strict=True)])
        else:
            with self._lock:
                parts = []
                for position, size in zip(positions, sizes, strict=True):
                    os.lseek(self._fd, position, os.SEEK_SET)
                    parts.append(os.read(self._fd, size))
                data = b"".join(parts)
        if len(data) != sum(sizes):
            raise OSError(f"vector file ended early: {len(data)} of {sum(sizes)} bytes")
        return data


def pack_remainders(steps: np.ndarray) -> np.ndarray:
    """Remainders in fifteenths (-7 to 7, [n, dim]) two to a byte, the even column's in the high half; an odd last
    column is paired with a zero remainder."""
    nibbles = (steps.astype(np.int16) + OFFSET).astype(np.uint8)
    if nibbles.shape[1] % 2:
        nibbles = np.concatenate([nibbles, np.full((len(nibbles), 1), OFFSET, np.uint8)], axis=1)
    packed: np.ndarray = (nibbles[:, 0::2] << 4) | nibbles[:, 1::2]
    return packed


def unpack_remainders(packed: np.ndarray, dim: int) -> np.ndarray:
    """The remainders of `pack_remainders` as float32 fractions of a step (-7/15 to 7/15), [n, dim]."""
    nibbles = np.empty((len(packed), 2 * packed.shape[1]), np.float32)
    nibbles[:, 0::2] = packed >> 4
    nibbles[:, 1::2] = packed & 0x0F
    nibbles -= OFFSET
    nibbles *= np.float32(1.0 / STEPS)
    return nibbles[:, :dim]


def refined_rows(values: np.ndarray, remainders: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """Float32 rows from their int8 `values`, packed `remainders` and `scales`: (values + remainder / 15) × scale."""
    refined = unpack_remainders(remainders, values.shape[1])
    refined += values
    refined *= scales[:, np.newaxis]
    return refined


def code_width(dim: int) -> int:
    """Bytes of a sign code as stored: one bit per dimension."""
    return (dim + 7) // 8


def scan_width(width: int) -> int:
    """Bytes a sign code of `width` bytes is held in for the search's scan. faiss compares codes of 8, 16, 32 and
    64 bytes with code of their own and others with a generic loop: the bundled model's 48-byte codes took 3.5 ms CPU
    per 980,000 rows, padded with zeros to 64 bytes 2.1 ms (the zeros are the query's too, so every distance stays
    the same)."""
    for size in (8, 16, 32, 64):
        if width <= size:
            return size
    return width


def remainder_width(dim: int) -> int:
    """Bytes of one row's packed remainders."""
    return (dim + 1) // 2


@dataclass(frozen=True, slots=True)
class QuantizedRows:
    values: np.ndarray | FileRows  # int8 [n, dim]: in memory, or in the vector file
    scales: np.ndarray  # float32 [n]
    remainders: np.ndarray | FileRows  # uint8 [n, remainder_width(dim)] (pack_remainders): in memory, or in the file

    @staticmethod
    def empty(dim: int) -> QuantizedRows:
        return QuantizedRows.of(np.empty((0, dim), np.float32))

    @staticmethod
    def of(matrix: np.ndarray) -> QuantizedRows:
        """Quantise float rows, BLOCK at a time (rows given back by `refined_rows` quantise to themselves). A row
        that is all zeros keeps scale 0: it scores 0 against anything."""
        if matrix.ndim != 2:
            raise ValueError(f"rows must be a 2-d array, not {matrix.ndim}-d")
        matrix = np.asarray(matrix, dtype=np.float32)
        values = np.empty(matrix.shape, np.int8)
        remainders = np.empty((len(matrix), remainder_width(matrix.shape[1])), np.uint8)
        scales = np.zeros(len(matrix), np.float32)
        for start in range(0, len(matrix), BLOCK):
            part = matrix[start : start + BLOCK]
            if not part.shape[1]:
                continue
            scale = (np.abs(part).max(axis=1) / LEVELS).astype(np.float32)
            divided = part / np.where(scale > 0, scale, 1.0).astype(np.float32)[:, np.newaxis]
            rounded = np.clip(np.rint(divided), -LEVELS, LEVELS)
            divided -= rounded  # the remainder, -0.5 to 0.5 of a step
            steps = np.clip(np.rint(divided * STEPS), -(STEPS // 2), STEPS // 2)
            values[start : start + BLOCK] = rounded
            remainders[start : start + BLOCK] = pack_remainders(steps)
            scales[start : start + BLOCK] = scale
        return QuantizedRows(values, scales, remainders)

    @staticmethod
    def allocated(count: int, dim: int) -> QuantizedRows:
        """`count` rows in memory, all zeros (scale 0: each scores 0 until `fill` writes it)."""
        return QuantizedRows(
            np.zeros((count, dim), np.int8),
            np.zeros(count, np.float32),
            np.full((count, remainder_width(dim)), OFFSET << 4 | OFFSET, np.uint8),
        )

    def fill(self, at: np.ndarray, matrix: np.ndarray) -> None:
        """Quantise the float rows of `matrix` into the rows `at` of these (`allocated`): as `of` would, a row at a
        time, so rows filled a block at a time are the rows `of` makes of the whole matrix."""
        made = QuantizedRows.of(matrix)
        for mine, theirs in self._in_memory(made):
            mine[at] = theirs

    def copy_rows(self, to: np.ndarray, source: np.ndarray) -> None:
        """Rows `to` become copies of rows `source` (of `allocated` rows)."""
        for array, _ in self._in_memory(self):
            array[to] = array[source]

    def _in_memory(self, other: QuantizedRows) -> list[tuple[np.ndarray, np.ndarray | FileRows]]:
        if isinstance(self.values, FileRows) or isinstance(self.remainders, FileRows):
            raise TypeError("rows in a vector file are read-only")
        return [(self.values, other.values), (self.remainders, other.remainders), (self.scales, other.scales)]

    def __len__(self) -> int:
        return int(self.values.shape[0])

    @property
    def dim(self) -> int:
        return int(self.values.shape[1])

    def scores(self, rows: np.ndarray | slice, query: np.ndarray) -> np.ndarray:
        """Approximate dot products of the rows at `rows` with a float32 query (int8 values, then the scale)."""
        dots: np.ndarray = self.value_rows(rows).astype(np.float32) @ query
        dots *= self.scales[rows]
        return dots

    def refined_rows(self, rows: np.ndarray | slice) -> np.ndarray:
        """The rows at `rows` as float32 from the int8 values and their remainders (about 12 bits a component)."""
        return refined_rows(self.value_rows(rows), self.remainder_rows(rows), self.scales[rows])

    def sign_codes(self) -> np.ndarray:
        """One bit per dimension of each row as kept here (values and remainders), its sign: the search's codes
        (vector_snapshot.binary_codes), BLOCK rows at a time."""
        codes = np.empty((len(self), code_width(self.dim)), np.uint8)
        for start in range(0, len(self), BLOCK):
            part = slice(start, min(start + BLOCK, len(self)))
            codes[part] = np.packbits(self.refined_rows(part) > 0, axis=-1)
        return codes

    def encoded(self) -> list[bytes]:
        """Each row as a catalog before schema 5 kept it: its scale (float32), int8 values and packed remainders."""
        values, remainders = self.values_array(), self.remainders_array()
        scales = self.scales.astype("<f4")
        return [scales[n].tobytes() + values[n].tobytes() + remainders[n].tobytes() for n in range(len(self))]

    @staticmethod
    def encoded_size(dim: int) -> int:
        """Bytes of one row as `encoded` gives it."""
        return 4 + dim + remainder_width(dim)

    @staticmethod
    def decoded(blob: bytes, dim: int) -> QuantizedRows:
        """One row from its `encoded` bytes."""
        scale = np.frombuffer(blob, "<f4", count=1).astype(np.float32)
        values = np.frombuffer(blob, np.int8, count=dim, offset=4).reshape(1, dim)
        remainders = np.frombuffer(blob, np.uint8, offset=4 + dim).reshape(1, remainder_width(dim))
        return QuantizedRows(values, scale, remainders)

    def value_rows(self, rows: np.ndarray | slice) -> np.ndarray:
        """The int8 rows at `rows` (read from the vector file if they live there)."""
        if isinstance(self.values, FileRows):
            return self.values.stored(rows)
        gathered: np.ndarray = self.values[rows]
        return gathered

    def remainder_rows(self, rows: np.ndarray | slice) -> np.ndarray:
        """The packed remainders at `rows` (read from the vector file if they live there)."""
        if isinstance(self.remainders, FileRows):
            return self.remainders.stored(rows)
        gathered: np.ndarray = self.remainders[rows]
        return gathered

    def values_array(self) -> np.ndarray:
        """Every int8 row, in memory."""
        return self.value_rows(slice(None)) if isinstance(self.values, FileRows) else self.values

    def remainders_array(self) -> np.ndarray:
        """Every row's packed remainders, in memory."""
        return self.remainder_rows(slice(None)) if isinstance(self.remainders, FileRows) else self.remainders

    def take(self, rows: np.ndarray) -> QuantizedRows:
        """The rows at `rows`, in memory."""
        return QuantizedRows(self.value_rows(rows), self.scales[rows], self.remainder_rows(rows))

    def concat(self, other: QuantizedRows) -> QuantizedRows:
        """These rows then `other`'s, in memory (used for rows added since the vector file was written)."""
        return QuantizedRows(
            np.concatenate([self.values_array(), other.values_array()]),
            np.concatenate([self.scales, other.scales]),
            np.concatenate([self.remainders_array(), other.remainders_array()]),
        )
