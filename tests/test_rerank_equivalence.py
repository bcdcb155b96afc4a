"""The last ranking pass's cached path (unit_facts.py, KeywordIndex.token_set) holds the output of the plain one.

`reference_postprocess` is rerank.postprocess as it was before the per-unit cache: every hit's row read and its text
re-analysed on every query. Both run on the same fused candidates of real data (the example workspace and the shared
real transcripts, keyword-only) and must give the same hits in the same order with the same scores, features and
probabilities."""

from __future__ import annotations

import copy
import dataclasses
import math
import random
import re
import shutil
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import memlens.engine.answers.results as results_module
import memlens.engine.ranking.search as search_module
from conftest import EXAMPLE_WORKSPACE, FIXTURES
from memlens.engine.catalog import Catalog
from memlens.engine.engine import Engine
from memlens.engine.keyword.keyword_index import KeywordIndex
from memlens.engine.ranking.calibration import answerable, probability
from memlens.engine.ranking.dates import message_windows, overlaps
from memlens.engine.ranking.hits import UnitHit
from memlens.engine.ranking.rerank import (
    HEAD,
    bm25_share,
    coverage,
    matched_share,
    postprocess,
    query_facts,
    tool_share,
)
from memlens.engine.ranking.unit_facts import question_share
from memlens.settings import SearchSettings, Settings

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


def reference_postprocess(
    ranked: list[UnitHit],
    query: str,
    settings: SearchSettings,
    catalog: Catalog,
    keyword: KeywordIndex,
    mode: str,
    limit: int | None,
    now: float | None = None,
) -> list[UnitHit]:
    """rerank.postprocess without the cache: the straightforward reads and analysis, per query."""
    if not ranked:
        return ranked
    head_size = max(HEAD, limit or 0)
    head, tail = ranked[:head_size], ranked[head_size:]
    rows = catalog.units_by_id([h.unit_id for h in head])
    facts = query_facts(query, keyword, settings, now, catalog)
    texts: dict[int, str] = {}
    covers: dict[int, float] = {}
    matched: dict[int, float] = {}
    unasked: dict[int, float] = {}
    for hit in head:
        row = rows.get(hit.unit_id)
        text = str(row["text"]) if row is not None else ""
        texts[hit.unit_id] = text
        tokens = set(keyword.tokens(text))
        covers[hit.unit_id] = coverage(facts, tokens, text)
        matched[hit.unit_id] = matched_share(facts, tokens)
        # what the calibrated chance reads: the score without the question penalty and the reply boost's lift
        unasked[hit.unit_id] = hit.score - hit.lift
        if settings.tool_penalty > 0 and not facts.technical:
            hit.score *= 1.0 - settings.tool_penalty * tool_share(text)
            unasked[hit.unit_id] *= 1.0 - settings.tool_penalty * tool_share(text)
        if settings.question_penalty > 0:
            asking = question_share(text) if row is not None and row["kind"] == "transcript" else 0.0
            hit.score *= 1.0 - settings.question_penalty * asking
        ts = row["ts"] if row is not None else None
        if facts.windows and ts is not None and overlaps(message_windows(text, float(ts)), facts.windows):
            hit.score += settings.date_boost * (1.0 - hit.score)
            unasked[hit.unit_id] += settings.date_boost * (1.0 - unasked[hit.unit_id])
    head.sort(key=lambda h: (-h.score, h.unit_id))
    if settings.merge_duplicates:
        seen: set[str] = set()
        kept = []
        for hit in head:
            key = " ".join(texts[hit.unit_id].lower().split())
            if key and key in seen:
                continue
            seen.add(key)
            kept.append(hit)
        head = kept
    if settings.session_cap > 0:
        per_session: Counter[str] = Counter()
        capped: list[UnitHit] = []
        overflow: list[UnitHit] = []
        for hit in head:
            row = rows.get(hit.unit_id)
            session = str(row["session_key"] or f"file:{row['file_id']}") if row is not None else ""
            per_session[session] += 1
            (capped if per_session[session] <= settings.session_cap else overflow).append(hit)
        head = capped + overflow
    best_cover = max(covers.values(), default=0.0)
    best_cosine = max((h.vector or 0.0 for h in ranked), default=0.0)
    for rank, hit in enumerate(head):
        hit.features = (
            unasked[hit.unit_id],
            hit.fused,
            max(0.0, hit.vector or 0.0),
            covers[hit.unit_id],
            best_cover,
            best_cosine,
            math.log1p(rank),
            bm25_share(hit.bm25, facts),
            matched[hit.unit_id],
            facts.absent,
        )
    top = [hit.features for hit in head[:10]]
    query_features = (
        best_cover,
        facts.absent,
        max((f[7] for f in top), default=0.0),
        max((f[8] for f in top), default=0.0),
    )
    chance = answerable(mode, query_features)
    for hit in head:
        hit.probability = probability(mode, hit.features, chance)
    last = head[-1] if head else None
    for hit in tail:
        hit.probability = (last.probability * hit.score / last.score) if last and last.score > 0 else 0.0
    return head + tail


def _same(ours: list[UnitHit], theirs: list[UnitHit]) -> None:
    assert [h.unit_id for h in ours] == [h.unit_id for h in theirs]
    for a, b in zip(ours, theirs, strict=True):
        assert a.score == pytest.approx(b.score, abs=1e-12, rel=0)
        assert a.probability == pytest.approx(b.probability, abs=1e-12, rel=0)
        assert a.features == pytest.approx(b.features, abs=1e-12, rel=0)


class Compare:
    """Stands in for search.postprocess: runs the reference on a copy of the candidates, then the real one."""

    def __init__(self) -> None:
        self.calls = 0
        self.compared_hits = 0

    def __call__(
        self,
        ranked: list[UnitHit],
        query: str,
        settings: SearchSettings,
        catalog: Catalog,
        keyword: KeywordIndex,
        mode: str,
        limit: int | None,
        now: float | None = None,
        *,
        facts_state: tuple[int, str | None] | None = None,
    ) -> list[UnitHit]:
        expected = reference_postprocess(copy.deepcopy(ranked), query, settings, catalog, keyword, mode, limit, now)
        got = postprocess(ranked, query, settings, catalog, keyword, mode, limit, now, facts_state=facts_state)
        _same(got, expected)
        self.calls += 1
        self.compared_hits += len(got)
        return got


def _queries(engine: Engine, count: int) -> list[str]:
    """QUERIES plus words drawn from the indexed texts themselves (seeded): queries that match many units."""
    texts = [str(r[0]) for r in engine.catalog.db.execute("SELECT text FROM units ORDER BY id LIMIT 3000")]
    words = sorted({w for t in texts for w in re.findall(r"[A-Za-z_]{4,}", t)})
    rng = random.Random(14)
    drawn = [" ".join(rng.sample(words, k=rng.randint(1, 4))) for _ in range(count)] if words else []
    return QUERIES + drawn


@pytest.fixture(scope="module")
def real_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    root = tmp_path_factory.mktemp("equivalence")
    workspace = root / "workspace"
    shutil.copytree(EXAMPLE_WORKSPACE, workspace)
    extra = [FIXTURES] if FIXTURES.is_dir() else []
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


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_cached_postprocess_equals_reference(
    real_engine: Engine, monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    compare = Compare()
    monkeypatch.setattr(search_module, "postprocess", compare)
    base = real_engine.settings.search
    monkeypatch.setattr(real_engine.settings, "search", dataclasses.replace(base, **VARIANTS[variant]))
    queries = _queries(real_engine, 60)
    for _ in range(2):  # the second round reads every unit from the cache
        for query in queries:
            for limit in (10, 150):
                real_engine.rank(query, mode="keyword", limit=limit)
    assert compare.calls == 4 * len(queries)
    assert compare.compared_hits > 50 * compare.calls  # the queries do find things


def test_token_set_equals_the_analyser_on_every_real_text(real_engine: Engine) -> None:
    keyword = real_engine.keyword
    rows = real_engine.catalog.db.execute("SELECT text FROM units")
    texts = [str(r[0]) for r in rows] + [
        "café naïve\u00a0ünïcode 日本語のテキスト",
        "a\u2003b\x1cc\u3000d",
        "",
        "x.y-z",
    ]
    assert len(texts) > 300
    if FIXTURES.is_dir():  # the raw real transcript files too, in slices (JSON, escapes, code, many scripts)
        for path in sorted(p for p in FIXTURES.rglob("*") if p.is_file()):
            raw = path.read_text(errors="replace")
            texts += [raw[i : i + 4000] for i in range(0, len(raw), 4000)]
    for text in texts:
        assert keyword.token_set(text) == set(keyword.tokens(text))


def test_a_changed_unit_is_read_afresh(real_engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    compare = Compare()
    monkeypatch.setattr(search_module, "postprocess", compare)
    row = real_engine.catalog.db.execute("SELECT path FROM files WHERE kind = 'memory' ORDER BY path LIMIT 1")
    note = Path(str(row.fetchone()[0]))
    real_engine.rank("zebracorn sighting", mode="keyword", limit=10)  # caches the units that match "sighting"
    note.write_text(note.read_text() + "\n\n## Zebracorn\n\nThe zebracorn sighting was logged.\n")
    time.sleep(0.01)
    real_engine.sync()
    hits = real_engine.rank("zebracorn sighting", mode="keyword", limit=10).hits
    assert compare.calls == 2
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
    answers, sliced = {}, 0
    for query in queries:
        for limit in (1, 3, 10, 40):
            read.clear()
            answers[query, limit] = real_engine.search(query, mode="keyword", limit=limit)["results"]
            sliced += sum(read)
    monkeypatch.setattr(results_module, "SETTLE_EXTRA", 1_000_000)  # one slice: every candidate's row
    whole = 0
    for (query, limit), got in answers.items():
        read.clear()
        assert got == real_engine.search(query, mode="keyword", limit=limit)["results"], (query, limit)
        whole += sum(read)
    assert sum(len(a) for a in answers.values()) > 2 * len(answers)  # the queries do find things
    assert sliced < whole / 2  # and the slices read far fewer rows
