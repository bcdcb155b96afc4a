"""A first command that finds nothing says so and why: a sync that leaves the index empty says what it looked in
(the workspace and why it is one, the memory-note names, the agents' folders) and the step that would find
something (`--scope all` for other projects' transcripts in the agents' folders, `--transcripts DIR` for
transcript-looking files under the workspace); a search of an empty index says the index is empty, not "no
results". Real CLI processes, HOME pointed at a home made from the committed synthetic fixtures."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from memlens.engine.answers import empty_index as empty_index_module
from memlens.engine.engine import Engine
from memlens.settings import Settings, merge
from memlens_runs import memlens_process

FIXTURES = REPO / "tests" / "fixtures" / "transcripts"  # committed: one folder per format
EVERY_FIXTURE = sorted(p for p in FIXTURES.rglob("*") if p.is_file())


def memlens(*args: str, home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR", "CLICOLOR_FORCE")}
    env["HOME"] = str(home)
    return memlens_process(*args, "--no-embeddings", env=env, cwd=cwd)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home whose agents' folders hold other projects' sessions: Claude Code's (a session and its subagent) under
    ~/.claude/projects and Codex's rollouts under ~/.codex/sessions."""
    home = tmp_path / "home"
    shutil.copytree(FIXTURES / "claude-code", home / ".claude" / "projects" / "-home-dev-other-project")
    shutil.copytree(FIXTURES / "codex", home / ".codex" / "sessions")
    return home


def other_projects_files(home: Path) -> int:
    return sum(1 for folder in (".claude/projects", ".codex/sessions") for _ in (home / folder).rglob("*.jsonl"))


@pytest.mark.slow  # CLI processes
def test_a_first_index_in_a_plain_folder_says_what_it_looked_in_and_that_scope_all_reads_the_others(
    tmp_path: Path, home: Path
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    index = memlens("index", "--index-dir", str(tmp_path / "index"), home=home, cwd=plain)
    assert index.returncode == 0, index.stderr
    assert index.stdout.startswith("sync: +0 messages, 0 files")  # the report itself is unchanged, on stdout
    said = index.stderr.splitlines()
    looked, step = said[-2:]
    assert looked.startswith(f"memlens: the index is empty: looked in {plain.resolve()} (just the current folder")
    assert "MEMORY.md" in looked and "memory/**/*.md" in looked
    assert "in ~/.claude/projects, ~/.codex/sessions for this project's transcripts" in looked
    count = other_projects_files(home)
    assert count == 6  # the fixtures: two Claude Code sessions and a subagent, three Codex rollouts
    expected = f"{count} transcript files of other projects are in ~/.claude/projects, ~/.codex/sessions"
    assert step == f"memlens: {expected}: --scope all reads them"

    # the step said finds them
    scoped = memlens("index", "--scope", "all", "--index-dir", str(tmp_path / "index"), home=home, cwd=plain)
    assert scoped.returncode == 0 and "the index is empty" not in scoped.stderr, scoped.stderr
    assert scoped.stdout.startswith("sync: +"), scoped.stdout


@pytest.mark.slow  # CLI processes
def test_a_workspace_of_transcripts_is_told_that_transcripts_dir_reads_them(tmp_path: Path, home: Path) -> None:
    workspace = tmp_path / "exports"
    shutil.copytree(FIXTURES, workspace)  # every format, none where an agent's folder would be
    (workspace / ".git").mkdir()
    (workspace / "notes.md").write_text("# Not a transcript\n\nPlain notes.\n")  # a markdown file no agent wrote
    where = ["--workspace", str(workspace), "--index-dir", str(tmp_path / "index")]
    index = memlens("index", "--json", *where, home=home, cwd=tmp_path)
    assert index.returncode == 0, index.stderr
    empty = json.loads(index.stdout)["empty"]
    shown = str(workspace.resolve())
    assert empty["workspaces"] == [shown] and empty["scope"] == "workspace"
    assert empty["finds"][0] == {
        "folder": shown,
        "count": len(EVERY_FIXTURE),
        "more": False,
        "flag": f"--transcripts {shown}",
        "setting": f"{shown!r} in memlens.transcripts.paths",
    }
    assert {find["flag"] for find in empty["finds"][1:]} == {"--scope all"}
    step = f"{len(EVERY_FIXTURE)} transcript files are under {shown}: --transcripts {shown} reads them"
    assert empty["lines"][1] == step

    search = memlens("search", "subagent", *where, home=home, cwd=tmp_path)
    assert (search.returncode, search.stdout) == (1, "")
    assert "no results" not in search.stderr  # nothing was searched: the index is empty, and said so
    # and only that: not why an index without vectors is keyword-only (a search with the model, of no vectors)
    env = {**os.environ, "HOME": str(home)}
    with_model = [sys.executable, "-m", "memlens", "search", "subagent", *where, "--no-sync"]
    unsynced = subprocess.run(with_model, capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path)
    assert unsynced.stderr == search.stderr
    assert search.stderr.splitlines()[-2].startswith(f"memlens: the index is empty: looked in {shown} (given by")
    assert search.stderr.splitlines()[-1] == f"memlens: {step}"

    found = memlens("search", "subagent", *where, "--transcripts", shown, home=home, cwd=tmp_path)
    assert found.returncode == 0 and found.stdout, found.stderr
    assert "the index is empty" not in found.stderr


@pytest.mark.slow  # a CLI process
def test_search_json_of_an_empty_index_carries_the_same_facts(tmp_path: Path, home: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    search = memlens("search", "anything", "--json", "--index-dir", str(tmp_path / "index"), home=home, cwd=plain)
    assert search.returncode == 1 and search.stderr == "", search.stderr
    answer = json.loads(search.stdout)
    assert answer["results"] == [] and answer["emptyIndex"]["lines"][1].endswith("--scope all reads them")


def test_an_index_that_holds_something_says_nothing_of_emptiness(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "MEMORY.md").write_text("# Memory\n\nThe deploy runs on Fridays.\n")
    with Engine([workspace], Settings(), index_dir=tmp_path / "index", embedder=False) as engine:
        report = engine.sync()
        assert report.empty is None and "empty" not in report.to_wire()
        assert "emptyIndex" not in engine.search("Tuesdays", mode="keyword")


def test_the_count_stops_at_its_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    workspace = tmp_path / "ws"
    (workspace / "exports").mkdir(parents=True)
    session = (FIXTURES / "claude-code" / "8d2e4b6a-1c3f-4a5b-9e7d-0f1a2b3c4d5e.jsonl").read_bytes()
    for n in range(5):
        (workspace / "exports" / f"session-{n}.jsonl").write_bytes(session)
    monkeypatch.setattr(empty_index_module, "CAP", 3)
    settings = merge(Settings(), {"transcripts": {"agentDefaults": False}}, [])
    with Engine([workspace], settings, index_dir=tmp_path / "index", embedder=False) as engine:
        empty = engine.sync().empty
    assert empty is not None
    exports = str((workspace / "exports").resolve())
    setting = f"{exports!r} in memlens.transcripts.paths"
    assert empty["finds"] == [
        {"folder": exports, "count": 3, "more": True, "flag": f"--transcripts {exports}", "setting": setting}
    ]
    assert empty["lines"][1] == f"3+ transcript files are under {exports}: --transcripts {exports} reads them"
    assert empty["settingLines"][1] == f"3+ transcript files are under {exports}: {setting} reads them"
    assert empty["settingLines"][0] == empty["lines"][0]
    assert empty["transcriptFolders"] == []
    assert "no agent's transcript folder exists" in empty["lines"][0]


def test_the_mcp_server_logs_an_empty_index_once_until_it_changes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A watcher that polls syncs every file every 30 s: the empty index is logged once, not at every sync."""
    from memlens.mcp.server import _sync_logger

    settings = merge(Settings(), {"transcripts": {"agentDefaults": False}}, [])
    (tmp_path / "ws").mkdir()
    with Engine([tmp_path / "ws"], settings, index_dir=tmp_path / "index", embedder=False) as engine:
        log_sync = _sync_logger()
        with caplog.at_level("INFO", logger="memlens"):
            for _ in range(3):
                log_sync(engine.sync())
            said = [r.getMessage() for r in caplog.records if "the index is empty" in r.getMessage()]
            assert len(said) == 1, said
            (tmp_path / "ws" / "exports").mkdir()
            shutil.copy(
                FIXTURES / "openclaw" / "3b9d7f1e-2a4c-4e6b-8d0f-1a3c5e7b9d2f.jsonl", tmp_path / "ws" / "exports"
            )
            log_sync(engine.sync())  # another step would find something now: said again
            steps = [r.getMessage() for r in caplog.records if "transcript" in r.getMessage()]
            steps = [step for step in steps if "the index is empty" not in step]
            assert steps[0].startswith("nothing to read yet"), steps
            assert steps[1:] == [
                f"1 transcript file is under {tmp_path.resolve() / 'ws' / 'exports'}: "
                f"--transcripts {tmp_path.resolve() / 'ws' / 'exports'} reads them"
            ], steps


def test_the_flag_to_copy_quotes_a_folder_a_shell_would_split(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "my exports").mkdir(parents=True)
    shutil.copy(FIXTURES / "openclaw" / "3b9d7f1e-2a4c-4e6b-8d0f-1a3c5e7b9d2f.jsonl", workspace / "my exports")
    settings = merge(Settings(), {"transcripts": {"agentDefaults": False}}, [])
    with Engine([workspace], settings, index_dir=tmp_path / "index", embedder=False) as engine:
        empty = engine.sync().empty
    assert empty is not None
    exports = str((workspace / "my exports").resolve())
    assert empty["finds"][0]["folder"] == exports and empty["finds"][0]["flag"] == f"--transcripts '{exports}'"


def test_a_folder_the_user_named_is_said_read_whole_not_for_this_project(tmp_path: Path) -> None:
    """`--transcripts DIR` (or `transcripts.paths`) is read whole: the sentence does not say it was read for this
    project's sessions, as an agent's own folder is."""
    workspace, named = tmp_path / "ws", tmp_path / "exports"
    workspace.mkdir()
    named.mkdir()
    settings = merge(Settings(), {"transcripts": {"agentDefaults": False, "paths": [str(named)]}}, [])
    with Engine([workspace], settings, index_dir=tmp_path / "index", embedder=False) as engine:
        empty = engine.sync().empty
    assert empty is not None
    assert empty["lines"][0].endswith(f"and in {named.resolve()} for every transcript")
    assert "this project's transcripts" not in empty["lines"][0]


def _empty_after_reading(named: Path, tmp_path: Path) -> list[str]:
    """The lines of the empty index a sync leaves when the user named `named` as a folder of transcripts."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    settings = merge(Settings(), {"transcripts": {"agentDefaults": False, "paths": [str(named)]}}, [])
    with Engine([workspace], settings, index_dir=tmp_path / "index", embedder=False) as engine:
        empty = engine.sync().empty
    assert empty is not None
    assert empty["lines"][0] == empty["settingLines"][0]
    step = "name the folder an agent writes its transcripts in with"
    assert empty["lines"][1].endswith(f"{step} --transcripts DIR")
    assert empty["settingLines"][1].endswith(f"{step} a folder in memlens.transcripts.paths")
    return empty["lines"]


def test_a_named_folder_without_transcript_files_is_said_to_hold_none(tmp_path: Path) -> None:
    """The user already named a folder: "name a folder of transcripts" would tell them nothing. What it holds does."""
    named = tmp_path / "downloads"
    named.mkdir()
    (named / "notes.txt").write_text("not a transcript\n")
    lines = _empty_after_reading(named, tmp_path)
    assert lines[1].startswith(f"{named.resolve()} holds no .jsonl or .md file: ")


def test_a_named_folder_of_files_no_agent_wrote_says_how_many_and_whose_it_reads(tmp_path: Path) -> None:
    named = tmp_path / "exports"
    (named / "deeper").mkdir(parents=True)
    (named / "events.jsonl").write_text('{"level": "info", "msg": "started"}\n')
    (named / "deeper" / "README.md").write_text("# A readme\n\nNo agent wrote this.\n")
    lines = _empty_after_reading(named, tmp_path)
    held = "2 .jsonl or .md files, none written by an agent memlens reads (Claude Code, Codex CLI, OpenClaw, SpecStory)"
    assert lines[1].startswith(f"{named.resolve()} holds {held}: ")


def test_a_named_folder_whose_transcripts_hold_no_message_says_so(tmp_path: Path) -> None:
    """A session an agent has only opened (Codex's first line names it, nothing was said yet) is a transcript."""
    named = tmp_path / "rollouts"
    named.mkdir()
    rollout = next((FIXTURES / "codex").rglob("*.jsonl")).read_text().splitlines()[0]
    (named / "rollout-2026-03-03T14-00-00-019c9f10-4b2a-7c11-8e3d-5a6b7c8d9e0f.jsonl").write_text(rollout + "\n")
    lines = _empty_after_reading(named, tmp_path)
    assert lines[1].startswith(f"the one transcript in {named.resolve()} holds no message yet: ")
