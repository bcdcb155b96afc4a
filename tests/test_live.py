"""Live indexing on copies of an incremental session (turn-1, then turn-2 which extends it): append, partial line,
truncate, rename, delete, the watcher. Every test runs on the committed synthetic session, and again on the real
one from ../shared when that folder is present."""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import FIXTURES
from memlens.engine.engine import Engine
from memlens.engine.indexing.indexer import SyncReport
from memlens.engine.watcher import LiveIndexer
from memlens.settings import Settings

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class LiveSource:
    """An incremental session: its folder (turn-1.jsonl, turn-2.jsonl, turn-1/subagents/), ids, a long-tool file."""

    folder: Path
    session: str
    agent: str
    tool_heavy: Path  # a transcript whose [Bash] inputs are longer than 45 characters


SOURCES = {
    "synthetic": LiveSource(
        HERE / "fixtures" / "incremental" / "claude-code",
        "c4e8a1f2-6b3d-4f7a-9e2c-1d5b8a3f6e90",
        "b91e2c4",
        HERE / "fixtures" / "incremental" / "claude-code" / "turn-2.jsonl",
    ),
    "shared": LiveSource(
        FIXTURES / "claude-code" / "incremental-subagents",
        "e9fb405b-169f-40eb-9396-7e75076f045d",
        "a485154",
        FIXTURES / "claude-code" / "tool_heavy.jsonl",
    ),
}
# the real session only where ../shared is (test_parsers_real.py is the one skip that says it is absent)
LIVE_SOURCES = ["synthetic"] + (["shared"] if FIXTURES.is_dir() else [])


def keyword_engine(workspace: Path, transcripts: Path, index_dir: Path) -> Engine:
    settings = Settings()
    settings.transcripts.agent_defaults = False
    return Engine([workspace], settings, [transcripts], index_dir, embedder=False)


def messages(engine: Engine) -> list[tuple[str, str, str]]:
    rows = engine.catalog.db.execute(
        "SELECT session_key, message_id, text FROM plain_units WHERE kind != 'memory' ORDER BY session_key, seq"
    )
    return [tuple(r) for r in rows]


def chunk_layout(engine: Engine) -> list[tuple[str, int, int]]:
    rows = engine.catalog.db.execute(
        """SELECT c.session_key, COUNT(u.id), MIN(u.position) FROM chunks c JOIN units u ON u.chunk_id = c.id
           GROUP BY c.id ORDER BY c.session_key, MIN(u.seq)"""
    )
    return [tuple(r) for r in rows]


def fresh_rebuild(transcripts: Path, tmp_path: Path) -> Engine:
    """The reference: a new index built from scratch from the same files."""
    engine = keyword_engine(tmp_path / "ws-ref", transcripts, tmp_path / "index-ref")
    engine.sync()
    return engine


@pytest.fixture(params=LIVE_SOURCES)
def live(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Engine, Path, LiveSource]:
    """A transcripts folder holding turn-1 of an incremental session under its session id."""
    source: LiveSource = SOURCES[request.param]
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    target = transcripts / f"{source.session}.jsonl"
    shutil.copyfile(source.folder / "turn-1.jsonl", target)
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws-ref").mkdir()
    engine = keyword_engine(tmp_path / "ws", transcripts, tmp_path / "index")
    engine.sync()
    return engine, target, source


def test_append_parses_only_new_bytes_and_matches_a_rebuild(
    live: tuple[Engine, Path, LiveSource], tmp_path: Path
) -> None:
    engine, target, source = live
    before = messages(engine)
    turn2 = (source.folder / "turn-2.jsonl").read_bytes()
    with target.open("ab") as handle:
        handle.write(turn2[target.stat().st_size :])
    report = engine.sync()
    assert report.files_appended == 1 and report.files_parsed == 0
    after = messages(engine)
    assert after[: len(before)] == before  # nothing re-read or renumbered
    assert len(after) > len(before)
    reference = fresh_rebuild(target.parent, tmp_path)
    assert after == messages(reference)
    assert chunk_layout(engine) == chunk_layout(reference)
    assert engine.keyword.num_docs() == len(after)


def test_partial_last_line_waits_for_its_newline(live: tuple[Engine, Path, LiveSource], tmp_path: Path) -> None:
    engine, target, source = live
    turn2 = (source.folder / "turn-2.jsonl").read_bytes()
    start = target.stat().st_size
    line_end = turn2.index(b"\n", start) + 1
    next_end = turn2.index(b"\n", line_end) + 1
    with target.open("ab") as handle:
        handle.write(turn2[start : line_end + (next_end - line_end) // 2])  # one line and half of the next
    report = engine.sync()
    assert report.bad_lines == 0
    bad = engine.catalog.db.execute("SELECT bad_lines, parsed_bytes FROM files").fetchone()
    assert bad[0] == 0 and bad[1] == line_end
    with target.open("ab") as handle:
        handle.write(turn2[line_end + (next_end - line_end) // 2 :])
    engine.sync()
    assert messages(engine) == messages(fresh_rebuild(target.parent, tmp_path))


def test_truncated_file_is_reparsed_whole(live: tuple[Engine, Path, LiveSource], tmp_path: Path) -> None:
    engine, target, _ = live
    lines = target.read_bytes().splitlines(keepends=True)
    target.write_bytes(b"".join(lines[: len(lines) // 2]))
    report = engine.sync()
    assert report.files_parsed == 1 and report.files_appended == 0
    assert messages(engine) == messages(fresh_rebuild(target.parent, tmp_path))


def test_rewritten_head_is_reparsed_whole(live: tuple[Engine, Path, LiveSource], tmp_path: Path) -> None:
    engine, target, source = live
    data = (source.folder / "turn-2.jsonl").read_bytes()
    target.write_bytes(data.replace(b"analyze existing CLI", b"analyse existing CLI", 1))
    report = engine.sync()
    assert report.files_parsed == 1
    assert messages(engine) == messages(fresh_rebuild(target.parent, tmp_path))


def test_rename_and_delete(live: tuple[Engine, Path, LiveSource]) -> None:
    engine, target, _ = live
    count = len(messages(engine))
    renamed = target.with_name("renamed.jsonl")
    target.rename(renamed)
    report = engine.sync()
    assert report.files_deleted == 1 and report.files_parsed == 1
    assert len(messages(engine)) == count  # no duplicates, nothing lost
    paths = [r[0] for r in engine.catalog.db.execute("SELECT path FROM files")]
    assert paths == [str(renamed)]
    renamed.unlink()
    engine.sync()
    assert messages(engine) == [] and engine.keyword.num_docs() == 0


def test_new_subagent_file_is_linked_to_its_parent(live: tuple[Engine, Path, LiveSource]) -> None:
    engine, target, source = live
    subagents = target.parent / source.session / "subagents"
    subagents.mkdir(parents=True)
    name = f"agent-{source.agent}.jsonl"
    shutil.copyfile(source.folder / "turn-1" / "subagents" / name, subagents / name)
    engine.sync()
    row = engine.catalog.session(f"claude-code:{source.session}/agent-{source.agent}")
    assert row is not None and row["parent_key"] == f"claude-code:{source.session}"


def test_watcher_makes_an_appended_message_searchable(live: tuple[Engine, Path, LiveSource]) -> None:
    engine, target, source = live
    syncs: list[SyncReport] = []
    indexer = LiveIndexer(engine, on_sync=syncs.append, debounce_ms=50)
    indexer.start()
    try:
        assert indexer.ready.wait(30)
        word = "zanzibarquux"
        entry = json.dumps(
            {
                "parentUuid": None,
                "isSidechain": False,
                "type": "user",
                "sessionId": source.session,
                "uuid": "live-1",
                "timestamp": "2026-02-10T10:00:00.000Z",
                "message": {"role": "user", "content": f"please check {word} now"},
            }
        )
        started = time.monotonic()
        with target.open("a") as handle:
            handle.write(entry + "\n")
        while time.monotonic() - started < 15:
            if engine.search(word, mode="keyword")["results"]:
                break
            time.sleep(0.02)
        hits = engine.search(word, mode="keyword")["results"]
        assert hits and hits[0]["messageId"] == "live-1"
        # the message is searchable once the keyword index commits; the sync's report follows when the sync ends
        while time.monotonic() - started < 15 and not any(r.files_appended == 1 for r in syncs):
            time.sleep(0.02)
        assert any(r.files_appended == 1 for r in syncs)
        deleted_at = time.monotonic()
        target.unlink()
        while time.monotonic() - deleted_at < 15 and engine.search(word, mode="keyword")["results"]:
            time.sleep(0.02)
        assert engine.search(word, mode="keyword")["results"] == []
    finally:
        indexer.stop()


@pytest.mark.parametrize("name", LIVE_SOURCES)
def test_tool_input_limit_setting_reaches_the_parsers(tmp_path: Path, name: str) -> None:
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    shutil.copyfile(SOURCES[name].tool_heavy, transcripts / "tool_heavy.jsonl")
    (tmp_path / "ws").mkdir()
    lengths: dict[int, int] = {}
    for limit in (40, 2000):
        settings = Settings()
        settings.transcripts.agent_defaults = False
        settings.chunking.tool_input_max_chars = limit
        with Engine([tmp_path / "ws"], settings, [transcripts], tmp_path / f"index-{limit}", embedder=False) as engine:
            engine.sync()
            texts = [r[0] for r in engine.catalog.db.execute("SELECT text FROM plain_units WHERE text LIKE '%[Bash]%'")]
            assert texts
            lengths[limit] = max(len(t.split("[Bash]", 1)[1].split("\n")[0]) for t in texts)
    assert lengths[40] <= 45 < lengths[2000]
