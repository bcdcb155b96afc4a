"""Scope and exclusion: a session outside the scope, or excluded, answers exactly like one that does not exist,
in every command — even from an index that a `--scope all` run filled with every project's sessions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memlens.engine.engine import Engine
from memlens.engine.filters import SearchFilters
from memlens.errors import NotFound
from memlens.settings import Settings

MINE = "0197aaaa-0000-7000-8000-000000000001"
THEIRS = "0197bbbb-0000-7000-8000-000000000002"


def rollout(home: Path, session_id: str, cwd: Path, text: str, *, turns: int = 1) -> Path:
    path = home / ".codex" / "sessions" / "2026" / "03" / "01" / f"rollout-2026-03-01T10-00-00-{session_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        {"timestamp": "2026-03-01T10:00:00Z", "type": "session_meta", "payload": {"id": session_id, "cwd": str(cwd)}},
        {
            "timestamp": "2026-03-01T10:00:01Z",
            "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
        },
        {
            "timestamp": "2026-03-01T10:00:05Z",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": f"Noted: {text}"}],
            },
        },
        {
            "timestamp": "2026-03-01T10:00:09Z",
            "type": "compacted",
            "payload": {"message": f"Summary: the user asked about {text}"},
        },
    ]
    for turn in range(1, turns):
        lines.append({**lines[1], "timestamp": f"2026-03-01T10:0{turn}:00Z"})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.fixture
def home(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    workspace = tmp_path / "project"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "a.md").write_text("# Notes\n\nNothing about queues here, only the pager rota.\n")
    rollout(home, MINE, workspace, "the zanzibar queue backlog in this project")
    rollout(home, THEIRS, tmp_path / "elsewhere", "the zanzibar queue of another project", turns=3)
    return home, workspace


@pytest.fixture
def fake_home(home: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """In-process engines find the agents' default folders under this HOME."""
    monkeypatch.setenv("HOME", str(home[0]))
    return home


def run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "memlens", *args], capture_output=True, text=True, timeout=300, env=env
    )


@pytest.mark.slow  # indexes several projects
def test_other_projects_sessions_stay_out_of_a_workspace_scoped_answer(home: tuple[Path, Path], tmp_path: Path) -> None:
    home_dir, workspace = home
    where = ["--workspace", str(workspace), "--index-dir", str(tmp_path / "index"), "--no-embeddings"]
    assert run(home_dir, "index", "--scope", "all", *where).returncode == 0
    everything = json.loads(run(home_dir, "search", "zanzibar", "--scope", "all", "--no-sync", "--json", *where).stdout)
    assert {r["sessionId"] for r in everything["results"]} == {MINE, THEIRS}

    scoped = json.loads(run(home_dir, "search", "zanzibar", "--no-sync", "--json", *where).stdout)
    assert {r["sessionId"] for r in scoped["results"]} == {MINE}
    theirs = f"codex:{THEIRS}"
    hidden = run(home_dir, "history", theirs, *where)
    absent = run(home_dir, "history", "codex:no-such-session", *where)
    assert hidden.returncode == absent.returncode == 2
    assert hidden.stderr.replace(theirs, "KEY") == absent.stderr.replace("codex:no-such-session", "KEY")


def test_excluded_and_out_of_scope_sessions_answer_like_missing_ones(
    fake_home: tuple[Path, Path], tmp_path: Path
) -> None:
    _, workspace = fake_home
    settings = Settings()
    settings.scope = "all"
    with Engine([workspace], settings, index_dir=tmp_path / "index", embedder=False) as engine:
        engine.sync()
        summaries = engine.summaries_grep("zanzibar")["results"]
        assert len(summaries) == 2
        theirs = next(s for s in summaries if THEIRS in s["sessionKey"])
        engine.settings.scope = "workspace"
        engine.settings.exclude_sessions = [MINE]
        for key in (f"codex:{MINE}", f"codex:{THEIRS}"):
            with pytest.raises(NotFound) as caught:
                engine.history(key)
            assert str(caught.value) == f"unknown session {key!r}"
        with pytest.raises(NotFound, match="unknown summary"):
            engine.summaries_describe(theirs["summaryId"])
        assert engine.summaries_grep("zanzibar")["results"] == []
        assert engine.search("zanzibar", mode="keyword")["results"] == []
        assert engine.context("zanzibar queue")["items"] == []


def test_a_project_of_hidden_sessions_is_said_to_have_none(fake_home: tuple[Path, Path], tmp_path: Path) -> None:
    """A project filter whose sessions are all hidden gets the note a project no session worked in gets: its
    absence told that hidden sessions worked there."""
    _, workspace = fake_home
    settings = Settings()
    settings.scope = "all"
    with Engine([workspace], settings, index_dir=tmp_path / "index", embedder=False) as engine:
        engine.sync()
        assert "note" not in engine.sessions(project="elsewhere")
        engine.settings.exclude_sessions = [THEIRS]
        said = "no session worked in a folder named or under 'elsewhere'"
        assert engine.sessions(project="elsewhere")["note"] == said
        assert said in engine.search("zanzibar", mode="keyword", filters=SearchFilters(project="elsewhere"))["note"]
        assert "note" not in engine.sessions(project="project")


def test_an_error_never_names_a_hidden_session(fake_home: tuple[Path, Path], tmp_path: Path) -> None:
    _, workspace = fake_home
    settings = Settings()
    settings.scope = "all"
    with Engine([workspace], settings, index_dir=tmp_path / "index", embedder=False) as engine:
        engine.sync()
        only_theirs = engine.history(f"codex:{THEIRS}")["messages"][-1]["messageId"]
        with pytest.raises(NotFound, match=f"belongs to codex:{THEIRS}"):
            engine.history(f"codex:{MINE}", message_id=only_theirs)
        engine.settings.exclude_sessions = [THEIRS]
        with pytest.raises(NotFound) as caught:
            engine.history(f"codex:{MINE}", message_id=only_theirs)
        assert THEIRS not in str(caught.value) and "belongs" not in str(caught.value)


PARENT = "7e1d2c3b-4a5f-4e6d-8c7b-9a0b1c2d3e40"


def claude_lines(session_id: str, text: str, *, sidechain: bool = False) -> str:
    lines = []
    for n, role in enumerate(("user", "assistant")):
        message: dict[str, object] = {"role": role, "content": f"{text} ({role})"}
        if role == "assistant":
            message = {"id": f"msg_{text[:4]}", "role": role, "content": [{"type": "text", "text": f"{text} (a)"}]}
        lines.append(
            {
                "type": role,
                "sessionId": session_id,
                "uuid": f"{n}0000000-{abs(hash(text)) % 10000:04d}-4000-8000-000000000000",
                "parentUuid": None,
                "isSidechain": sidechain,
                "cwd": "/work/project",
                "timestamp": f"2026-03-01T10:00:0{n}Z",
                "message": message,
            }
        )
    return "".join(json.dumps(line) + "\n" for line in lines)


@pytest.mark.parametrize("excluded", [f"claude-code:{PARENT}", PARENT])
def test_excluding_a_session_excludes_its_subagents_and_sidecars(tmp_path: Path, excluded: str) -> None:
    """A subagent transcript and a second file of the same session (a sidecar) belong to the excluded session: no
    search hit, no listing, no history and no resume line names them or the excluded id."""
    transcripts = tmp_path / "transcripts" / "-work-project"
    (transcripts / PARENT / "subagents").mkdir(parents=True)
    (transcripts / f"{PARENT}.jsonl").write_text(claude_lines(PARENT, "the quokka migration plan"))
    (transcripts / PARENT / "subagents" / "agent-a1b2c3.jsonl").write_text(
        claude_lines(PARENT, "quokka subagent research notes", sidechain=True)
    )
    (transcripts / f"{PARENT}.compact.jsonl").write_text(claude_lines(PARENT, "quokka compaction sidecar"))
    settings = tmp_path / "settings.json"
    where = ["--transcripts", str(tmp_path / "transcripts"), "--index-dir", str(tmp_path / "index"), "--no-embeddings"]
    where += ["--scope", "all", "--settings", str(settings)]
    settings.write_text("{}")
    assert run(tmp_path, "index", *where).returncode == 0
    before = json.loads(run(tmp_path, "sessions", "--json", "--no-sync", *where).stdout)["sessions"]
    assert len(before) == 3, before  # the session, its subagent and its sidecar: all there to be hidden
    settings.write_text(json.dumps({"excludeSessions": [excluded]}))
    for args in (("search", "quokka", "--mode", "keyword", "--json"), ("sessions", "--json"), ("search", "quokka")):
        shown = run(tmp_path, *args, "--no-sync", *where)
        assert shown.returncode in (0, 1), shown.stderr
        for hidden_text in ("migration plan", "research notes", "compaction sidecar", PARENT):
            assert hidden_text not in shown.stdout, (args, shown.stdout)
    for session in before:
        hidden = run(tmp_path, "history", session["sessionKey"], "--no-sync", *where)
        assert hidden.returncode == 2 and "quokka" not in hidden.stdout, session["sessionKey"]
