"""The vector file beside the catalog, which holds the index's vectors: a warm start maps it and replays its log; a
file behind the catalog is repaired (its rows matched to the units by id and text hash), a damaged one loses only
what it alone held (those units wait to be embedded again): never a wrong vector, never a crash."""

from __future__ import annotations

import json
import weakref
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from memlens.engine.engine import Engine
from memlens.engine.vectors import vector_file, vector_log
from memlens.engine.vectors.quantized_rows import FileRows, QuantizedRows
from memlens.engine.vectors.vector_index import VectorIndex
from memlens.engine.vectors.vector_snapshot import VectorRow, unit_vector_row
from vector_files import write_vector_file

QUERIES = ["dead letter queue", "how do we deploy", "database migration", "retry with backoff", "tests failing"]


def _file(engine: Engine) -> Path:
    assert engine.embedder is not None
    return vector_file.file_for(engine.index_dir, engine.embedder.name)


def _results(index: VectorIndex, engine: Engine, limit: int = 10) -> list[list[tuple[int, float]]]:
    assert engine.embedder is not None
    return [index.search(engine.embedder.embed_query(q), limit, rerank=0) for q in QUERIES]


def _in_memory(engine: Engine) -> VectorIndex:
    """The reference: the rows the engine holds, copied into an index of rows in memory (no file)."""
    snapshot = engine.vectors._current()
    ids = snapshot.ids.tolist()
    vectors = engine.vectors.stored_vectors(ids)
    units = {int(unit[0]): unit for unit in engine.catalog.vector_units()}
    index = VectorIndex(engine.vectors.dim)
    index.update(add=[unit_vector_row(units[unit_id], vectors[unit_id]) for unit_id in ids])
    return index


def _waiting(engine: Engine) -> int:
    return int(engine.catalog.db.execute("SELECT COUNT(*) FROM units WHERE vector_ready IS NULL").fetchone()[0])


def _fresh(engine: Engine, may_write: bool = True) -> VectorIndex:
    assert engine.embedder is not None
    index = VectorIndex(engine.vectors.dim)
    if may_write:
        index.may_write = lambda: True
    index.load(engine.catalog, engine.embedder.name)
    len(index)
    return index


def _from_file(index: VectorIndex) -> bool:
    snapshot = index._snapshot
    return snapshot is not None and isinstance(snapshot.base.remainders, FileRows)


def test_sync_writes_the_file_and_a_warm_start_reads_it(example: Engine) -> None:
    example.indexer.embedding.persist(force=True)
    path = _file(example)
    assert path.exists()
    assert not list(path.parent.glob(f"{path.name}.tmp-*"))  # written through a temporary file, renamed
    warm = _fresh(example, may_write=False)
    assert _from_file(warm)
    reference = _in_memory(example)
    assert not _from_file(reference)
    assert len(warm) == len(reference) == example.catalog.unit_count() > 0
    assert _results(warm, example) == _results(reference, example)
    snap, ref = warm._snapshot, reference._snapshot
    assert snap is not None and ref is not None
    for name in ("ids", "seq", "codes"):
        assert np.array_equal(getattr(snap, name), getattr(ref, name)), name
    for name in vector_file.CATEGORIES:
        assert getattr(snap, name).values() == getattr(ref, name).values(), name
    assert np.array_equal(snap.ts, ref.ts, equal_nan=True)


def test_a_file_behind_the_catalog_is_repaired_not_rebuilt(example: Engine) -> None:
    """A catalog commit the file never recorded (a crash between the two): the file's rows still serve every unit
    whose text they hold; a reader matches them in memory, the writer writes the file afresh at the catalog's stamp
    and only then marks the units, so nothing is embedded again."""
    assert example.embedder is not None
    example.indexer.embedding.persist(force=True)
    path = _file(example)
    before = path.read_bytes()
    reference = _results(_in_memory(example), example)
    with example.catalog.transaction() as db:
        example.catalog.bump_generation(db)
        db.execute("UPDATE units SET vector_ready = NULL")  # as if none were marked yet
    assert (
        vector_file.read_current(path, stamp=example.catalog.vector_stamp(), model=example.embedder.name, dim=384)
        is None
    )
    reader = _fresh(example, may_write=False)
    assert _results(reader, example) == reference  # the file's rows, matched to the units
    assert path.read_bytes() == before and _waiting(example) == example.catalog.unit_count()  # a reader writes nothing
    writer = _fresh(example)
    assert _from_file(writer) and path.read_bytes() != before  # written afresh, and read from there
    assert _results(writer, example) == reference
    assert _waiting(example) == 0  # every unit's row is on disk again: marked, nothing to embed
    assert _from_file(_fresh(example, may_write=False))


def test_a_vector_token_the_file_did_not_record_makes_it_stale(example: Engine) -> None:
    assert example.embedder is not None
    example.indexer.embedding.persist(force=True)
    stamp = example.catalog.vector_stamp()
    with example.catalog.transaction() as db:
        example.catalog.mark_vectors_ready(db, token="another")
    assert example.catalog.vector_stamp() != stamp
    assert vector_file.read_current(_file(example), stamp=stamp, model=example.embedder.name, dim=384) is not None
    new_stamp = example.catalog.vector_stamp()
    assert vector_file.read_current(_file(example), stamp=new_stamp, model=example.embedder.name, dim=384) is None


def test_another_model_or_dimension_is_not_trusted(example: Engine) -> None:
    assert example.embedder is not None
    example.indexer.embedding.persist(force=True)
    path = _file(example)
    stamp = example.catalog.vector_stamp()
    assert vector_file.read(path, stamp=stamp, model=example.embedder.name, dim=384) is not None
    assert vector_file.read(path, stamp=stamp, model="other/model", dim=384) is None
    assert vector_file.read(path, stamp=stamp, model=example.embedder.name, dim=768) is None
    assert vector_file.read(path, stamp=stamp + "x", model=example.embedder.name, dim=384) is None


@pytest.mark.parametrize("damage", ["truncated", "codes", "ids", "header", "magic", "empty", "garbage"])
def test_a_damaged_file_is_embedded_again_never_a_crash(example: Engine, damage: str) -> None:
    """A damaged file holds nothing a search may trust: a reader serves no vectors (no crash), the writer writes
    an empty file, marks every unit waiting and embeds them again: the same searches as before."""
    assert example.embedder is not None
    example.indexer.embedding.persist(force=True)
    reference = _results(_in_memory(example), example)
    path = _file(example)
    data = bytearray(path.read_bytes())
    header_end = 12 + int.from_bytes(data[8:12], "little")
    sections = json.loads(bytes(data[12:header_end]))["sections"]
    if damage == "truncated":
        data = data[: sections["remainders"][0] + 100]
    elif damage in ("codes", "ids"):
        data[sections[damage][0] + 3] ^= 0xFF
    elif damage == "header":
        data[20] = ord("}")
    elif damage == "magic":
        data[0] = ord("X")
    elif damage == "empty":
        data = bytearray()
    else:
        data = bytearray(b"\x00" * 5000)
    path.write_bytes(bytes(data))
    reader = _fresh(example, may_write=False)
    assert len(reader) == 0 and _results(reader, example) == [[] for _ in QUERIES]
    example.vectors.load(example.catalog, example.embedder.name)  # the writer's own index, opened again
    example.indexer.embedding.forget_counts()
    assert len(example.vectors) == 0 and _waiting(example) == example.catalog.unit_count()
    assert example.embed_pending() > 0
    assert _waiting(example) == 0 and _results(example.vectors, example) == reference
    assert _results(_fresh(example, may_write=False), example) == reference


def test_updates_on_an_index_read_from_the_file_match_a_rebuild(example: Engine) -> None:
    """Removing and adding rows on an index read from the file never copies its rows; the result is what SQLite
    would give, and the writer's next persist writes it (then a warm start reads exactly those rows)."""
    assert example.embedder is not None
    example.indexer.embedding.persist(force=True)
    index = _fresh(example)
    assert _from_file(index)
    snapshot = index._snapshot
    assert snapshot is not None
    ids = snapshot.ids.tolist()
    gone, changed = ids[::3], ids[1:6]
    rng = np.random.default_rng(5)
    moved = [rng.standard_normal(384).astype(np.float32) for _ in changed]
    added = [
        VectorRow(u, "memory", "", "", "", float("nan"), v / np.linalg.norm(v))
        for u, v in zip(changed, moved, strict=True)
    ]
    index.update(remove=gone, add=added)
    after = index._snapshot
    assert after is not None and isinstance(after.base.remainders, FileRows)  # the file's rows are still the base
    assert after.changed == len(gone) + len(changed) * 2 - len(set(gone) & set(changed))

    expected = VectorIndex(index.dim)  # the same rows built in memory
    kept = [u for u in ids if u not in set(gone) | set(changed)]
    units = {int(unit[0]): unit for unit in example.catalog.vector_units()}
    held = index.stored_vectors(kept)
    expected.update(add=[*(unit_vector_row(units[u], held[u]) for u in kept), *added])
    assert sorted(_flat(_results(index, example))) == sorted(_flat(_results(expected, example)))
    cos_ids = [*changed, *kept[:5], *gone[:2]]
    query = example.embedder.embed_query("deploy")
    assert index.cosines(cos_ids, query) == pytest.approx(expected.cosines(cos_ids, query), abs=1e-6)

    assert index.persist(example.catalog, example.embedder.name, force=True)
    assert _from_file(index) and index._snapshot is not None and index._snapshot.changed == 0
    warm = _fresh(example, may_write=False)
    assert _from_file(warm)
    assert sorted(_flat(_results(warm, example))) == sorted(_flat(_results(expected, example)))


def _log(engine: Engine) -> Path:
    return vector_log.log_for(_file(engine))


def test_a_change_is_appended_to_the_log_and_a_warm_start_replays_it(example: Engine) -> None:
    """A few changed rows cost an append to the log beside the file, not a rewrite of the file; a process opening
    the index reads the file and replays the log to exactly the writer's rows, never reading the catalog."""
    assert example.embedder is not None
    example.indexer.embedding.persist(force=True)
    index = _fresh(example)
    path, log_path = _file(example), _log(example)
    before, log_size = path.stat().st_ino, log_path.stat().st_size
    assert not index.persist(example.catalog, example.embedder.name)  # nothing changed
    snapshot = index._snapshot
    assert snapshot is not None and len(snapshot.ids) > 20
    ids = snapshot.ids.tolist()
    rng = np.random.default_rng(9)
    moved = rng.standard_normal(384).astype(np.float32)
    index.update(remove=ids[:1], add=[VectorRow(ids[2], "memory", "", "", "", 1.5, moved / np.linalg.norm(moved))])
    index.update(remove=ids[3:4])
    assert index.persist(example.catalog, example.embedder.name)
    assert path.stat().st_ino == before  # the file is as it was; the log grew
    assert log_path.stat().st_size > log_size
    warm = _fresh(example, may_write=False)
    assert _from_file(warm) and len(warm) == len(index) == len(ids) - 2
    assert _results(warm, example) == _results(index, example)
    assert index.persist(example.catalog, example.embedder.name, force=True)  # compacted: written afresh
    assert path.stat().st_ino != before and log_path.stat().st_size == log_size
    assert _results(_fresh(example, may_write=False), example) == _results(index, example)


def _resident_kb(column: np.ndarray) -> int:
    """The resident KiB of the mapping `column` lies in (/proc/self/smaps), found by its address."""
    address = column.ctypes.data
    inside = False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if fields and "-" in fields[0] and not fields[0].endswith(":"):
            start, end = (int(part, 16) for part in fields[0].split("-"))
            inside = start <= address < end
        elif inside and fields[0] == "Rss:":
            return int(fields[1])
    raise AssertionError("no mapping holds the column")


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="reads Linux's smaps")
def test_a_replayed_log_lets_go_of_the_mapped_columns_it_copied(example: Engine) -> None:
    """Replaying a log copies the file's small columns into memory; the mapped pages read for that copy serve no one
    after it, and are let go (120 MB of a search process's RSS at a million rows); so are a
    writer's, whose update copies them."""
    assert example.embedder is not None
    example.indexer.embedding.persist(force=True)
    index = _fresh(example)
    ids = index._current().ids.tolist()
    index.update(remove=ids[:1])  # a writer's update copies the columns too, and lets their pages go
    assert _resident_kb(index._current().base.scales) == 0
    assert index.persist(example.catalog, example.embedder.name)
    warm = _fresh(example, may_write=False)
    snapshot = warm._current()
    assert len(snapshot.ids) == len(ids) - 1  # the log was replayed: its columns are copies
    mapped_scales = snapshot.base.scales  # still the file's mapping: the rows' scales are read from it
    assert isinstance(mapped_scales, np.ndarray) and _resident_kb(mapped_scales) == 0
    assert _results(warm, example) == _results(index, example)


def test_syncs_through_the_log_equal_a_rebuild(example: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """Notes added, changed and deleted: each sync's changes go to the log, and the index opened from the file and
    its log holds the rows the catalog gives."""
    assert example.embedder is not None
    from memlens.engine.vectors import vector_index

    # the example is small: a few notes are more than the share of rows after which the file is written afresh
    # (share 0: never)
    monkeypatch.setattr(vector_index, "BULK_PERSIST_SHARE", 0)
    monkeypatch.setattr(vector_index, "COMPACT_SHARE", 0)
    len(example.vectors)  # loaded (and its file written) before the changes
    example.indexer.embedding.persist(force=True)
    path = _file(example)
    inode = path.stat().st_ino
    memory = example.workspaces[0] / "memory"
    (memory / "log-added.md").write_text("# Added\n\nThe canary rollout waits for the error budget.\n")
    example.sync()
    notes = sorted(memory.glob("*.md"))
    notes[0].write_text(notes[0].read_text() + "\n\n## Later\n\nThe queue now retries with jitter.\n")
    notes[1].unlink()
    example.sync()
    assert path.stat().st_ino == inode  # every change went to the log
    reopened = _fresh(example, may_write=False)
    assert _from_file(reopened)
    reference = _in_memory(example)
    assert sorted(reopened._snapshot.ids.tolist()) == sorted(reference._snapshot.ids.tolist())  # type: ignore[union-attr]
    assert len(reference) == example.catalog.unit_count() and _waiting(example) == 0
    assert sorted(_flat(_results(reopened, example))) == sorted(_flat(_results(reference, example)))


@pytest.mark.parametrize("damage", ["cut", "flipped", "other-file"])
def test_a_damaged_log_embeds_again_only_what_it_lost(
    example: Engine, damage: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The records before a torn or damaged one still hold their rows (each is framed and checksummed); a log of
    another file holds none. Only the units whose rows were in what was lost wait: here, at most the added note's."""
    assert example.embedder is not None
    from memlens.engine.vectors import vector_index

    monkeypatch.setattr(vector_index, "BULK_PERSIST_SHARE", 0)  # the change goes to the log (see above)
    monkeypatch.setattr(vector_index, "COMPACT_SHARE", 0)
    len(example.vectors)
    example.indexer.embedding.persist(force=True)
    memory = example.workspaces[0] / "memory"
    (memory / "log-added.md").write_text("# Added\n\nThe canary rollout waits for the error budget.\n")
    example.sync()
    log_path = _log(example)
    data = bytearray(log_path.read_bytes())
    assert len(data) > 100  # the sync's changes are in the log
    if damage == "cut":
        data = data[:-7]
    elif damage == "flipped":
        data[-20] ^= 0xFF
    else:
        data[len(vector_log.MAGIC)] ^= 0x01  # the id of another vector file
    reference = _results(_in_memory(example), example)
    added = {
        int(r[0])
        for r in example.catalog.db.execute(
            "SELECT u.id FROM units u JOIN files f ON f.id = u.file_id WHERE f.path LIKE '%log-added.md'"
        )
    }
    assert added
    log_path.write_bytes(bytes(data))
    reader = _fresh(example, may_write=False)
    assert _from_file(reader) and set(reader._snapshot.ids.tolist()) <= set(_in_memory(example)._snapshot.ids.tolist())  # type: ignore[union-attr]
    example.vectors.load(example.catalog, example.embedder.name)  # the writer's own index, opened again
    example.indexer.embedding.forget_counts()
    len(example.vectors)
    waiting = {int(r[0]) for r in example.catalog.db.execute("SELECT id FROM units WHERE vector_ready IS NULL")}
    assert waiting and waiting <= added  # only what the lost record held
    assert len(example.vectors) == example.catalog.unit_count() - len(waiting)
    assert example.embed_pending() > 0 and _waiting(example) == 0
    assert _results(example.vectors, example) == reference
    assert _from_file(_fresh(example, may_write=False))


def _flat(results: list[list[tuple[int, float]]]) -> list[tuple[int, float]]:
    return [(u, round(s, 5)) for rows in results for u, s in rows]


class _RandomVectors:
    """A stand-in model (fastembed's `embed` face): random unit vectors at once. The thing under test is the vector
    rows and file through a long run, not the model."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(3)

    def embed(self, texts: list[str], **_: object) -> list[np.ndarray]:
        rows = self.rng.standard_normal((len(texts), 384)).astype(np.float32)
        return list(rows / np.linalg.norm(rows, axis=1, keepdims=True))


def test_a_long_embedding_run_folds_its_rows_into_the_file_as_it_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memlens.engine.vectors.embedder import Embedder
    from memlens.settings import Settings

    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    for n in range(60):  # about a thousand units (the chunker joins short sections): five batches of 256
        sections = "\n\n".join(f"## Topic {n}-{s}\n\nNote {n} section {s} about item{n * 40 + s}." for s in range(40))
        (workspace / "memory" / f"note-{n}.md").write_text(f"# Note {n}\n\n{sections}\n")
    writes: list[int] = []
    real_write = vector_file.write

    def counting_write(path: Path, **kwargs: object) -> str:
        writes.append(len(kwargs["ids"]))  # type: ignore[arg-type]
        return real_write(path, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(vector_file, "write", counting_write)
    embedder = Embedder(_RandomVectors(), "test/random-384", 384, batch_size=64)
    with Engine([workspace], Settings(), index_dir=tmp_path / "index", embedder=embedder) as engine:
        engine.sync()
        units = engine.catalog.unit_count()
        assert units > 4 * 256
        assert len(engine.vectors) == units
        # rewritten during the run, each time the rows added since the last write reached an eighth of all rows, so
        # the rows held outside the file stay a small share of the index (before: one write, after the whole run)
        writes = [count for count in writes if count]  # the empty files a new index starts with
        assert len(writes) >= 4
        assert all(later > earlier for earlier, later in zip(writes, writes[1:], strict=False))
        assert (units - writes[-1]) * 8 < units
        assert _from_file(engine.vectors)
        reference = _in_memory(engine)
        mapped = _fresh(engine, may_write=False)
        probe = [embedder.embed_query(q) for q in QUERIES]
        assert [mapped.search(q, 10, rerank=0) for q in probe] == [reference.search(q, 10, rerank=0) for q in probe]


def test_a_write_holds_one_slice_at_a_time(tmp_path: Path) -> None:
    """The rows are written as they come: a rewrite at 150k rows once held every slice in memory at once (a list
    built from the generator), 15 MB per 8,192 rows."""
    alive: list[weakref.ref[np.ndarray]] = []

    def slices() -> Iterator[QuantizedRows]:
        for start in range(0, 40, 8):
            held = [ref for ref in alive if ref() is not None]
            assert len(held) <= 2, f"{len(held)} earlier slices still held"  # the first and the previous one
            part = QuantizedRows.of(np.full((8, 16), start + 1.0, np.float32))
            alive.append(weakref.ref(part.values_array()))
            yield part

    write_vector_file(tmp_path / "v.bin", slices(), count=40, code_bytes=2)
    stored = vector_file.read(tmp_path / "v.bin", stamp="s", model="m", dim=16)
    assert stored is not None and len(alive) == 5
    assert np.allclose(stored.matrix.refined_rows(np.array([0, 39])), [[1.0] * 16, [33.0] * 16], rtol=1e-6, atol=0)


def test_the_file_keeps_one_compact_copy_of_each_vector(tmp_path: Path) -> None:
    """Each row is its int8 values (384 B), their remainders (192 B), its sign code (48 B, kept padded to the 64 the
    scan reads), its text hash (20 B) and small columns (44 B): no float copy, which would add 768 B or more a row."""
    count, dim = 5_000, 384
    matrix = np.random.default_rng(4).standard_normal((count, dim)).astype(np.float32)
    rows = QuantizedRows.of(matrix / np.linalg.norm(matrix, axis=1, keepdims=True))
    path = tmp_path / "v.bin"
    write_vector_file(path, rows, count=count, code_bytes=dim // 8)
    data = path.read_bytes()
    header = json.loads(data[12 : 12 + int.from_bytes(data[8:12], "little")])
    assert set(header["sections"]) == {"values", "remainders", *vector_file.SMALL}
    assert header["sections"]["values"][1] == count * dim and header["sections"]["remainders"][1] == count * dim // 2
    assert header["sections"]["codes"][1] == count * 64
    assert len(data) / count < dim + dim // 2 + 64 + 20 + 44 + 10  # 10: the header and pages' alignment
    stored = vector_file.read(path, stamp="s", model="m", dim=dim)
    assert stored is not None
    assert np.array_equal(stored.matrix.values_array(), rows.values_array())
    assert np.array_equal(stored.matrix.remainders_array(), rows.remainders_array())
    picked = np.array([4_999, 0, 17])
    assert np.array_equal(stored.matrix.refined_rows(picked), rows.refined_rows(picked))


def _small_file(path: Path, *, start: int, count: int = 40, session: str = "s") -> None:
    write_vector_file(
        path,
        QuantizedRows.of(np.full((count, 16), start + 1.0, np.float32)),
        count=count,
        code_bytes=2,
        stamp=f"stamp-{start}",
        ids=np.arange(start, start + count),
        codes=np.full((count, 2), start % 256, np.uint8),
        ts=np.full(count, float(start)),
        labels=[f"{session}-{i % 3}" for i in range(count)],
    )


def test_rows_read_from_a_file_stay_whole_when_a_rewrite_replaces_it(tmp_path: Path) -> None:
    """A snapshot's columns are mapped from its file, not copied: a server keeps searching them while a compaction
    writes the next file and renames it over the old one, so what it read must not change under it."""
    path = tmp_path / "v.bin"
    _small_file(path, start=1)
    before = vector_file.read(path, stamp=None, model="m", dim=16)
    assert before is not None
    _small_file(path, start=500, count=60, session="t")
    after = vector_file.read(path, stamp=None, model="m", dim=16)
    assert after is not None and after.stamp == "stamp-500" and len(after.ids) == 60
    assert before.stamp == "stamp-1"
    assert before.ids.tolist() == list(range(1, 41))
    assert before.codes[:, :2].tolist() == [[1, 1]] * 40 and before.ts.tolist() == [1.0] * 40
    assert before.categories["session"].values()[:3] == ["s-0", "s-1", "s-2"]
    assert np.allclose(before.matrix.refined_rows(np.array([0, 39])), [[2.0] * 16] * 2, rtol=1e-6, atol=0)
