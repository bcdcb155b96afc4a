"""Finds a workspace's memory notes and its agents' transcript files (configured folders and agent defaults)."""

from __future__ import annotations

import fnmatch
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from memlens.settings import Settings

MEMORY = "memory"
TRANSCRIPT = "transcript"
TRANSCRIPT_SUFFIXES = (".jsonl", ".md")


@dataclass(frozen=True, slots=True)
class SourceFile:
    path: Path
    kind: str  # memory | transcript
    root: Path  # the workspace folder or transcript folder it was found under


@dataclass
class Locations:
    """Where to look: workspace folders and transcript folders, already resolved to absolute paths."""

    workspaces: list[Path]
    transcript_dirs: list[Path] = field(default_factory=list)
    # agent default folders filtered by the session's cwd (scope = workspace) unless scope_all
    cwd_filtered_dirs: list[Path] = field(default_factory=list)
    scope_all: bool = False


def claude_project_dir(home: Path, workspace: Path) -> Path:
    """Claude Code's folder for a workspace: the absolute path with `/` and `.` replaced by `-`."""
    return home / ".claude" / "projects" / re.sub(r"[/.]", "-", str(workspace))


def resolve_locations(
    workspaces: Iterable[Path],
    settings: Settings,
    extra_transcripts: Iterable[Path] = (),
    home: Path | None = None,
) -> Locations:
    workspaces = [Path(w).expanduser().resolve() for w in workspaces]
    home = home or Path.home()
    locations = Locations(workspaces=workspaces, scope_all=settings.scope == "all")
    dirs: list[Path] = [Path(p).expanduser().resolve() for p in extra_transcripts]
    for workspace in workspaces:
        for configured in settings.transcripts.paths:
            path = Path(configured).expanduser()
            dirs.append((path if path.is_absolute() else workspace / path).resolve())
        if settings.transcripts.agent_defaults:
            dirs.append(workspace / ".specstory" / "history")
            if not locations.scope_all:
                dirs.append(claude_project_dir(home, workspace))
    if settings.transcripts.agent_defaults:
        if locations.scope_all:
            dirs.append(home / ".claude" / "projects")
        locations.cwd_filtered_dirs = [home / ".codex" / "sessions", home / ".openclaw" / "agents"]
    locations.transcript_dirs = list(dict.fromkeys(dirs))
    return locations


def _excluded(path: Path, roots: Iterable[Path], patterns: list[str]) -> bool:
    if not patterns:
        return False
    candidates = [str(path)]
    for root in roots:
        try:
            candidates.append(str(path.relative_to(root)))
        except ValueError:
            continue
    return any(fnmatch.fnmatch(c, p) for c in candidates for p in patterns)


def _walk(folder: Path) -> Iterator[Path]:
    """Every transcript-like file below `folder`, following no symlinked folders, skipping unreadable ones."""
    for dirpath, dirnames, filenames in os.walk(folder, onerror=lambda _: None):
        dirnames[:] = [d for d in dirnames if d not in {"node_modules", ".git"}]
        for name in filenames:
            if name.endswith(TRANSCRIPT_SUFFIXES):
                yield Path(dirpath) / name


def read_session_cwd(path: Path) -> str | None:
    """The cwd a Codex rollout or OpenClaw session records in its first lines, if any."""
    try:
        with path.open("rb") as handle:
            for _ in range(5):
                line = handle.readline(1 << 20)
                if not line:
                    break
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(entry, dict):
                    continue
                payload = entry.get("payload") if isinstance(entry.get("payload"), dict) else entry
                cwd = payload.get("cwd") if isinstance(payload, dict) else None
                if isinstance(cwd, str):
                    return cwd
    except OSError:
        return None
    return None


def _within(cwd: str, workspaces: list[Path]) -> bool:
    path = Path(cwd)
    return any(path == w or w in path.parents for w in workspaces)


def discover(
    locations: Locations, settings: Settings, known_cwd: Callable[[Path], str | None] | None = None
) -> list[SourceFile]:
    """All memory and transcript files to index, each once, in a stable order."""
    found: dict[Path, SourceFile] = {}
    memory = settings.memory
    for workspace in locations.workspaces:
        for pattern in [*memory.include, *memory.extra_include]:
            for path in sorted(workspace.glob(pattern), key=os.fspath):
                if path.is_file() and not _excluded(path, [workspace], memory.exclude):
                    found.setdefault(path, SourceFile(path, MEMORY, workspace))
    exclude = settings.transcripts.exclude
    for folder in locations.transcript_dirs:
        if folder.is_dir():
            for path in sorted(_walk(folder), key=os.fspath):
                if path not in found and not _excluded(path, [folder, *locations.workspaces], exclude):
                    found[path] = SourceFile(path, TRANSCRIPT, folder)
    for folder in locations.cwd_filtered_dirs:
        if not folder.is_dir():
            continue
        for path in sorted(_walk(folder), key=os.fspath):
            if path in found or path.suffix != ".jsonl" or _excluded(path, [folder], exclude):
                continue
            if not locations.scope_all:
                cwd = (known_cwd(path) if known_cwd else None) or read_session_cwd(path)
                if cwd is None or not _within(cwd, locations.workspaces):
                    continue
            found[path] = SourceFile(path, TRANSCRIPT, folder)
    return list(found.values())


def classify(
    path: Path, locations: Locations, settings: Settings, known_cwd: Callable[[Path], str | None] | None = None
) -> SourceFile | None:
    """The source a single changed path is, if `discover` would list it — without walking any folder."""
    if not path.is_file():
        return None
    memory = settings.memory
    for workspace in locations.workspaces:
        try:
            relative = path.relative_to(workspace)
        except ValueError:
            continue
        patterns = [*memory.include, *memory.extra_include]
        if any(_glob_match(relative, pattern) for pattern in patterns) and not _excluded(
            path, [workspace], memory.exclude
        ):
            return SourceFile(path, MEMORY, workspace)
    if not path.name.endswith(TRANSCRIPT_SUFFIXES) or any(part in {"node_modules", ".git"} for part in path.parts):
        return None
    exclude = settings.transcripts.exclude
    for folder in locations.transcript_dirs:
        if folder in path.parents and not _excluded(path, [folder, *locations.workspaces], exclude):
            return SourceFile(path, TRANSCRIPT, folder)
    for folder in locations.cwd_filtered_dirs:
        if folder in path.parents and path.suffix == ".jsonl" and not _excluded(path, [folder], exclude):
            if not locations.scope_all:
                cwd = (known_cwd(path) if known_cwd else None) or read_session_cwd(path)
                if cwd is None or not _within(cwd, locations.workspaces):
                    return None
            return SourceFile(path, TRANSCRIPT, folder)
    return None


def _glob_match(relative: Path, pattern: str) -> bool:
    """`Path.glob` semantics for one path: `*` stays within a folder, `**/` spans any folders, or none."""
    regex = ""
    for part in pattern.split("/"):
        if part == "**":
            regex += "(?:[^/]+/)*"
            continue
        regex += "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in part) + "/"
    return re.fullmatch(regex.rstrip("/"), relative.as_posix()) is not None
