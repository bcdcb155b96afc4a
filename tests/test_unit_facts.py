"""The per-search reads made cheaper for keyword search speed give what the plain reads give: unit facts from the
narrow tuple read (Catalog.unit_facts_rows) match a full row read, and tool_share's shortcut for texts without a
bracket matches the line-by-line count; message places read as plain tuples match a plain read."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import notes_engine
from memlens.engine.engine import Engine
from memlens.engine.unit_facts import MISSING, tool_share, unit_facts
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


def test_unit_facts_match_a_full_row_read(tmp_path: Path) -> None:
    notes = {
        "a.md": "# Deploys\n\nThe deploy of the billing service failed twice on Tuesday.\n",
        "b.md": "# Tools\n\n[Bash] git push origin main\n[Read] notes.md\n",
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
            assert fact.tokens == frozenset(engine.keyword.tokens(text))
            assert fact.tool == plain_tool_share(text)
            assert fact.key == " ".join(text.lower().split())
        assert unit_facts(engine.catalog, engine.keyword, asked) == facts  # and the same again from the cache


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
