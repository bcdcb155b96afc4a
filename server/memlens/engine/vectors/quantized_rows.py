"""Unit vectors as the vector search reads them: int8 rows with a scale each for scoring candidates, and the exact
rows (float16) beside them for the few that are returned.

A float32 row of the bundled model is 1.5 KB; 150k of them are 230 MB, and the re-rank of every query reads 1,000
rows scattered over all of them. Mapped from disk, those reads paged in (and counted in the process's RSS) the
whole matrix within a query or two: the kernel maps a file's large folios whole, 1-2 MB per touched row. So the
candidates are scored from int8 rows (row ≈ values × scale, the scale being the row's largest magnitude over 127):
a quarter of the space, mapped, and cosines within about 1e-3. Those errors reorder near-ties (recall@10 against
exact fell from 0.994 to 0.971 on real vectors at 150k rows), so the rows a search returns are
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


class FileRows:
    """Exact (float16) rows in a vector file, read with pread and handed out as float32. It keeps its own
    descriptor of the file (closed with it), so a rewrite that renames a new file over the path leaves these rows
    reading the file they were written in."""

    def __init__(self, fd: int, *, offset: int, count: int, dim: int) -> None:
        self.offset, self.count, self.dim = offset, count, dim
        self._fd = fd
        self._lock = threading.Lock()  # only for platforms without preadv (seek and read share the position)
        weakref.finalize(self, os.close, self._fd)

    def __len__(self) -> int:
        return self.count

    def rows(self, indices: np.ndarray) -> np.ndarray:
        """The rows at `indices` (any order), each run of consecutive rows read at once."""
        return self.stored(indices).astype(np.float32)

    def stored(self, indices: np.ndarray) -> np.ndarray:
        """The rows at `indices` as stored (float16)."""
        indices = np.asarray(indices, dtype=np.int64)
        out = np.empty((len(indices), self.dim), EXACT)
        if not len(indices):
            return out
        if indices.min() < 0 or indices.max() >= self.count:
            raise IndexError(f"row out of range 0..{self.count - 1}")
        width = self.dim * out.itemsize
        starts = np.flatnonzero(np.diff(indices, prepend=indices[0] - 2) != 1).tolist()
        for start, end in zip(starts, [*starts[1:], len(indices)], strict=True):
            self._read_into(out[start:end], self.offset + int(indices[start]) * width)
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


@dataclass(frozen=True, slots=True)
class QuantizedRows:
    values: np.ndarray  # int8 [n, dim] (an array, or a read-only map of the vector file)
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
        dots: np.ndarray = self.values[rows].astype(np.float32) @ query
        dots *= self.scales[rows]
        return dots

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
            return self.exact.stored(np.arange(len(self)))
        return self.exact

    def take(self, rows: np.ndarray) -> QuantizedRows:
        """The rows at `rows`, in memory."""
        return QuantizedRows(self.values[rows], self.scales[rows], self.stored_rows(rows))

    def concat(self, other: QuantizedRows) -> QuantizedRows:
        """These rows then `other`'s, in memory (used for rows added since the vector file was written)."""
        return QuantizedRows(
            np.concatenate([self.values, other.values]),
            np.concatenate([self.scales, other.scales]),
            np.concatenate([self.exact_array(), other.exact_array()]),
        )
