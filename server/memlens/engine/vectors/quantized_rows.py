"""Unit vectors as the vector search reads them: int8 rows with a scale each for scoring candidates, and the exact
rows (float16) beside them for the few that are returned.

A float32 row of the bundled model is 1.5 KB; 150k of them are 230 MB, and the re-rank of every query reads 1,000
rows scattered over all of them. Mapped from disk, those reads paged in (and counted in the process's RSS) the
whole matrix within a query or two: the kernel maps a file's large folios whole, 1-2 MB per touched row. So the
candidates are scored from int8 rows (row ≈ values × scale, the scale being the row's largest magnitude over 127):
a quarter of the space, and cosines within about 1e-3; mapped from the vector file while small, read from it with
pread (FileRows) past that, since mapped int8 rows ended up just as resident a few hundred searches later
(vector_file.MAP_VALUES_BYTES). Those errors reorder near-ties
(recall@10 against exact fell from 0.994 to 0.971 on real vectors at 150k rows), so the rows a search returns are
scored again exactly, from rows read with pread (no mapping: nothing stays resident) or held in memory. The exact
rows are float16, the one form a vector is kept in everywhere (the catalog, the vector file and its log, memory):
their cosines differ from float32's by about 1e-4, and recall@10 against a float32 scan is in bench/RESULTS.md.
Every snapshot holds its rows this way, however they were loaded, so a search gives the same answer whether the
rows came from SQLite, the vector file or a fresh embedding.
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
EXACT = "<f2"  # the exact rows are kept as float16: half float32's bytes
BLOCK = 8192  # rows quantised at a time
COALESCE_BYTES = 4096  # rows of a file this close are read at once (FileRows)


class FileRows:
    """Rows of one dtype in a vector file (the int8 rows, or the exact float16 ones), read with pread into memory
    for each request: nothing is mapped, so the rows a search read stay in the OS's page cache, which no process is
    charged for, not in the searching process's RSS. Mapped, the int8 rows a 980,000-message index's searches
    touched were all resident (359 MB) after a few hundred searches: each search reads 1,000 rows spread over the
    whole file, and the kernel maps a touched row's whole folio. It keeps its own descriptor of the file (closed
    with it), so a rewrite that renames a new file over the path leaves these rows reading the file they were
    written in."""

    def __init__(self, fd: int, *, offset: int, count: int, dim: int, dtype: str = EXACT) -> None:
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

    def rows(self, indices: np.ndarray | slice) -> np.ndarray:
        """The rows at `indices` as float32."""
        return self.stored(indices).astype(np.float32)

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


@dataclass(frozen=True, slots=True)
class QuantizedRows:
    values: np.ndarray | FileRows  # int8 [n, dim]: in memory, or in the vector file
    scales: np.ndarray  # float32 [n]
    exact: np.ndarray | FileRows  # the same rows in float16 (EXACT): in memory, or in the vector file

    @staticmethod
    def empty(dim: int) -> QuantizedRows:
        return QuantizedRows.of(np.empty((0, dim), np.float32))

    @staticmethod
    def of(matrix: np.ndarray) -> QuantizedRows:
        """Quantise float rows, BLOCK at a time; their float16 form is kept as the exact rows and is what is
        quantised, so rows made from the model's float32 output and from their stored float16 form are the same.
        A row that is all zeros keeps scale 0: it scores 0 against anything."""
        if matrix.ndim != 2:
            raise ValueError(f"rows must be a 2-d array, not {matrix.ndim}-d")
        exact = np.asarray(matrix).astype(EXACT)
        matrix = exact.astype(np.float32)
        values = np.empty(matrix.shape, np.int8)
        scales = np.zeros(len(matrix), np.float32)
        for start in range(0, len(matrix), BLOCK):
            part = matrix[start : start + BLOCK]
            if not part.shape[1]:
                continue
            scale = (np.abs(part).max(axis=1) / LEVELS).astype(np.float32)
            divided = part / np.where(scale > 0, scale, 1.0).astype(np.float32)[:, np.newaxis]
            np.rint(divided, out=divided)
            np.clip(divided, -LEVELS, LEVELS, out=divided)
            values[start : start + BLOCK] = divided
            scales[start : start + BLOCK] = scale
        return QuantizedRows(values, scales, exact)

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

    def value_rows(self, rows: np.ndarray | slice) -> np.ndarray:
        """The int8 rows at `rows` (read from the vector file if they live there)."""
        if isinstance(self.values, FileRows):
            return self.values.stored(rows)
        gathered: np.ndarray = self.values[rows]
        return gathered

    def exact_rows(self, rows: np.ndarray) -> np.ndarray:
        """The exact rows at `rows` as float32 (read from the vector file if they live there)."""
        if isinstance(self.exact, FileRows):
            return self.exact.rows(rows)
        gathered: np.ndarray = self.exact[rows].astype(np.float32)
        return gathered

    def stored_rows(self, rows: np.ndarray) -> np.ndarray:
        """The exact rows at `rows` as kept (float16)."""
        if isinstance(self.exact, FileRows):
            return self.exact.stored(rows)
        gathered: np.ndarray = self.exact[rows]
        return gathered

    def exact_array(self) -> np.ndarray:
        """Every exact row as kept (float16), in memory."""
        if isinstance(self.exact, FileRows):
            return self.exact.stored(slice(None))
        return self.exact

    def values_array(self) -> np.ndarray:
        """Every int8 row, in memory."""
        if isinstance(self.values, FileRows):
            return self.values.stored(slice(None))
        return self.values

    def take(self, rows: np.ndarray) -> QuantizedRows:
        """The rows at `rows`, in memory."""
        return QuantizedRows(self.value_rows(rows), self.scales[rows], self.stored_rows(rows))

    def concat(self, other: QuantizedRows) -> QuantizedRows:
        """These rows then `other`'s, in memory (used for rows added since the vector file was written)."""
        return QuantizedRows(
            np.concatenate([self.values_array(), other.values_array()]),
            np.concatenate([self.scales, other.scales]),
            np.concatenate([self.exact_array(), other.exact_array()]),
        )
