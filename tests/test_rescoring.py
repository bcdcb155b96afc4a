"""The re-scoring passes (rescoring.py), each held to its formula on hand-made hits, and the re-scoring of real
data (the example workspace and the shared real transcripts, or the committed synthetic ones without ../shared;
keyword-only) the same whether each unit's facts come
from the per-unit cache, from the catalog's stored facts, or are worked out from the text at read time."""

from __future__ import annotations

import dataclasses
import random
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import memlens.engine.answers.results as results_module
import memlens.engine.ranking.unit_facts as unit_facts_module
from conftest import EXAMPLE_WORKSPACE, FIXTURES
from memlens.engine.engine import Engine
from memlens.engine.ranking.head import Head
from memlens.engine.ranking.hits import UnitHit
from memlens.engine.ranking.query_facts import QueryFacts
from memlens.engine.ranking.rescoring import (
    ANSWER_TOP,
    boost_named_dates,
    cap_sessions,
    merge_duplicates,
    penalise_questions,
    penalise_tool_output,
    scale_tail,
    split_head,
)
from memlens.engine.ranking.unit_facts import UnitFacts, Words
from memlens.settings import Settings
from transcript_fixtures import SYNTHETIC

NOW = 1_700_000_000.0
QUERIES = [
    "what did we decide about the database migration",
    "yesterday's deploy failed",
    "what happened last week with the tests",
    "two days before the demo",
    "notes from 8 May 2023",
    "recompute_and_push_sync",
    "git rebase --onto main",
    "日本語 テキスト",
    "the the and of",
    '"dead letter queue"',
    "zzzunknownword kafka",
]
DAY = 86_400.0


def unit(
    *,
    text: str = "x",
    session: str = "s",
    tool: float = 0.0,
    question: float = 0.0,
    ts: float | None = None,
    key: str | None = None,
) -> UnitFacts:
    return UnitFacts(text, ts, session, Words(""), tool, text if key is None else key, question)


def head_of(hits: list[UnitHit], units: list[UnitFacts], windows: list[tuple[int, int]] | None = None) -> Head:
    facts = QueryFacts(words=[], idf=[], technical=False, windows=windows or [])
    by_id = {h.unit_id: u for h, u in zip(hits, units, strict=True)}
    return Head(hits, by_id, facts, unasked={h.unit_id: h.score - h.lift for h in hits})


def test_the_tool_penalty_scales_the_score_and_what_calibration_reads_by_the_tool_share() -> None:
    hits = [UnitHit(1, score=0.8), UnitHit(2, score=0.6, lift=0.1)]
    head = head_of(hits, [unit(tool=0.5), unit(tool=0.0)])
    penalise_tool_output(head, 0.4)
    assert hits[0].score == pytest.approx(0.8 * (1 - 0.4 * 0.5)) and hits[1].score == pytest.approx(0.6)
    assert head.unasked == pytest.approx({1: 0.8 * 0.8, 2: 0.5})  # the reply boost's lift stays out


def test_the_question_penalty_orders_only() -> None:
    hits = [UnitHit(1, score=0.8), UnitHit(2, score=0.8)]
    head = head_of(hits, [unit(question=1.0), unit(question=0.0)])
    penalise_questions(head, 0.3)
    assert hits[0].score == pytest.approx(0.8 * 0.7) and hits[1].score == 0.8
    assert head.unasked == {1: 0.8, 2: 0.8}  # calibration was fitted without it


def test_the_date_boost_lifts_a_message_of_a_named_day_towards_one() -> None:
    day = int(NOW // DAY)
    hits = [UnitHit(1, score=0.5), UnitHit(2, score=0.5), UnitHit(3, score=0.5)]
    units = [unit(ts=NOW), unit(ts=NOW + 10 * DAY), unit(ts=None)]
    head = head_of(hits, units, windows=[(day - 1, day + 1)])
    boost_named_dates(head, 0.2)
    assert [h.score for h in hits] == pytest.approx([0.5 + 0.2 * 0.5, 0.5, 0.5])
    assert head.unasked[1] == pytest.approx(0.6)


def test_identical_texts_count_once_at_the_best_placed() -> None:
    hits = [UnitHit(1, score=0.9), UnitHit(2, score=0.8), UnitHit(3, score=0.7), UnitHit(4, score=0.6)]
    head = head_of(hits, [unit(key="a"), unit(key="b"), unit(key="a"), unit(key="")])
    merge_duplicates(head)
    assert [h.unit_id for h in head.hits] == [1, 2, 4]  # "" (a blank text) merges with nothing


def test_the_session_cap_moves_the_overflow_after_every_other_hit() -> None:
    hits = [UnitHit(i, score=1 - i / 10) for i in range(5)]
    head = head_of(hits, [unit(session=s) for s in ("a", "a", "a", "b", "a")])
    cap_sessions(head, 2)
    assert [h.unit_id for h in head.hits] == [0, 1, 3, 2, 4]


def test_the_tail_stays_below_the_head_in_proportion_to_its_score() -> None:
    last = UnitHit(1, score=0.5, probability=0.4)
    tail = [UnitHit(2, score=0.25), UnitHit(3, score=0.0)]
    scale_tail([last], tail)
    assert [h.probability for h in tail] == pytest.approx([0.2, 0.0])
    scale_tail([], tail)
    assert [h.probability for h in tail] == [0.0, 0.0]


def _queries(engine: Engine, count: int) -> list[str]:
    """QUERIES plus words drawn from the indexed texts themselves (seeded): queries that match many units."""
    texts = [
        str(r[0])
        for r in engine.catalog.db.execute("SELECT text FROM plain_units WHERE kind != 'tool' ORDER BY id LIMIT 3000")
    ]
    words = sorted({w for t in texts for w in re.findall(r"[A-Za-z_]{4,}", t)})
    rng = random.Random(14)
    drawn = [" ".join(rng.sample(words, k=rng.randint(1, 4))) for _ in range(count)] if words else []
    return QUERIES + drawn


@pytest.fixture(scope="module")
def real_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    root = tmp_path_factory.mktemp("equivalence")
    workspace = root / "workspace"
    shutil.copytree(EXAMPLE_WORKSPACE, workspace)
    extra = [FIXTURES] if FIXTURES.is_dir() else [SYNTHETIC]
    with Engine([workspace], Settings(), extra_transcripts=extra, index_dir=root / "index", embedder=False) as engine:
        engine.sync()
        engine.retriever.now = NOW
        yield engine


VARIANTS: dict[str, dict[str, Any]] = {
    "defaults": {},
    "session cap, no merging": {"session_cap": 2, "merge_duplicates": False},
    "no tool penalty, no dates": {"tool_penalty": 0.0, "date_boost": 0.0},
    "question penalty": {"question_penalty": 0.3},
}


def _rankings(engine: Engine, queries: list[str]) -> dict[tuple[str, int], list[tuple[Any, ...]]]:
    """Each query's ranked hits with everything re-scoring sets: order, score, features, calibrated chance."""
    return {
        (query, limit): [
            (h.unit_id, h.score, h.features, h.probability)
            for h in engine.rank(query, mode="keyword", limit=limit).hits
        ]
        for query in queries
        for limit in (10, 150)
    }


@pytest.mark.slow  # 720 rankings
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_rescoring_is_the_same_from_the_cache_the_stored_facts_and_the_text(
    real_engine: Engine, monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    """Three ways to a unit's facts: the per-unit cache, the columns the writer stored, the text analysed at read
    time (stored facts of another version are not trusted). The answers must not depend on which was taken."""
    base = real_engine.settings.search
    monkeypatch.setattr(real_engine.settings, "search", dataclasses.replace(base, **VARIANTS[variant]))
    queries = _queries(real_engine, 30)
    unit_facts_module._CACHES.pop(real_engine.catalog, None)
    stored = _rankings(real_engine, queries)
    cached = _rankings(real_engine, queries)
    unit_facts_module._CACHES.pop(real_engine.catalog, None)
    monkeypatch.setattr(unit_facts_module, "FACTS_VERSION", "another version")
    from_text = _rankings(real_engine, queries)
    unit_facts_module._CACHES.pop(real_engine.catalog, None)
    assert stored == cached == from_text
    # the queries do find things: on average a tenth of the corpus a ranking, up to 50 hits (the real corpus)
    units = int(real_engine.catalog.db.execute("SELECT count(*) FROM units").fetchone()[0])
    assert sum(len(hits) for hits in stored.values()) > min(50, units // 10) * len(stored)


def test_a_changed_unit_is_read_afresh(real_engine: Engine) -> None:
    row = real_engine.catalog.db.execute("SELECT path FROM files WHERE kind = 'memory' ORDER BY path LIMIT 1")
    note = Path(str(row.fetchone()[0]))
    real_engine.rank("zebracorn sighting", mode="keyword", limit=10)  # caches the units that match "sighting"
    note.write_text(note.read_text() + "\n\n## Zebracorn\n\nThe zebracorn sighting was logged.\n")
    time.sleep(0.01)
    real_engine.sync()
    hits = real_engine.rank("zebracorn sighting", mode="keyword", limit=10).hits
    texts = real_engine.catalog.units_by_id([hits[0].unit_id])
    assert "zebracorn" in str(texts[hits[0].unit_id]["text"]).lower()


@pytest.mark.parametrize("excluded", [False, True])
def test_results_read_in_slices_equal_results_read_at_once(
    real_engine: Engine, monkeypatch: pytest.MonkeyPatch, excluded: bool
) -> None:
    """The result builder reads result rows a slice at a time and stops once the shown part is settled; the answer
    must be the one it gives reading every candidate's row, with and without hidden (excluded) sessions."""
    if excluded:  # hide the sessions of the first query's best hits, so hidden hits sit among the shown ones
        top = real_engine.rank(QUERIES[0], mode="keyword", limit=10).hits[:20]
        rows = real_engine.catalog.result_rows([h.unit_id for h in top]).values()
        sessions = sorted({str(r.session_key) for r in rows if r.session_key})
        assert sessions
        monkeypatch.setattr(real_engine.settings, "exclude_sessions", sessions[:3])
    # many candidates a query (round 9's default), so that reading every one's row is far more than a page needs
    monkeypatch.setattr(real_engine.settings.search, "context_candidates", 100)
    read: list[int] = []
    result_rows = real_engine.catalog.result_rows

    def counted(unit_ids: list[int]) -> Any:
        read.append(len(unit_ids))
        return result_rows(unit_ids)

    monkeypatch.setattr(real_engine.catalog, "result_rows", counted)
    queries = _queries(real_engine, 40)
    answers: dict[tuple[str, int], Any] = {}
    sliced: dict[tuple[str, int], int] = {}
    for query in queries:
        for limit in (1, 3, 10, 40):
            read.clear()
            answers[query, limit] = real_engine.search(query, mode="keyword", limit=limit)["results"]
            sliced[query, limit] = sum(read)
    extra = results_module.SETTLE_EXTRA
    monkeypatch.setattr(results_module, "SETTLE_EXTRA", 1_000_000)  # one slice: every candidate's row
    whole: dict[tuple[str, int], int] = {}
    for (query, limit), got in answers.items():
        read.clear()
        assert got == real_engine.search(query, mode="keyword", limit=limit)["results"], (query, limit)
        whole[query, limit] = sum(read)
    # the queries do find things (hiding sessions takes a large share of a small corpus)
    assert sum(len(a) for a in answers.values()) > 1.5 * len(answers)
    # and where the candidates run three slices deep or more, the slices read far fewer rows (hits shown by their own
    # chance run deeper than a cut at a share of the best score did, so a page reads further down than it used to);
    # a page that needs nearly every candidate has nothing to save, and a small corpus has many of those
    deep = [key for key, rows in whole.items() if rows >= 3 * (max(key[1], ANSWER_TOP) + extra)]
    assert len(deep) >= 4
    assert sum(sliced[key] for key in deep) < sum(whole[key] for key in deep) * 2 / 3
    assert sum(sliced.values()) <= sum(whole.values())


def test_the_nearest_in_meaning_join_the_head_wherever_the_fused_score_put_them() -> None:
    ranked = [UnitHit(i, score=1.0 - i / 100, vector_rank=None if i % 2 else i) for i in range(10)]
    ranked[7].vector_rank = 1  # far down the fused order, second in the cosine list
    ranked[8].vector_rank = 5  # not among the first five of the cosine list
    head, tail = split_head(ranked, size=4, nearest=5)
    assert [h.unit_id for h in head] == [0, 1, 2, 3, 4, 7]  # 4: its cosine rank is 4
    assert [h.unit_id for h in tail] == [5, 6, 8, 9]
    assert split_head(ranked, size=4, nearest=0) == (ranked[:4], ranked[4:])
