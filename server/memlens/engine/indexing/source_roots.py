"""Which folders a command names, and which the index remembers: the rule that a command naming fewer folders than
the index was built from neither removes nor hides the others.

Discovery walks the folders a command names (its workspaces, `--transcripts`, `transcripts.paths`, the agents'
defaults); the index records each one (catalog `roots`). Every later sync walks the named folders and the remembered
ones (`widen`), so a search without `--transcripts`, or an editor whose settings lost a folder, keeps that folder's
files. Only `Engine.remove_source_folder` forgets one. Scope and excluded sessions still hide (visibility.py): an agent
folder remembered whole is walked whole but counts toward no scope root, so its other projects stay hidden.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from memlens.engine.catalog import RootRow
from memlens.engine.file_names import disk_path, stored_path
from memlens.engine.indexing.discovery import Locations
from memlens.settings import Settings

MEMORY = "memory"
TRANSCRIPTS = "transcripts"
AGENT = "agent"
WORKSPACE_ORIGIN = "workspace folder"
SPECSTORY_ORIGIN = "the workspace's SpecStory exports"
AGENT_ORIGIN = "agent default folder (memlens.transcripts.agentDefaults)"
EARLIER_ORIGIN = "an index built before memlens remembered its folders"
MEMORY_FOLDERS = ("memory", "bank")  # the default memory globs' folders: a note below one belongs to the folder above


@dataclass(frozen=True, slots=True)
class RootOrigins:
    """What the folders of one command are recorded as added from: its `--transcripts` flag and its settings."""

    flags: str = "memlens --transcripts"
    settings: str = "setting memlens.transcripts.paths"


def named_roots(
    locations: Locations,
    *,
    settings: Settings,
    extra_transcripts: Iterable[Path],
    origins: RootOrigins,
) -> list[RootRow]:
    """The folders `locations` (resolved from these settings and flags) names that exist, each with its kind and
    origin."""
    flagged = {Path(p) for p in extra_transcripts}
    configured = {_configured(p, w) for w in locations.workspaces for p in settings.transcripts.paths}
    roots = [RootRow(stored_path(w), MEMORY, True, WORKSPACE_ORIGIN) for w in locations.workspaces]
    for folder in locations.transcript_dirs:
        if folder in flagged:
            roots.append(RootRow(stored_path(folder), TRANSCRIPTS, True, origins.flags))
        elif folder in configured:
            roots.append(RootRow(stored_path(folder), TRANSCRIPTS, True, origins.settings))
        elif folder.parent.name == ".specstory" and folder.parent.parent in locations.workspaces:
            roots.append(RootRow(stored_path(folder), TRANSCRIPTS, True, SPECSTORY_ORIGIN))
        else:
            roots.append(RootRow(stored_path(folder), AGENT, True, AGENT_ORIGIN))
    roots += [RootRow(stored_path(f), AGENT, locations.scope_all, AGENT_ORIGIN) for f in locations.cwd_filtered_dirs]
    return [root for root in roots if os.path.isdir(disk_path(root.path))]


def _configured(path: str, workspace: Path) -> Path:
    """A `transcripts.paths` entry as discovery resolves it (resolve_locations)."""
    expanded = Path(path).expanduser()
    return (expanded if expanded.is_absolute() else workspace / expanded).resolve()


def widen(locations: Locations, remembered: Sequence[RootRow]) -> Locations:
    """`locations` plus the remembered folders it does not name: what a sync walks and a search may show."""
    workspaces = list(locations.workspaces)
    transcript_dirs = list(locations.transcript_dirs)
    filtered = list(locations.cwd_filtered_dirs)
    unscoped = list(locations.unscoped_dirs)
    for root in remembered:
        path = disk_path(root.path)
        if root.kind == MEMORY:
            if path not in workspaces:
                workspaces.append(path)
        elif root.kind == TRANSCRIPTS:
            if path not in transcript_dirs:
                transcript_dirs.append(path)
        elif root.whole or locations.scope_all:  # an agent folder once read whole: its other projects stay indexed
            if path in filtered:
                filtered.remove(path)
            if path not in transcript_dirs:
                transcript_dirs.append(path)
                unscoped.append(path)
        elif path not in filtered and path not in transcript_dirs:
            filtered.append(path)
    return Locations(
        workspaces=workspaces,
        transcript_dirs=transcript_dirs,
        cwd_filtered_dirs=filtered,
        scope_all=locations.scope_all,
        unscoped_dirs=unscoped,
    )


def unnamed(remembered: Sequence[RootRow], named: Sequence[RootRow]) -> list[RootRow]:
    """The remembered folders a command does not name, nor reads inside a folder it names: a transcript folder
    inside a workspace is not read by the workspace's memory globs, so it counts only under a transcript folder."""
    return [
        root
        for root in remembered
        if not any(_within(root.path, n.path) and (n.kind == MEMORY) == (root.kind == MEMORY) for n in named)
    ]


def inferred_roots(files: Mapping[str, str], named: Sequence[RootRow], home: Path) -> list[RootRow]:
    """For an index built before folders were remembered: a folder for each indexed file (path → kind) that no named
    folder holds, so the first sync after an upgrade keeps them. An agent's default folder where the file lies in
    one; else a memory note's workspace, or a transcript's folder (folders inside another one found are dropped)."""
    defaults = [home / ".claude" / "projects", home / ".codex" / "sessions", home / ".openclaw" / "agents"]
    found: dict[str, RootRow] = {}
    for path, kind in files.items():
        if any(_within(path, root.path) for root in named):
            continue
        default = next((d for d in defaults if _within(path, stored_path(d))), None)
        if default is not None:
            found[stored_path(default)] = RootRow(stored_path(default), AGENT, True, EARLIER_ORIGIN)
        elif kind == MEMORY:
            folder = stored_path(_memory_workspace(disk_path(path)))
            found[folder] = RootRow(folder, MEMORY, True, EARLIER_ORIGIN)
        else:
            folder = stored_path(disk_path(path).parent)
            found.setdefault(folder, RootRow(folder, TRANSCRIPTS, True, EARLIER_ORIGIN))
    transcripts = [r.path for r in found.values() if r.kind == TRANSCRIPTS]
    return [
        root
        for root in found.values()
        if root.kind != TRANSCRIPTS or not any(o != root.path and _within(root.path, o) for o in transcripts)
    ]


def _memory_workspace(note: Path) -> Path:
    """The workspace a memory note was found in: above its outermost memory/ or bank/ folder, else its folder."""
    for parent in reversed(note.parents):
        if parent.name in MEMORY_FOLDERS:
            return parent.parent
    return note.parent


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")
