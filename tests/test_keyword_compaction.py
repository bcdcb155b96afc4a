"""The keyword index written afresh once its segments pile up: fewer segments, the same answers, never again and
again as appends add small segments, searches answering throughout, and a cancelled rewrite leaves the index as it
was. Real tantivy and SQLite, the committed transcripts of every format, keyword-only engines."""

from __future__ import annotations

import random
import re
import shutil
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

import memlens.engine.indexing.indexer as indexer
import memlens.engine.keyword.keyword_docs as keyword_docs
import memlens.engine.keyword.keyword_index as keyword_index
from memlens.engine.catalog import Catalog
from memlens.engine.engine import Engine
from memlens.engine.keyword.keyword_index import KeywordDoc, KeywordIndex
from memlens.settings import Settings
from transcript_fixtures import SYNTHETIC

QUERIES = ("webhook signature", "retry the failed job", "migration rollback", "tests pass", "cache")


def settings() -> Settings:
    value = Settings()
    value.transcripts.agent_defaults = False
    return value


def answers(engine: Engine) -> list[list[tuple[int, float]]]:
    """Each query's keyword candidates in both fields, ids with their BM25, best first."""
    return [engine.keyword.search(engine.keyword.parse(q), 50, field=f) for q in QUERIES for f in ("text", "context")]


@pytest.fixture
def sources() -> list[Path]:
    return sorted(p for p in SYNTHETIC.rglob("*") if p.is_file())


def copy_in(source: Path, folder: Path) -> None:
    target = folder / source.relative_to(SYNTHETIC)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(source, target)


@pytest.fixture
def piled_up(tmp_path: Path, sources: list[Path], monkeypatch: pytest.MonkeyPatch) -> Engine:
    """An engine whose keyword index was written by one sync per transcript file (one segment each), with the
    compaction thresholds out of reach meanwhile."""
    monkeypatch.setattr(keyword_index, "COMPACT_MIN_DOCS", 10**9)
    folder = tmp_path / "transcripts"
    (tmp_path / "ws").mkdir()
    engine = Engine([tmp_path / "ws"], settings(), extra_transcripts=[folder], index_dir=tmp_path / "i", embedder=False)
    for source in sources[:6]:  # tantivy merges eight segments of a size into one by itself: stay under
        copy_in(source, folder)
        engine.sync()
    return engine


def test_piled_up_segments_are_written_afresh_with_the_same_answers(
    piled_up: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = piled_up
    before, segments = answers(engine), engine.keyword.num_segments()
    assert segments >= 4 and sum(1 for hits in before if hits) >= 6
    monkeypatch.setattr(keyword_index, "COMPACT_MIN_DOCS", 1)
    assert engine.keyword.needs_compaction()
    heard: list[tuple[int, int, str]] = []
    monkeypatch.setattr(keyword_docs, "PROGRESS_EVERY", 10)
    assert engine.indexer.compact_keyword_index(progress=lambda done, total, say: heard.append((done, total, say)))
    assert engine.keyword.num_segments() == 1
    units = engine.catalog.unit_count()
    assert heard[-1][:2] == (units, units) and len(heard) == units // 10 + 1  # every 10 documents, and at the end
    assert [done for done, _, _ in heard] == sorted(done for done, _, _ in heard)
    assert engine.keyword.generation() == engine.catalog.generation()
    after = answers(engine)
    assert [[u for u, _ in hits] for hits in after] == [[u for u, _ in hits] for hits in before]
    assert [s for hits in after for _, s in hits] == pytest.approx([s for hits in before for _, s in hits])
    assert not engine.keyword.needs_compaction()  # written afresh at this size: not again until it grows
    engine.close()


def test_appends_rewrite_only_once_the_index_has_grown(
    piled_up: Engine, sources: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = piled_up
    monkeypatch.setattr(keyword_index, "COMPACT_MIN_DOCS", 1)
    monkeypatch.setattr(keyword_index, "COMPACT_MIN_SEGMENTS", 2)
    monkeypatch.setattr(keyword_index, "COMPACT_GROWTH", 1.5)
    engine.sync()  # nothing changed, but the segments have piled up: the end of a sync writes them afresh
    assert engine.keyword.num_segments() == 1
    compacted = engine.keyword.num_docs()
    rewritten: list[bool] = []
    for source in sources[6:]:
        copy_in(source, tmp_path / "transcripts")
        engine.sync()
        grown = engine.keyword.num_docs() >= 1.5 * compacted
        rewritten.append(engine.keyword.num_segments() == 1)
        assert rewritten[-1] == grown, (engine.keyword.num_docs(), compacted)
        if grown:
            compacted = engine.keyword.num_docs()
    assert False in rewritten  # the appends that did not grow it by half left their small segment alone
    engine.close()


def test_a_cancelled_rewrite_leaves_the_index_as_it_was(piled_up: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = piled_up
    before, segments, generation = answers(engine), engine.keyword.num_segments(), engine.keyword.generation()
    monkeypatch.setattr(keyword_index, "COMPACT_MIN_DOCS", 1)
    monkeypatch.setattr(keyword_index, "CANCEL_EVERY", 1)
    cancel = threading.Event()
    cancel.set()
    assert not engine.indexer.compact_keyword_index(cancel)
    assert engine.keyword.num_segments() == segments
    assert engine.keyword.generation() == generation
    assert answers(engine) == before
    assert engine.keyword.needs_compaction()  # still due: the next sync that is not cancelled does it
    engine.close()


def test_a_watchers_few_files_never_wait_for_a_rewrite(
    piled_up: Engine, sources: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files synced one by one as they change (the watcher) are searchable at once; the rewrite waits for a whole
    sync (start-up, `memlens index`, `reindex`)."""
    engine = piled_up
    monkeypatch.setattr(keyword_index, "COMPACT_MIN_DOCS", 1)
    segments = engine.keyword.num_segments()
    copy_in(sources[6], tmp_path / "transcripts")
    engine.sync_paths([tmp_path / "transcripts" / sources[6].relative_to(SYNTHETIC)])
    assert engine.keyword.num_segments() == segments + 1
    assert engine.keyword.needs_compaction()
    engine.sync()
    assert engine.keyword.num_segments() == 1
    engine.close()


def test_searches_keep_answering_while_the_index_is_written_afresh(
    piled_up: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Readers on other threads (the language server answers while its writer thread syncs) see the old index until
    the new one's commit, then the new one: never an error, never a partial index. The rewrite is slowed down (a
    millisecond a document) so that many searches land in the middle of it."""
    engine = piled_up
    before = answers(engine)
    ids = [[u for u, _ in hits] for hits in before]
    monkeypatch.setattr(keyword_index, "COMPACT_MIN_DOCS", 1)
    documents = keyword_docs.keyword_docs

    def slow(catalog: Catalog, keyword: KeywordIndex, rows: Iterable[sqlite3.Row], *more: Any) -> Iterator[KeywordDoc]:
        for doc in documents(catalog, keyword, rows, *more):
            threading.Event().wait(0.001)
            yield doc

    monkeypatch.setattr(keyword_docs, "keyword_docs", slow)
    seen: list[list[list[int]]] = []
    failures: list[BaseException] = []
    done = threading.Event()

    def search() -> None:
        while not done.is_set():
            try:
                seen.append([[u for u, _ in hits] for hits in answers(engine)])
            except BaseException as exc:  # noqa: BLE001 - any failure fails the test
                failures.append(exc)
                return

    reader = threading.Thread(target=search)
    reader.start()
    try:
        assert engine.indexer.compact_keyword_index()
    finally:
        done.set()
        reader.join()
    assert not failures
    assert len(seen) > 5 and all(answer == ids for answer in seen)
    assert engine.keyword.num_segments() == 1
    engine.close()


@pytest.mark.slow  # writes a large index
def test_a_write_afresh_comes_out_as_one_segment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write afresh buffers REWRITE_HEAP: documents that overflow the everyday writer's buffer (here made tantivy's
    least, so that 1,500 long messages need two segments) come out of a rewrite as one segment."""
    monkeypatch.setattr(keyword_index, "WRITER_HEAP", 15_000_000)
    pick = random.Random(7)
    vocabulary = [f"word{i}" for i in range(5_000)]
    texts = [" ".join(pick.choices(vocabulary, k=400)) for _ in range(1_500)]
    docs = [KeywordDoc(i, 1, "transcript", "codex", "s", "user", 0, t, f"{t} {t}") for i, t in enumerate(texts, 1)]
    index = keyword_index.KeywordIndex(tmp_path / "keyword")
    index.write(1, docs)
    assert index.num_segments() >= 2
    index.write(2, docs, clear=True)
    assert index.num_segments() == 1 and index.num_docs() == len(docs)


def contents(engine: Engine) -> tuple[int, list[list[int]], list[list[tuple[int, float]]]]:
    """What the keyword index holds, as far as a search can tell: its documents, how many documents hold each word
    of every unit's text in each field, and each query's answers with their BM25."""
    units = engine.catalog.db.execute("SELECT text FROM plain_units ORDER BY id").fetchall()
    terms = sorted(
        {t.lower() for (text,) in units for t in re.findall(r"[A-Za-z0-9_$]+(?:[./:-][A-Za-z0-9_$]+)*", text)}
    )
    searcher = engine.keyword.index.searcher()
    frequencies = [[searcher.doc_freq(field, term) for term in terms] for field in ("text", "context", "ident", "cjk")]
    return engine.keyword.num_docs(), frequencies, answers(engine)


def stored_facts(engine: Engine) -> list[tuple[Any, ...]]:
    """Every unit's derived facts as the catalog stores them, by file and place (ids differ between builds)."""
    rows = engine.catalog.db.execute(
        "SELECT f.path, u.seq, u.position, u.text, u.words, u.tool, u.dup_key, u.question"
        " FROM plain_units u JOIN files f ON f.id = u.file_id ORDER BY f.path, u.seq, u.position, u.text"
    )
    return [(str(path).split("/transcripts/", 1)[1], *rest) for path, *rest in rows]


def whole_sync(tmp_path: Path, name: str, sources: list[Path], cancel: threading.Event | None = None) -> Engine:
    folder = tmp_path / name / "transcripts"
    for source in sources:
        target = folder / source.relative_to(SYNTHETIC)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target)
    (tmp_path / name / "ws").mkdir()
    engine = Engine(
        [tmp_path / name / "ws"],
        settings(),
        extra_transcripts=[folder],
        index_dir=tmp_path / name / "i",
        embedder=False,
    )
    engine.sync(cancel=cancel)
    return engine


@pytest.fixture
def batch_per_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(indexer, "BATCH_FILES", 1)  # one commit per file: the sync crosses the threshold midway


def test_a_sync_that_makes_the_index_due_for_a_rewrite_writes_it_once_with_the_same_contents(
    tmp_path: Path, sources: list[Path], monkeypatch: pytest.MonkeyPatch, batch_per_file: None
) -> None:
    """Once a whole sync's additions make the index one that compaction writes afresh, the batches stop writing
    tantivy and the sync writes it afresh at its end: the same documents, words and answers as an index written
    batch by batch, in one segment, at the catalog's generation."""
    monkeypatch.setattr(keyword_index, "COMPACT_MIN_DOCS", 10**9)
    batch_by_batch = whole_sync(tmp_path, "batches", sources)
    expected, units = contents(batch_by_batch), batch_by_batch.catalog.unit_count()
    expected_facts = stored_facts(batch_by_batch)
    assert len(expected_facts) == units and all(words is not None for _, _, words, *_ in expected_facts)
    assert batch_by_batch.keyword.num_segments() > 1 and expected[0] == units
    batch_by_batch.close()
    monkeypatch.setattr(keyword_index, "COMPACT_MIN_DOCS", units // 2)
    writes: list[bool] = []  # each write of tantivy: whether it wrote the index afresh
    write = keyword_index.KeywordIndex.write

    def counted(self: keyword_index.KeywordIndex, *args: Any, **kwargs: Any) -> bool:
        writes.append(bool(kwargs.get("clear")))
        return write(self, *args, **kwargs)

    monkeypatch.setattr(keyword_index.KeywordIndex, "write", counted)
    monkeypatch.setattr(indexer, "SEARCHABLE_FIRST", 1)
    deferred = whole_sync(tmp_path, "deferred", sources)
    # a first build, once its first documents are searchable, foresees its size from the units per byte of the
    # files read: no later batch writes what the rewrite writes again (with the threshold out of reach, above,
    # every batch wrote its own)
    assert writes.count(False) == 1 and writes[-1]  # the first batch alone, then the rewrite
    assert contents(deferred) == expected
    assert stored_facts(deferred) == expected_facts  # filled in by the rewrite, from the words it analysed
    assert deferred.keyword.num_segments() == 1 and not deferred.indexer.keyword_behind
    assert deferred.keyword.generation() == deferred.catalog.generation()
    assert not deferred.keyword.needs_compaction()  # written afresh at this size: the sync's end does not again
    deferred.close()
    # into an index that already holds documents, only what the sync has added counts: it crosses midway
    writes.clear()
    started = whole_sync(tmp_path, "started", sources[:1])
    for source in sources[1:]:
        copy_in(source, tmp_path / "started" / "transcripts")
    started.sync()
    assert 1 < writes.count(False) < len(sources) and writes[-1]  # some batches wrote, then the rewrite
    assert contents(started)[:2] == expected[:2]  # (its units numbered in another order: the answers by id differ)
    assert started.keyword.num_segments() == 1 and started.keyword.generation() == started.catalog.generation()
    started.close()


def test_a_cancelled_sync_leaves_the_index_behind_for_the_next_sync_or_the_next_open(
    tmp_path: Path, sources: list[Path], monkeypatch: pytest.MonkeyPatch, batch_per_file: None
) -> None:
    monkeypatch.setattr(keyword_index, "COMPACT_MIN_DOCS", 1)
    cancel = threading.Event()
    apply_batch = indexer.Indexer._apply_batch

    def cancelled_after_three(self: indexer.Indexer, *args: Any, **kwargs: Any) -> None:
        apply_batch(self, *args, **kwargs)
        applied.append(1)
        if len(applied) == 3:
            cancel.set()

    applied: list[int] = []
    monkeypatch.setattr(indexer.Indexer, "_apply_batch", cancelled_after_three)
    engine = whole_sync(tmp_path, "cancelled", sources, cancel=cancel)
    assert engine.indexer.keyword_behind and engine.keyword.generation() != engine.catalog.generation()
    assert engine.keyword.num_docs() < engine.catalog.unit_count()  # what the first batch wrote stays searchable
    engine.close()
    reopened = Engine(
        [tmp_path / "cancelled" / "ws"],
        settings(),
        extra_transcripts=[tmp_path / "cancelled" / "transcripts"],
        index_dir=tmp_path / "cancelled" / "i",
        embedder=False,
    )  # a new process: the lagging generation makes it write the index afresh from the catalog
    assert reopened.keyword.generation() == reopened.catalog.generation()
    assert reopened.keyword.num_docs() == reopened.catalog.unit_count()
    reopened.close()
    cancel.clear()
    applied.clear()
    engine = whole_sync(tmp_path, "again", sources, cancel=cancel)  # the same process: its next sync catches up
    assert engine.indexer.keyword_behind
    cancel.clear()
    engine.sync()
    assert not engine.indexer.keyword_behind
    assert engine.keyword.generation() == engine.catalog.generation()
    assert engine.keyword.num_docs() == engine.catalog.unit_count()
    engine.close()
