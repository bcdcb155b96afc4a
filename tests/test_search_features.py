"""Features that used to pass whatever the code did: the active branch end to end, neighbour context, reciprocal-
rank fusion, memory globs and cancelling a sync. Each test fails when its feature is removed (see the docstrings)."""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from memlens.engine.engine import Engine
from memlens.engine.vectors.embedder import Embedder
from memlens.settings import Settings

SYNTHETIC = Path(__file__).resolve().parent / "fixtures" / "transcripts"
CC_BRANCHED = "claude-code:5f1c2a7e-9b0d-4e8a-a1c3-2d4e6f8a0b1c"
OC_FORKED = "openclaw:3b9d7f1e-2a4c-4e6b-8d0f-1a3c5e7b9d2f"


def keyword_settings() -> Settings:
    settings = Settings()
    settings.transcripts.agent_defaults = False
    return settings


def texts(engine: Engine, query: str) -> list[str]:
    """Every unit text a keyword search for `query` finds (no score bound)."""
    ranking = engine.rank(query, mode="keyword", limit=100)
    ids = [h.unit_id for h in ranking.hits]
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    return [str(r[0]) for r in engine.catalog.db.execute(f"SELECT text FROM plain_units WHERE id IN ({marks})", ids)]


@pytest.fixture
def synthetic(tmp_path: Path) -> Iterator[Engine]:
    """The committed synthetic transcripts of every format, indexed keyword-only."""
    transcripts = tmp_path / "transcripts"
    shutil.copytree(SYNTHETIC, transcripts)
    (tmp_path / "ws").mkdir()
    engine = Engine([tmp_path / "ws"], keyword_settings(), [transcripts], tmp_path / "index", embedder=False)
    engine.sync()
    yield engine
    engine.close()


# --- the active branch, end to end --------------------------------------------------------------------------------


def test_abandoned_edit_branch_is_not_searchable(synthetic: Engine) -> None:
    """The Claude Code fixture has an edited prompt: "ok, what's the fix?" → "Subtract 365 days…" was abandoned
    for "what's the safest fix…" → relativedelta. Indexing every branch (ingest's active_only off, or a
    split_branches that keeps everything) makes the abandoned answer searchable and fails this test."""
    assert any("relativedelta" in t for t in texts(synthetic, "relativedelta calendar semantics"))
    assert not [t for t in texts(synthetic, "subtract 365 days") if "365" in t]
    assert not [t for t in texts(synthetic, "what's the fix") if t.strip() == "ok, what's the fix?"]
    messages = synthetic.history(CC_BRANCHED, limit=100)["messages"]
    ids = [m["messageId"] for m in messages]
    assert "u-0010" in ids and "a-0011" in ids
    assert "u-0008" not in ids and "a-0009" not in ids


def test_openclaw_regenerated_answer_replaces_the_first(synthetic: Engine) -> None:
    """OpenClaw m6 and m7 are both children of m5 (the answer was regenerated): only m7, on the active branch,
    is indexed."""
    found = texts(synthetic, "backup cron crontab")
    assert any("The backup cron is the 03:00 entry" in t for t in found)
    assert not any("from your user crontab" in t for t in found)
    ids = [m["messageId"] for m in synthetic.history(OC_FORKED, limit=100)["messages"]]
    assert "m7" in ids and "m6" not in ids


# --- neighbour context --------------------------------------------------------------------------------------------


def openclaw_session(path: Path, session_id: str, messages: list[str]) -> None:
    lines = [json.dumps({"type": "session", "version": 3, "id": session_id, "cwd": "/w"})]
    parent = None
    for n, text in enumerate(messages):
        entry = f"{session_id[:4]}-{n}"
        message = {"role": "user" if n % 2 == 0 else "assistant", "content": [{"type": "text", "text": text}]}
        when = f"2026-03-01T10:00:{n:02d}Z"
        lines.append(
            json.dumps({"type": "message", "id": entry, "parentId": parent, "timestamp": when, "message": message})
        )
        parent = entry
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def two_answers(tmp_path: Path) -> tuple[Path, Path]:
    """Two sessions end in equally matching answers; only one of them asked about the zeppelin hangar. The other
    one is indexed first (one mtime: by name), so it wins a tie (ties go to the lower unit id)."""
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    openclaw_session(
        transcripts / "a-lunch.jsonl",
        "bbbb0000-0000-4000-8000-000000000002",
        ["Where shall we have lunch on Friday?", "Copper sheets, welded at the seams."],
    )
    openclaw_session(
        transcripts / "b-hangar.jsonl",
        "aaaa0000-0000-4000-8000-000000000001",
        ["Which roofing material should the zeppelin hangar get?", "Copper sheets, riveted at the seams."],
    )
    for path in transcripts.iterdir():  # (a sync reads the newest session first)
        os.utime(path, ns=(1_780_000_000_000_000_000, 1_780_000_000_000_000_000))
    (tmp_path / "ws").mkdir()
    return tmp_path / "ws", transcripts


def answer_order(engine: Engine, query: str) -> list[str]:
    """The sessions of the two answers, in ranking order."""
    ranking = engine.rank(query, mode="keyword", limit=50)
    sql = "SELECT id, session_key FROM plain_units WHERE text LIKE 'Copper sheets%'"
    rows = engine.catalog.db.execute(sql).fetchall()
    session_of = {int(r[0]): str(r[1])[:17] for r in rows}
    return [session_of[h.unit_id] for h in ranking.hits if h.unit_id in session_of]


HANGAR, LUNCH = "openclaw:aaaa0000", "openclaw:bbbb0000"


def test_neighbour_context_lifts_the_answer_to_the_question_asked(
    two_answers: tuple[Path, Path], tmp_path: Path
) -> None:
    """Both answers match "copper" alike; the one whose neighbour (the question) matches the rest of the query must
    rank first. Each context signal does it on its own: the neighbour boost (search.neighborWeight,
    Retriever._add_neighbors), the BM25 over a message with its neighbours (search.contextWeight) and the reply
    boost (search.replyBoost: the hangar answer follows the question). With all three off the answers tie and the
    lunch one (lower id) comes first; deleting any of the mechanisms fails this test."""
    workspace, transcripts = two_answers
    query = "copper roofing for the zeppelin hangar"
    with Engine([workspace], keyword_settings(), [transcripts], tmp_path / "index", embedder=False) as engine:
        engine.sync()
        search = engine.settings.search
        assert answer_order(engine, query) == [HANGAR, LUNCH]
        top = engine.search(query, mode="keyword", limit=3, min_score=0.0)["results"]
        key = top[0]["sessionKey"]
        assert key is not None and key.startswith(HANGAR), top
        weights = (search.neighbor_weight, search.context_weight, search.reply_boost)
        search.neighbor_weight, search.context_weight, search.reply_boost = 0.0, 0.0, 0.0
        assert answer_order(engine, query) == [LUNCH, HANGAR]  # no context at all: a tie
        search.neighbor_weight = weights[0]
        assert answer_order(engine, query) == [HANGAR, LUNCH], "the neighbour boost alone"
        search.neighbor_weight, search.context_weight = 0.0, weights[1]
        assert answer_order(engine, query) == [HANGAR, LUNCH], "the neighbours' BM25 alone"
        search.context_weight, search.reply_boost = 0.0, weights[2]
        assert answer_order(engine, query) == [HANGAR, LUNCH], "the reply boost alone"


# --- messages that ask ---------------------------------------------------------------------------------------------


def test_question_penalty_ranks_the_answer_above_the_question(tmp_path: Path) -> None:
    """The question repeats the query's words in fewer of them, so BM25 ranks it above the reply that holds the
    answer; search.questionPenalty (rescoring.penalise_questions, unit_facts.question_share; 0.3 by default) must
    put the reply first. Off (0) the question is first."""
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    openclaw_session(
        transcripts / "deploy.jsonl",
        "cccc0000-0000-4000-8000-000000000003",
        [
            "Did the billing deploy fail again?",
            "Yes, the billing deploy failed again on the migration lock; I released the lock and it went through.",
        ],
    )
    (tmp_path / "ws").mkdir()
    query = "billing deploy failed"
    with Engine([tmp_path / "ws"], keyword_settings(), [transcripts], tmp_path / "index", embedder=False) as engine:
        engine.sync()

        def first() -> str:
            ranking = engine.rank(query, mode="keyword", limit=10)
            row = engine.catalog.db.execute("SELECT text FROM plain_units WHERE id = ?", (ranking.hits[0].unit_id,))
            return str(row.fetchone()[0])

        assert engine.settings.search.question_penalty == 0.3
        assert first().startswith("Yes, the billing deploy")
        penalised = {h.unit_id: h for h in engine.rank(query, mode="keyword", limit=10).hits}
        engine.settings.search.question_penalty = 0.0
        assert first().startswith("Did the billing deploy"), "off: BM25 prefers the short question"
        plain = {h.unit_id: h for h in engine.rank(query, mode="keyword", limit=10).hits}
        question = next(u for u in plain if u in penalised and penalised[u].score < plain[u].score)
        assert penalised[question].score < plain[question].score
        # the calibrated chance reads the score the penalty did not lower (it was fitted without the penalty)
        assert penalised[question].features[0] == pytest.approx(plain[question].score)


# --- reciprocal-rank fusion ----------------------------------------------------------------------------------------


def test_rrf_fusion_follows_its_formula(example: Engine) -> None:
    """fusion "rrf": fused = Σ 1/(k+1+rank) over the keyword and vector ranks, divided by its maximum 2/(k+1)."""
    k = example.settings.search.rrf_k
    response = example.search("DLQ redrive refunds", fusion="rrf", explain=True, limit=10, min_score=0.0)
    assert response["fusion"] == "rrf" and response["results"]
    both = 0
    for r in response["results"]:
        explain = r["explain"]
        ranks = [x for x in (explain["keywordRank"], explain["vectorRank"]) if x is not None]
        expected = sum(1.0 / (k + 1 + x) for x in ranks) / (2.0 / (k + 1))
        assert explain["fused"] == pytest.approx(expected, abs=1e-3), explain
        both += len(ranks) == 2
    assert both, "no hit was found by both retrievers"
    weighted = example.search("DLQ redrive refunds", fusion="weighted", explain=True, limit=10, min_score=0.0)
    assert weighted["fusion"] == "weighted"
    assert [r["explain"]["fused"] for r in weighted["results"]] != [r["explain"]["fused"] for r in response["results"]]


def test_rrf_from_settings(example: Engine) -> None:
    """`search.fusion: rrf` in the settings is what a request without `fusion` gets."""
    example.settings.search.fusion = "rrf"
    assert example.search("DLQ redrive", explain=True)["fusion"] == "rrf"


# --- memory globs ---------------------------------------------------------------------------------------------------


def write_notes(workspace: Path) -> None:
    notes = {
        "MEMORY.md": "# Memory\n\nThe gazebo paint is teal, decided in March.\n",
        "memory/2026-03-01.md": "# March\n\nThe gazebo roof needs new shingles.\n",
        "memory/private/diary.md": "# Private\n\nThe gazebo was a surprise gift.\n",
        "notes/gazebo.md": "# Notes\n\nThe gazebo foundation is concrete.\n",
        "docs/readme.md": "# Docs\n\nThe gazebo manual is on the shelf.\n",
    }
    for rel, text in notes.items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(text)


def memory_paths(engine: Engine) -> set[str]:
    rows = engine.catalog.db.execute("SELECT path FROM files WHERE kind = 'memory'").fetchall()
    return {str(Path(r[0]).relative_to(engine.workspaces[0])) for r in rows}


def test_memory_globs_include_extra_include_exclude(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    write_notes(workspace)
    settings = keyword_settings()
    with Engine([workspace], settings, index_dir=tmp_path / "i1", embedder=False) as engine:
        engine.sync()
        assert memory_paths(engine) == {"MEMORY.md", "memory/2026-03-01.md", "memory/private/diary.md"}
    settings = keyword_settings()
    settings.memory.extra_include = ["notes/*.md"]
    settings.memory.exclude = ["memory/private/*"]
    with Engine([workspace], settings, index_dir=tmp_path / "i2", embedder=False) as engine:
        engine.sync()
        assert memory_paths(engine) == {"MEMORY.md", "memory/2026-03-01.md", "notes/gazebo.md"}
        found = {r["relPath"] for r in engine.search("gazebo", mode="keyword", limit=20, min_score=0.0)["results"]}
        assert found == {"MEMORY.md", "memory/2026-03-01.md", "notes/gazebo.md"}
        # the live path (one changed file at a time) applies the same globs
        (workspace / "notes" / "later.md").write_text("# Later\n\nThe gazebo lights are solar.\n")
        (workspace / "memory" / "private" / "later.md").write_text("# Later\n\nThe gazebo key is hidden.\n")
        (workspace / "docs" / "later.md").write_text("# Later\n\nThe gazebo warranty ends in May.\n")
        engine.sync_paths([workspace / "notes" / "later.md", workspace / "memory" / "private" / "later.md"])
        engine.sync_paths([workspace / "docs" / "later.md"])
        assert memory_paths(engine) == {"MEMORY.md", "memory/2026-03-01.md", "notes/gazebo.md", "notes/later.md"}
    settings = keyword_settings()
    settings.memory.include = ["docs/**/*.md"]  # replaces the defaults
    with Engine([workspace], settings, index_dir=tmp_path / "i3", embedder=False) as engine:
        engine.sync()
        assert memory_paths(engine) == {"docs/readme.md", "docs/later.md"}


# --- cancelling a sync ---------------------------------------------------------------------------------------------


def test_cancel_event_stops_a_sync_and_the_next_sync_finishes(tmp_path: Path) -> None:
    """Set the cancel event at the first progress report: the sync stops early and says so; the next sync indexes
    the rest and the index equals an uninterrupted one. Ignoring the event fails the first half."""
    transcripts = tmp_path / "transcripts"
    for copy in range(12):  # 12 x 9 files: progress is reported every 50, the first time mid-sync
        shutil.copytree(SYNTHETIC, transcripts / f"copy-{copy}")
    files = sum(1 for p in transcripts.rglob("*") if p.is_file())
    (tmp_path / "ws").mkdir()
    cancel = threading.Event()
    with Engine([tmp_path / "ws"], keyword_settings(), [transcripts], tmp_path / "index", embedder=False) as engine:
        report = engine.sync(progress=lambda done, total, message: cancel.set(), cancel=cancel)
        assert report.cancelled
        assert report.files_seen == files > 50 and report.files_parsed == 50
        partial = engine.stats()["totalChunks"]
        finished = engine.sync()
        assert not finished.cancelled and finished.files_parsed > 0
        total = engine.stats()["totalChunks"]
    with Engine([tmp_path / "ws"], keyword_settings(), [transcripts], tmp_path / "ref", embedder=False) as ref:
        ref.sync()
        assert ref.stats()["totalChunks"] == total > partial


@pytest.mark.slow  # embeds a corpus
def test_cancelled_embedding_keeps_what_it_committed(tmp_path: Path, embedder: Embedder) -> None:
    """Cancel after the first embedding batch (256 texts): the sync says it was cancelled, the parsed text is
    searchable by keyword, vectors wait; the next sync embeds the rest."""
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    words = ["amber", "birch", "cobalt", "dune", "ember", "fjord", "garnet", "harbor", "iris", "juniper"]
    notes = [f"note {n}: the {words[n % 10]} {words[n // 10 % 10]} plan, step {n}" for n in range(300)]
    openclaw_session(transcripts / "many.jsonl", "cccc0000-0000-4000-8000-000000000003", notes)
    (tmp_path / "ws").mkdir()
    cancel = threading.Event()

    def progress(done: int, total: int, message: str) -> None:
        if message.startswith("embedding "):
            cancel.set()

    with Engine([tmp_path / "ws"], keyword_settings(), [transcripts], tmp_path / "index", embedder=embedder) as engine:
        report = engine.sync(progress=progress, cancel=cancel)
        assert report.cancelled and 0 < report.units_embedded < 300
        assert engine.pending_embeddings() == 300 - report.units_embedded
        assert texts(engine, "cobalt garnet")
        finished = engine.sync()
        assert not finished.cancelled and finished.units_embedded == 300 - report.units_embedded
        assert engine.pending_embeddings() == 0
