"""The embedding backlog is a queue and unused vectors go with the deletion that made them unused: what an append
costs does not grow with the index. Checked through the engine with a stand-in model (the queue and the catalog are
under test, not what the vectors say)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from memlens.engine.engine import Engine
from memlens.engine.vectors.embedder import Embedder
from memlens.settings import Settings
from vector_files import held_text_hashes


class _RandomVectors:
    def __init__(self) -> None:
        self.rng = np.random.default_rng(3)

    def embed(self, texts: list[str], **_: object) -> list[np.ndarray]:
        rows = self.rng.standard_normal((len(texts), 384)).astype(np.float32)
        return list(rows / np.linalg.norm(rows, axis=1, keepdims=True))


def _embedder(name: str = "test/random-384") -> Embedder:
    return Embedder(_RandomVectors(), name, 384, batch_size=64)


def _note(folder: Path, name: str, sections: list[tuple[str, str]]) -> Path:
    path = folder / "memory" / f"{name}.md"
    body = "\n\n".join(f"## {title}\n\n{text}" for title, text in sections)
    path.write_text(f"# {name}\n\n{body}\n")
    return path


SHARED = ("Shared", "The deploy checklist lives in the runbook; both notes quote it word for word here.")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    (folder / "memory").mkdir(parents=True)
    _note(folder, "alpha", [("Alpha", "Alpha talks about the payment retries and their backoff."), SHARED])
    _note(folder, "beta", [("Beta", "Beta is about the search ranking and its calibration."), SHARED])
    return folder


@pytest.fixture
def engine(workspace: Path, tmp_path: Path) -> Iterator[Engine]:
    with Engine([workspace], Settings(), index_dir=tmp_path / "index", embedder=_embedder()) as opened:
        yield opened


def _vector_hashes(engine: Engine) -> set[str]:
    return held_text_hashes(engine.vectors)


def _unit_hashes(engine: Engine, path: Path | None = None) -> set[str]:
    if path is None:
        return {str(r[0]) for r in engine.catalog.db.execute("SELECT embed_text_hash FROM units")}
    sql = "SELECT embed_text_hash FROM units u JOIN files f ON f.id = u.file_id WHERE f.path = ?"
    return {str(r[0]) for r in engine.catalog.db.execute(sql, (str(path),))}


def _waiting(engine: Engine) -> int:
    return int(engine.catalog.db.execute("SELECT COUNT(*) FROM units WHERE vector_ready IS NULL").fetchone()[0])


def test_deleting_a_file_drops_the_vectors_only_it_used(engine: Engine, workspace: Path) -> None:
    engine.sync()
    alpha = workspace / "memory" / "alpha.md"
    only_alpha = _unit_hashes(engine, alpha) - _unit_hashes(engine, workspace / "memory" / "beta.md")
    assert only_alpha and _unit_hashes(engine) == _vector_hashes(engine)
    alpha.unlink()
    engine.sync()
    assert _vector_hashes(engine) == _unit_hashes(engine)  # alpha's own texts went, the shared one stayed
    assert not only_alpha & _vector_hashes(engine)


def test_a_file_moved_within_one_sync_keeps_its_vectors(engine: Engine, workspace: Path) -> None:
    engine.sync()
    before = _vector_hashes(engine)
    (workspace / "memory" / "alpha.md").rename(workspace / "memory" / "gamma.md")
    report = engine.sync()
    assert report.units_embedded == 0
    assert _vector_hashes(engine) == before


def test_the_queue_holds_only_what_waits(engine: Engine, workspace: Path) -> None:
    engine.sync(embed=False)
    texts = len(_unit_hashes(engine))
    assert engine.indexer.embedding.pending() == texts
    assert _waiting(engine) == engine.catalog.unit_count()
    engine.embed_pending()
    assert engine.indexer.embedding.pending() == 0 and _waiting(engine) == 0
    # a new unit whose text already has a vector is ready when it is written: nothing to embed, nothing waits
    alpha = workspace / "memory" / "alpha.md"
    (workspace / "memory" / "delta.md").write_bytes(alpha.read_bytes() + b"\n")  # the same texts, another file
    report = engine.sync(embed=False)
    assert report.files_parsed == 1
    assert _unit_hashes(engine, workspace / "memory" / "delta.md") == _unit_hashes(engine, alpha)
    assert _waiting(engine) == 0 and engine.indexer.embedding.pending() == 0
    assert len(engine.vectors) == engine.catalog.unit_count()
    # a new text waits until it is embedded
    _note(workspace, "epsilon", [("Epsilon", "A brand new note about the cache eviction policy.")])
    engine.sync(embed=False)
    assert engine.indexer.embedding.pending() == 1 and _waiting(engine) == 1
    engine.embed_pending()
    assert _waiting(engine) == 0 and len(engine.vectors) == engine.catalog.unit_count()


def test_another_model_starts_the_queue_over(workspace: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    with Engine([workspace], Settings(), index_dir=index, embedder=_embedder()) as first:
        first.sync()
        texts = len(_unit_hashes(first))
        assert first.indexer.embedding.pending() == 0
    with Engine([workspace], Settings(), index_dir=index, embedder=_embedder("test/other-384")) as second:
        assert second.indexer.embedding.pending() == texts
        second.embed_pending()
        assert second.indexer.embedding.pending() == 0 and _waiting(second) == 0


def test_an_index_from_before_the_queue_is_brought_into_it(workspace: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    with Engine([workspace], Settings(), index_dir=index, embedder=_embedder()) as first:
        first.sync()
        with first.catalog.transaction() as db:  # what an older index looks like: the column all NULL, no model
            db.execute("UPDATE units SET vector_ready = NULL")
            db.execute("DELETE FROM meta WHERE key = 'vector_ready_model'")
    with Engine([workspace], Settings(), index_dir=index, embedder=_embedder()) as reopened:
        assert reopened.indexer.embedding.pending() == 0
        assert _waiting(reopened) == 0
        assert reopened.sync().units_embedded == 0
