"""Retrieval quality features on real tantivy (and the bundled model where vectors matter): identifiers whole and by
parts, CJK substrings, relative dates, abstention, nonsense queries, the keyword schema version."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

from memlens.engine.engine import Engine
from memlens.engine.keyword.identifiers import identifier_parts, identifier_terms, looks_technical
from memlens.engine.keyword.keyword_index import SCHEMA_FILE, KeywordIndex
from memlens.engine.ranking.dates import epoch_day, message_windows, overlaps, query_windows
from memlens.engine.ranking.unit_facts import tool_share
from memlens.engine.vectors.embedder import Embedder
from memlens.settings import Settings


def _settings() -> Settings:
    settings = Settings()
    settings.transcripts.agent_defaults = False
    return settings


def _notes(tmp_path: Path, notes: dict[str, str]) -> Path:
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    for name, text in notes.items():
        (workspace / "memory" / name).write_text(text, encoding="utf-8")
    return workspace


def _keyword_engine(tmp_path: Path, notes: dict[str, str]) -> Engine:
    engine = Engine([_notes(tmp_path, notes)], _settings(), index_dir=tmp_path / "index", embedder=False)
    engine.sync()
    return engine


def test_identifier_terms_whole_and_by_parts() -> None:
    terms = identifier_terms("we call recompute_and_push_sync() and fooBar.bazQux in src/app/main.py")
    assert "recompute_and_push_sync" in terms and "foobar.bazqux" in terms and "src/app/main.py" in terms
    assert {"foo", "bar", "baz", "qux"} <= set(terms)  # camelCase parts, which the word field keeps whole
    assert identifier_parts("recomputeAndPush_sync") == ["recompute", "and", "push", "sync"]
    assert looks_technical("git add -A") and looks_technical("recompute_and_push_sync")
    assert not looks_technical("how did we fix the queue backup")


def test_identifier_query_finds_the_function_before_messages_about_its_words(tmp_path: Path) -> None:
    notes = {
        "push.md": "# Git\n\nWe push to origin with git push after every sync of the branch; push early, push often.",
        "sync.md": "# Sync\n\nRecompute the totals, then push them: the sync job does it nightly.",
        "fn.md": "# Totals\n\nThe bug was in recompute_and_push_sync, which skipped deleted rows.",
        "camel.md": "# Client\n\nThe client calls fetchUserProfile on every hover.",
    }
    with _keyword_engine(tmp_path, notes) as engine:
        hits = engine.search("recompute_and_push_sync", mode="keyword", min_score=0)["results"]
        assert hits[0]["relPath"] == "memory/fn.md"
        # the camelCase identifier whole, and by its parts
        assert engine.search("fetchUserProfile", mode="keyword", min_score=0)["results"][0]["relPath"] == (
            "memory/camel.md"
        )
        by_parts = engine.search("user profile fetch", mode="keyword", min_score=0)["results"]
        assert by_parts and by_parts[0]["relPath"] == "memory/camel.md"


def test_cjk_substrings_match_in_keyword_mode(tmp_path: Path) -> None:
    notes = {
        "zh.md": "# 决定\n\n我们决定使用死信队列重新投递消息。",
        "ja.md": "# 決定\n\nデッドレターキューでメッセージを再配信することにしました。",
        "ko.md": "# 결정\n\n데이터베이스를 매일 백업하기로 했습니다.",
        "en.md": "# Notes\n\nNothing in Chinese, Japanese or Korean here.",
    }
    with _keyword_engine(tmp_path, notes) as engine:
        for query, path in (("死信队列", "zh.md"), ("再配信", "ja.md"), ("데이터베이스", "ko.md"), ("백업", "ko.md")):
            results = engine.search(query, mode="keyword", min_score=0)["results"]
            assert results and results[0]["relPath"] == f"memory/{path}", query
        assert engine.search("队死", mode="keyword", min_score=0)["results"] == []  # not a substring


def test_relative_dates_resolve_against_message_times() -> None:
    may8 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC).timestamp()
    day = epoch_day(date(2023, 5, 7))
    # a message written on 8 May saying "yesterday" is about 7 May
    assert overlaps(message_windows("I went hiking yesterday!", may8), [(day, day)])
    assert overlaps(query_windows("What did she do on 7 May 2023?", may8), message_windows("yesterday", may8))
    # "two weeks before August 11, 2023" reaches back to late July
    windows = query_windows("What puppy did he get two weeks before August 11, 2023?", may8)
    assert overlaps(windows, [(epoch_day(date(2023, 7, 28)), epoch_day(date(2023, 7, 28)))])
    # relative to now: last week, in March (this year), three days ago
    now = datetime(2024, 3, 20, tzinfo=UTC).timestamp()
    assert overlaps(query_windows("what did we decide last week?", now), [(epoch_day(date(2024, 3, 14)),) * 2])
    assert overlaps(query_windows("the outage in March", now), [(epoch_day(date(2024, 3, 2)),) * 2])
    assert overlaps(query_windows("three days ago", now), [(epoch_day(date(2024, 3, 17)),) * 2])
    assert query_windows("how did we fix the queue?", now) == []


def test_tool_call_share() -> None:
    assert tool_share("[Bash] git add -A\n[Bash] git commit -m x") == 1.0
    assert tool_share("I fixed the routing entry.\n[Edit] routes.py") == 0.5
    assert tool_share("plain prose") == 0.0


def test_nonsense_queries_never_crash_and_return_nothing(example: Engine) -> None:
    for query in ('""" ( ) AND OR NOT *', "*", "()", "AND OR NOT", "---", "?!?!", '""'):
        for mode in ("hybrid", "keyword", "vector"):
            assert example.search(query, mode=mode)["results"] == [], (query, mode)


def test_absent_topic_gets_no_results_and_a_present_one_is_found(example: Engine) -> None:
    for query in (
        "What is our policy for GDPR data subject access requests?",
        "Which Fortran compiler flags did we use for the climate simulation?",
        "sourdough starter hydration ratio for rye",
    ):
        assert example.search(query)["results"] == [], query
    found = example.search("how did we fix the dead-letter queue backup?")["results"]
    assert found and "dlq" in found[0]["excerpt"].lower()
    assert 0 < found[0]["score"] <= 1


def test_identical_texts_are_merged(tmp_path: Path, embedder: Embedder) -> None:
    same = "# Deploy\n\nDeploys go through the blue-green switch on Fridays."
    notes = {"a.md": same, "b.md": same, "c.md": "# Other\n\nThe cache warms up at boot."}
    settings = _settings()
    with Engine([_notes(tmp_path, notes)], settings, index_dir=tmp_path / "index", embedder=embedder) as engine:
        engine.sync()
        results = engine.search("blue-green deploy switch", min_score=0)["results"]
        excerpts = [r["excerpt"] for r in results]
        assert len(excerpts) == len(set(excerpts))


def test_keyword_index_of_an_older_schema_is_rebuilt(tmp_path: Path) -> None:
    notes = {"a.md": "# A\n\nThe ledger reconciles nightly."}
    with _keyword_engine(tmp_path, notes) as engine:
        assert engine.search("ledger", mode="keyword", min_score=0)["results"]
    folder = tmp_path / "index" / "keyword"
    (folder / SCHEMA_FILE).write_text("1")  # as an index written before the ident/cjk/context fields
    assert KeywordIndex(folder).generation() == -1  # wiped: the engine will rebuild it from the catalog
    engine = Engine([tmp_path / "ws"], _settings(), index_dir=tmp_path / "index", embedder=False)
    with engine:
        assert engine.search("ledger", mode="keyword", min_score=0)["results"]
    assert json.loads((folder / SCHEMA_FILE).read_text()) >= 2
