"""The keyword index written afresh once its segments pile up: fewer segments, the same answers, never again and
again as appends add small segments, searches answering throughout, and a cancelled rewrite leaves the index as it
was. Real tantivy and SQLite, the committed transcripts of every format, keyword-only engines."""

from __future__ import annotations

import random
import shutil
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

import memlens.engine.keyword.keyword_docs as keyword_docs
import memlens.engine.keyword.keyword_index as keyword_index
from memlens.engine.catalog import Catalog
from memlens.engine.engine import Engine
from memlens.engine.keyword.keyword_index import KeywordDoc
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

    def slow(catalog: Catalog, rows: Iterable[sqlite3.Row]) -> Iterator[KeywordDoc]:
        for doc in documents(catalog, rows):
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
