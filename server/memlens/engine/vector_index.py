"""Cosine search over unit vectors held in one float32 matrix, with metadata columns for filtering.

Derived from the catalog (units joined with cached vectors). Updates build a new snapshot and swap it in, so a
search in another thread always sees one consistent state and never waits for the writer.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from memlens.engine.catalog import Catalog
from memlens.engine.filters import SearchFilters


@dataclass(frozen=True, slots=True)
class VectorRow:
    unit_id: int
    kind: str
    format: str
    role: str
    session_key: str
    ts: float
    vector: np.ndarray


@dataclass(frozen=True)
class _Snapshot:
    ids: np.ndarray  # int64 [n]
    matrix: np.ndarray  # float32 [n, dim]
    kind: np.ndarray  # object [n]
    format: np.ndarray
    role: np.ndarray
    session: np.ndarray
    ts: np.ndarray  # float64 [n], NaN when unknown

    @staticmethod
    def empty(dim: int) -> _Snapshot:
        none = np.empty(0, dtype=object)
        return _Snapshot(np.empty(0, np.int64), np.empty((0, dim), np.float32), none, none, none, none, np.empty(0))

    @staticmethod
    def of(rows: list[VectorRow], dim: int) -> _Snapshot:
        if not rows:
            return _Snapshot.empty(dim)
        return _Snapshot(
            ids=np.fromiter((r.unit_id for r in rows), np.int64, len(rows)),
            matrix=np.vstack([r.vector for r in rows]).astype(np.float32, copy=False),
            kind=np.array([r.kind for r in rows], dtype=object),
            format=np.array([r.format for r in rows], dtype=object),
            role=np.array([r.role for r in rows], dtype=object),
            session=np.array([r.session_key for r in rows], dtype=object),
            ts=np.array([r.ts for r in rows], dtype=np.float64),
        )

    def concat(self, other: _Snapshot) -> _Snapshot:
        return _Snapshot(*(np.concatenate([a, b]) for a, b in zip(self.columns(), other.columns(), strict=True)))

    def take(self, keep: np.ndarray) -> _Snapshot:
        return _Snapshot(*(column[keep] for column in self.columns()))

    def columns(self) -> tuple[np.ndarray, ...]:
        return (self.ids, self.matrix, self.kind, self.format, self.role, self.session, self.ts)

    @cached_property
    def order(self) -> np.ndarray:
        return np.argsort(self.ids, kind="stable")

    def rows_of(self, unit_ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """(positions of the given ids that are present, the ids themselves)."""
        wanted = np.asarray(unit_ids, dtype=np.int64)
        sorted_ids = self.ids[self.order]
        slots = np.clip(np.searchsorted(sorted_ids, wanted), 0, max(len(sorted_ids) - 1, 0))
        present = sorted_ids[slots] == wanted if len(sorted_ids) else np.zeros(len(wanted), bool)
        return self.order[slots[present]], wanted[present]


def vector_rows(db: sqlite3.Connection, model: str, column: str, values: Sequence[object]) -> list[VectorRow]:
    """Units joined with their cached vectors for `model`, for the units whose `column` is in `values`."""
    if column not in ("u.id", "u.embed_text_hash"):
        raise ValueError(f"cannot select vector rows by {column}")
    sql = """SELECT u.id, u.kind, u.format, COALESCE(u.role, ''), COALESCE(u.session_key, ''), u.ts, v.vec
             FROM units u JOIN vectors v ON v.hash = u.embed_text_hash AND v.model = ?"""
    rows: list[VectorRow] = []
    for start in range(0, len(values), 500):
        batch = values[start : start + 500]
        where = f" WHERE {column} IN ({','.join('?' * len(batch))}) ORDER BY u.id"
        for r in db.execute(sql + where, (model, *batch)):
            ts = float(r[5]) if r[5] is not None else float("nan")
            rows.append(VectorRow(int(r[0]), r[1], r[2] or "", r[3], r[4], ts, decode_vector(r[6])))
    return rows


def decode_vector(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype=np.float32)


def encode_vector(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


class VectorIndex:
    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._snapshot = _Snapshot.empty(dim)
        self._lock = threading.Lock()  # serialises writers; readers only take the reference

    def __len__(self) -> int:
        return len(self._snapshot.ids)

    def load(self, catalog: Catalog, model: str) -> None:
        """Rebuild from the catalog: every unit whose text has a vector for `model`.

        Both tables are read in storage order and joined in memory (no per-row index lookups), and vectors go
        straight into one preallocated matrix: this is most of a warm start's time and of its memory peak.
        """
        db = catalog.db
        slot_of: dict[str, int] = {}
        blobs: list[bytes] = []
        width = self.dim * 4
        for digest, blob in db.execute("SELECT hash, vec FROM vectors WHERE model = ?", (model,)):
            if len(blob) == width:
                slot_of[digest] = len(blobs)
                blobs.append(blob)
        cached = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), self.dim)
        del blobs
        units = [
            r
            for r in db.execute(
                "SELECT id, kind, format, COALESCE(role, ''), COALESCE(session_key, ''), ts, embed_text_hash"
                " FROM units ORDER BY id"
            )
            if r[6] in slot_of
        ]
        if not units:
            snapshot = _Snapshot.empty(self.dim)
        else:
            snapshot = _Snapshot(
                ids=np.fromiter((r[0] for r in units), np.int64, len(units)),
                matrix=cached[np.fromiter((slot_of[r[6]] for r in units), np.int64, len(units))],
                kind=np.array([r[1] for r in units], dtype=object),
                format=np.array([r[2] or "" for r in units], dtype=object),
                role=np.array([r[3] for r in units], dtype=object),
                session=np.array([r[4] for r in units], dtype=object),
                ts=np.array([np.nan if r[5] is None else r[5] for r in units], dtype=np.float64),
            )
        with self._lock:
            self._snapshot = snapshot

    def update(self, remove: Iterable[int] = (), add: Iterable[VectorRow] = ()) -> None:
        remove_ids = np.fromiter(remove, np.int64)
        added = [r for r in add if r.vector.shape == (self.dim,)]
        with self._lock:
            snapshot = self._snapshot
            replaced = np.concatenate([remove_ids, np.fromiter((r.unit_id for r in added), np.int64, len(added))])
            keep = ~np.isin(snapshot.ids, replaced) if len(replaced) else None
            if keep is not None and not keep.all():  # copying the matrix costs; only when a row really goes
                snapshot = snapshot.take(keep)
            if added:
                snapshot = snapshot.concat(_Snapshot.of(added, self.dim))
            self._snapshot = snapshot

    def _mask(self, snapshot: _Snapshot, filters: SearchFilters | None) -> np.ndarray | None:
        if filters is None or filters.is_empty():
            return None
        mask = np.ones(len(snapshot.ids), dtype=bool)
        for column, value in (
            (snapshot.kind, filters.kind),
            (snapshot.format, filters.format),
            (snapshot.role, filters.role),
            (snapshot.session, filters.session),
        ):
            if value:
                mask &= column == value
        with np.errstate(invalid="ignore"):
            if filters.since is not None:
                mask &= snapshot.ts >= filters.since
            if filters.until is not None:
                mask &= snapshot.ts <= filters.until
        return mask

    def search(self, query: np.ndarray, limit: int, filters: SearchFilters | None = None) -> list[tuple[int, float]]:
        """(unit_id, cosine) pairs, best first."""
        snapshot = self._snapshot
        if limit <= 0 or not len(snapshot.ids):
            return []
        scores = snapshot.matrix @ query.astype(np.float32, copy=False)
        mask = self._mask(snapshot, filters)
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        limit = min(limit, len(scores))
        top = np.argpartition(-scores, limit - 1)[:limit]
        top = top[np.argsort(-scores[top])]
        return [(int(snapshot.ids[i]), float(scores[i])) for i in top if np.isfinite(scores[i])]

    def cosines(self, unit_ids: list[int], query: np.ndarray) -> dict[int, float]:
        """Cosine of the query with each given unit that has a vector."""
        snapshot = self._snapshot
        if not unit_ids or not len(snapshot.ids):
            return {}
        rows, ids = snapshot.rows_of(unit_ids)
        scores = snapshot.matrix[rows] @ query.astype(np.float32, copy=False)
        return {int(i): float(s) for i, s in zip(ids, scores, strict=True)}
