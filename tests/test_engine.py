"""Engine behaviour on the example workspace: incremental sync, purge, hybrid vs keyword, phrases, diacritics."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from conftest import example_settings
from memlens.engine.engine import Engine
from memlens.engine.filters import SearchFilters
from memlens.engine.vectors.embedder import Embedder
from memlens.errors import InvalidRequest
from memlens.settings import Settings

DLQ_QUERY = "how did we fix the dead-letter queue backup?"


def unit_count(engine: Engine, where: str = "1=1", *args: object) -> int:
    return int(engine.catalog.db.execute(f"SELECT COUNT(*) FROM units WHERE {where}", args).fetchone()[0])


def test_second_sync_parses_and_embeds_nothing(example: Engine) -> None:
    report = example.sync()
    assert report.files_seen > 10
    assert report.files_parsed == 0 and report.files_appended == 0
    assert report.files_unchanged == report.files_seen
    assert report.units_embedded == 0
    assert example.indexer.embedding.pending() == 0


def test_editing_one_paragraph_reembeds_only_its_chunk(example: Engine) -> None:
    memory = example.workspaces[0] / "MEMORY.md"
    before = {r[0] for r in example.catalog.db.execute("SELECT embed_text_hash FROM units")}
    text = memory.read_text()
    paragraphs = text.split("\n\n")
    target = next(i for i, p in enumerate(paragraphs) if len(p) > 60 and not p.lstrip().startswith(("#", "```")))
    paragraphs[target] = paragraphs[target] + " Added later: the pager rotation moved to Tuesdays."
    memory.write_text("\n\n".join(paragraphs))
    os.utime(memory, ns=(memory.stat().st_atime_ns, memory.stat().st_mtime_ns + 1_000_000_000))
    report = example.sync()
    assert report.files_parsed == 1
    assert report.units_embedded == 1
    after = {r[0] for r in example.catalog.db.execute("SELECT embed_text_hash FROM units")}
    assert len(after - before) == 1
    hits = example.search("pager rotation Tuesdays", mode="keyword")["results"]
    assert hits and hits[0]["relPath"] == "MEMORY.md"


def test_deleting_a_file_purges_it_everywhere(example: Engine) -> None:
    note = example.workspaces[0] / "memory" / "2026-02-10.md"
    file_id = example.catalog.db.execute("SELECT id FROM files WHERE path = ?", (str(note),)).fetchone()[0]
    unit_ids = [r[0] for r in example.catalog.db.execute("SELECT id FROM units WHERE file_id = ?", (file_id,))]
    assert unit_ids
    note.unlink()
    report = example.sync()
    assert report.files_deleted == 1
    assert unit_count(example, "file_id = ?", file_id) == 0
    assert not example.catalog.db.execute("SELECT 1 FROM chunks WHERE file_id = ?", (file_id,)).fetchone()
    assert example.keyword.num_docs() == unit_count(example)
    assert len(example.vectors) == unit_count(example)
    redrove = example.keyword.parse("redrove DLQ refunded")
    assert not set(unit_ids) & {uid for uid, _ in example.keyword.search(redrove, 100)}
    assert all(r["relPath"] != "memory/2026-02-10.md" for r in example.search("DLQ redrive", limit=50)["results"])


def test_hybrid_finds_the_vocabulary_gap_that_keyword_misses(tmp_path: Path, embedder: Embedder) -> None:
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    notes = {
        "incident.md": "# Incident\n\nStuck SQS messages in the poison DLQ were redriven after adding the missing "
        "routing entry for order.refunded.",
        "budget.md": "# Budget\n\nThe quarterly budget review moved to Thursday afternoon with finance.",
        "grafana.md": "# Dashboards\n\nGrafana dashboards for API latency were cleaned up and renamed.",
    }
    for name, text in notes.items():
        (workspace / "memory" / name).write_text(text)
    # no content word in common with the incident, nor initials it uses ("dead-letter queue" now finds "DLQ" by
    # keywords: tests/test_acronyms.py)
    query = "how did we repair the undeliverable backlog?"
    with Engine([workspace], Settings(), index_dir=tmp_path / "index", embedder=embedder) as engine:
        engine.sync()
        keyword = engine.search(query, mode="keyword")["results"]
        # ranking, not abstention: a vector-only match in a three-note corpus is below the calibrated threshold
        hybrid = engine.search(query, mode="hybrid", min_score=0)["results"]
    assert all(r["relPath"] != "memory/incident.md" for r in keyword)
    assert hybrid and hybrid[0]["relPath"] == "memory/incident.md"


def test_readme_query_ranks_the_dlq_fix_first(example: Engine) -> None:
    fix = {"claude-code:5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9", "memory/2026-02-10.md"}
    results = example.search(DLQ_QUERY, limit=5)["results"]
    assert results, "the README query must find something"  # an empty list used to pass
    top_two = {r.get("sessionKey") or r["relPath"] for r in results[:2]}
    assert top_two <= fix, results[:2]
    # both places that hold the fix (the session that did it, the daily note that recorded it) are in the top 5
    unfiltered = example.search(DLQ_QUERY, limit=5, min_score=0.0)["results"]
    assert fix <= {r.get("sessionKey") or r["relPath"] for r in unfiltered}, unfiltered


def test_phrase_query_requires_the_words_in_order(example: Engine) -> None:
    phrase = example.search('"blue-green deploy"', mode="keyword", limit=20)["results"]
    assert phrase
    assert all(
        "blue-green deploy" in r["excerpt"].lower() or "blue green deploy" in r["excerpt"].lower() for r in phrase
    )
    reversed_phrase = example.search('"deploy blue-green"', mode="keyword", limit=20)["results"]
    assert len(reversed_phrase) < len(phrase)


def test_diacritics_fold_both_ways(example: Engine) -> None:
    accented = example.search("café", mode="keyword")["results"]
    plain = example.search("cafe", mode="keyword")["results"]
    assert accented and plain
    assert [r["id"] for r in accented] == [r["id"] for r in plain]


def test_filters_and_result_fields(example: Engine) -> None:
    memory_only = example.search("DLQ", mode="keyword", filters=SearchFilters(kind="memory"))["results"]
    assert memory_only and all(r["kind"] == "memory" for r in memory_only)
    assert all({"lineStart", "lineEnd", "path", "relPath", "score", "excerpt"} <= r.keys() for r in memory_only)
    transcripts = example.search("DLQ", filters=SearchFilters(kind="transcript", role="user"))["results"]
    assert transcripts and all(r["role"] == "user" and r["kind"] == "transcript" for r in transcripts)
    for r in transcripts:
        assert {"sessionKey", "sessionId", "messageId", "timestamp", "messageCount", "format"} <= r.keys()
    before = example.search("DLQ", filters=SearchFilters(until=0.0))["results"]
    assert before == []


def test_results_are_bounded(example: Engine) -> None:
    """A limit past the schema's bound is refused at the door (it once reached tantivy and aborted the process)."""
    with pytest.raises(InvalidRequest, match=r"limit must be 1\.\.100, got 500"):
        example.search("the", mode="keyword", limit=500)
    response = example.search("the", mode="keyword", limit=100)
    assert len(response["results"]) <= 100
    assert all(len(r["excerpt"]) <= example.settings.search.excerpt_chars + 2 for r in response["results"])


def test_explain_gives_component_scores(example: Engine) -> None:
    result = example.search(DLQ_QUERY, explain=True, limit=3)["results"][0]
    explain = result["explain"]
    assert {"bm25", "keyword", "vector", "fused", "context"} <= explain.keys()
    search = example.settings.search
    expected = search.vector_weight * max(0.0, explain["vector"] or 0.0) + search.text_weight * explain["keyword"]
    assert explain["fused"] == pytest.approx(expected, abs=1e-3)
    # the ranking score adds the neighbours' context (and boosts); the score shown is the calibrated chance
    assert explain["rankScore"] >= explain["fused"] - 1e-3
    assert result["score"] == pytest.approx(explain["rankScore"], abs=1e-3)  # the score orders; the probability gates
    assert 0.0 <= explain["probability"] <= 1.0


def test_no_model_falls_back_to_keyword_search(built_example: tuple[Path, Path], tmp_path: Path) -> None:
    settings = example_settings()
    settings.embedding.model_path = str(tmp_path / "no-such-model")
    with Engine([built_example[0]], settings, index_dir=tmp_path / "index") as engine:
        assert engine.embedder is None
        assert "no embedding model" in engine.provider_note
        engine.sync()
        response = engine.search("DLQ redrive")
        assert response["mode"] == "keyword"
        assert "keyword search only" in response["note"]
        assert response["results"]
        stats = engine.stats()
        assert stats["provider"] == "none" and stats["totalChunks"] > 0
        with pytest.raises(ValueError, match="embedding model"):
            engine.search("DLQ", mode="vector")


def reopen(workspace: Path, index_dir: Path, embedder: Embedder) -> Engine:
    return Engine([workspace], example_settings(), index_dir=index_dir, embedder=embedder)


def synced_units(workspace: Path, index_dir: Path, embedder: Embedder) -> int:
    with reopen(workspace, index_dir, embedder) as engine:
        engine.sync()
        return unit_count(engine)


@pytest.mark.slow  # repairs an index
def test_crash_between_catalog_and_keyword_index_is_repaired(
    built_example: tuple[Path, Path], tmp_path: Path, embedder: Embedder
) -> None:
    index_dir = tmp_path / "index"
    total = synced_units(built_example[0], index_dir, embedder)
    (index_dir / "keyword" / "memlens-generation").write_text("0")  # as if killed before tantivy committed
    with reopen(built_example[0], index_dir, embedder) as engine:
        assert engine.keyword.generation() == engine.catalog.generation()
        assert engine.keyword.num_docs() == total


def test_excerpts_are_redacted(example: Engine) -> None:
    query, user = "pasted the CI deployer's access key", SearchFilters(kind="transcript", role="user")
    results = example.search(query, mode="keyword", limit=5, min_score=0.0, filters=user)["results"]
    pasted = [r for r in results if "pasted the CI deployer's access key" in r["excerpt"]]
    assert pasted, results
    # the user pasted an access key id and, on the next line, its secret access key: both must be masked
    assert "[REDACTED:aws-access-key]" in pasted[0]["excerpt"]
    assert "[REDACTED:aws-secret-key]" in pasted[0]["excerpt"]
    dumped = json.dumps(results)
    assert "AKIAIOSFODNN7EXAMPLE" not in dumped
    assert "wJalrXUtnFEMI" not in dumped and "EXAMPLEKEY" not in dumped


@pytest.mark.slow  # rebuilds an index
def test_damaged_keyword_index_is_rebuilt_from_the_catalog(
    built_example: tuple[Path, Path], tmp_path: Path, embedder: Embedder
) -> None:
    index_dir = tmp_path / "index"
    total = synced_units(built_example[0], index_dir, embedder)
    for item in (index_dir / "keyword").iterdir():
        if item.name.endswith(".json"):
            item.write_text("{ damaged")
    with reopen(built_example[0], index_dir, embedder) as engine:
        assert engine.keyword.num_docs() == total
        assert engine.search("DLQ", mode="keyword")["results"]


def test_the_engine_says_which_settings_need_it_reopened(tmp_path: Path) -> None:
    """An open engine takes search, reranker, hover and excluded sessions as they change; every other setting
    (what is indexed, how, where) and the workspaces change its index identity, which the editor's server compares
    to decide to reopen."""
    workspaces = [tmp_path / "ws"]
    base = Settings()
    identity = Engine.index_identity(base, workspaces)
    taken = dataclasses.replace(
        base,
        search=dataclasses.replace(base.search, max_results=7),
        reranker=dataclasses.replace(base.reranker, top_n=5),
        hover=dataclasses.replace(base.hover, enabled=False),
        exclude_sessions=["claude-code:abc"],
    )
    assert Engine.index_identity(taken, workspaces) == identity
    reopening = {
        "chunking": dataclasses.replace(base, chunking=dataclasses.replace(base.chunking, max_messages=3)),
        "privacy": dataclasses.replace(base, privacy=dataclasses.replace(base.privacy, redact_index=False)),
        "memory": dataclasses.replace(base, memory=dataclasses.replace(base.memory, extra_include=["docs/*.md"])),
        "scope": dataclasses.replace(base, scope="all"),
        "indexDir": dataclasses.replace(base, index_dir=str(tmp_path / "elsewhere")),
        "followExternalSymlinks": dataclasses.replace(base, follow_external_symlinks=True),
    }
    for name, settings in reopening.items():
        assert Engine.index_identity(settings, workspaces) != identity, name
    assert Engine.index_identity(base, [tmp_path / "other"]) != identity
    with Engine(workspaces, Settings(), index_dir=tmp_path / "index", embedder=False) as engine:
        engine.apply_query_settings(taken)
        assert engine.settings.search.max_results == 7 and engine.settings.reranker.top_n == 5
        assert not engine.settings.hover.enabled and engine.settings.exclude_sessions == ["claude-code:abc"]
