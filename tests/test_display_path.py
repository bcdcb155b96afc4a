"""A result's `relPath`: the string-prefix test gives what pathlib's `relative_to` gives, on every kind of case."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest

from memlens.engine.answers import results
from memlens.engine.answers.results import display_path

CASES = [
    ("/work/ws/MEMORY.md", "/work/ws"),
    ("/work/ws/memory/2026-03-30.md", "/work/ws"),
    ("/work/ws", "/work/ws"),  # the folder itself
    ("/work/ws-other/MEMORY.md", "/work/ws"),  # a sibling sharing the folder's name as a prefix
    ("/work/wsx", "/work/ws"),
    ("/work/MEMORY.md", "/work/ws"),  # above it
    ("/etc/passwd", "/"),  # the root folder, which already ends with a separator
    ("/", "/"),
    ("/home/u/.claude/projects/p/s.jsonl", "/home/u"),
]


def _pathlib(path: str, folder: str) -> str | None:
    try:
        return PurePosixPath(path).relative_to(folder).as_posix()
    except ValueError:
        return None


@pytest.mark.parametrize(("path", "folder"), CASES)
def test_relative_agrees_with_pathlib(path: str, folder: str) -> None:
    assert results._relative(path, folder) == _pathlib(path, folder)


def test_display_path_workspace_home_and_elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    results._display_path.cache_clear()
    one, two = tmp_path / "one", tmp_path / "two"
    assert display_path(str(one / "memory" / "a.md"), [one]) == "memory/a.md"
    # with several workspace folders the folder's name leads
    assert display_path(str(two / "MEMORY.md"), [one, two]) == "two/MEMORY.md"
    assert display_path(str(home / ".claude" / "s.jsonl"), [one]) == "~/.claude/s.jsonl"
    assert display_path(str(tmp_path / "elsewhere.md"), [one]) == str(tmp_path / "elsewhere.md")
    assert display_path(str(tmp_path / "one-more" / "x.md"), [one]) == str(tmp_path / "one-more" / "x.md")


def test_the_home_folder_is_read_again_when_home_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The home folder is worked out once per value of $HOME, not once per process."""
    for name in ("first", "second"):
        home = tmp_path / name
        monkeypatch.setenv("HOME", str(home))
        results._display_path.cache_clear()  # the paths' own cache: each path is new here anyway
        assert display_path(str(home / "notes.md"), []) == "~/notes.md"
