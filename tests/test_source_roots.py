"""The rule behind the remembered folders, case by case: what a command names, what a sync widens to, what an older
index's files are kept under. (Through the CLI and the servers: test_source_folders.py and the LSP/MCP tests.)"""

from __future__ import annotations

from pathlib import Path

from memlens.engine.catalog import RootRow
from memlens.engine.indexing.discovery import Locations, resolve_locations
from memlens.engine.indexing.source_roots import (
    AGENT,
    EARLIER_ORIGIN,
    MEMORY,
    TRANSCRIPTS,
    RootOrigins,
    inferred_roots,
    named_roots,
    unnamed,
    widen,
)
from memlens.settings import Settings

HOME = Path("/home/ada")


def test_named_roots_say_where_each_folder_comes_from(tmp_path: Path) -> None:
    workspace, flagged, configured = tmp_path / "ws", tmp_path / "flagged", tmp_path / "ws" / "logs"
    for folder in (workspace / ".specstory" / "history", flagged, configured):
        folder.mkdir(parents=True)
    settings = Settings()
    settings.transcripts.paths = ["logs", str(tmp_path / "missing")]
    settings.transcripts.agent_defaults = False
    locations = resolve_locations([workspace], settings, [flagged], home=tmp_path / "home")
    origins = RootOrigins(flags="memlens index --transcripts", settings="settings")
    roots = named_roots(locations, settings=settings, extra_transcripts=[flagged.resolve()], origins=origins)
    by_path = {Path(r.path): (r.kind, r.added_from) for r in roots}
    assert by_path == {
        workspace.resolve(): (MEMORY, "workspace folder"),
        flagged.resolve(): (TRANSCRIPTS, "memlens index --transcripts"),
        configured.resolve(): (TRANSCRIPTS, "settings"),
        (workspace / ".specstory" / "history").resolve(): (TRANSCRIPTS, "the workspace's SpecStory exports"),
    }  # the missing folder is not recorded


def test_widen_walks_remembered_folders_and_keeps_scope_hiding() -> None:
    named = Locations(
        workspaces=[Path("/ws")],
        transcript_dirs=[HOME / ".claude/projects/-ws"],
        cwd_filtered_dirs=[HOME / ".codex/sessions"],
    )
    remembered = [
        RootRow("/logs", TRANSCRIPTS, True, "flag"),
        RootRow(str(HOME / ".claude/projects"), AGENT, True, "scope all"),
        RootRow(str(HOME / ".codex/sessions"), AGENT, True, "scope all"),
        RootRow(str(HOME / ".openclaw/agents"), AGENT, False, "default"),
        RootRow("/old-ws", MEMORY, True, "workspace folder"),
    ]
    wide = widen(named, remembered)
    assert wide.workspaces == [Path("/ws"), Path("/old-ws")]
    assert Path("/logs") in wide.transcript_dirs and Path("/logs") not in wide.unscoped_dirs
    # read whole once: walked whole now, but counted toward no scope root (scope hides other projects by cwd)
    assert wide.unscoped_dirs == [HOME / ".claude/projects", HOME / ".codex/sessions"]
    assert wide.cwd_filtered_dirs == [HOME / ".openclaw/agents"]


def test_unnamed_counts_a_folder_only_under_a_folder_of_its_own_kind() -> None:
    named = [RootRow("/ws", MEMORY, True, ""), RootRow("/logs", TRANSCRIPTS, True, "")]
    remembered = [
        RootRow("/ws", MEMORY, True, ""),
        RootRow("/ws/transcripts", TRANSCRIPTS, True, ""),  # inside the workspace, but not its memory notes
        RootRow("/logs/2026", TRANSCRIPTS, True, ""),
        RootRow("/elsewhere", TRANSCRIPTS, True, ""),
    ]
    assert [r.path for r in unnamed(remembered, named)] == ["/ws/transcripts", "/elsewhere"]


def test_an_older_index_keeps_its_files_under_inferred_folders() -> None:
    files = {
        "/ws/MEMORY.md": MEMORY,
        "/old/memory/team/notes.md": MEMORY,
        "/logs/a.jsonl": TRANSCRIPTS,
        "/logs/deep/b.jsonl": TRANSCRIPTS,
        str(HOME / ".codex/sessions/2026/01/02/r.jsonl"): TRANSCRIPTS,
    }
    roots = inferred_roots(files, [RootRow("/ws", MEMORY, True, "")], HOME)
    assert {(r.path, r.kind) for r in roots} == {
        ("/old", MEMORY),
        ("/logs", TRANSCRIPTS),
        (str(HOME / ".codex/sessions"), AGENT),
    }
    assert all(r.added_from == EARLIER_ORIGIN for r in roots)
