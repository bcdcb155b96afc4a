"""The per-search reads made cheaper for keyword search speed give what the plain reads give: unit facts from the
narrow tuple read (Catalog.unit_facts_rows) match a full row read, the facts the writer stores match the ones worked
out from the text (and a catalog from before them gains them), and tool_share's shortcut for texts without a
bracket matches the line-by-line count; message places read as plain tuples match a plain read."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from conftest import notes_engine
from memlens.engine.engine import Engine
from memlens.engine.ranking.unit_facts import (
    FACTS_VERSION,
    MISSING,
    UnitFactsCache,
    Words,
    derived_facts,
    question_share,
    tool_share,
    unit_facts,
)
from memlens.settings import Settings
from test_scope import MINE, rollout

_TOOL_LINE = re.compile(r"^\s*\[[\w.:/-]{1,40}\]( |$)")


def plain_tool_share(text: str) -> float:
    lines = [line for line in text.splitlines() if line.strip()]
    return sum(1 for line in lines if _TOOL_LINE.match(line)) / len(lines) if lines else 0.0


def test_tool_share_shortcut_matches_the_line_count() -> None:
    texts = [
        "",
        "\n \n",
        "no tool call here",
        "two lines\nnone of them a tool call",
        "[Bash] git add .",
        "  [Read] src/app.py\nthen a comment",
        "a [bracket] mid-line",
        "[not a tool call because of spaces inside]",
        "[Edit]\n[Bash] ls\nprose",
    ]
    for text in texts:
        assert tool_share(text) == plain_tool_share(text), text


def test_question_share_counts_the_characters_of_asking_sentences() -> None:
    assert question_share("") == 0.0
    assert question_share("No question here. None at all!") == 0.0
    assert question_share("You play any instruments?") == 1.0
    assert question_share("Caroline: You play any instruments? [shares a photo of a violin]") == 1.0
    news = "I went to a pride parade last Friday and it made me feel like I belonged. How are you?"
    assert question_share(news) == pytest.approx(len(" How are you?") / len(news))
    mixed = question_share("Wow! What got you into running?")
    assert 0.6 < mixed < 1.0  # "Wow!" is not a question
    two_lines = "Is it fixed?\nYes, on main."
    assert question_share(two_lines) == pytest.approx(len("Is it fixed?") / len(two_lines))
    # an agent's message: the questions in a tool call's input and in code ask nothing of anyone
    delegated = "Let me ask the guide.\n[Task] prompt=What is the hook output contract? Which fields are there?"
    assert question_share(delegated) == 0.0
    assert question_share("Set `disable_async?` in the config.\n```elixir\nif valid?(x), do: a\n```") == 0.0
    assert question_share("Fixed. Want me to run it?") == pytest.approx(len(" Want me to run it?") / 25)


def test_only_a_transcript_message_counts_as_asking(tmp_path: Path) -> None:
    notes = {"q.md": "# Open questions\n\nShould the ledger move to Postgres?\n"}  # what the note records
    with notes_engine(tmp_path, notes) as engine:
        ids = [int(row[0]) for row in engine.catalog.db.execute("SELECT id FROM units")]
        assert all(f.question == 0.0 for f in unit_facts(engine.catalog, engine.keyword, ids).values())
    text = "Should the ledger move to Postgres?"
    assert derived_facts(text, "transcript", engine.keyword).question == 1.0
    assert derived_facts(text, "memory", engine.keyword).question == 0.0


def test_unit_facts_match_a_full_row_read(tmp_path: Path) -> None:
    notes = {
        "a.md": "# Deploys\n\nThe deploy of the billing service failed twice on Tuesday.\n",
        "b.md": "# Tools\n\n[Bash] git push origin main\n[Read] notes.md\n",
        "c.md": "# Deploys\n\nthe DEPLOY  of the billing service failed twice\non tuesday.\n",  # a's, re-spaced
    }
    with notes_engine(tmp_path, notes) as engine:
        ids = [int(row[0]) for row in engine.catalog.db.execute("SELECT id FROM units ORDER BY id")]
        asked = [*ids, 10**9]  # the last one no longer exists
        facts = unit_facts(engine.catalog, engine.keyword, asked)
        assert list(facts) == asked  # in the order asked
        assert facts[10**9] is MISSING
        rows = engine.catalog.units_by_id(ids)
        for unit_id in ids:
            row, fact = rows[unit_id], facts[unit_id]
            text = str(row["text"])
            assert fact.text == text
            assert fact.ts == (None if row["ts"] is None else float(row["ts"]))
            assert fact.session == str(row["session_key"] or f"file:{row['file_id']}")
            assert all(w in fact.tokens for w in engine.keyword.tokens(text)) and "zz" not in fact.tokens
            assert fact.tool == plain_tool_share(text)
            assert fact.question == (question_share(text) if row["kind"] == "transcript" else 0.0)
        assert unit_facts(engine.catalog, engine.keyword, asked) == facts  # and the same again from the cache
        keys = [facts[unit_id].key for unit_id in ids]
        folded = [" ".join(str(rows[unit_id]["text"]).lower().split()) for unit_id in ids]
        for i in range(len(ids)):  # identical texts up to case and whitespace share a key, no others do
            for j in range(len(ids)):
                assert (keys[i] == keys[j]) == (folded[i] == folded[j])
        assert len(set(keys)) < len(keys)  # a.md's and c.md's sections


def test_stored_facts_match_the_ones_worked_out_from_the_text(tmp_path: Path) -> None:
    notes = {"a.md": "# Runbook\n\n[Bash] kubectl rollout restart deploy/api\nThe pods came back healthy.\n"}
    with notes_engine(tmp_path, notes) as engine:
        ids = [int(row[0]) for row in engine.catalog.db.execute("SELECT id FROM units ORDER BY id")]
        assert engine.catalog.units_without_facts(10) == []  # the writer filled them in after its commit
        stored = UnitFactsCache().get(engine.catalog, engine.keyword, ids)
        engine.catalog.forget_unit_facts(FACTS_VERSION)
        assert len(engine.catalog.units_without_facts(10)) == len(ids)
        worked_out = UnitFactsCache().get(engine.catalog, engine.keyword, ids)  # from the text, at read time
        assert stored == worked_out
        # facts stored by another version of derived_facts are not read, and the writer's next sync redoes them
        engine.catalog.set_unit_facts([(unit_id, ("bogus", 1.0, "k", 1.0)) for unit_id in ids])
        assert UnitFactsCache().get(engine.catalog, engine.keyword, ids)[ids[0]].tool == 1.0  # this version's
        with engine.catalog.transaction() as db:
            engine.catalog.set_meta(db, "unit_facts_version", "0.older")
        assert UnitFactsCache().get(engine.catalog, engine.keyword, ids) == stored
        engine.sync()
        assert engine.catalog.unit_facts_state()[1] == FACTS_VERSION
        assert engine.catalog.db.execute("SELECT COUNT(*) FROM units WHERE words = 'bogus'").fetchone()[0] == 0
        assert stored[ids[0]].tool == 0.25 and "kubectl" in stored[ids[0]].tokens  # 1 of 4 lines (heading path)
        for unit_id, text, kind in engine.catalog.db.execute("SELECT id, text, kind FROM plain_units"):
            words = derived_facts(text, kind, engine.keyword).words
            assert words.split() == sorted(set(engine.keyword.tokens(text))) and stored[unit_id].tokens == Words(words)


def test_a_catalog_from_before_the_facts_gains_them(tmp_path: Path) -> None:
    notes = {"a.md": "# Pager\n\nThe zanzibar pager rota moved to Thursdays.\n"}
    with notes_engine(tmp_path, notes) as engine:
        expected = engine.search("zanzibar rota", mode="keyword")["results"]
        catalog_path = engine.catalog.path
    with sqlite3.connect(catalog_path) as db:  # as an earlier release wrote it: no such columns
        db.execute("DROP INDEX units_without_facts")
        for column in ("words", "tool", "dup_key", "question"):
            db.execute(f"ALTER TABLE units DROP COLUMN {column}")
    with notes_engine(tmp_path, notes) as engine:  # opens the same catalog; its sync fills the facts in
        assert engine.catalog.units_without_facts(10) == []
        assert engine.search("zanzibar rota", mode="keyword")["results"] == expected


def test_message_places_match_a_plain_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, workspace = tmp_path / "home", tmp_path / "project"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "a.md").write_text("# Notes\n\nThe pager rota.\n")
    rollout(home, MINE, workspace, "the zanzibar queue backlog", turns=3)
    monkeypatch.setenv("HOME", str(home))
    with Engine([workspace], Settings(), index_dir=tmp_path / "index", embedder=False) as engine:
        engine.sync()
        rows = engine.catalog.db.execute("SELECT id, kind, session_key, seq FROM units").fetchall()
        expected = {int(r[0]): (str(r[2]), int(r[3])) for r in rows if r[1] == "transcript"}
        assert expected and len(expected) < len(rows)  # transcript messages and a memory note
        places = engine.catalog.message_places([int(r[0]) for r in rows] + [10**9])
        assert places == expected
        assert all(type(session) is str and type(seq) is int for session, seq in places.values())
