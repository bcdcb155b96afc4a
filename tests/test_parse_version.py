"""An index parsed by older parsers (another PARSE_VERSION) re-reads every file on its next sync, so what the newer
parsers read (tool results) is searchable without `reindex --full`, and the messages it had keep their ids."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from conftest import EXAMPLE_WORKSPACE, example_settings
from memlens.engine.engine import Engine
from memlens.engine.filters import SearchFilters
from memlens.settings import Settings, merge
from split_messages import MESSAGES, write_every_format
from transcript_fixtures import fixture_path

EXTRA = Path(__file__).resolve().parent / "fixtures" / "extra"  # committed: sessions outside the synthetic tree


def _units(engine: Engine) -> dict[str, set[str]]:
    """The catalog's message ids by kind."""
    by_kind: dict[str, set[str]] = {}
    with engine.catalog.transaction() as db:
        for kind, message_id in db.execute("SELECT kind, message_id FROM units WHERE message_id IS NOT NULL"):
            by_kind.setdefault(kind, set()).add(message_id)
    return by_kind


def test_an_index_from_older_parsers_is_parsed_again(tmp_path: Path) -> None:
    workspace, index_dir = tmp_path / "ws", tmp_path / "index"
    shutil.copytree(EXAMPLE_WORKSPACE, workspace)
    with Engine([workspace], example_settings(), index_dir=index_dir, embedder=False) as engine:
        files = engine.sync().files_parsed
        before = _units(engine)
        assert before.get("tool") and before.get("transcript")
        # what an index from before tool results holds: no tool units, no parse version
        with engine.catalog.transaction() as db:
            db.execute("DELETE FROM units WHERE kind = 'tool'")
            db.execute("DELETE FROM meta WHERE key = 'parse_version'")

    with Engine([workspace], example_settings(), index_dir=index_dir, embedder=False) as engine:
        report = engine.sync()
        assert report.files_parsed == files  # every file read whole again
        assert _units(engine) == before  # tool results back; every message under the id it had
        tools = engine.search("order.refunded", mode="keyword", filters=SearchFilters(kind="tool"), min_score=0)
        assert tools["results"] and all(hit["kind"] == "tool" for hit in tools["results"])

    with Engine([workspace], example_settings(), index_dir=index_dir, embedder=False) as engine:
        assert engine.sync().files_parsed == 0  # once: the version is recorded


def test_an_index_from_before_parts_were_numbered_counts_each_message_once_after_its_sync(tmp_path: Path) -> None:
    """An index of PARSE_VERSION 5 holds no part numbers: each part of a message stored in several units counted as
    a message. Its next sync parses every file again, numbering them."""
    write_every_format(tmp_path / "transcripts")
    settings = merge(Settings(), {"transcripts": {"agentDefaults": False, "paths": [str(tmp_path / "transcripts")]}})
    (tmp_path / "ws").mkdir()
    index_dir = tmp_path / "index"
    with Engine([tmp_path / "ws"], settings, index_dir=index_dir, embedder=None) as engine:
        engine.sync()
    db = sqlite3.connect(index_dir / "catalog.sqlite3")
    # as version 5 left it: no `part` column (nor the index of what waits for a vector that reads it, but the one of
    # the ids alone), each session's count of its units of kind "transcript"
    db.executescript(
        """DROP INDEX units_waiting_for_vector;
           CREATE INDEX units_without_vector ON units(id) WHERE vector_ready IS NULL;
           ALTER TABLE units DROP COLUMN part;
           UPDATE sessions SET messages = (SELECT COUNT(*) FROM units u WHERE u.session_key = sessions.key
                                           AND u.kind = 'transcript');
           UPDATE meta SET value = '5' WHERE key = 'parse_version';"""
    )
    db.close()
    with Engine([tmp_path / "ws"], settings, index_dir=index_dir, embedder=None) as engine:
        assert {s["messageCount"] for s in engine.sessions(limit=50)["sessions"]} == {MESSAGES + 2}  # 3 parts each
        assert engine.sync().files_parsed == 4
        assert [s["messageCount"] for s in engine.sessions(limit=50)["sessions"]] == [MESSAGES] * 4
        assert sum(engine.stats()["messages"].values()) == 4 * MESSAGES
    db = sqlite3.connect(index_dir / "catalog.sqlite3")
    indexes = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    db.close()
    assert "units_waiting_for_vector" in indexes and "units_without_vector" not in indexes  # replaced on opening


def test_files_with_skipped_lines_are_read_again_alone_when_a_bad_line_reads_as_more(tmp_path: Path) -> None:
    """An index whose parsers skipped a torn session line (BAD_LINE_VERSION before 1) reads that file again on its
    next sync, and only that file: its session gets the folder the line names."""
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    torn = "openclaw/7c2e9a14-5d3b-4f8e-a6c1-0b9d2e4f7a35.jsonl"
    shutil.copy(fixture_path("synthetic", torn), transcripts / "torn.jsonl")
    shutil.copy(fixture_path("synthetic", "openclaw/3b9d7f1e-2a4c-4e6b-8d0f-1a3c5e7b9d2f.jsonl"), transcripts)
    settings = merge(Settings(), {"transcripts": {"agentDefaults": False, "paths": [str(transcripts)]}})
    (tmp_path / "ws").mkdir()
    index_dir = tmp_path / "index"

    def torn_session(engine: Engine) -> tuple[int, str | None]:
        with engine.catalog.transaction() as db:
            row = db.execute(
                "SELECT f.bad_lines, s.cwd FROM files f JOIN sessions s ON s.key = f.session_key"
                " WHERE f.path LIKE '%torn.jsonl'"
            ).fetchone()
        return int(row[0]), row[1]

    with Engine([tmp_path / "ws"], settings, index_dir=index_dir, embedder=None) as engine:
        assert engine.sync().files_parsed == 2
        assert torn_session(engine) == (0, "/srv/openclaw/workspace")
        with engine.catalog.transaction() as db:  # what the parsers before it left: the line skipped, no folder
            db.execute("UPDATE files SET bad_lines = 1 WHERE path LIKE '%torn.jsonl'")
            db.execute("UPDATE sessions SET cwd = NULL")
            db.execute("DELETE FROM meta WHERE key = 'bad_line_version'")

    with Engine([tmp_path / "ws"], settings, index_dir=index_dir, embedder=None) as engine:
        assert engine.sync().files_parsed == 1  # the file with a skipped line, not the other
        assert torn_session(engine) == (0, "/srv/openclaw/workspace")

    with Engine([tmp_path / "ws"], settings, index_dir=index_dir, embedder=None) as engine:
        assert engine.sync().files_parsed == 0  # once: the version is recorded


def test_files_whose_lines_held_two_records_are_read_again_alone(tmp_path: Path) -> None:
    """An index whose parsers read a line holding two records (a writer's lost newline) as its last record alone, under
    the id of its line (BAD_LINE_VERSION before 2), reads that file again on its next sync, and only that file: the
    line's second record gets an id of its own."""
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    joined = EXTRA / "codex" / "rollout-2026-03-03T14-00-00-019c9f10-4b2a-7c11-8e3d-5a6b7c8d9e0f.jsonl"
    shutil.copy(joined, transcripts / "joined.jsonl")
    shutil.copy(fixture_path("synthetic", "openclaw/3b9d7f1e-2a4c-4e6b-8d0f-1a3c5e7b9d2f.jsonl"), transcripts)
    settings = merge(Settings(), {"transcripts": {"agentDefaults": False, "paths": [str(transcripts)]}})
    (tmp_path / "ws").mkdir()
    index_dir = tmp_path / "index"

    def codex_ids(engine: Engine) -> set[str]:
        with engine.catalog.transaction() as db:
            return {str(r[0]) for r in db.execute("SELECT message_id FROM units WHERE format = 'codex'")}

    with Engine([tmp_path / "ws"], settings, index_dir=index_dir, embedder=None) as engine:
        assert engine.sync().files_parsed == 2
        assert {"L8.2", "L9.2", "L16.2", "L20.2"} <= codex_ids(engine)
        with engine.catalog.transaction() as db:  # what the parsers before it left: the line's last record, as `L8`
            db.execute("UPDATE units SET message_id = 'L8' WHERE message_id = 'L8.2'")
            db.execute("UPDATE files SET error = 'line 8: 221 characters of a torn write skipped before its record'")
            db.execute("UPDATE files SET error = NULL WHERE path NOT LIKE '%joined.jsonl'")
            db.execute("UPDATE meta SET value = '1' WHERE key = 'bad_line_version'")

    with Engine([tmp_path / "ws"], settings, index_dir=index_dir, embedder=None) as engine:
        assert engine.sync().files_parsed == 1  # the file whose parse said a problem, not the other
        assert "L8.2" in codex_ids(engine)

    with Engine([tmp_path / "ws"], settings, index_dir=index_dir, embedder=None) as engine:
        assert engine.sync().files_parsed == 0  # once: the version is recorded
