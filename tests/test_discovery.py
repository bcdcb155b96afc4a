"""Discovery and symlinks: never out of the workspace or a transcript folder unless allowed; loops end; globs."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from memlens.engine.engine import Engine
from memlens.engine.indexing.discovery import MEMORY, TRANSCRIPT, _glob_match, classify, discover, resolve_locations
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
    """{path relative to tmp root: kind} of what discovery lists."""
    locations = resolve_locations([workspace], config, transcripts or [])
    return {os.path.relpath(s.path, workspace.parent): s.kind for s in discover(locations, config)}


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
