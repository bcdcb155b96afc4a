"""Discovery and symlinks: never out of the workspace or a transcript folder unless allowed; loops end; globs."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

from memlens.engine.engine import Engine
from memlens.engine.indexing.discovery import MEMORY, TRANSCRIPT, _glob_match, classify, discover, resolve_locations
from memlens.engine.indexing.indexer import SyncReport
from memlens.settings import Settings, merge

NOTE = "# Deploys\n\nThe pgbouncer pool holds 20 connections; raise it before the launch.\n"
SECRET = "root:x:0:0:root:/root:/bin/bash\nsecret pgbouncer password\n"
CLAUDE_LINE = (
    '{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-02-10T10:00:00Z",'
    '"message":{"role":"user","content":"where is the pgbouncer config?"}}\n'
)


def settings(**overrides: object) -> Settings:
    warnings: list[str] = []
    result = merge(Settings(), {"transcripts": {"agentDefaults": False}, **overrides}, warnings)
    assert not warnings, warnings
    return result


def found(workspace: Path, config: Settings, transcripts: list[Path] | None = None) -> dict[str, str]:
    """{path relative to tmp root: kind} of what discovery lists to be read (not the names it lists as unreadable)."""
    locations = resolve_locations([workspace], config, transcripts or [])
    listed = discover(locations, config)
    return {os.path.relpath(s.path, workspace.parent): s.kind for s in listed if s.problem is None}


def unreadable(workspace: Path, config: Settings, transcripts: list[Path] | None = None) -> dict[str, str]:
    """{path relative to tmp root: why} of the names discovery lists as not to be read."""
    locations = resolve_locations([workspace], config, transcripts or [])
    listed = discover(locations, config)
    return {os.path.relpath(s.path, workspace.parent): s.problem for s in listed if s.problem is not None}


@pytest.fixture
def layout(tmp_path: Path) -> Path:
    """A workspace with a note, a memory folder, and outside it a 'secret' file and folder."""
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "MEMORY.md").write_text(NOTE)
    (workspace / "memory" / "2026-02-10.md").write_text(NOTE)
    outside = tmp_path / "outside"
    (outside / "notes").mkdir(parents=True)
    (outside / "passwd").write_text(SECRET)
    (outside / "notes" / "private.md").write_text(SECRET)
    return workspace


def test_memory_symlink_out_of_the_workspace_is_not_indexed(layout: Path) -> None:
    outside = layout.parent / "outside"
    (layout / "USER.md").symlink_to(outside / "passwd")  # a memory name pointing at /etc/passwd-like content
    (layout / "memory" / "leak.md").symlink_to(outside / "passwd")
    (layout / "bank").symlink_to(outside / "notes", target_is_directory=True)
    listed = found(layout, settings())
    assert listed == {"ws/MEMORY.md": MEMORY, "ws/memory/2026-02-10.md": MEMORY}
    allowed = found(layout, settings(followExternalSymlinks=True))
    assert {"ws/USER.md", "ws/memory/leak.md", "ws/bank/private.md"} <= set(allowed)


def test_symlinks_within_the_workspace_are_followed(layout: Path) -> None:
    (layout / "notes").mkdir()
    (layout / "notes" / "team.md").write_text(NOTE)
    (layout / "USER.md").symlink_to(layout / "notes" / "team.md")
    (layout / "bank").symlink_to(layout / "notes", target_is_directory=True)
    listed = found(layout, settings())
    assert {"ws/USER.md", "ws/bank/team.md", "ws/MEMORY.md"} <= set(listed)


def test_symlink_loops_end(layout: Path) -> None:
    (layout / "memory" / "loop").symlink_to(layout / "memory", target_is_directory=True)
    (layout / "memory" / "up").symlink_to(layout, target_is_directory=True)
    (layout / "memory" / "self.md").symlink_to(layout / "memory" / "self.md")  # a link to itself
    (layout.parent / "outside" / "back").symlink_to(layout, target_is_directory=True)
    (layout / "memory" / "away").symlink_to(layout.parent / "outside", target_is_directory=True)
    for config in (settings(), settings(followExternalSymlinks=True)):
        result: list[dict[str, str]] = []
        worker = threading.Thread(target=lambda c=config, r=result: r.append(found(layout, c)), daemon=True)
        worker.start()
        worker.join(20)
        assert not worker.is_alive(), "discovery hangs on a symlink loop"
        assert "ws/memory/2026-02-10.md" in result[0]
        assert not any("self.md" in path for path in result[0])
    assert unreadable(layout, settings()) == {"ws/memory/self.md": "not indexed: a symbolic link in a loop of links"}


def test_transcript_folder_symlinks(tmp_path: Path, layout: Path) -> None:
    logs = tmp_path / "logs"
    (logs / "project").mkdir(parents=True)
    (logs / "project" / "session.jsonl").write_text(CLAUDE_LINE)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "other.jsonl").write_text(CLAUDE_LINE)
    (logs / "linked.jsonl").symlink_to(tmp_path / "elsewhere" / "other.jsonl")
    (logs / "alias.jsonl").symlink_to(logs / "project" / "session.jsonl")  # inside: fine
    (logs / "more").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (logs / "project" / "loop").symlink_to(logs, target_is_directory=True)
    listed = found(layout, settings(), [logs])
    transcripts = {p for p, kind in listed.items() if kind == TRANSCRIPT}
    assert transcripts == {"logs/project/session.jsonl", "logs/alias.jsonl"}
    allowed = found(layout, settings(followExternalSymlinks=True), [logs])
    assert {"logs/linked.jsonl", "logs/more/other.jsonl"} <= set(allowed)


def test_a_configured_transcript_folder_may_itself_be_a_symlink(tmp_path: Path, layout: Path) -> None:
    real = tmp_path / "disk" / "sessions"
    real.mkdir(parents=True)
    (real / "a.jsonl").write_text(CLAUDE_LINE)
    (tmp_path / "sessions").symlink_to(real, target_is_directory=True)
    config = settings(transcripts={"paths": [str(tmp_path / "sessions")], "agentDefaults": False})
    assert any(path.endswith("a.jsonl") for path in found(layout, config))


def test_classify_applies_the_same_rule(layout: Path) -> None:
    outside = layout.parent / "outside"
    (layout / "memory" / "leak.md").symlink_to(outside / "passwd")
    config = settings()
    locations = resolve_locations([layout], config)
    assert classify(layout / "memory" / "leak.md", locations, config) is None
    note = classify(layout / "memory" / "2026-02-10.md", locations, config)
    assert note is not None and note.kind == MEMORY
    allowed = settings(followExternalSymlinks=True)
    assert classify(layout / "memory" / "leak.md", resolve_locations([layout], allowed), allowed) is not None


def test_outside_globs_find_nothing(layout: Path) -> None:
    """Globs that climb out (rejected by the settings, but a Settings object can be built by hand) stay inside."""
    config = settings()
    config.memory.extra_include = ["../outside/*", "/etc/passwd", "../outside/notes/*.md"]
    assert set(found(layout, config)) == {"ws/MEMORY.md", "ws/memory/2026-02-10.md"}


@pytest.mark.parametrize(
    ("relative", "pattern", "matches"),
    [
        ("memory/a.md", "memory/**/*.md", True),
        ("memory/x/y/a.md", "memory/**/*.md", True),
        ("memory/a.txt", "memory/**/*.md", False),
        ("notes/2026-02-10.md", "notes/2026-0[1-2]-??.md", True),
        ("notes/2026-03-10.md", "notes/2026-0[1-2]-??.md", False),
        ("notes/b.md", "notes/[!a]*.md", True),
        ("notes/a.md", "notes/[!a]*.md", False),
        ("x/MEMORY.md", "*.md", False),
    ],
)
def test_glob_match(relative: str, pattern: str, matches: bool) -> None:
    assert _glob_match(Path(relative), pattern) is matches


def test_engine_never_indexes_the_linked_secret(layout: Path, tmp_path: Path) -> None:
    (layout / "USER.md").symlink_to(layout.parent / "outside" / "passwd")
    with Engine([layout], settings(), index_dir=tmp_path / "index", embedder=None) as engine:
        engine.sync()
        results = engine.search("password", mode="keyword")["results"]
    assert results == []


def test_a_changed_path_too_long_to_open_is_no_source(tmp_path: Path) -> None:
    """A watcher event may name a path the system cannot open (a 300-byte name, or more than 4,096 bytes): it is
    not a source, and the few-files sync goes on (the whole sync's walk reports such folders)."""
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "a.md").write_text("# A\n\nThe wombat note.\n")
    settings = Settings()
    settings.transcripts.agent_defaults = False
    too_long = [workspace / "memory" / ("x" * 300 + ".md"), workspace / "memory" / Path(*["d" * 250] * 18) / "n.md"]
    with Engine([workspace], settings, index_dir=tmp_path / "index", embedder=False) as engine:
        report = engine.sync_paths([*too_long, workspace / "memory" / "a.md"])
        assert report.files_parsed == 1 and report.files_failed == 0


def test_names_that_are_no_regular_file_are_said_and_never_opened(tmp_path: Path, layout: Path) -> None:
    """A FIFO, a socket, a link to nothing or in a loop under a name memlens reads: listed with why (a FIFO's open
    would wait for a writer forever), never opened; the files beside them are indexed."""
    memory, logs = layout / "memory", tmp_path / "logs"
    logs.mkdir()
    os.mkfifo(layout / "USER.md")  # a memory file named plainly, not by a glob
    os.mkfifo(memory / "pipe.md")
    os.mkfifo(logs / "pipe.jsonl")
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(memory / "sock.md"))
    (memory / "gone.md").symlink_to(memory / "deleted.md")
    (logs / "a.jsonl").symlink_to(logs / "b.jsonl")
    (logs / "b.jsonl").symlink_to(logs / "a.jsonl")
    (logs / "session.jsonl").write_text(CLAUDE_LINE)
    expected = {
        "ws/USER.md": "not indexed: a named pipe (FIFO), not a regular file",
        "ws/memory/pipe.md": "not indexed: a named pipe (FIFO), not a regular file",
        "ws/memory/sock.md": "not indexed: a socket, not a regular file",
        "ws/memory/gone.md": "not indexed: a symbolic link to a file that does not exist",
        "logs/pipe.jsonl": "not indexed: a named pipe (FIFO), not a regular file",
        "logs/a.jsonl": "not indexed: a symbolic link in a loop of links",
        "logs/b.jsonl": "not indexed: a symbolic link in a loop of links",
    }
    assert unreadable(layout, settings(), [logs]) == expected
    with Engine([layout], settings(), [logs], index_dir=tmp_path / "index", embedder=None) as engine:
        report = engine.sync()
        assert report.files_failed == len(expected)
        said = {os.path.relpath(e["path"], tmp_path): e["reasons"] for e in engine.stats()["fileErrors"]}
        assert said == {path: [why] for path, why in expected.items()}
        assert engine.search("pgbouncer config", mode="keyword")["results"]  # the transcript beside them


def test_a_file_replaced_by_a_fifo_after_the_walk_is_not_opened(tmp_path: Path) -> None:
    """The walk found a regular file; by the time the sync reads it (minutes later, in a first index) it is a FIFO.
    Opening it would wait for a writer with the index's one writer held: it is reported instead."""
    workspace, logs = tmp_path / "ws", tmp_path / "logs"
    workspace.mkdir()
    logs.mkdir()
    (logs / "session.jsonl").write_text(CLAUDE_LINE)
    (logs / "other.jsonl").write_text(CLAUDE_LINE.replace("s1", "s2").replace("pgbouncer", "haproxy"))
    with Engine([workspace], settings(), [logs], index_dir=tmp_path / "index", embedder=None) as engine:
        sources = engine.sources()
        os.mkfifo(tmp_path / "pipe")
        os.replace(tmp_path / "pipe", logs / "session.jsonl")
        reports: list[SyncReport] = []
        worker = threading.Thread(target=lambda: reports.append(engine.indexer.sync(sources)), daemon=True)
        worker.start()
        worker.join(60)
        if worker.is_alive():  # let the open go on (a writer, at once gone) so the test ends
            os.close(os.open(logs / "session.jsonl", os.O_WRONLY))
            worker.join()
        assert reports and reports[0].files_failed == 1, "the sync opened the FIFO and waited for a writer"
        assert "named pipe (FIFO), not a regular file" in reports[0].errors[0]
        assert engine.search("haproxy", mode="keyword")["results"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root enters any folder")
def test_a_file_in_a_folder_that_can_be_listed_but_not_entered_is_listed_with_why(tmp_path: Path, layout: Path) -> None:
    """Read permission without execute: the walk sees the note's name but cannot stat it. It is recorded, so
    `stats` lists it among the files with problems (it was said once by the sync, then nowhere)."""
    folder = layout / "memory" / "locked"
    folder.mkdir()
    (folder / "note.md").write_text(NOTE)
    folder.chmod(0o600)
    why = "cannot read: permission denied (its folder may be listed but not entered)"
    try:
        assert unreadable(layout, settings()) == {"ws/memory/locked/note.md": why}
        with Engine([layout], settings(), index_dir=tmp_path / "index", embedder=None) as engine:
            assert engine.sync().files_failed == 1
            said = {os.path.relpath(e["path"], tmp_path): e["reasons"] for e in engine.stats()["fileErrors"]}
            assert said == {"ws/memory/locked/note.md": [why]}
    finally:
        folder.chmod(0o700)
