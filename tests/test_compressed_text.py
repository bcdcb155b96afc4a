"""Units' texts and analysed words stored compressed (catalog/compressed_text.py): every value reads back as it was
written, searches find and score the same, a catalog of schema 2 is brought to 3 in place (its texts compressed by
the writer, none lost), and a dictionary stored by another process is read."""

from __future__ import annotations

import shutil
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import EXAMPLE_WORKSPACE, example_settings
from memlens.engine.catalog import SCHEMA_VERSION, Catalog
from memlens.engine.catalog.compressed_text import TextCodec, train
from memlens.engine.engine import Engine
from memlens.engine.indexing import text_compression
from memlens.engine.indexing.text_compression import compress_stored_texts
from memlens.wire import SearchResult

QUERIES = ["pager rotation", "database migration", "deploy", "retry backoff", "what did we decide about caching"]
SAMPLE_TEXTS = [
    "We moved the pager rotation to weekly shifts after the incident review.",
    "[Bash] pytest -q tests/test_engine.py -x",
    "The migration adds an index on users(email) and backfills it in batches of 1000.",
    "ünïcödé, emoji 🚀 and CJK 日本語のテキスト",
    "a lone surrogate \udc80 survives",
    "",
    "short",
    "x" * 5000,
]


def stored_kinds(index_dir: Path) -> dict[str, int]:
    db = sqlite3.connect(index_dir / "catalog.sqlite3")
    try:
        return dict(db.execute("SELECT typeof(text), COUNT(*) FROM units GROUP BY 1").fetchall())
    finally:
        db.close()


def searched(engine: Engine) -> list[list[SearchResult]]:
    """Each query's results whole (excerpts, scores, places)."""
    return [engine.search(q, mode="keyword", limit=10)["results"] for q in QUERIES]


def build(workspace: Path, index_dir: Path) -> list[list[SearchResult]]:
    with Engine([workspace], example_settings(), index_dir=index_dir, embedder=False) as engine:
        engine.sync()
        return searched(engine)


def test_every_value_reads_back_as_written(tmp_path: Path) -> None:
    codec = TextCodec(list)
    assert [codec.encode(t) for t in SAMPLE_TEXTS] == SAMPLE_TEXTS  # no dictionary: stored plain
    dictionary = train([t.encode("utf-8", "surrogatepass") for t in SAMPLE_TEXTS * 40])
    assert dictionary is not None
    codec.add(1, dictionary)
    stored = [codec.encode(t) for t in SAMPLE_TEXTS]
    assert [codec.decode(v) for v in stored] == SAMPLE_TEXTS
    assert codec.encode(None) is None and codec.decode(None) is None
    long = stored[SAMPLE_TEXTS.index("x" * 5000)]
    assert isinstance(long, bytes) and len(long) < 100
    assert stored[SAMPLE_TEXTS.index("short")] == "short"  # too short to gain: kept plain


def test_threads_encode_and_decode_at_once() -> None:
    """A server's searches decode from several threads while its writer encodes: each value still reads back."""
    texts = [
        f"message {i}: the deploy of service {i % 17} failed on step {i % 5}; retry with backoff" for i in range(800)
    ]
    dictionary = train([t.encode() for t in texts])
    assert dictionary is not None
    codec = TextCodec(list)
    codec.add(1, dictionary)
    stored = [codec.encode(t) for t in texts]
    assert all(isinstance(v, bytes) for v in stored)

    def round_trips(offset: int) -> bool:
        order = texts[offset:] + texts[:offset]
        return [codec.decode(codec.encode(t)) for t in order] == order and [codec.decode(v) for v in stored] == texts

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(round_trips, range(0, 800, 50)))


def test_too_little_text_trains_no_dictionary() -> None:
    assert train([b"a", b"b"]) is None


def test_searches_give_the_same_results_with_texts_compressed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = build(EXAMPLE_WORKSPACE, tmp_path / "plain")
    assert set(stored_kinds(tmp_path / "plain")) == {"text"}  # fewer units than TRAIN_AFTER
    monkeypatch.setattr(text_compression, "TRAIN_AFTER", 20)
    compressed = build(EXAMPLE_WORKSPACE, tmp_path / "compressed")
    kinds = stored_kinds(tmp_path / "compressed")
    assert kinds.get("blob", 0) > kinds.get("text", 0)
    assert any(plain) and compressed == plain
    catalog = Catalog(tmp_path / "compressed" / "catalog.sqlite3")
    try:
        assert catalog.db.execute("SELECT COUNT(*) FROM units WHERE typeof(words) = 'blob'").fetchone()[0] > 0
        assert catalog.get_meta("plain_texts_below") is None  # none left plain that would gain
    finally:
        catalog.close()


def test_a_schema_2_catalog_is_migrated_in_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    workspace = tmp_path / "workspace"
    shutil.copytree(EXAMPLE_WORKSPACE, workspace)
    index_dir = tmp_path / "index"
    before = build(workspace, index_dir)
    db = sqlite3.connect(index_dir / "catalog.sqlite3")  # as a memlens of schema 2 left it
    db.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    db.execute("DROP TABLE text_dictionaries")
    db.commit()
    units = db.execute("SELECT id, text, words FROM units ORDER BY id").fetchall()
    db.close()
    monkeypatch.setattr(text_compression, "TRAIN_AFTER", 20)
    with Engine([workspace], example_settings(), index_dir=index_dir, embedder=False) as engine:
        assert engine.catalog.get_meta("schema_version") == str(SCHEMA_VERSION)
        assert stored_kinds(index_dir) == {"text": len(units)}  # not rebuilt, nor rewritten at open
        assert searched(engine) == before  # read while still plain
        engine.sync()  # the writer compresses what is there
        assert stored_kinds(index_dir).get("blob", 0) > len(units) // 2
        read = engine.catalog.db.execute("SELECT id, text, words FROM plain_units ORDER BY id").fetchall()
        assert [tuple(r) for r in read] == [tuple(r) for r in units]
        assert searched(engine) == before


def test_a_dictionary_stored_by_another_process_is_read(tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    build(EXAMPLE_WORKSPACE, index_dir)
    path = index_dir / "catalog.sqlite3"
    reader, writer = Catalog(path), Catalog(path)
    try:
        ids = [int(r[0]) for r in reader.db.execute("SELECT id FROM units ORDER BY id")]
        before = reader.unit_facts_rows(ids)
        assert reader.texts.newest is None
        samples = writer.text_samples(1000)
        dictionary = train(samples)
        assert dictionary is not None
        writer.store_dictionary(dictionary)
        while writer.compress_plain_values(50):
            pass
        assert stored_kinds(index_dir).get("blob", 0) > 0
        assert reader.unit_facts_rows(ids) == before  # the reader learnt the dictionary when it met it
        assert reader.texts.newest == 1
    finally:
        reader.close()
        writer.close()


def test_compressing_twice_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index_dir = tmp_path / "index"
    monkeypatch.setattr(text_compression, "TRAIN_AFTER", 20)
    build(EXAMPLE_WORKSPACE, index_dir)
    catalog = Catalog(index_dir / "catalog.sqlite3")
    try:
        stored = catalog.db.execute("SELECT id, text, words FROM units ORDER BY id").fetchall()
        assert compress_stored_texts(catalog) == 0
        with catalog.transaction() as db:  # as if the writer had stopped before compressing the last units
            catalog.set_meta(db, "plain_texts_below", str(catalog.highest_unit_id() + 1))
        assert compress_stored_texts(catalog) == len(stored)
        again = catalog.db.execute("SELECT id, text, words FROM units ORDER BY id").fetchall()
        assert [tuple(r) for r in again] == [tuple(r) for r in stored]
    finally:
        catalog.close()


def test_a_period_s_messages_come_with_the_start_and_length_of_their_texts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(text_compression, "TRAIN_AFTER", 20)
    build(EXAMPLE_WORKSPACE, tmp_path / "index")
    catalog = Catalog(tmp_path / "index" / "catalog.sqlite3")
    try:
        sql = """SELECT id, text FROM plain_units
                 WHERE kind = 'transcript' AND session_key IS NOT NULL AND ts IS NOT NULL"""
        texts = {int(unit_id): str(text) for unit_id, text in catalog.db.execute(sql)}
        period = catalog.units_between(0.0, 1e12, head_chars=40)
        assert {p.unit_id for p in period} == set(texts)
        assert all(p.head == texts[p.unit_id][:40] and p.length == len(texts[p.unit_id]) for p in period)
        assert any(p.length > 40 for p in period) and stored_kinds(tmp_path / "index").get("blob", 0)
    finally:
        catalog.close()
