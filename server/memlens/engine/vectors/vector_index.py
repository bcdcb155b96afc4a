"""Cosine search over unit vectors: compact binary codes scanned by faiss, then a re-rank from int8 rows, the best
few scored again with their remainders.

Every unit vector is kept here two ways: a 48-byte code (the signs of its 384 components; held padded to 64 bytes,
which faiss compares faster) and an int8 row with a scale and each value's 4-bit remainder (quantized_rows.py). A
query scans the codes by Hamming distance (faiss, one thread), orders the nearest CODE_DEPTH by its dot product with
their signs, re-scores the best `rerank` of those from the int8 rows (each read from the vector file) and the best
REFINED_TOP of those from the int8 rows plus their remainders; small sets and narrow filters skip the codes. Adding
and removing rows appends or drops codes: nothing is trained or rebuilt.
bench/RESULTS.md has its recall against an exact scan (bench/vector_recall.py).

The vector file beside the catalog (vector_file, vector_log) holds the vectors; the catalog marks the units it holds a
row of. At start the small columns are read from the file when it and its log are at the catalog's stamp, the log's
changes replayed over them and its int8 rows and remainders read from it on demand; otherwise the rows they hold are
matched to the catalog's units by id and text hash (`reconciled`) and, in the writer, written afresh before the units
are marked (an older catalog gives its `vectors` table's instead: `_legacy_rows`). Removals and additions on an
index read from the file never copy the file's rows, the writer appends each change to the log (`persist`, before the
catalog counts it: vector_writer.py) and writes the file afresh when enough changed (`compact`, `grown`). Updates build
a new snapshot (vector_snapshot.py) and swap it in, so a search in another thread always sees one consistent state and
never waits for the writer. The snapshot also keeps each unit's session and position, so a search's neighbour context
needs no SQL. numpy, faiss and threadpoolctl are imported at the first use: a keyword-only command never loads them.
"""

from __future__ import annotations

import array
import dataclasses
import functools
import logging
import math
import os
import threading
import uuid
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlens.engine.catalog import Catalog
from memlens.engine.filters import SearchFilters
from memlens.engine.lazy import lazy_module
from memlens.engine.vectors import vector_file, vector_log
from memlens.engine.vectors.labels import Labels, Names
from memlens.engine.vectors.quantized_rows import BLOCK, QuantizedRows, code_width
from memlens.engine.vectors.vector_log import LogStep
from memlens.engine.vectors.vector_snapshot import VectorRow, VectorSnapshot, binary_codes, decode_vector

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_module("numpy")

EXACT_ROWS = 4096  # at most this many rows (after filters) are scanned exactly, without codes
CODE_DEPTH = 3000  # the nearest codes by Hamming distance, which the query's dot product with their signs orders
CODE_FACTOR = 5  # or this many times the re-rank's count, if larger
RERANK = 600  # the best of those by that product are scored from int8 rows (recall in bench/RESULTS.md)
RERANK_FACTOR = 2  # or this many times the requested count, if larger
TYPICAL_ROWS = 1000  # rows, evenly spaced through the index, whose cosines with a query are its typical ones
REFINED_TOP = 50  # the best this many by int8 rows are scored again with their remainders (recall in bench/RESULTS.md)
WIDE_FILTER_SHARE = 0.25  # a filter keeping this share of the rows or more scans every code (_nearest_codes)
WIDE_FILTER_MARGIN = 1.25  # ...for this many times the nearest codes the kept share should hold
COMPACT_SHARE = 20  # a whole sync writes the vector file afresh once 1/20 of its rows changed since (`compact`)
BULK_PERSIST_SHARE = 8  # any write does, once 1/8 did (a long embedding run: see `grown`)
LOG_BYTES = 16 << 20  # ...or once its log is this long (restamps that change no row add up too)
OPEN_PASSES = 3  # a load matches the rows to the catalog again at most this often when a commit lands meanwhile

log = logging.getLogger(__name__)


_blas_pinned = False
_faiss_module = None


def single_threaded_blas() -> None:
    """Per-query vector work runs on the caller's thread, so concurrent requests scale over the cores: OpenBLAS
    would spin two threads for a 15k-row product, and under load they fight each other and the other processes."""
    global _blas_pinned
    if not _blas_pinned:
        # OpenBLAS reads this once, when numpy loads it: a process that set it to 1 before (every `memlens`
        # command does, memlens/cli) runs one thread already, and threadpoolctl's look through every loaded library
        # to find it (9 ms of a CLI search) is not needed
        if os.environ.get("OPENBLAS_NUM_THREADS") != "1":
            from threadpoolctl import threadpool_limits

            threadpool_limits(limits=1, user_api="blas")
        _blas_pinned = True


def _faiss() -> Any:
    """faiss, imported at the first code scan (a small index never needs it), its OpenMP pool at one thread."""
    global _faiss_module
    if _faiss_module is None:
        import faiss

        faiss.omp_set_num_threads(1)
        _faiss_module = faiss
    return _faiss_module


class _UnitColumns:
    """The units' columns as `VectorSnapshot` holds them, filled a row at a time from `Catalog.vector_units` (no
    tuple per unit kept)."""

    def __init__(self) -> None:
        self.ids: array.array[int] = array.array("q")
        self.ts: array.array[float] = array.array("d")
        self.seq: array.array[int] = array.array("q")
        self.hashes = bytearray()  # HASH_BYTES a unit
        self.names = {column: Names() for column in ("kind", "format", "role", "session")}
        self.codes: dict[str, array.array[int]] = {column: array.array("i") for column in self.names}

    def __len__(self) -> int:
        return len(self.ids)

    def add(self, unit: tuple[int, str, str, str, str, float | None, str, int | None]) -> None:
        uid, kind, fmt, role, session, ts, text_hash, seq = unit
        self.ids.append(uid)
        self.hashes += vector_file.text_hash_bytes(text_hash)
        self.ts.append(math.nan if ts is None else ts)
        self.seq.append(seq if kind == "transcript" and seq is not None else -1)
        for column, value in zip(self.codes, (kind, fmt, role, session), strict=True):
            self.codes[column].append(self.names[column].code(str(value)))

    def id_column(self) -> np.ndarray:
        ids: np.ndarray = np.frombuffer(self.ids, np.int64)
        return ids

    def hash_column(self) -> np.ndarray:
        hashes: np.ndarray = np.frombuffer(self.hashes, np.uint8).reshape(-1, vector_file.HASH_BYTES)
        return hashes

    def facets(self, present: np.ndarray) -> dict[str, Any]:
        """The columns of a snapshot but its rows and codes, of the units `present` (a mask) keeps."""
        return {
            "ids": self.id_column()[present],
            "ts": np.frombuffer(self.ts, np.float64)[present],
            "seq": np.frombuffer(self.seq, np.int64)[present],
            "hashes": self.hash_column()[present],
            **{
                name: Labels(np.frombuffer(self.codes[name], np.int32)[present], self.names[name])
                for name in self.names
            },
        }

    def snapshot(self, rows: QuantizedRows, present: np.ndarray) -> VectorSnapshot:
        """The snapshot of the units `present` (a mask) keeps, whose vectors are those of `rows` (one a unit, the
        others' left unread: a unit without a vector costs no copy of the matrix)."""
        kept = np.flatnonzero(present)
        return VectorSnapshot(
            base=rows,
            codes=np.packbits(rows.refined_rows(kept) > 0, axis=-1) if len(kept) < len(rows) else rows.sign_codes(),
            where=None if len(kept) == len(rows) else kept,
            **self.facets(present),
        )


def _hash_keys(hashes: np.ndarray) -> np.ndarray:
    """The first 8 bytes of each text hash [n, HASH_BYTES], as one number: what finds a hash's candidates."""
    keys: np.ndarray = np.ascontiguousarray(hashes[:, :8]).view("<u8").ravel()
    return keys


def _never() -> bool:
    return False


def _nothing() -> None:
    return None


def reconciled(rows: VectorSnapshot, units: _UnitColumns) -> VectorSnapshot:
    """The rows of `units` that `rows` can give: a unit gets the row of its own id when that row holds its text's
    hash, else any row holding that hash (a row is the vector of its text, whichever unit it was made for), else
    none (it waits to be embedded). So rows of deleted units serve the units that replaced them, and a row whose id
    SQLite gave to a unit with another text never gives that unit a wrong vector. Keys of 8 bytes find the
    candidates; whole hashes decide."""
    unit_ids, unit_hashes = units.id_column(), units.hash_column()
    found = np.full(len(unit_ids), -1, np.int64)
    if len(rows.ids) and len(unit_ids):
        slots = np.minimum(np.searchsorted(rows.sorted_ids, unit_ids), len(rows.ids) - 1)
        same = rows.sorted_ids[slots] == unit_ids
        candidates = rows.positions(slots)
        same &= (rows.hashes[candidates] == unit_hashes).all(axis=1)
        found[same] = candidates[same]
        others = np.flatnonzero(~same & unit_hashes.any(axis=1))
        if len(others):
            keys = _hash_keys(rows.hashes)
            by_key = np.argsort(keys, kind="stable")
            wanted = _hash_keys(unit_hashes[others])
            slots = np.minimum(np.searchsorted(keys[by_key], wanted), len(keys) - 1)
            candidates = by_key[slots]
            hit = (keys[candidates] == wanted) & (rows.hashes[candidates] == unit_hashes[others]).all(axis=1)
            found[others[hit]] = candidates[hit]
    present = found >= 0
    if not present.any():
        return VectorSnapshot.empty(rows.base.dim)
    return dataclasses.replace(rows.at(found[present]), **units.facets(present))


def stamp_after(stamp: str, token: str) -> str:
    """The catalog stamp `stamp` (Catalog.vector_stamp) once a commit sets the vector token `token`."""
    generation, _, count = stamp.split(":")
    return f"{generation}:{token}:{count}"


def code_candidates(codes: np.ndarray, query: np.ndarray, depth: int, *, mask: np.ndarray | None = None) -> np.ndarray:
    """The positions of the `depth` rows (of those `mask` keeps, when a filter applies) that the re-rank
    scores from their int8 rows: of the rows whose codes are nearest the query's by Hamming distance, the best by
    the query's dot product with their signs. Hamming distance counts sign agreements alike; the product weighs
    each by the query's component: its best 600 of 3,000 kept more of the exact top 10 of real vectors (and of
    their noisy copies grown to 600,000 rows) than Hamming order's best 1,000 did, and a re-rank reads each of its
    rows from the vector file (bench/vector_recall.py, bench/RESULTS.md)."""
    nearest = _nearest_codes(codes, query, mask, max(CODE_DEPTH, CODE_FACTOR * depth))
    if len(nearest) <= depth:
        return nearest
    by_signs = _sign_products(codes[nearest], query)
    kept: np.ndarray = nearest[np.argpartition(-by_signs, depth - 1)[:depth]]
    return kept


def _knn_codes(query_code: np.ndarray, codes: np.ndarray, count: int) -> np.ndarray:
    """The positions of the `count` codes nearest `query_code` by Hamming distance, nearest first. The counting
    variant ("mc") finds the same nearest codes as the heap ("hc") and is ~20% faster at depth 1,000 (a heap of
    1,000 is costly to keep); it gives them in order of distance."""
    _, found = _faiss().knn_hamming(query_code, codes, count, variant="mc")
    nearest: np.ndarray = found[0][found[0] >= 0].astype(np.int64)
    return nearest


def _nearest_codes(codes: np.ndarray, query: np.ndarray, mask: np.ndarray | None, count: int) -> np.ndarray:
    """The positions of the `count` rows (of those `mask` keeps) whose codes are nearest the query's. A filter that
    keeps a good share of the rows (every plain query leaves tool output out) scans all codes for more than `count`
    and drops the rows it leaves out: copying the kept rows' codes cost as much as the scan (3.4 ms for 667,000 of
    980,000 rows). When too few kept rows are among those, the kept codes are scanned alone, so the answer is
    always the kept rows' nearest."""
    query_code = binary_codes(query[np.newaxis, :])
    if mask is None:
        return _knn_codes(query_code, codes, count)
    kept_count = int(np.count_nonzero(mask))
    if kept_count >= WIDE_FILTER_SHARE * len(codes):
        wider = min(len(codes), math.ceil(count * WIDE_FILTER_MARGIN * len(codes) / kept_count))
        found = _knn_codes(query_code, codes, wider)
        kept: np.ndarray = found[mask[found]]
        if len(kept) >= count or wider == len(codes):
            return kept[:count]
    nearest: np.ndarray = np.flatnonzero(mask)[_knn_codes(query_code, np.compress(mask, codes, axis=0), count)]
    return nearest


@functools.cache
def _byte_bits() -> np.ndarray:
    """[8, 256]: the bits of each byte value, the highest first (np.packbits' order)."""
    bits: np.ndarray = np.unpackbits(np.arange(256, dtype=np.uint8)[:, np.newaxis], axis=1).T.astype(np.float32)
    return bits


def _sign_products(codes: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The query's dot product with each code's bits (1 for a positive component, 0 otherwise): ordered as the dot
    product with the signs (±1) is, that being twice this less the sum of the query's components. A table of what
    each byte value adds at each byte's place, looked up for every byte of every code."""
    width = code_width(len(query))
    weights = np.zeros(width * 8, np.float32)
    weights[: len(query)] = query
    table = (weights.reshape(width, 8) @ _byte_bits()).ravel()  # [width × 256]
    places = codes[:, :width].astype(np.intp)
    places += np.arange(0, width * 256, 256)
    products: np.ndarray = table[places].sum(axis=1)
    return products


class VectorIndex:
    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._snapshot: VectorSnapshot | None = None  # None: empty, or loading deferred to the first use
        self._pending: Callable[[], VectorSnapshot] | None = None
        self._lock = threading.Lock()  # serialises writers; readers only take the reference
        self._file: Path | None = None  # the vector file beside the catalog, once `load` named it
        self._file_current = False  # the file and its log hold exactly the snapshot's rows
        # the rows a search keeps when it leaves a kind out (filters.without_kind), worked out once per snapshot:
        # every plain query leaves tool results out, and comparing every row's kind per query would cost milliseconds
        self._kind_rows: tuple[VectorSnapshot, str, np.ndarray | None] | None = None
        self._file_stamp = ""  # the catalog stamp the file and its log record
        self._log_id = ""  # the log of the file the snapshot's base was read from or written as
        self._journal: list[LogStep] | None = None  # the changes since the file and its log (None: not from them)
        self._log_bytes = 0  # the size of that log past its first bytes (0: empty)
        self._older_layout = False  # the file is of a layout before vector_file.MAGIC: the writer writes it afresh
        self.may_write: Callable[[], bool] = _never  # the index writer sets this: only it writes the file
        # and this, which it is told after a load marked the units the file holds (some may wait again): a count of
        # what waits, taken before, is stale
        self.marks_changed: Callable[[], None] = _nothing
        self.write_failure: OSError | None = None  # why the file could not be written last (a full disk...)

    def __len__(self) -> int:
        return len(self._current().ids)

    def _current(self) -> VectorSnapshot:
        snapshot = self._snapshot
        if snapshot is None:
            with self._lock:
                snapshot = self._materialise()
        return snapshot

    def _materialise(self) -> VectorSnapshot:
        """Under the lock: the snapshot, loaded now if `load` deferred it."""
        if self._snapshot is None:
            if self._pending is not None:
                self._snapshot = self._pending()
                self._pending = None
            else:
                self._snapshot = VectorSnapshot.empty(self.dim)
        return self._snapshot

    def load(self, catalog: Catalog, model: str) -> None:
        """Load the rows of `model`'s vector file at the first use (`_open`)."""
        with self._lock:
            self._file = vector_file.file_for(Path(catalog.path).parent, model)
            self._file_current = False
            self._journal = None
            self._pending = lambda: self._open(catalog, model)
            self._snapshot = None

    def held_as_marked(self, catalog: Catalog, model: str) -> bool:
        """Whether the catalog's marks of which units have a row already hold (no row lost, nothing to move from its
        `vectors` table), so loading the rows would find no unit to queue again: true once they are loaded (matched
        then), or when the file and its log are at the catalog's stamp (vector_file.is_current, which reads neither
        the rows nor their checksum). A writer that only counts what waits for a vector asks this first."""
        with self._lock:
            if self._pending is None or self._file is None:  # loaded (or nothing to load)
                return True
            path = self._file
        with catalog.read_snapshot():
            if catalog.holds_legacy_vectors():
                return False
            return vector_file.is_current(path, stamp=catalog.vector_stamp(), model=model, dim=self.dim)

    def _open(self, catalog: Catalog, model: str) -> VectorSnapshot:
        """The rows at the catalog's state: the file and its log when they are at the catalog's stamp; otherwise the
        rows they hold matched to the catalog's units (`reconciled`: a crash between the file and the catalog, a
        damaged file or log loses only what it alone held, whose units wait to be embedded again), or, in a catalog
        that still has its `vectors` table (schema 4 or older), its vectors. The writer then writes the file afresh
        and only then marks in the catalog the units it holds a row of (dropping the `vectors` table). A commit of
        the writer's thread landing meanwhile (this may run on a search's thread) makes the marks wrong: they are not
        made, and the rows are matched again to the catalog as it is now (the writer's next commit needs these rows,
        so it waits: a second pass is enough)."""
        for _ in range(OPEN_PASSES):
            opened, stamp, legacy, count = self._open_rows(catalog, model)
            if stamp is None and self._older_layout and self.may_write():
                # at the catalog's stamp, in a layout before the current one: written afresh in it, once (the same
                # rows at the same stamp, so the catalog's marks stay right), for every later open to map
                return self._write(opened, self._file_stamp, model)
            if stamp is None or not self.may_write():
                return opened
            token = uuid.uuid4().hex
            written = self._write(opened, stamp_after(stamp, token), model)
            del opened
            if not self._file_current:  # not written (a full disk...): nothing is marked
                return written
            if catalog.vector_file_written(stamp=stamp, token=token, ready=iter(np.sort(written.ids)), legacy=legacy):
                log.info("vector file %s written: %d of %d units have their rows", self._file, len(written.ids), count)
                self.marks_changed()
                return written
        self._file_current, self._journal = False, None  # never taken for the catalog's state: matched at next load
        return written

    def _open_rows(self, catalog: Catalog, model: str) -> tuple[VectorSnapshot, str | None, bool, int]:
        """(the rows, the catalog stamp they were matched at (None: the file and its log are at the catalog's
        stamp, nothing to write), whether the catalog still has its `vectors` table, its unit count)."""
        assert self._file is not None
        with catalog.read_snapshot():
            stamp = catalog.vector_stamp()
            legacy = catalog.holds_legacy_vectors()
            stored = None if legacy else vector_file.read_current(self._file, stamp=stamp, model=model, dim=self.dim)
            if stored is not None:
                rows, changes = stored
                self._file_current, self._file_stamp, self._log_id = True, stamp, rows.log_id
                self._older_layout = rows.older_layout
                self._journal = [] if rows.log_id else None  # a file from before logs is written afresh
                self._log_bytes = changes.size if changes is not None and changes.stamp is not None else 0
                replayed = VectorSnapshot.stored(rows).replayed(changes.steps if changes is not None else [])
                if replayed.ids is not rows.ids:  # the log's steps copied the file's columns into memory
                    vector_file.release_mapped(rows.ids)
                return replayed, None, False, len(replayed.ids)
            units = _UnitColumns()
            for unit in catalog.vector_units():
                units.add(unit)
            matched = self._legacy_rows(catalog, model, stamp, units) if legacy else self._held_rows(model, units)
            return matched, stamp, legacy, len(units)

    def _held_rows(self, model: str, units: _UnitColumns) -> VectorSnapshot:
        """The rows the file and its log hold (whatever stamp they reached; the whole records of a torn log),
        matched to the units (`reconciled`); none from a file missing, damaged or of another layout."""
        assert self._file is not None
        stored = vector_file.read(self._file, stamp=None, model=model, dim=self.dim)
        if stored is None or stored.hashes is None:
            return reconciled(VectorSnapshot.empty(self.dim), units)
        rows = VectorSnapshot.stored(stored)
        if stored.log_id:
            try:
                changes = vector_log.read(vector_log.log_for(self._file), stored.log_id, self.dim)
            except OSError as exc:
                log.warning("vector log beside %s is unreadable (%s)", self._file, exc)
                changes = None
            if changes is not None:
                rows = rows.replayed(changes.steps)
        return reconciled(rows, units)

    def _legacy_rows(self, catalog: Catalog, model: str, stamp: str, units: _UnitColumns) -> VectorSnapshot:
        """An older catalog's rows (its `vectors` table still there): a vector file at its stamp (its rows are its
        units', so a file from before the hashes gets theirs by id), else the catalog's `vectors` table."""
        assert self._file is not None
        stored = vector_file.read(self._file, stamp=stamp, model=model, dim=self.dim, hashless=True)
        if stored is None:
            return self._read(catalog, model, units)
        slots = np.searchsorted(units.id_column(), stored.ids)  # a current file's ids are all units'
        if len(slots) and (slots.max() >= len(units) or not np.array_equal(units.id_column()[slots], stored.ids)):
            return self._read(catalog, model, units)
        hashes = units.hash_column()[slots]
        if stored.hashes is not None and not np.array_equal(stored.hashes, hashes):
            return self._read(catalog, model, units)
        return reconciled(VectorSnapshot.stored(stored, hashes=hashes), units)

    def _write(self, snapshot: VectorSnapshot, stamp: str, model: str) -> VectorSnapshot:
        """Under the lock: write `snapshot` as the vector file (with an empty log) and return it read from there
        (the in-memory float rows are dropped). On failure (a full disk...) the snapshot is kept as it is."""
        assert self._file is not None
        try:
            log_id = snapshot.write_file(self._file, stamp=stamp, model=model)
            stored = vector_file.read(self._file, stamp=stamp, model=model, dim=self.dim)
        except OSError as exc:
            log.warning("cannot write the vector file %s: %s", self._file, exc)
            self._file_current, self._journal, self.write_failure = False, None, exc
            return snapshot
        if stored is None or stored.log_id != log_id:
            self._file_current, self._journal = False, None
            return snapshot
        self.write_failure = None
        self._file_current, self._file_stamp, self._log_id, self._journal = True, stamp, log_id, []
        self._log_bytes, self._older_layout = 0, False
        return VectorSnapshot.stored(stored)

    def grown(self) -> bool:
        """Whether the rows added or removed since the vector file was written are 1/BULK_PERSIST_SHARE of all rows
        or more.

        A long embedding run asks after every batch and has the file written afresh when so: the rows added since
        the file was written are held in memory (`VectorSnapshot.concat`), so without a rewrite now and then a cold
        run at 150k units held every vector twice in anonymous memory (874 MB peak) and copied gigabytes; this way
        the rows held in memory stay near an eighth of the index, for a file rewritten each time it grew by 1/7."""
        snapshot = self._snapshot
        return snapshot is not None and snapshot.changed * BULK_PERSIST_SHARE >= max(1, len(snapshot.ids))

    def persist(self, catalog: Catalog, model: str, *, force: bool = False, stamp: str | None = None) -> bool:
        """Bring the vector file up to the rows held here: the changes since are appended to its log (what they
        add, not what the index holds), and the file is written afresh when there is no log to append to, once an
        eighth of its rows changed (`grown`), or with `force` (unless it is exactly these rows, with an empty
        log, in the current layout). Either is on disk when this returns. The caller holds the index writer's lock,
        so the catalog's state is the one these rows mirror; `stamp`: the catalog stamp to record instead, the one
        the caller's next commit gives the catalog (rows made durable before the catalog counts them as stored,
        vector_writer.py). True when rows were written."""
        with self._lock:
            snapshot = self._snapshot
            if snapshot is None or self._file is None:
                return False
            if stamp is None:
                with catalog.read_snapshot():
                    stamp = catalog.vector_stamp()
            journal = self._journal
            current = self._file_current and stamp == self._file_stamp and not journal
            if current and not (force and (self._log_bytes or self._older_layout)):
                return False
            if journal is not None and not force and not self.grown() and self._append(journal, stamp):
                return bool(journal)
            self._snapshot = self._write(snapshot, stamp, model)
            return self._file_current

    def compact(self, catalog: Catalog, model: str) -> bool:
        """Write the vector file afresh when a twentieth of its rows changed since it was written, its log grew
        long, or it is of an older layout: run after a whole sync, off the path of a watcher's append. True when it
        was written."""
        with self._lock:
            snapshot = self._snapshot
            if snapshot is None or self._file is None:
                return False
            due = snapshot.changed * COMPACT_SHARE >= max(1, len(snapshot.ids)) or self._log_bytes > LOG_BYTES
        return (due or self._older_layout) and self.persist(catalog, model, force=True)

    def _append(self, journal: list[LogStep], stamp: str) -> bool:
        """Under the lock: append the changes since the file and its log, and the stamp they reach; False when it
        cannot be done (the caller writes the file afresh)."""
        assert self._file is not None
        try:
            size = vector_log.append(vector_log.log_for(self._file), self._log_id, stamp=stamp, steps=journal)
        except (OSError, ValueError) as exc:
            log.warning("cannot append to the vector log beside %s: %s", self._file, exc)
            self._journal = None
            return False
        self._file_current, self._file_stamp, self._journal = True, stamp, []
        self._log_bytes = size
        return True

    def _read(self, catalog: Catalog, model: str, units: _UnitColumns) -> VectorSnapshot:
        """Every unit with a vector in an older catalog's `vectors` table: each block of vectors quantised straight
        into the rows of every unit whose text it is. Neither a float copy of the whole matrix nor a tuple per unit
        (nor a dictionary of hashes) is held: at 980,000 rows they were 1.5 GB and 0.6 GB, and a rebuild peaked at
        2.7 GB. The units are found by their hashes' first 8 bytes, sorted once, and whole hashes decide."""
        hashes = units.hash_column()
        order = np.argsort(_hash_keys(hashes), kind="stable")
        sorted_keys = _hash_keys(hashes)[order]
        rows = QuantizedRows.allocated(len(units), self.dim)
        present = np.zeros(len(units), dtype=bool)
        digests: list[bytes] = []
        vectors: list[np.ndarray] = []

        def fill() -> None:
            wanted = np.frombuffer(b"".join(digests), np.uint8).reshape(-1, vector_file.HASH_BYTES)
            left = np.searchsorted(sorted_keys, _hash_keys(wanted), "left")
            counts = np.searchsorted(sorted_keys, _hash_keys(wanted), "right") - left
            which = np.repeat(np.arange(len(wanted)), counts)  # each vector once per unit of its key
            slots = np.arange(len(which)) - np.repeat(np.cumsum(counts) - counts, counts) + np.repeat(left, counts)
            positions = order[slots]
            same = (hashes[positions] == wanted[which]).all(axis=1)
            rows.fill(positions[same], np.stack(vectors)[which[same]])
            present[positions[same]] = True
            digests.clear()
            vectors.clear()

        for digest, blob in catalog.legacy_vectors(model):
            vector = decode_vector(blob, self.dim)
            if vector is not None:
                digests.append(vector_file.text_hash_bytes(digest))
                vectors.append(vector)
                if len(digests) == BLOCK:
                    fill()
        if digests:
            fill()
        if not present.any():
            return VectorSnapshot.empty(self.dim)
        return units.snapshot(rows, present)

    def stored_vectors(self, unit_ids: list[int]) -> dict[int, np.ndarray]:
        """The vector held of each given unit that has one, as float32 from its int8 values and remainders: the
        rows quantise to themselves, so these are the vectors an older catalog kept (publishing sends them)."""
        snapshot = self._current()
        positions, ids = snapshot.rows_of(unit_ids)
        if not ids:
            return {}
        rows = snapshot.refined_rows(positions)
        return dict(zip(ids, rows, strict=True))

    def vectors_of_texts(self, hashes: Iterable[bytes]) -> dict[bytes, np.ndarray]:
        """The vector held here of each text hash (VectorSnapshot.vectors_of_texts)."""
        return self._current().vectors_of_texts(hashes)

    def vectors_of_units(self, unit_ids: list[int]) -> dict[bytes, np.ndarray]:
        """The vectors held of the given units, by their texts' hashes."""
        snapshot = self._current()
        positions, ids = snapshot.rows_of(unit_ids)
        if not ids:
            return {}
        rows = snapshot.refined_rows(positions)
        return {snapshot.hashes[p].tobytes(): row for p, row in zip(positions.tolist(), rows, strict=True)}

    def on_disk(self, stamp: str) -> bool:
        """Whether the vector file and its log hold exactly the rows held here, at `stamp` (`persist`)."""
        with self._lock:
            return self._file_current and self._file_stamp == stamp and not self._journal

    def update(self, remove: Iterable[int] = (), add: Iterable[VectorRow] = ()) -> None:
        remove_ids = np.fromiter(remove, np.int64)
        added = [r for r in add if r.vector.shape == (self.dim,)]
        with self._lock:
            snapshot = before = self._materialise()
            replaced = np.concatenate([remove_ids, np.fromiter((r.unit_id for r in added), np.int64, len(added))])
            # the rows whose ids go or come again, found in the sorted ids (not an isin over every row)
            gone = np.unique(snapshot.rows_of(replaced.tolist())[0]) if len(replaced) else replaced
            rows = VectorSnapshot.of(added, self.dim)
            snapshot = snapshot.spliced(gone, rows)
            if snapshot.ids is not before.ids:  # the columns were copied: the file's mapped ones serve no one now
                vector_file.release_mapped(before.ids)
            if snapshot is not self._snapshot:
                self._file_current = False
                if self._journal is not None:  # what the next persist appends to the file's log
                    self._journal.append(rows.as_step(replaced))
            self._snapshot = snapshot

    def _rows_without_kind(self, snapshot: VectorSnapshot, kind: str) -> np.ndarray | None:
        """A mask of the snapshot's rows not of `kind`, None when no row is of it (cached for the snapshot, read-only:
        callers copy it before narrowing it)."""
        cached = self._kind_rows
        if cached is not None and cached[0] is snapshot and cached[1] == kind:
            return cached[2]
        of_kind = snapshot.kind.equals(kind)
        kept = ~of_kind if of_kind.any() else None
        if kept is not None:
            kept.flags.writeable = False  # shared by every search of the snapshot
        self._kind_rows = (snapshot, kind, kept)
        return kept

    def _mask(self, snapshot: VectorSnapshot, filters: SearchFilters | None) -> np.ndarray | None:
        if filters is None or filters.is_empty():
            return None
        kept = self._rows_without_kind(snapshot, filters.without_kind) if filters.without_kind else None
        if dataclasses.replace(filters, without_kind=None).is_empty():
            return kept  # only a kind left out (every plain query): the cached mask, or none when no row has it
        mask = np.ones(len(snapshot.ids), dtype=bool) if kept is None else kept.copy()
        for column, value in (
            (snapshot.kind, filters.kind),
            (snapshot.format, filters.format),
            (snapshot.role, filters.role),
            (snapshot.session, filters.session),
        ):
            if value:
                mask &= column.equals(value)
        if filters.sessions is not None:  # a project's sessions
            mask &= snapshot.session.within(filters.sessions)
        with np.errstate(invalid="ignore"):
            if filters.since is not None:
                mask &= snapshot.ts >= filters.since
            if filters.until is not None:
                mask &= snapshot.ts <= filters.until
        return mask

    def search(
        self, query: np.ndarray, limit: int, filters: SearchFilters | None = None, rerank: int | None = None
    ) -> list[tuple[int, float]]:
        """(unit_id, cosine) pairs, best first. `rerank`: candidates scored from the int8 rows (None: the default;
        0: every row, no codes)."""
        snapshot = self._current()
        if limit <= 0 or not len(snapshot.ids):
            return []
        single_threaded_blas()
        query = np.asarray(query, dtype=np.float32)
        mask = self._mask(snapshot, filters)
        count = len(snapshot.ids) if mask is None else int(np.count_nonzero(mask))
        if not count:
            return []
        depth = max(RERANK if rerank is None else rerank, RERANK_FACTOR * limit)
        if count <= max(EXACT_ROWS, depth) or rerank == 0:
            candidates = None if mask is None else np.flatnonzero(mask)  # None: all rows
        else:
            candidates = code_candidates(snapshot.codes, query, depth, mask=mask)
        values = snapshot.value_rows(candidates)  # int8 rows: cosines within about 1e-3
        scores = snapshot.scores_of(candidates, values, query)
        kept_count = min(max(limit, REFINED_TOP), len(scores))
        top = np.argpartition(-scores, kept_count - 1)[:kept_count]
        top = top[np.argsort(-scores[top], kind="stable")]
        positions, scores = (top if candidates is None else candidates[top]), scores[top]
        # the best few scored again with the int8 values' remainders: int8's errors reorder near-ties
        head = min(REFINED_TOP, kept_count)
        refined = snapshot.refined_scores(positions[:head], query, values=values[top[:head]])
        order = np.argsort(-refined, kind="stable")
        positions[:head], scores[:head] = positions[:head][order], refined[order]
        pairs = zip(snapshot.ids[positions[:limit]].tolist(), scores[:limit].tolist(), strict=True)
        return [(unit_id, score) for unit_id, score in pairs if math.isfinite(score)]

    def typical_cosines(self, query: np.ndarray, rows: int = TYPICAL_ROWS) -> np.ndarray:
        """The query's cosines with at most `rows` rows spread evenly through the index (all of a smaller one): how
        near to it the index's messages usually are, against which one message's cosine reads as near or not."""
        snapshot = self._current()
        count = len(snapshot.ids)
        if not count or rows <= 0:
            return np.zeros(0, dtype=np.float32)
        positions = np.unique(np.linspace(0, count - 1, min(count, rows)).astype(np.int64))
        single_threaded_blas()
        return snapshot.scores(positions, np.asarray(query, dtype=np.float32))

    def cosines(self, unit_ids: list[int], query: np.ndarray) -> dict[int, float]:
        """Cosine of the query with each given unit that has a vector (from the int8 rows: within about 1e-3)."""
        snapshot = self._current()
        if not unit_ids or not len(snapshot.ids):
            return {}
        rows, ids = snapshot.rows_of(unit_ids)
        scores = snapshot.scores(rows, np.asarray(query, dtype=np.float32))  # within about 1e-3 (int8 rows)
        return dict(zip(ids, scores.tolist(), strict=True))

    def roles(self, unit_ids: Sequence[int]) -> dict[int, str]:
        """The role (user, assistant, …) of each given unit held here that has one."""
        snapshot = self._snapshot  # never loads
        if snapshot is None or not len(snapshot.ids) or not unit_ids:
            return {}
        rows, ids = snapshot.rows_of(unit_ids)
        pairs = zip(ids, snapshot.role.values(rows), strict=True)
        return {unit_id: str(role) for unit_id, role in pairs if role}

    def places(self, unit_ids: Sequence[int]) -> tuple[dict[int, tuple[str, int]], list[int]]:
        """(session and position of each given transcript message held here, the ids not held here)."""
        snapshot = self._snapshot  # never loads: without vectors in memory, the caller asks the catalog
        if snapshot is None or not len(snapshot.ids) or not unit_ids:
            return {}, list(unit_ids)
        rows, ids = snapshot.rows_of(unit_ids)
        pairs = zip(ids, snapshot.session.values(rows), snapshot.seq[rows].tolist(), strict=True)
        places = {unit_id: (session, seq) for unit_id, session, seq in pairs if seq >= 0}
        if len(ids) == len(unit_ids):
            return places, []
        held = set(ids)
        return places, [u for u in unit_ids if u not in held]
