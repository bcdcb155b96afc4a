"""`transcripts.agentDefaults: false` drops the agents' folders in the home directory, never the workspace's own
SpecStory exports (`<workspace>/.specstory/history`)."""

from __future__ import annotations

from pathlib import Path

from memlens.engine.indexing.discovery import claude_project_dir, resolve_locations
from memlens.settings import Settings, merge


def _settings(agent_defaults: bool) -> Settings:
    warnings: list[str] = []
    result = merge(Settings(), {"transcripts": {"agentDefaults": agent_defaults}}, warnings)
    assert not warnings
    return result


def test_agent_defaults_off_keeps_the_workspace_specstory(tmp_path: Path) -> None:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    locations = resolve_locations([workspace], _settings(False), home=home)
    assert workspace.resolve() / ".specstory" / "history" in locations.transcript_dirs
    assert claude_project_dir(home, workspace.resolve()) not in locations.transcript_dirs
    assert locations.cwd_filtered_dirs == []


def test_agent_defaults_on_reads_the_home_folders_too(tmp_path: Path) -> None:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    locations = resolve_locations([workspace], _settings(True), home=home)
    assert workspace.resolve() / ".specstory" / "history" in locations.transcript_dirs
    assert claude_project_dir(home, workspace.resolve()) in locations.transcript_dirs
    assert home / ".codex" / "sessions" in locations.cwd_filtered_dirs
