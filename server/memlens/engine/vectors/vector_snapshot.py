"""The vector rows in memory: one consistent snapshot of every unit's row (int8, see quantized_rows), sign code and
facets.

VectorIndex (vector_index.py) searches a snapshot and swaps in a new one on every change; this module holds the
snapshot itself, how it is built (from rows in memory or the vector file) and how it grows and shrinks without
copying the file's rows into memory, how a text's vector is found among its rows by hash, plus the encoding of one
vector in a blob (quantized_rows.py's form, as a catalog before schema 5 kept them; float16 or float32 in an older one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlens.engine.lazy import lazy_module
from memlens.engine.vectors import vector_file
from memlens.engine.vectors.labels import Labels
from memlens.engine.vectors.quantized_rows import QuantizedRows, code_width, refined_rows, scan_width
from memlens.engine.vectors.vector_log import CATEGORIES, HASH_BYTES, LogStep

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_module("numpy")


SPLICED_RUNS = 256  # more rows gone at once than this (a file removed): one pass through a mask copies faster


@dataclass(frozen=True, slots=True)
class VectorRow:
    unit_id: int
    kind: str
    format: str
    role: str
    session_key: str
    ts: float
    vector: np.ndarray
    seq: int = -1  # the message's position in its session (transcripts); -1 otherwise
    text_hash: bytes = b""  # the embedded text's sha1 (vector_file.text_hash_bytes); b"": none known (zeros stored)


@dataclass(frozen=True)
class VectorSnapshot:
    """One consistent state. The rows live in `base` (read from the vector file on demand, or in memory) and `extra`
    (rows added since); `where` maps each position to its physical row (None: position = row of `base`), so
    removing or adding rows never copies the file's rows into memory."""

    ids: np.ndarray  # int64 [n]
    base: QuantizedRows  # [b, dim]
    codes: np.ndarray  # uint8 [n, scan_width(dim / 8)]: the signs of the components, then zeros (scan_width)
    kind: Labels  # [n]
    format: Labels
    role: Labels
    session: Labels
    ts: np.ndarray  # float64 [n], NaN when unknown
    seq: np.ndarray  # int64 [n], -1 when not a transcript message
    hashes: np.ndarray  # uint8 [n, HASH_BYTES]: each row's text hash, which finds a text's vector (`find_texts`)
    extra: QuantizedRows | None = None  # [m, dim]
    where: np.ndarray | None = None  # int64 [n] into base rows then extra rows

    def __post_init__(self) -> None:
        # every snapshot holds its codes at the width the scan compares fastest, however they were made or read
        # (the vector file keeps them so; its log, and files before its MAGIC 07, keep dim / 8 bytes a row)
        if self.codes.shape[1] != scan_width(self.codes.shape[1]):
            object.__setattr__(self, "codes", padded_codes(self.codes))

    def stored_codes(self) -> np.ndarray:
        """The codes as the vector log keeps them: dim / 8 bytes a row, without the scan's padding."""
        kept: np.ndarray = self.codes[:, : code_width(self.base.dim)]
        return kept

    @staticmethod
    def empty(dim: int) -> VectorSnapshot:
        return VectorSnapshot(
            np.empty(0, np.int64),
            QuantizedRows.empty(dim),
            np.empty((0, (dim + 7) // 8), np.uint8),
            Labels.of(()),
            Labels.of(()),
            Labels.of(()),
            Labels.of(()),
            np.empty(0),
            np.empty(0, np.int64),
            np.empty((0, HASH_BYTES), np.uint8),
        )

    @staticmethod
    def of(rows: list[VectorRow], dim: int) -> VectorSnapshot:
        if not rows:
            return VectorSnapshot.empty(dim)
        base = QuantizedRows.of(np.vstack([r.vector for r in rows]))
        return VectorSnapshot(
            ids=np.fromiter((r.unit_id for r in rows), np.int64, len(rows)),
            base=base,
            codes=base.sign_codes(),
            kind=Labels.of(r.kind for r in rows),
            format=Labels.of(r.format for r in rows),
            role=Labels.of(r.role for r in rows),
            session=Labels.of(r.session_key for r in rows),
            ts=np.array([r.ts for r in rows], dtype=np.float64),
            seq=np.array([r.seq for r in rows], dtype=np.int64),
            hashes=hash_rows(r.text_hash for r in rows),
        )

    @staticmethod
    def stored(rows: vector_file.StoredRows, *, hashes: np.ndarray | None = None) -> VectorSnapshot:
        """The file's rows; `hashes`: their text hashes, for a file from before it kept them (`rows.hashes` None)."""
        hashes = rows.hashes if hashes is None else hashes
        if hashes is None:
            raise ValueError("rows without their text hashes")
        return VectorSnapshot(
            ids=rows.ids,
            base=rows.matrix,
            codes=rows.codes,
            ts=rows.ts,
            seq=rows.seq,
            kind=rows.categories["kind"],
            format=rows.categories["format"],
            role=rows.categories["role"],
            session=rows.categories["session"],
            hashes=hashes,
        )

    def as_step(self, removed: np.ndarray) -> LogStep:
        """This in-memory snapshot (from `of`) as the rows a log step adds, after removing `removed`."""
        values, remainders = self.base.values, self.base.remainders
        assert isinstance(values, np.ndarray) and isinstance(remainders, np.ndarray)  # `of` holds its rows in memory
        return LogStep(
            removed=removed,
            ids=self.ids,
            ts=self.ts,
            seq=self.seq,
            scales=self.base.scales,
            codes=self.stored_codes(),
            values=values,
            remainders=remainders,
            hashes=self.hashes,
            categories={"kind": self.kind, "format": self.format, "role": self.role, "session": self.session},
        )

    def replayed(self, steps: Sequence[LogStep]) -> VectorSnapshot:
        """These rows with the logged steps applied in order, as VectorIndex.update applied them: each step
        removes its ids from the rows before it, then adds its rows. Done at once, not step by step: a row
        survives when no later step removed its id (a step's own ids are among its removed ones)."""
        if not steps:
            return self
        removed = np.concatenate([step.removed for step in steps])
        step_of = np.concatenate([np.full(len(step.removed), n, np.int64) for n, step in enumerate(steps)])
        order = np.lexsort((step_of, removed))
        removed, step_of = removed[order], step_of[order]
        last = np.r_[removed[1:] != removed[:-1], True] if len(removed) else np.empty(0, bool)
        gone_ids, gone_at = removed[last], step_of[last]  # each removed id once, with the last step removing it

        def last_removal(ids: np.ndarray) -> np.ndarray:
            at = np.full(len(ids), -2, np.int64)
            if len(gone_ids) and len(ids):
                slots = np.minimum(np.searchsorted(gone_ids, ids), len(gone_ids) - 1)
                hit = gone_ids[slots] == ids
                at[hit] = gone_at[slots[hit]]
            return at

        gone = np.flatnonzero(last_removal(self.ids) >= 0)
        born = np.concatenate([np.full(step.added, n, np.int64) for n, step in enumerate(steps)])
        if not len(born):
            return self.spliced(gone)
        alive = last_removal(np.concatenate([step.ids for step in steps])) <= born

        def joined(column: Callable[[LogStep], np.ndarray]) -> np.ndarray:
            return np.concatenate([column(step) for step in steps])[alive]

        def labels(name: str) -> Labels:
            return Labels.joined([step.categories[name] for step in steps])[alive]

        added = VectorSnapshot(
            ids=joined(lambda step: step.ids),
            base=QuantizedRows(
                joined(lambda step: step.values),
                joined(lambda step: step.scales),
                joined(lambda step: step.remainders),
            ),
            codes=joined(lambda step: step.codes),
            kind=labels(CATEGORIES[0]),
            format=labels(CATEGORIES[1]),
            role=labels(CATEGORIES[2]),
            session=labels(CATEGORIES[3]),
            ts=joined(lambda step: step.ts),
            seq=joined(lambda step: step.seq),
            hashes=joined(lambda step: step.hashes),
        )
        return self.spliced(gone, added)

    def small_columns(self) -> tuple[Any, ...]:
        return (self.ids, self.codes, self.kind, self.format, self.role, self.session, self.ts, self.seq, self.hashes)

    def _with(self, columns: Iterable[Any], extra: QuantizedRows | None, where: np.ndarray | None) -> VectorSnapshot:
        ids, codes, kind, fmt, role, session, ts, seq, hashes = columns
        return VectorSnapshot(ids, self.base, codes, kind, fmt, role, session, ts, seq, hashes, extra, where)

    def physical(self) -> np.ndarray:
        return np.arange(len(self.ids), dtype=np.int64) if self.where is None else self.where

    def concat(self, other: VectorSnapshot) -> VectorSnapshot:
        """These rows, then `other`'s (an in-memory snapshot from `of`)."""
        extra = other.base if self.extra is None else self.extra.concat(other.base)
        offset = len(self.base) + (0 if self.extra is None else len(self.extra))
        where = np.concatenate([self.physical(), offset + np.arange(len(other.ids), dtype=np.int64)])
        columns = (
            a.concat(b) if isinstance(a, Labels) else np.concatenate([a, b])
            for a, b in zip(self.small_columns(), other.small_columns(), strict=True)
        )
        return self._with(columns, extra, where)

    def spliced(self, gone: np.ndarray, other: VectorSnapshot | None = None) -> VectorSnapshot:
        """These rows without those at the positions `gone` (ascending, each once), then `other`'s (an in-memory
        snapshot from `of`): what `take` then `concat` give, each column copied once, run by run between the rows
        gone, where those two copied every column twice, the first time through a mask (an append's update at a
        million rows: 45-60 ms CPU of copies). Many rows gone are dropped by a mask, as `take` does."""
        if len(gone) > SPLICED_RUNS:
            keep = np.ones(len(self.ids), dtype=bool)
            keep[gone] = False
            kept = self.take(keep)
            return kept.concat(other) if other is not None and len(other.ids) else kept
        if other is not None and not len(other.ids):
            other = None
        if not len(gone) and other is None:
            return self
        bounds = zip(np.r_[0, gone + 1].tolist(), np.r_[gone, len(self.ids)].tolist(), strict=True)
        runs = [slice(start, end) for start, end in bounds if end > start]

        def joined(column: np.ndarray, tail: np.ndarray | None) -> np.ndarray:
            parts = [column[run] for run in runs] + ([] if tail is None else [tail])
            return np.concatenate(parts) if parts else column[:0]

        tails = other.small_columns() if other is not None else (None,) * len(self.small_columns())
        columns = [
            column.spliced(runs, tail) if isinstance(column, Labels) else joined(column, tail)
            for column, tail in zip(self.small_columns(), tails, strict=True)
        ]
        extra, added = self.extra, None
        if other is not None:
            extra = other.base if self.extra is None else self.extra.concat(other.base)
            offset = len(self.base) + (0 if self.extra is None else len(self.extra))
            added = offset + np.arange(len(other.ids), dtype=np.int64)
        return self._with(columns, extra, joined(self.physical(), added))

    def at(self, positions: np.ndarray) -> VectorSnapshot:
        """The rows at `positions` (any order, repeats allowed), sharing these rows' storage."""
        columns = (column[positions] for column in self.small_columns())
        return self._with(columns, self.extra, self.physical()[positions])

    def take(self, keep: np.ndarray) -> VectorSnapshot:
        """The rows where `keep` (a mask) holds; np.compress copies the 2-d codes about twice as fast as a mask."""
        columns = (
            column[keep] if isinstance(column, Labels) else np.compress(keep, column, axis=0)
            for column in self.small_columns()
        )
        return self._with(columns, self.extra, np.compress(keep, self.physical()))

    def scores(self, positions: np.ndarray | None, query: np.ndarray) -> np.ndarray:
        """Approximate dot products with a float32 query of the rows at `positions` (None: all), from the int8 rows
        (for unit vectors: cosines within about 1e-3)."""
        return self._gather(positions, lambda part, rows: part.scores(rows, query))

    def value_rows(self, positions: np.ndarray | None) -> np.ndarray:
        """The int8 rows at `positions` (None: all), read from the vector file where they live."""
        return self._gather(positions, lambda part, rows: part.value_rows(rows))

    def scores_of(self, positions: np.ndarray | None, values: np.ndarray, query: np.ndarray) -> np.ndarray:
        """`scores` of the rows at `positions` whose int8 rows `values` the caller has read (value_rows)."""
        dots: np.ndarray = values.astype(np.float32) @ query
        dots *= self._gather(positions, lambda part, rows: part.scales[rows])
        return dots

    def refined_scores(self, positions: np.ndarray, query: np.ndarray, values: np.ndarray | None = None) -> np.ndarray:
        """Dot products with a float32 query of the rows at `positions` from their int8 values and remainders (for
        unit vectors: cosines within about 1e-4). `values`: their int8 rows, when the caller read them already."""
        if values is None:
            values = self.value_rows(positions)
        remainders = self._gather(positions, lambda part, rows: part.remainder_rows(rows))
        scales = self._gather(positions, lambda part, rows: part.scales[rows])
        dots: np.ndarray = refined_rows(values, remainders, scales) @ query
        return dots

    def write_file(self, path: Path, *, stamp: str, model: str) -> str:
        """Write these rows as the vector file at `path` (vector_file.write, a slice at a time); returns its log id."""
        return vector_file.write(
            path,
            stamp=stamp,
            model=model,
            ids=self.ids,
            row_slices=self.row_slices(vector_file.WRITE_ROWS),
            codes=self.codes,  # at the scan's width, as the file keeps them
            hashes=self.hashes,
            ts=self.ts,
            seq=self.seq,
            categories={name: getattr(self, name) for name in vector_file.CATEGORIES},
        )

    def row_slices(self, step: int) -> Iterator[QuantizedRows]:
        """The rows in order, `step` at a time, in memory (what a rewrite of the vector file writes); mapped int8
        rows' pages are let go after each slice, so a rewrite never holds the whole old file resident."""
        for start in range(0, len(self.ids), step):
            positions = np.arange(start, min(start + step, len(self.ids)))
            yield QuantizedRows(
                self._gather(positions, lambda part, rows: part.value_rows(rows)),
                self._gather(positions, lambda part, rows: part.scales[rows]),
                self._gather(positions, lambda part, rows: part.remainder_rows(rows)),
            )
            vector_file.release_pages(self.base.values)

    def _gather(self, positions: np.ndarray | None, read: Callable[[QuantizedRows, Any], np.ndarray]) -> np.ndarray:
        """`read(part, rows)` for the rows at `positions` (None: all), each from the part that holds it (the base
        or the added rows), in the order of `positions`."""
        if self.where is None:  # every row is a row of the base
            return read(self.base, slice(None) if positions is None else positions)
        rows = self.where if positions is None else self.where[positions]
        if self.extra is None or not len(self.extra):
            return read(self.base, rows)
        in_base = rows < len(self.base)
        from_base, added = read(self.base, rows[in_base]), read(self.extra, rows[~in_base] - len(self.base))
        out = np.empty((len(rows), *from_base.shape[1:]), from_base.dtype)
        out[in_base], out[~in_base] = from_base, added
        return out

    @property
    def changed(self) -> int:
        """Rows added or removed since `base` (0 for a snapshot that is exactly its base)."""
        if self.where is None:
            return 0
        added = 0 if self.extra is None else len(self.extra)
        return added + len(self.base) - int(np.count_nonzero(self.where < len(self.base)))

    def refined_rows(self, positions: np.ndarray) -> np.ndarray:
        """The rows at `positions` as float32 from their int8 values and remainders (rows that quantise to
        themselves: quantized_rows.py)."""
        return refined_rows(
            self.value_rows(positions),
            self._gather(positions, lambda part, rows: part.remainder_rows(rows)),
            self._gather(positions, lambda part, rows: part.scales[rows]),
        )

    def vectors_of_texts(self, hashes: Iterable[bytes]) -> dict[bytes, np.ndarray]:
        """The vector of each text hash some row here holds (20 bytes each), as float32 rows that quantise to the
        very rows held (quantized_rows.py): a unit with the same text gets the same row, with no embedding and no
        catalog read. The rows are first narrowed by their hashes' first 8 bytes (one comparison of 8-byte keys per
        row), then matched whole."""
        wanted = {h for h in hashes if len(h) == HASH_BYTES and any(h)}
        if not wanted or not len(self.ids):
            return {}
        keys = self.hashes[:, :8].view("<u8").ravel()  # the rows' last axis is contiguous: a view, no copy
        candidates = np.flatnonzero(np.isin(keys, np.frombuffer(b"".join(h[:8] for h in wanted), "<u8")))
        positions: dict[bytes, int] = {}
        for position, row in zip(candidates.tolist(), self.hashes[candidates], strict=True):
            text_hash = row.tobytes()
            if text_hash in wanted:
                positions.setdefault(text_hash, position)
        if not positions:
            return {}
        rows = self.refined_rows(np.fromiter(positions.values(), np.int64, len(positions)))
        return dict(zip(positions, rows, strict=True))

    @cached_property
    def _ascending(self) -> bool:
        """Whether the rows are in ascending id order already: units get growing ids, and a file is written in its
        rows' order, so usually they are, and sorting a million ids (and the copy of them sorted) is 8 ms of every
        process's first search that a look at them (1 ms) saves."""
        ids = self.ids
        return bool(len(ids) < 2 or (ids[1:] > ids[:-1]).all())

    @cached_property
    def _order(self) -> np.ndarray:
        return np.argsort(self.ids, kind="stable")

    @cached_property
    def sorted_ids(self) -> np.ndarray:
        """The ids in ascending order (`positions` turns a slot in them into a row's position)."""
        if self._ascending:
            return self.ids
        ordered: np.ndarray = self.ids[self._order]
        return ordered

    def positions(self, slots: np.ndarray) -> np.ndarray:
        """The rows' positions of these slots in `sorted_ids`."""
        if self._ascending:
            return slots
        found: np.ndarray = self._order[slots]
        return found

    def rows_of(self, unit_ids: Sequence[int]) -> tuple[np.ndarray, list[int]]:
        """(positions of the given ids that are present, the ids themselves, in the order given). Every search asks
        this of its hundred-odd candidates: numpy's calls are kept few (np.clip alone cost more than the lookup)."""
        sorted_ids = self.sorted_ids
        if not len(sorted_ids) or not len(unit_ids):
            return np.empty(0, np.int64), []
        wanted = np.fromiter(unit_ids, np.int64, len(unit_ids))
        slots = np.searchsorted(sorted_ids, wanted)
        np.minimum(slots, len(sorted_ids) - 1, out=slots)
        present = sorted_ids[slots] == wanted
        if present.all():  # the usual case: every candidate has a vector
            return self.positions(slots), list(unit_ids)
        return self.positions(slots[present]), wanted[present].tolist()


def hash_rows(hashes: Iterable[bytes]) -> np.ndarray:
    """Text hashes (20 bytes each; b"" for none known, kept as zeros) as a snapshot's [n, HASH_BYTES] column."""
    joined = b"".join(h if len(h) == HASH_BYTES else bytes(HASH_BYTES) for h in hashes)
    return np.frombuffer(joined, np.uint8).reshape(-1, HASH_BYTES).copy()


def binary_codes(matrix: np.ndarray) -> np.ndarray:
    """One bit per dimension, its sign, then zeros to the scan's width (scan_width). (Signs of the vector minus the
    corpus mean were tried: on the real vectors they kept fewer of the exact top 10, 0.985 against 0.990 from the
    best 100 of 3,128.)"""
    return padded_codes(np.packbits(matrix > 0, axis=-1))


def padded_codes(codes: np.ndarray) -> np.ndarray:
    """Codes [n, bytes] followed by zeros to the scan's width (`codes` itself when it is that wide)."""
    width = scan_width(codes.shape[1])
    if width == codes.shape[1]:
        return codes
    padded = np.zeros((len(codes), width), np.uint8)
    padded[:, : codes.shape[1]] = codes
    return padded


UnitColumns = tuple[int, str, str, str, str, float | None, str, int | None]  # as Catalog.vector_units gives them


def unit_vector_row(unit: UnitColumns, vector: np.ndarray) -> VectorRow:
    """The row of a unit (id, kind, format, role, session, ts, text hash, seq) with `vector`."""
    unit_id, kind, fmt, role, session, ts, text_hash, seq = unit
    return VectorRow(
        int(unit_id),
        kind,
        fmt,
        role,
        session,
        float(ts) if ts is not None else float("nan"),
        vector,
        int(seq) if kind == "transcript" and seq is not None else -1,
        vector_file.text_hash_bytes(str(text_hash)),
    )


def decode_vector(blob: bytes, dim: int) -> np.ndarray | None:
    """A vector as the catalog stores it (`encode_vector`; float16 or float32 in an index from before: told apart by
    their length), None for another size."""
    if len(blob) == QuantizedRows.encoded_size(dim):
        decoded: np.ndarray = QuantizedRows.decoded(blob, dim).refined_rows(slice(None))[0]
        return decoded
    if len(blob) == dim * 2:
        return np.frombuffer(blob, dtype="<f2").astype(np.float32)
    if len(blob) == dim * 4:
        return np.frombuffer(blob, dtype="<f4")
    return None


def encode_vectors(matrix: np.ndarray) -> list[bytes]:
    """Vectors as blobs: what the search keeps of each (quantized_rows.py: its scale, int8 values and their 4-bit
    remainders; 580 bytes for 384 dimensions where float16 took 768), as a catalog before schema 5 stored them, so rows
    decoded from such blobs are the same rows."""
    return QuantizedRows.of(np.atleast_2d(np.asarray(matrix, dtype=np.float32))).encoded()


def encode_vector(vector: np.ndarray) -> bytes:
    """One vector as a blob (`encode_vectors`)."""
    return encode_vectors(vector)[0]
