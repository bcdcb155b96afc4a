"""The project a command runs in when no `--workspace` names it: the nearest folder, from the current one up, that
holds `.memlens.json`, `.git` or a memory file (the default memory globs' top-level files), as git finds its root.
Without one, the current folder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memlens.settings.tree import DEFAULT_MEMORY_GLOBS

MARKERS: tuple[str, ...] = (".memlens.json", ".git", *(g for g in DEFAULT_MEMORY_GLOBS if "/" not in g))
"""What makes a folder a project, strongest first: memlens's own settings, a repository, an agent's memory file."""


@dataclass(frozen=True)
class ProjectRoot:
    """The folder a command used as its workspace and the reason it did."""

    path: Path
    reason: str


def find_root(start: Path) -> ProjectRoot:
    """The nearest folder at or above `start` holding one of MARKERS, else `start` itself."""
    here = start.resolve()
    for folder in (here, *here.parents):
        for marker in MARKERS:
            if (folder / marker).exists():
                where = "the current folder" if folder == here else "a parent of the current folder"
                return ProjectRoot(folder, f"{where} holds {marker}")
    return ProjectRoot(here, "just the current folder: no .memlens.json, .git or memory file in it or above it")
