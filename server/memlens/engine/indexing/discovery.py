"""Finds a workspace's memory notes and its agents' transcript files (configured folders and agent defaults).

Discovery never leaves the folder it searches through a symlink: a symlinked file or folder is followed only when
its target lies inside that workspace or transcript folder, unless `followExternalSymlinks` allows it. Every real
folder is walked once, so a symlink loop ends.
"""

from __future__ import annotations

import fnmatch
import functools
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
PRUNED = frozenset({"node_modules", ".git"})


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
    # transcript folders walked whole that count toward no scope root: an agent folder the index remembers from a
    # `scope: all` run (source_roots.widen); scope hides its other projects' sessions by their cwd
    unscoped_dirs: list[Path] = field(default_factory=list)


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
        # the workspace's own SpecStory exports are part of the workspace, not an agent's default folder:
        # `transcripts.agentDefaults: false` keeps them (it only drops the folders in the home directory)
        dirs.append(workspace / ".specstory" / "history")
        if settings.transcripts.agent_defaults and not locations.scope_all:
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


class _Root:
    """A folder that discovery does not leave through a symlink (unless external symlinks are allowed)."""

    def __init__(self, path: Path, follow_external: bool) -> None:
        self.path = path
        self.follow_external = follow_external
        self.real = os.path.realpath(path)
        self._prefix = self.real.rstrip(os.sep) + os.sep

    def holds(self, real: str) -> bool:
        return self.follow_external or real == self.real or real.startswith(self._prefix)

    def admits(self, path: str | Path) -> bool:
        """Whether `path`, all symlinks followed, stays inside this root."""
        if self.follow_external:
            return True
        try:
            return self.holds(os.path.realpath(path))
        except (OSError, ValueError):
            return False


def _walk(root: _Root, start: Path, max_depth: int | None = None, prune: frozenset[str] = PRUNED) -> Iterator[str]:
    """Every file below `start` (a folder inside `root`), as a path string, skipping unreadable folders.

    A symlinked file or folder is taken only when `root` admits its target; each real folder is listed once (a
    symlink loop or a second link to the same folder adds nothing). `max_depth` bounds how many folders deep it goes.
    Strings, not `Path`s: at 10,000 files, building a `Path` per entry was most of a warm start's discovery.
    """
    if not root.admits(start):
        return
    seen: set[tuple[int, int]] = set()
    stack: list[tuple[str, int]] = [(os.fspath(start), 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            info = os.stat(folder)
            if (info.st_dev, info.st_ino) in seen:
                continue
            seen.add((info.st_dev, info.st_ino))
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except (OSError, ValueError):
            continue
        folders: list[str] = []
        for entry in entries:
            try:
                linked = entry.is_symlink()
                if entry.is_dir():
                    deeper = max_depth is None or depth < max_depth
                    if deeper and entry.name not in prune and (not linked or root.admits(entry.path)):
                        folders.append(entry.path)
                elif entry.is_file() and (not linked or root.admits(entry.path)):
                    yield entry.path
            except OSError:
                continue
        stack.extend((f, depth + 1) for f in reversed(folders))


def _memory_files(root: _Root, pattern: str) -> Iterator[Path]:
    """The files of `root` (a workspace folder) matching one memory glob, walking only below its literal prefix."""
    parts = _pattern_parts(pattern)
    literal = 0
    while literal < len(parts) and not any(c in parts[literal] for c in "*?["):
        literal += 1
    start = root.path.joinpath(*parts[:literal])
    if literal == len(parts):  # a plain path such as MEMORY.md
        if parts and start.is_file() and root.admits(start):
            yield start
        return
    rest = parts[literal:]
    max_depth = None if "**" in rest else len(rest) - 1
    matches = _glob_regex("/".join(parts)).fullmatch
    prefix = len(os.fspath(root.path).rstrip(os.sep)) + 1  # every walked path starts with the root's
    for path in _walk(root, start, max_depth, prune=frozenset()):
        if matches(path[prefix:].replace(os.sep, "/")):
            yield Path(path)


def read_session_cwd(path: Path) -> str | None:
    """The cwd a Codex rollout or OpenClaw session records in its first lines, if any."""
    try:
        with path.open("rb") as handle:
            for _ in range(5):
                line = handle.readline(1 << 20)
                if not line:
                    break
                try:  # as the parsers read it: odd bytes in some other field must not hide the cwd
                    entry = json.loads(line.decode("utf-8", errors="replace"), strict=False)
                except (ValueError, RecursionError):
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
    follow = settings.follow_external_symlinks
    for workspace in locations.workspaces:
        root = _Root(workspace, follow)
        for pattern in [*memory.include, *memory.extra_include]:
            for path in sorted(_memory_files(root, pattern), key=os.fspath):
                if not _excluded(path, [workspace], memory.exclude):
                    found.setdefault(path, SourceFile(path, MEMORY, workspace))
    exclude = settings.transcripts.exclude
    for folder in locations.transcript_dirs:
        if folder.is_dir():
            for path in sorted(_transcript_files(_Root(folder, follow)), key=os.fspath):
                if path not in found and not _excluded(path, [folder, *locations.workspaces], exclude):
                    found[path] = SourceFile(path, TRANSCRIPT, folder)
    for folder in locations.cwd_filtered_dirs:
        if not folder.is_dir():
            continue
        for path in sorted(_transcript_files(_Root(folder, follow)), key=os.fspath):
            if path in found or path.suffix != ".jsonl" or _excluded(path, [folder], exclude):
                continue
            if not locations.scope_all:
                cwd = (known_cwd(path) if known_cwd else None) or read_session_cwd(path)
                if cwd is None or not _within(cwd, locations.workspaces):
                    continue
            found[path] = SourceFile(path, TRANSCRIPT, folder)
    return list(found.values())


def _transcript_files(root: _Root) -> Iterator[Path]:
    return (Path(path) for path in _walk(root, root.path) if path.endswith(TRANSCRIPT_SUFFIXES))


def classify(
    path: Path, locations: Locations, settings: Settings, known_cwd: Callable[[Path], str | None] | None = None
) -> SourceFile | None:
    """The source a single changed path is, if `discover` would list it — without walking any folder."""
    if not path.is_file():
        return None
    memory = settings.memory
    follow = settings.follow_external_symlinks
    for workspace in locations.workspaces:
        try:
            relative = path.relative_to(workspace)
        except ValueError:
            continue
        patterns = [*memory.include, *memory.extra_include]
        if (
            any(_glob_match(relative, pattern) for pattern in patterns)
            and not _excluded(path, [workspace], memory.exclude)
            and _Root(workspace, follow).admits(path)
        ):
            return SourceFile(path, MEMORY, workspace)
    if not path.name.endswith(TRANSCRIPT_SUFFIXES) or any(part in PRUNED for part in path.parts):
        return None
    exclude = settings.transcripts.exclude
    for folder in locations.transcript_dirs:
        if folder in path.parents and not _excluded(path, [folder, *locations.workspaces], exclude):
            return SourceFile(path, TRANSCRIPT, folder) if _Root(folder, follow).admits(path) else None
    for folder in locations.cwd_filtered_dirs:
        if folder in path.parents and path.suffix == ".jsonl" and not _excluded(path, [folder], exclude):
            if not _Root(folder, follow).admits(path):
                return None
            if not locations.scope_all:
                cwd = (known_cwd(path) if known_cwd else None) or read_session_cwd(path)
                if cwd is None or not _within(cwd, locations.workspaces):
                    return None
            return SourceFile(path, TRANSCRIPT, folder)
    return None


def _pattern_parts(pattern: str) -> list[str]:
    return [p for p in pattern.replace("\\", "/").split("/") if p not in ("", ".")]


def _glob_match(relative: Path, pattern: str) -> bool:
    """`Path.glob` semantics for one path: `*` stays within a folder, `**/` spans any folders, or none; `?` and
    `[...]` match one character."""
    return _glob_regex(pattern).fullmatch(relative.as_posix()) is not None


@functools.lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """`pattern` as a regex over '/'-separated relative paths (see `_glob_match`), compiled once."""
    regex = ""
    for part in _pattern_parts(pattern):
        if part == "**":
            regex += "(?:[^/]+/)*"
            continue
        regex += _part_regex(part) + "/"
    return re.compile(regex.rstrip("/"))


def _part_regex(part: str) -> str:
    out, i = "", 0
    while i < len(part):
        c = part[i]
        close = part.find("]", i + 2) if c == "[" else -1
        if c == "*":
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif close > 0:
            body = part[i + 1 : close]
            negate = body.startswith("!")
            body = re.escape(body[1:] if negate else body).replace("\\-", "-")
            out += f"[{'^/' if negate else ''}{body}]"
            i = close
        else:
            out += re.escape(c)
        i += 1
    return out
