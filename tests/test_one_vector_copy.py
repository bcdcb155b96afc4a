"""One stored copy of each vector: the vector file holds them, the catalog only marks which units have their row.

A crash between any two steps (rows made, rows on disk, units marked; a catalog commit and its rows; a file
written afresh and its units marked) leaves an index whose next open gives every unit either the vector of its
own text or none (it is embedded again): never a wrong one. A re-parsed file keeps its vectors without embedding;
a catalog of schema 3 moves its vectors into the file, with or without a current file beside it.
"""

from __future__ import annotations

import errno
import hashlib
import json
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from killed_runs import killed_at_random
from memlens.engine.catalog import vectors as catalog_vectors
from memlens.engine.catalog.schema import LEGACY_VECTORS_VERSION, SCHEMA_VERSION
from memlens.engine.engine import Engine
from memlens.engine.indexing import vector_writer
from memlens.engine.indexing.ingest import EMBED_TEXT_CHARS
from memlens.engine.sources.tool_output import scored_text
from memlens.engine.vectors import vector_file, vector_index, vector_log
from memlens.engine.vectors.embedder import Embedder
from memlens.engine.vectors.vector_index import VectorIndex
from memlens.engine.vectors.vector_snapshot import encode_vector
from memlens.errors import IndexWriteFailed
from memlens.settings import Settings
from vector_files import narrow_codes

MODEL = "test/text-384"
SYNTHETIC_TRANSCRIPTS = Path(__file__).resolve().parent / "fixtures" / "transcripts"


class _TextVectors:
    """A stand-in model: each text's vector is drawn from a generator seeded by the text, so the vector a unit
    should hold can be worked out again, and every text it is asked for is counted. The thing under test is where
    vectors are kept, not the model."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def embed(self, texts: list[str], **_: object) -> list[np.ndarray]:
        self.asked += texts
        return [vector_of(text) for text in texts]


def vector_of(text: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha1(text.encode("utf-8", "surrogatepass")).digest()[:8], "little")
    row = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
    normed: np.ndarray = row / np.linalg.norm(row)
    return normed


class _Crash(BaseException):
    """What the process dying at that point leaves: nothing after it runs (an open transaction is rolled back)."""


def _note(folder: Path, name: str, sections: list[str]) -> Path:
    path = folder / "memory" / f"{name}.md"
    body = "\n\n".join(f"## Part {n}\n\n{text}" for n, text in enumerate(sections))
    path.write_text(f"# {name}\n\n{body}\n")
    return path


TOPICS = [
    *("payment retries", "search ranking", "deploy checklist", "cache eviction", "schema migration"),
    *("release trains", "pager duty", "flaky tests", "disk quotas", "token budgets"),
]


def _sections(n: int) -> list[str]:
    return [f"{TOPICS[n]} detail {k}: why {TOPICS[n]} matters in case {k * 7 + n}." for k in range(6)]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    (folder / "memory").mkdir(parents=True)
    for n in range(len(TOPICS)):
        _note(folder, f"note-{n}", _sections(n))
    return folder


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> int:
    """Embedding batches of 8 texts, so a crash can fall between two of them."""
    monkeypatch.setattr(vector_writer, "EMBED_BATCH", 8)
    return 8


def _open(workspace: Path, index: Path, model: _TextVectors | None = None) -> Engine:
    embedder = Embedder(model or _TextVectors(), MODEL, 384, batch_size=16)
    return Engine([workspace], Settings(), index_dir=index, embedder=embedder)


def _rows_against_texts(engine: Engine) -> tuple[list[int], list[int]]:
    """(units whose row is not their text's vector, units without a row), from a fresh look at the catalog."""
    ids = [int(r[0]) for r in engine.catalog.db.execute("SELECT id FROM units ORDER BY id")]
    units = engine.catalog.units_by_id(ids)
    held = engine.vectors.stored_vectors(ids)
    embedded = {u: scored_text(units[u]["text"], units[u]["kind"])[:EMBED_TEXT_CHARS] for u in ids}
    wrong = [u for u in ids if u in held and float(held[u] @ vector_of(embedded[u])) < 0.999]
    return wrong, [u for u in ids if u not in held]


def _units_embedded(engine: Engine, model: _TextVectors, since: int = 0) -> list[str]:
    """The texts `model` was asked for (from its call number `since`) that are units' now (the index's words are
    embedded too)."""
    rows = engine.catalog.db.execute("SELECT text, kind FROM plain_units")
    texts = {scored_text(str(text), str(kind))[:EMBED_TEXT_CHARS] for text, kind in rows}
    return [text for text in model.asked[since:] if text in texts]


def _waiting(engine: Engine) -> set[int]:
    return {int(r[0]) for r in engine.catalog.db.execute("SELECT id FROM units WHERE vector_ready IS NULL")}


def _held_units(engine: Engine) -> set[int]:
    return set(engine.vectors._current().ids.tolist())


def _crash_at(monkeypatch: pytest.MonkeyPatch, owner: object, name: str, *, after_calls: int = 0) -> None:
    """Make `owner.name` crash the process at its call number `after_calls` + 1."""
    real = getattr(owner, name)
    calls = [0]

    def crashing(*args: object, **kwargs: object) -> object:
        calls[0] += 1
        if calls[0] > after_calls:
            raise _Crash(name)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, crashing)


def _crash_at_first_read(workspace: Path, index: Path, monkeypatch: pytest.MonkeyPatch, step: str) -> None:
    """Open the index and read its rows, the process dying at the catalog's `step` of that read."""
    with monkeypatch.context() as patch, _open(workspace, index) as engine:
        _crash_at(patch, catalog_vectors.VectorTables, step)
        with pytest.raises(_Crash):
            len(engine.vectors)


def _finished(engine: Engine) -> None:
    """A sync finishes the work: every unit holds its text's vector, nothing waits."""
    engine.sync()
    wrong, missing = _rows_against_texts(engine)
    assert not wrong and not missing and not _waiting(engine)
    assert _held_units(engine) == {int(r[0]) for r in engine.catalog.db.execute("SELECT id FROM units")}


# -- a crash between each pair of steps ----------------------------------------------------------------------


@pytest.mark.parametrize("crash", ["before its rows are on disk", "before its units are marked"])
def test_a_crash_while_embedding_never_leaves_a_wrong_vector(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small_batches: int, crash: str
) -> None:
    """The first batch lands; the second crashes before its rows reach the file (they are lost: embedded again)
    or after, before the catalog marks its units (the rows are on disk: the next open marks them)."""
    index = tmp_path / "index"
    with _open(workspace, index) as engine:
        engine.sync(embed=False)
        units = engine.catalog.unit_count()
        with monkeypatch.context() as patch:
            if crash == "before its rows are on disk":
                _crash_at(patch, vector_index.VectorIndex, "persist", after_calls=1)
            else:
                _crash_at(patch, catalog_vectors.VectorTables, "mark_vectors_ready", after_calls=1)
            with pytest.raises(_Crash):
                engine.embed_pending()
    model = _TextVectors()
    with _open(workspace, index, model) as engine:
        wrong, missing = _rows_against_texts(engine)
        assert not wrong
        kept = small_batches if crash == "before its rows are on disk" else 2 * small_batches
        assert len(missing) == units - kept and _waiting(engine) == set(missing)
        _finished(engine)
        assert len(_units_embedded(engine, model)) == units - kept  # only what was lost


@pytest.mark.parametrize("crash", ["before its rows are on disk", "before its units are marked"])
def test_a_crash_after_a_reparse_commits_never_leaves_a_wrong_vector(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, crash: str
) -> None:
    """A file changed: its units are deleted and inserted again (SQLite hands the new units the ids of deleted
    ones) in one commit; then the mirror step gives the new units the rows of their texts. A crash after that
    commit leaves the file with rows under ids that now name other texts: matched by hash, none is given."""
    index = tmp_path / "index"
    with _open(workspace, index) as engine:
        engine.sync()
        top = int(engine.catalog.db.execute("SELECT MAX(id) FROM units").fetchone()[0])
        # the last file read: its units have the highest ids, given again to its new units
        sql = "SELECT files.path FROM units JOIN files ON files.id = units.file_id WHERE units.id = ?"
        last = int(Path(engine.catalog.db.execute(sql, (top,)).fetchone()[0]).stem.removeprefix("note-"))
        _note(workspace, f"note-{last}", [*_sections(last), "a new last part about release trains."])
        with monkeypatch.context() as patch:
            if crash == "before its rows are on disk":
                _crash_at(patch, vector_index.VectorIndex, "persist")
            else:
                _crash_at(patch, catalog_vectors.VectorTables, "mark_vectors_ready")
            with pytest.raises(_Crash):
                engine.sync(embed=False)
        new_text = engine.catalog.units_by_id([top])[top]["text"]
        assert "about release trains" in new_text  # the id of a deleted unit, now another text's
    model = _TextVectors()
    with _open(workspace, index, model) as engine:
        wrong, missing = _rows_against_texts(engine)
        assert not wrong
        _finished(engine)
        embedded = _units_embedded(engine, model)
        assert len(embedded) == 1 and "about release trains" in embedded[0]  # only the new text


def test_a_crash_after_the_file_is_written_afresh_before_the_units_are_marked(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = tmp_path / "index"
    with _open(workspace, index) as engine:
        engine.sync()
        with engine.catalog.transaction() as db:
            engine.catalog.bump_generation(db)  # the file is behind: the next open writes it afresh
            db.execute("UPDATE units SET vector_ready = NULL")
    _crash_at_first_read(workspace, index, monkeypatch, "vector_file_written")
    model = _TextVectors()
    with _open(workspace, index, model) as engine:
        wrong, missing = _rows_against_texts(engine)
        assert not wrong and not missing and not _waiting(engine)
        assert engine.sync().units_embedded == 0 and not _units_embedded(engine, model)


def test_rows_that_cannot_reach_the_disk_are_never_marked(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk while embedding: the write fails as a catalog's would (IndexWriteFailed, its cause said), no
    unit is marked, and once there is room the next run embeds them."""
    index = tmp_path / "index"
    with _open(workspace, index) as engine:
        engine.sync(embed=False)
        units = engine.catalog.unit_count()

        def full(*_: object, **__: object) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        with monkeypatch.context() as patch:
            patch.setattr(vector_log, "append", full)
            patch.setattr(vector_file, "write", full)
            with pytest.raises(IndexWriteFailed, match="no space left on device"):
                engine.embed_pending()
        assert len(_waiting(engine)) == units
        engine.embed_pending()
        wrong, missing = _rows_against_texts(engine)
        assert not wrong and not missing and not _waiting(engine)


def test_a_commit_landing_while_the_file_is_repaired_leaves_no_unit_marked_without_its_row(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first load of a server can run on a search's thread while the writer's thread commits: the marks of a
    repair made from the catalog before that commit are not made; the rows are matched again, and every marked unit
    has its row."""
    index = tmp_path / "index"
    with _open(workspace, index) as engine:
        engine.sync()
        assert engine.vectors._file is not None
        log_path = vector_log.log_for(engine.vectors._file)
        _note(workspace, "late", ["a late note about the on-call rotation.", "and its pager policy."])
        engine.sync()
    log_path.write_bytes(log_path.read_bytes()[:-5])  # the last record's rows lost: their units are marked
    real = catalog_vectors.VectorTables.vector_file_written
    calls: list[int] = []

    def commit_meanwhile(self: catalog_vectors.VectorTables, **kwargs: object) -> bool:
        calls.append(1)
        if len(calls) == 1:  # the writer's thread commits between the repair's read and its marks
            with self.transaction() as db:
                self.bump_generation(db)
        return bool(real(self, **kwargs))  # type: ignore[arg-type]

    monkeypatch.setattr(catalog_vectors.VectorTables, "vector_file_written", commit_meanwhile)
    with _open(workspace, index) as engine:
        held = _held_units(engine)
        assert len(calls) == 2  # matched again after the commit
        every = {int(r[0]) for r in engine.catalog.db.execute("SELECT id FROM units")}
        assert held < every and _waiting(engine) == every - held  # marked: exactly the units with a row
        wrong, _ = _rows_against_texts(engine)
        assert not wrong
        _finished(engine)


# -- a re-parse, and what a damaged file loses -----------------------------------------------------------------


def test_a_reparsed_file_keeps_its_vectors_without_embedding(workspace: Path, tmp_path: Path) -> None:
    model = _TextVectors()
    with _open(workspace, tmp_path / "index", model) as engine:
        engine.sync()
        before = len(model.asked)
        note = workspace / "memory" / "note-2.md"
        note.write_text(note.read_text() + "\n## Later\n\nA part added later about the rollback plan.\n")
        engine.reindex(full=True)  # every file parsed again: every unit deleted and inserted anew
        embedded = _units_embedded(engine, model, before)
        assert len(embedded) == 1 and "rollback plan" in embedded[0]
        wrong, missing = _rows_against_texts(engine)
        assert not wrong and not missing and not _waiting(engine)
        (workspace / "memory" / "note-3.md").rename(workspace / "memory" / "moved.md")  # deleted, then added
        assert engine.sync().units_embedded == 0 and len(_units_embedded(engine, model, before)) == 1


def test_a_file_missing_its_last_log_record_embeds_only_those_rows(workspace: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    with _open(workspace, index) as engine:
        engine.sync()
        assert engine.vectors._file is not None
        log_path = vector_log.log_for(engine.vectors._file)
        _note(workspace, "late", ["a late note about the on-call rotation.", "and its pager policy."])
        size = log_path.stat().st_size
        engine.sync()
        assert log_path.stat().st_size > size
        sql = "SELECT id FROM plain_units WHERE text LIKE '%on-call%' OR text LIKE '%pager policy%'"
        late = {int(r[0]) for r in engine.catalog.db.execute(sql)}
    data = log_path.read_bytes()
    log_path.write_bytes(data[:-5])  # the last record torn
    model = _TextVectors()
    with _open(workspace, index, model) as engine:
        wrong, missing = _rows_against_texts(engine)
        assert not wrong and missing and set(missing) <= late
        engine.sync()
        assert 0 < len(_units_embedded(engine, model)) <= len(late)
        wrong, missing = _rows_against_texts(engine)
        assert not wrong and not missing


# -- schema 3: the catalog's vectors move into the file ------------------------------------------------------


def _as_schema_3(engine: Engine, *, float16_every_other: bool = False) -> None:
    """What memlens 0.x of schema 3 left: the vectors in the catalog's `vectors` table (its compact form; float16
    in an older one), the units marked, the trigger collecting deleted units' texts."""
    held = engine.vectors.stored_vectors([int(r[0]) for r in engine.catalog.db.execute("SELECT id FROM units")])
    units = engine.catalog.units_by_id(list(held))
    blobs: dict[str, bytes] = {}
    for n, (unit_id, vector) in enumerate(sorted(held.items())):
        blob = vector.astype(np.float16).tobytes() if float16_every_other and n % 2 else encode_vector(vector)
        blobs.setdefault(str(units[unit_id]["embed_text_hash"]), blob)
    with engine.catalog.transaction() as db:
        db.execute("CREATE TABLE vectors (hash TEXT PRIMARY KEY, model TEXT NOT NULL, vec BLOB NOT NULL)")
        db.executemany("INSERT INTO vectors VALUES (?, ?, ?)", [(h, MODEL, b) for h, b in blobs.items()])
        db.execute("CREATE TABLE unused_hashes (hash TEXT PRIMARY KEY)")
        db.execute(
            "CREATE TRIGGER units_deleted AFTER DELETE ON units BEGIN"
            " INSERT OR IGNORE INTO unused_hashes (hash) VALUES (old.embed_text_hash); END"
        )
        db.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")


def _hashless(path: Path) -> None:
    """The vector file as schema 3's memlens wrote it: the layout before the hashes (MLVEC05), an empty log of its
    own. The same sections, the hashes' left out of the header and the checksum."""
    data = bytearray(path.read_bytes())
    length = int.from_bytes(data[8:12], "little")
    header = json.loads(bytes(data[12 : 12 + length]))
    del header["sections"]["hashes"]
    checksum = 0
    for name in vector_file.SMALL:
        if name != "hashes":
            offset, nbytes = header["sections"][name]
            checksum = zlib.crc32(bytes(data[offset : offset + nbytes]), checksum)
    header["crc"] = f"{checksum:08x}"
    header["log"] = "0" * 32
    encoded = json.dumps(header, separators=(",", ":")).encode()
    start = header["sections"]["values"][0]
    data[:start] = (vector_file.HASHLESS_MAGIC + struct.pack("<I", len(encoded)) + encoded).ljust(start, b"\0")
    path.write_bytes(bytes(data))
    vector_log.log_for(path).write_bytes(b"MLVLOG03" + b"0" * 32)


@pytest.mark.parametrize("beside", ["a current file of the older layout", "no file", "a stale file"])
def test_a_schema_3_index_moves_its_vectors_into_the_file(
    workspace: Path, tmp_path: Path, beside: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read from the file when it is at the catalog's stamp (its rows' hashes are their units'), else from the
    `vectors` table, blocks of 3 vectors at a time (float16 blobs of an older catalog among them), each quantised
    into every unit of its text; a text without a vector there waits to be embedded."""
    monkeypatch.setattr(vector_index, "BLOCK", 3)
    index = tmp_path / "index"
    queries = [vector_of(q) for q in ("payment retries", "cache eviction")]
    (workspace / "memory" / "copy.md").write_bytes((workspace / "memory" / "note-0.md").read_bytes())  # shared texts
    with _open(workspace, index) as engine:
        engine.sync()
        engine.indexer.embedding.persist(force=True)  # the file alone at the catalog's stamp, its log empty
        ids = [int(r[0]) for r in engine.catalog.db.execute("SELECT id FROM units")]
        reference = [engine.vectors.cosines(ids, q) for q in queries]
        _as_schema_3(engine, float16_every_other=beside == "no file")
        assert engine.vectors._file is not None
        path = engine.vectors._file
        lost: set[int] = set()
        if beside != "a current file of the older layout":
            with engine.catalog.transaction() as db:
                engine.catalog.bump_generation(db)  # the file is behind: the catalog's vectors are read
                text_hash = db.execute("SELECT hash FROM vectors ORDER BY hash LIMIT 1").fetchone()[0]
                db.execute("DELETE FROM vectors WHERE hash = ?", (text_hash,))  # one text the table lacks
                sql = "SELECT id FROM units WHERE embed_text_hash = ?"
                lost = {int(r[0]) for r in db.execute(sql, (text_hash,))}
    if beside == "no file":
        path.unlink()
    else:
        _hashless(path)
    with _open(workspace, index) as reader:
        reader.vectors.may_write = lambda: False  # another process serving read-only: reads, moves nothing
        assert len(reader.vectors) == len(ids) - len(lost) and reader.catalog.holds_legacy_vectors()
    model = _TextVectors()
    with _open(workspace, index, model) as engine:
        assert len(engine.vectors) == len(ids) - len(lost)  # the writer moved them
        assert _waiting(engine) == lost
        assert not engine.catalog.holds_legacy_vectors()
        assert engine.catalog.get_meta("schema_version") == str(SCHEMA_VERSION)
        tables = {str(r[0]) for r in engine.catalog.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert not {"vectors", "unused_hashes"} & tables
        for query, before in zip(queries, reference, strict=True):
            after = engine.vectors.cosines(ids, query)
            assert after.keys() == before.keys() - lost
            tolerance = 2e-3 if beside == "no file" else 1e-6  # float16 blobs were rounded; the rest are the same rows
            bad = {u: (after[u], before[u]) for u in after if abs(after[u] - before[u]) > tolerance}
            assert not bad, bad
        wrong, missing = _rows_against_texts(engine)
        assert not wrong and set(missing) == lost
        engine.sync()
        assert len(_units_embedded(engine, model)) == (1 if lost else 0)  # the text the table lacked, once
        wrong, missing = _rows_against_texts(engine)
        assert not wrong and not missing and not _waiting(engine)
    with _open(workspace, index) as warm:
        assert vector_file.read_current(path, stamp=warm.catalog.vector_stamp(), model=MODEL, dim=384) is not None


def test_a_crash_while_moving_the_vectors_keeps_the_catalogs_copy(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = tmp_path / "index"
    with _open(workspace, index) as engine:
        engine.sync()
        _as_schema_3(engine)
    _crash_at_first_read(workspace, index, monkeypatch, "finish_vector_migration")
    with _open(workspace, index) as engine:
        assert engine.catalog.holds_legacy_vectors()  # the file was written, the catalog never let go of its copy
        assert engine.catalog.get_meta("schema_version") == str(LEGACY_VECTORS_VERSION)
    model = _TextVectors()
    with _open(workspace, index, model) as engine:
        len(engine.vectors)
        assert not engine.catalog.holds_legacy_vectors()
        wrong, missing = _rows_against_texts(engine)
        assert not wrong and not missing and not _units_embedded(engine, model)


def test_the_moved_file_is_what_a_file_written_afresh_holds(workspace: Path, tmp_path: Path) -> None:
    """The rows moved from a schema-3 catalog are byte for byte the rows the file held."""
    index = tmp_path / "index"
    with _open(workspace, index) as engine:
        engine.sync()
        assert engine.vectors._file is not None
        before = vector_file.read(engine.vectors._file, stamp=None, model=MODEL, dim=384)
        assert before is not None
        rows = {int(u): n for n, u in enumerate(before.ids.tolist())}
        values = before.matrix.values_array().copy()
        _as_schema_3(engine)
        engine.vectors._file.unlink()
    with _open(workspace, index) as engine:
        len(engine.vectors)
        after = vector_file.read(engine.vectors._file, stamp=None, model=MODEL, dim=384)  # type: ignore[arg-type]
        assert after is not None
        assert sorted(after.ids.tolist()) == sorted(rows)
        for n, unit_id in enumerate(after.ids.tolist()):
            assert np.array_equal(after.matrix.values_array()[n], values[rows[unit_id]])


# -- a real process killed at random points -------------------------------------------------------------------


@pytest.mark.slow  # indexing processes with the real model, killed
def test_sigkill_while_embedding_then_finish_gives_every_unit_its_own_vector(
    tmp_path: Path, embedder: Embedder
) -> None:
    """`memlens index` with the bundled model, killed at random points of its parsing and embedding, then let
    finish: every unit holds the vector of its own text (as a fresh embedding gives it) and none waits."""
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    for n in range(len(TOPICS)):
        _note(workspace, f"note-{n}", _sections(n))
    transcripts = tmp_path / "transcripts"
    for copy in range(6):
        shutil.copytree(SYNTHETIC_TRANSCRIPTS, transcripts / f"copy-{copy}")
    index_dir = tmp_path / "index"
    command = [
        sys.executable, "-m", "memlens", "index", "--workspace", str(workspace), "--transcripts", str(transcripts),
        "--index-dir", str(index_dir),
    ]  # fmt: skip
    # early enough that an idle machine, which indexes this corpus in about a second, is still at work
    kills = killed_at_random(command, seed=20261205, tries=10, within=(0.3, 1.5))
    assert kills >= 1, "the index finished before any kill: make the corpus larger"
    subprocess.run(command, capture_output=True, text=True, check=True, timeout=900)
    with Engine([workspace], Settings(), [transcripts], index_dir, embedder=embedder) as engine:
        ids = [int(r[0]) for r in engine.catalog.db.execute("SELECT id FROM units ORDER BY id")]
        units, held = engine.catalog.units_by_id(ids), engine.vectors.stored_vectors(ids)
        assert sorted(held) == ids and not _waiting(engine)
        # what each unit's vector is of: its text as scored (a tool output's without the call its header names)
        fresh = embedder.embed([scored_text(units[u]["text"], units[u]["kind"])[:EMBED_TEXT_CHARS] for u in ids])
        cosines = [float(held[u] @ vector) for u, vector in zip(ids, fresh, strict=True)]
        assert min(cosines) > 0.99, min(cosines)


def test_the_move_benchmark_reports_the_move_and_the_bytes(
    workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bench import vector_move

    index = tmp_path / "index"
    with _open(workspace, index) as engine:
        engine.sync()
        units = engine.catalog.unit_count()
        _as_schema_3(engine)
    before = vector_move.main([str(index)])
    assert before["bytes"]["messages"] == units and before["bytes"]["catalogVectors"]["vectors"] > 0
    after = vector_move.main([str(index), "--open", "--model", MODEL])
    moved = f"{LEGACY_VECTORS_VERSION} -> {SCHEMA_VERSION}"
    assert after["open"]["schema"] == moved and after["open"]["rows"] == units and after["open"]["cpuS"] >= 0
    assert after["bytes"]["catalogVectors"] == {} and after["bytes"]["catalog"] < before["bytes"]["catalog"]
    assert after["bytes"]["vectorFile"] > 0
    assert f'"schema": "{moved}"' in capsys.readouterr().out  # what it prints


# -- a writer that counts what waits reads the rows only when the file may have lost some -------------------------


def _indexed_with_a_late_note(workspace: Path, index: Path) -> tuple[Path, set[int]]:
    """An index whose vector file has a log record (a late note's rows): (the file, the late note's units)."""
    with _open(workspace, index) as engine:
        engine.sync()
        _note(workspace, "late", ["a late note about the on-call rotation.", "and its pager policy."])
        engine.sync()
        assert engine.vectors._file is not None
        sql = "SELECT id FROM plain_units WHERE text LIKE '%on-call%' OR text LIKE '%pager policy%'"
        return engine.vectors._file, {int(r[0]) for r in engine.catalog.db.execute(sql)}


def test_a_sync_that_finds_nothing_changed_reads_no_row(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memlens index` with nothing to do: the file's header and log say it holds every marked unit's row, so its
    rows (a million of them, with their checksum) are not read to count what waits."""
    _indexed_with_a_late_note(workspace, tmp_path / "index")
    reads: list[Path] = []
    real_read = vector_file.read

    def counted(path: Path, **kwargs: object) -> object:
        reads.append(path)
        return real_read(path, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(vector_file, "read", counted)
    model = _TextVectors()
    with _open(workspace, tmp_path / "index", model) as engine:
        report = engine.sync()
        assert report.units_embedded == 0 and engine.pending_embeddings() == 0 and not reads
        assert len(engine.vectors) > 0 and reads  # read when a search asks for them
        assert not _units_embedded(engine, model)


def _torn_log(path: Path) -> None:
    log_path = vector_log.log_for(path)
    log_path.write_bytes(log_path.read_bytes()[:-5])


def _no_log(path: Path) -> None:
    vector_log.log_for(path).unlink()


def _no_file(path: Path) -> None:
    path.unlink()


def _other_model(path: Path) -> None:
    data = bytearray(path.read_bytes())
    (length,) = struct.unpack_from("<I", data, len(vector_file.MAGIC))
    start = len(vector_file.MAGIC) + 4
    header = json.loads(bytes(data[start : start + length]))
    encoded = json.dumps({**header, "model": MODEL[::-1]}, separators=(",", ":")).encode()
    assert len(encoded) == length  # the same length: the sections stay where they are
    data[start : start + length] = encoded
    path.write_bytes(bytes(data))


def _truncated(path: Path) -> None:
    with path.open("r+b") as handle:
        handle.truncate(path.stat().st_size - 4096)


@pytest.mark.parametrize("loss", [_torn_log, _no_log, _no_file, _other_model, _truncated])
def test_a_sync_first_after_the_file_lost_rows_embeds_what_it_lost(
    workspace: Path, tmp_path: Path, loss: object
) -> None:
    """Every way the header and the log can show rows lost makes the writer read and match them before it counts:
    the first sync after the open embeds them (and nothing it still holds, when it holds anything)."""
    path, late = _indexed_with_a_late_note(workspace, tmp_path / "index")
    assert callable(loss)
    loss(path)
    model = _TextVectors()
    with _open(workspace, tmp_path / "index", model) as engine:
        assert engine.sync().units_embedded > 0
        wrong, missing = _rows_against_texts(engine)
        assert not wrong and not missing and not _waiting(engine)
        if loss in (_torn_log, _no_log):
            assert len(_units_embedded(engine, model)) <= len(late)


def test_damage_inside_the_columns_is_found_at_the_next_read(workspace: Path, tmp_path: Path) -> None:
    """What the header and log cannot show (a damaged column, which only its checksum does) a sync that reads no
    row misses; the next read of the rows finds it, queues the file's units, and the sync after embeds them."""
    path, _ = _indexed_with_a_late_note(workspace, tmp_path / "index")
    with _open(workspace, tmp_path / "index") as engine:
        engine.indexer.embedding.persist(force=True)  # every row in the file itself, its log empty
    data = bytearray(path.read_bytes())
    start = len(vector_file.MAGIC) + 4
    (length,) = struct.unpack_from("<I", data, len(vector_file.MAGIC))
    offset, _ = json.loads(bytes(data[start : start + length]))["sections"]["ids"]
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))
    model = _TextVectors()
    with _open(workspace, tmp_path / "index", model) as engine:
        assert engine.sync().units_embedded == 0 and not _waiting(engine)
        assert len(engine.vectors) == 0  # read now: the damaged file holds nothing, its units wait
        assert _waiting(engine)
        assert engine.sync().units_embedded > 0
        wrong, missing = _rows_against_texts(engine)
        assert not wrong and not missing and not _waiting(engine)


def test_a_vector_file_with_narrow_codes_is_read_without_embedding_and_written_anew_later(
    workspace: Path, tmp_path: Path
) -> None:
    """A vector file of the layout before (codes 48 bytes a row, MLVEC06) is current as it is: a reader reads it as
    it is, and the writer's first read of the rows writes it afresh in the current layout, embedding nothing; every
    unit keeps its own vector."""
    index = tmp_path / "index"
    with _open(workspace, index) as engine:
        engine.sync()
        engine.indexer.embedding.persist(force=True)
        assert engine.vectors._file is not None
        path = engine.vectors._file
    narrow_codes(path)
    reader = VectorIndex(384)
    with _open(workspace, index) as engine:
        reader.load(engine.catalog, MODEL)  # never the writer: reads the file as it is
        assert len(reader) == engine.catalog.unit_count() and path.read_bytes().startswith(
            vector_file.NARROW_CODES_MAGIC
        )
    model = _TextVectors()
    with _open(workspace, index, model) as engine:
        assert engine.sync().units_embedded == 0 and not _units_embedded(engine, model)
        assert path.read_bytes().startswith(vector_file.NARROW_CODES_MAGIC)  # the rows not read yet
        wrong, missing = _rows_against_texts(engine)
        assert not wrong and not missing and not _waiting(engine)
        assert path.read_bytes().startswith(vector_file.MAGIC)  # written afresh at the first read
    with _open(workspace, index, model) as engine:
        wrong, missing = _rows_against_texts(engine)
        assert not wrong and not missing and not _units_embedded(engine, model)
