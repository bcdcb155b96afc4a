"""Engine.visibility() (visibility.py) is worked out once and reused (resolving the folders cost every search a
third of a millisecond): the reuse must never outlive what it was worked out from. A setting changed in place or
replaced, a newly excluded session and another home folder all take effect at the next request."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memlens.engine.engine import Engine
from memlens.settings import Settings
from test_scope import MINE, THEIRS, rollout


def sessions_found(engine: Engine, query: str) -> set[str]:
    return {key for r in engine.search(query, mode="keyword")["results"] if (key := r.get("sessionKey"))}


@pytest.fixture
def engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    """Two Codex sessions under a fake HOME: MINE ran in the workspace, THEIRS elsewhere; every project in scope."""
    home, workspace = tmp_path / "home", tmp_path / "project"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "a.md").write_text("# Notes\n\nNothing about queues here, only the pager rota.\n")
    rollout(home, MINE, workspace, "the zanzibar queue backlog in this project")
    rollout(home, THEIRS, tmp_path / "elsewhere", "the zanzibar queue of another project")
    monkeypatch.setenv("HOME", str(home))
    settings = Settings()
    settings.scope = "all"
    with Engine([workspace], settings, index_dir=tmp_path / "index", embedder=False) as engine:
        engine.sync()
        yield engine


def test_visibility_is_reused_while_nothing_changes(engine: Engine) -> None:
    assert engine.visibility() is engine.visibility()


def test_a_newly_excluded_session_is_hidden_at_the_next_search(engine: Engine) -> None:
    assert sessions_found(engine, "zanzibar") == {f"codex:{MINE}", f"codex:{THEIRS}"}
    engine.settings.exclude_sessions.append(MINE)  # changed in place
    assert sessions_found(engine, "zanzibar") == {f"codex:{THEIRS}"}
    engine.settings.exclude_sessions = [THEIRS]  # replaced
    assert sessions_found(engine, "zanzibar") == {f"codex:{MINE}"}
    engine.settings.exclude_sessions = []
    assert sessions_found(engine, "zanzibar") == {f"codex:{MINE}", f"codex:{THEIRS}"}


def test_query_settings_applied_later_take_effect(engine: Engine) -> None:
    sessions_found(engine, "zanzibar")
    changed = Settings()
    changed.exclude_sessions = [THEIRS]
    engine.apply_query_settings(changed)
    assert sessions_found(engine, "zanzibar") == {f"codex:{MINE}"}


def test_the_scope_and_exclude_globs_take_effect(engine: Engine) -> None:
    sessions_found(engine, "zanzibar")
    engine.settings.scope = "workspace"  # THEIRS ran in another project
    assert sessions_found(engine, "zanzibar") == {f"codex:{MINE}"}
    engine.settings.scope = "all"
    engine.settings.transcripts.exclude.append("*/.codex/*")
    assert sessions_found(engine, "zanzibar") == set()


def test_another_home_folder_moves_the_agent_folders(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine.settings.scope = "workspace"
    before = engine.visibility().scope_roots or ()
    assert any(root.startswith(str(tmp_path / "home")) for root in before)
    monkeypatch.setenv("HOME", str(tmp_path / "other-home"))
    after = engine.visibility().scope_roots or ()
    assert any(root.startswith(str(tmp_path / "other-home")) for root in after)
    assert not any(root.startswith(str(tmp_path / "home")) for root in after)
