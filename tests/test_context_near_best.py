"""The context field's BM25 asked only of the message field's best hits and their neighbours
(search.contextNearBest): a restricted search scores each unit exactly as the whole index's search does, and the
units it may return are the best hits and the transcript messages within the context field's window of them. Real
data: the example workspace and the shared real transcripts (or the committed synthetic ones), keyword-only."""

from __future__ import annotations

import random
import re
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from conftest import EXAMPLE_WORKSPACE, FIXTURES
from memlens.engine.engine import Engine
from memlens.engine.keyword.keyword_index import CONTEXT_WINDOW
from memlens.settings import Settings
from transcript_fixtures import SYNTHETIC


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    root = tmp_path_factory.mktemp("near-best")
    workspace = root / "workspace"
    shutil.copytree(EXAMPLE_WORKSPACE, workspace)
    extra = [FIXTURES] if FIXTURES.is_dir() else [SYNTHETIC]
    with Engine([workspace], Settings(), extra_transcripts=extra, index_dir=root / "index", embedder=False) as engine:
        engine.sync()
        yield engine


def _queries(engine: Engine, count: int) -> list[str]:
    """Words drawn from the indexed messages (seeded): queries that match many units in both fields."""
    sql = "SELECT text FROM plain_units WHERE kind = 'transcript' ORDER BY id LIMIT 2000"
    texts = [str(r[0]) for r in engine.catalog.db.execute(sql)]
    words = sorted({w for t in texts for w in re.findall(r"[A-Za-z]{4,}", t)})
    rng = random.Random(7)
    return [" ".join(rng.sample(words, k=rng.randint(1, 3))) for _ in range(count)]


def test_a_restricted_search_scores_each_unit_as_the_whole_index_does(engine: Engine) -> None:
    keyword = engine.retriever.keyword
    rng = random.Random(3)
    compared = 0
    for text in _queries(engine, 30):
        query = keyword.parse(text)
        whole = keyword.search(query, 100_000, field="context")
        if len(whole) < 6:
            continue
        within = [unit_id for unit_id, _ in whole if rng.random() < 0.4] + [10**9]  # and a unit that does not exist
        kept = set(within)
        expected = [(unit_id, score) for unit_id, score in whole if unit_id in kept][:20]
        got = keyword.search(query, 20, field="context", within=within)
        assert [u for u, _ in got] == [u for u, _ in expected], text
        assert [s for _, s in got] == pytest.approx([s for _, s in expected], rel=1e-6), text
        compared += len(got)
    assert compared > 100  # the queries did match


def test_an_empty_restriction_finds_nothing(engine: Engine) -> None:
    keyword = engine.retriever.keyword
    text = _queries(engine, 1)[0]
    assert keyword.search(keyword.parse(text), 10, field="context")
    assert keyword.search(keyword.parse(text), 10, field="context", within=[]) == []


def test_message_neighbours_are_the_messages_within_the_window(engine: Engine) -> None:
    catalog = engine.catalog
    rows = catalog.db.execute(
        "SELECT id, session_key, seq FROM units WHERE kind = 'transcript' AND session_key IS NOT NULL"
    ).fetchall()
    assert len(rows) > 50
    rng = random.Random(5)
    for window in (1, CONTEXT_WINDOW):
        places = [(str(r[1]), int(r[2])) for r in rng.sample(rows, 25)]
        places += places[:3]  # the same place twice reads it once
        wanted = {
            int(r[0])
            for r in rows
            if any(str(r[1]) == session and abs(int(r[2]) - seq) <= window for session, seq in places)
        }
        got = catalog.message_neighbours(places, window)
        assert len(got) == len(set(got))
        assert set(got) == wanted


def test_near_best_context_hits_are_the_best_hits_and_their_neighbours(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With search.contextNearBest, every hit the context field adds is one of the message field's best hits or a
    transcript message within the window of one, and carries the context score the whole index's search gives it
    (normalised by the best of those it found)."""
    retriever, keyword = engine.retriever, engine.retriever.keyword
    near_best = 5
    monkeypatch.setattr(engine.settings.search, "context_near_best", near_best)
    asked: list[tuple[Any, list[int] | None]] = []
    search = keyword.search

    def recorded(query: Any, limit: int, field: str = "text", **kwargs: Any) -> list[tuple[int, float]]:
        found = search(query, limit, field, **kwargs)
        asked.append((field, kwargs.get("within")))
        return found

    monkeypatch.setattr(keyword, "search", recorded)
    checked = 0
    for text in _queries(engine, 20):
        asked.clear()
        query = retriever.read(text, engine.settings.search)
        ranking = retriever.rank(query, engine.settings.search, mode="keyword", limit=10)
        if not ranking.hits:
            continue
        (_, no_limit), (field, within) = asked
        assert no_limit is None and field == "context" and within is not None
        best = [unit_id for unit_id, _ in search(query, engine.settings.search.candidates)[:near_best]]
        places = engine.catalog.message_places(best)
        allowed = set(best) | set(engine.catalog.message_neighbours(places.values(), CONTEXT_WINDOW))
        assert set(within) == allowed
        whole = dict(search(query, 100_000, "context"))
        with_context = [h for h in ranking.hits if h.context > 0]
        assert {h.unit_id for h in with_context} <= allowed
        top = max(whole[h.unit_id] for h in with_context) if with_context else 0.0
        for hit in with_context:
            assert hit.context == pytest.approx(whole[hit.unit_id] / top, rel=1e-6)
        checked += len(with_context)
    assert checked > 20
