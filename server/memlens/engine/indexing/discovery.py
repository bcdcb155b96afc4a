"""Finds a workspace's memory notes and its agents' transcript files (configured folders and agent defaults).

Discovery never leaves the folder it searches through a symlink: a symlinked file or folder is followed only when
its target lies inside that workspace or transcript folder, unless `followExternalSymlinks` allows it. Every real
folder is walked once, so a symlink loop ends.
"""

from __future__ import annotations

import errno
import fnmatch
import functools
import operator
import os
import re
import stat as file_mode
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from memlens.engine.collection_pause import collection_paused
from memlens.engine.sources.common import head_objects
from memlens.settings import Settings

MEMORY = "memory"
TRANSCRIPT = "transcript"
TRANSCRIPT_SUFFIXES = (".jsonl", ".md")
# a JSONL transcript's rotated names: `session.jsonl` renamed (or copied and truncated) while a new one starts, by an
# editor (`~`), logrotate (`.1`, `.2`) or a hand (`.bak`, `.old`); what they hold is the session's earlier messages,
# lost with the file if the walk passed them by
ROTATED_JSONL = re.compile(r"[^/]\.jsonl(?:~|\.[0-9]{1,3}|\.bak|\.old)\Z")
PRUNED = frozenset({"node_modules", ".git"})


class SourceFile:
    """A file to index: its name as discovery found it (a string, `str` of its `Path`), its kind, and the folder it
    was found under. The `Path` is made only when asked for: a sync where nothing changed compares names and stats
    alone, and building a `Path` per file was most of its discovery. A folder the walk could not list, and a name
    it found but will not read (a FIFO, a socket, a link to nothing), is a source too, with the `problem` that kept
    it from being read: a sync reports it among the files not indexed."""

    __slots__ = ("_path", "kind", "name", "problem", "root", "stat")

    def __init__(self, path: str | os.PathLike[str], kind: str, root: Path) -> None:
        self._path: Path | None = path if isinstance(path, Path) else Path(path)
        self.name = os.fspath(self._path)
        self.kind = kind  # memory | transcript
        self.root = root  # the workspace folder or transcript folder it was found under
        self.stat: os.stat_result | None = None  # what the walk that found it saw, if it looked
        self.problem: str | None = None  # why the walk could not list this folder or read this name (None: a file)

    @classmethod
    def named(
        cls, name: str, kind: str, root: Path, stat: os.stat_result | None = None, problem: str | None = None
    ) -> SourceFile:
        """A source from a name that is already a `Path`'s string (what `_walk` yields), without building the
        `Path`; `stat`: the file's, as its walk took it; `problem`: why the walk could not list this folder or read
        this name."""
        source = cls.__new__(cls)
        source.name, source.kind, source.root, source._path, source.stat = name, kind, root, None, stat
        source.problem = problem
        return source

    @property
    def path(self) -> Path:
        if self._path is None:
            self._path = Path(self.name)
        return self._path

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SourceFile):
            return NotImplemented
        return (self.name, self.kind, self.root) == (other.name, other.kind, other.root)

    def __hash__(self) -> int:
        return hash((self.name, self.kind, self.root))

    def __repr__(self) -> str:
        return f"SourceFile({self.name!r}, {self.kind!r}, {self.root!r})"


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


def _excluded(path: str, roots: Iterable[Path], patterns: list[str]) -> bool:
    """Whether an exclude pattern matches `path` (a `Path`'s string) or its path relative to one of `roots`."""
    if not patterns:
        return False
    candidates = [path]
    for root in roots:
        relative = _relative(path, os.fspath(root))
        if relative is not None:
            candidates.append(relative)
    return any(fnmatch.fnmatch(c, p) for c in candidates for p in patterns)


def _relative(path: str, root: str) -> str | None:
    """`str(Path(path).relative_to(root))` for two `Path` strings (`root` absolute), or None where that raises:
    `Path`s are not built for every file of a walk."""
    if path == root:
        return "."
    prefix = root if root.endswith(os.sep) else root + os.sep
    return path[len(prefix) :] if path.startswith(prefix) else None


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


# A folder's listing and its files' stats are read through the folder's descriptor where the platform allows it:
# each stat then resolves one name instead of the whole path.
_LIST_BY_DESCRIPTOR = os.scandir in os.supports_fd

Found = tuple[str, "os.stat_result | None"]  # a file's name, and its stat (None: stat failed; asked again later)
# the folders a walk could not list (their files were not found) and the names it could not read, each with why
Unlisted = list[tuple[str, str]]
# a folder gone between its parent's listing and its own: nothing to report
_VANISHED = frozenset({errno.ENOENT, errno.ENOTDIR})
_name = operator.itemgetter(0)  # a Found's name (C-level keys: a sort of 70,000 names calls them for each)


def _walk(
    root: _Root,
    start: Path,
    keep: Callable[[str], bool],
    max_depth: int | None = None,
    prune: frozenset[str] = PRUNED,
    unlisted: Unlisted | None = None,
) -> Iterator[Found]:
    """Every file below `start` (a folder inside `root`) that `keep` takes by its name, as a path string with its
    stat, in no set order (the callers sort); a folder it cannot list, and a name `keep` takes that is no regular
    file (a FIFO, a socket, a device, a symbolic link to nothing or in a loop) or that it cannot stat, is added to
    `unlisted` with why: the sync records it and `stats` lists it, and no such name is ever opened.

    A symlinked file or folder is taken only when `root` admits its target; each real folder is listed once (a
    symlink loop or a second link to the same folder adds nothing). `max_depth` bounds how many folders deep it goes.
    Strings, not `Path`s: at 10,000 files, building a `Path` per entry was most of a warm start's discovery. The
    stat is the one a sync compares with the file's row: taken here, while the folder is open, it is taken once.
    """
    if not root.admits(start):
        return
    seen: set[tuple[int, int]] = set()
    stack: list[tuple[str, int]] = [(os.fspath(start), 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            listed = _listing(folder, seen)
        except (OSError, ValueError) as exc:
            if unlisted is not None and getattr(exc, "errno", None) not in _VANISHED:
                unlisted.append((folder, _why_unlisted(folder, exc)))
            continue
        if listed is None:
            continue
        entries, descriptor = listed
        try:
            prefix = folder.rstrip(os.sep) + os.sep
            folders: list[str] = []
            for entry in entries:
                path = prefix + entry.name
                try:
                    if entry.is_file(follow_symlinks=False):  # most entries: a plain file, by its listed type alone
                        if keep(path):
                            yield from _found(path, entry, unlisted)
                        continue
                    linked = entry.is_symlink()
                    if entry.is_dir():
                        deeper = max_depth is None or depth < max_depth
                        if deeper and entry.name not in prune and (not linked or root.admits(path)):
                            folders.append(path)
                    elif entry.is_file() and keep(path) and (not linked or root.admits(path)):
                        yield from _found(path, entry, unlisted)
                    elif unlisted is not None and keep(path) and (not linked or root.admits(path)):
                        why = _why_not_a_file(path, linked=linked)
                        if why is not None:
                            unlisted.append((path, why))
                except OSError as exc:  # ELOOP: a symbolic link in a loop (the entry's type alone says only ENOENT)
                    if unlisted is not None and exc.errno == errno.ELOOP and keep(path):
                        unlisted.append((path, _LOOP))
                    continue
        finally:
            if descriptor is not None:
                os.close(descriptor)
        stack.extend((f, depth + 1) for f in sorted(folders, reverse=True))  # the first by name is walked first


def _listing(folder: str, seen: set[tuple[int, int]]) -> tuple[list[os.DirEntry[str]], int | None] | None:
    """`folder`'s entries as listed (what `_walk` finds is sorted by its callers), and the descriptor they were
    listed through (the caller closes it); None when that real folder was listed already."""
    if not _LIST_BY_DESCRIPTOR:
        info = os.stat(folder)
        if (info.st_dev, info.st_ino) in seen:
            return None
        seen.add((info.st_dev, info.st_ino))
        with os.scandir(folder) as listing:
            return list(listing), None
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        info = os.fstat(descriptor)
        if (info.st_dev, info.st_ino) in seen:
            os.close(descriptor)
            return None
        seen.add((info.st_dev, info.st_ino))
        with os.scandir(descriptor) as listing:
            return list(listing), descriptor
    except BaseException:
        os.close(descriptor)
        raise


def _why_unlisted(folder: str, exc: OSError | ValueError) -> str:
    """What a sync reports of a folder it could not list: the files below it are not indexed."""
    if isinstance(exc, OSError) and exc.errno == errno.ENAMETOOLONG:
        longest = max(len(os.fsencode(part)) for part in folder.split(os.sep))
        size = f"a name of {longest:,} bytes" if longest > 255 else f"{len(os.fsencode(folder)):,} bytes"
        return f"not indexed: the folder's path is too long for the system to open ({size}); files below it unread"
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return f"not indexed: cannot list the folder ({reason}); files below it unread"


def _found(path: str, entry: os.DirEntry[str], unlisted: Unlisted | None) -> Iterator[Found]:
    """A file the walk keeps, with its stat; one it cannot stat for a reason that will last (a folder this user may
    list but not enter) goes to `unlisted` with why, so the index records it and `stats` lists it."""
    try:
        yield path, entry.stat()
    except OSError as exc:
        if unlisted is None or exc.errno in _VANISHED:
            yield path, None  # stat_all asks again, and says why it cannot read the file
        elif exc.errno == errno.EACCES:
            unlisted.append((path, "cannot read: permission denied (its folder may be listed but not entered)"))
        else:
            unlisted.append((path, f"cannot read: {exc.strerror or exc}"))


# what a name the walk would take may be instead of a regular file: never opened (a FIFO's open waits for a writer)
_NOT_FILES = {
    file_mode.S_IFIFO: "a named pipe (FIFO)",
    file_mode.S_IFSOCK: "a socket",
    file_mode.S_IFCHR: "a character device",
    file_mode.S_IFBLK: "a block device",
}


_LOOP = "not indexed: a symbolic link in a loop of links"


def _why_not_a_file(path: str, *, linked: bool) -> str | None:
    """Why a name the walk would take by its name is not read: not a regular file, or a symbolic link that reaches
    none; None when it is gone."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if linked and exc.errno == errno.ELOOP:
            return _LOOP
        if linked and exc.errno == errno.ENOENT:
            return "not indexed: a symbolic link to a file that does not exist"
        return None
    kind = not_a_file(mode)
    return None if kind is None else f"not indexed: {kind}, not a regular file"


def not_a_file(mode: int) -> str | None:
    """What a file of this `st_mode` is when it is a FIFO, a socket or a device (None: anything else)."""
    return _NOT_FILES.get(file_mode.S_IFMT(mode))


def _memory_files(root: _Root, pattern: str, unlisted: Unlisted | None = None) -> Iterator[Found]:
    """The files of `root` (a workspace folder) matching one memory glob, walking only below its literal prefix."""
    parts = _pattern_parts(pattern)
    literal = 0
    while literal < len(parts) and not any(c in parts[literal] for c in "*?["):
        literal += 1
    start = root.path.joinpath(*parts[:literal])
    if literal == len(parts):  # a plain path such as MEMORY.md
        if parts and start.is_file() and root.admits(start):
            yield os.fspath(start), None
        elif parts and unlisted is not None and root.admits(start):
            why = _why_not_a_file(os.fspath(start), linked=start.is_symlink())
            if why is not None:
                unlisted.append((os.fspath(start), why))
        return
    rest = parts[literal:]
    max_depth = None if "**" in rest else len(rest) - 1
    matches = _glob_regex("/".join(parts)).fullmatch
    prefix = len(os.fspath(root.path).rstrip(os.sep)) + 1  # every walked path starts with the root's
    if os.sep == "/":  # matched in place, from the root's end: no copy of each of tens of thousands of names
        yield from _walk(root, start, lambda path: matches(path, prefix) is not None, max_depth, frozenset(), unlisted)
    else:
        keep = lambda path: matches(path[prefix:].replace(os.sep, "/")) is not None  # noqa: E731
        yield from _walk(root, start, keep, max_depth, frozenset(), unlisted)


def read_session_cwd(path: str | os.PathLike[str]) -> str | None:
    """The cwd a Codex rollout or OpenClaw session records in its first lines, if any."""
    try:
        with open(path, "rb") as handle:
            for _ in range(5):
                line = handle.readline(1 << 20)
                if not line:
                    break
                # as the parsers read it: odd bytes in some other field, a record a crashed writer left before the
                # header on its line (`{…}{"type":"session",…}`) or torn bytes before it must not hide the cwd
                for entry in head_objects([line.decode("utf-8", errors="replace")]):
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
    locations: Locations, settings: Settings, known_cwd: Callable[[str], str | None] | None = None
) -> list[SourceFile]:
    """All memory and transcript files to index, each once, in a stable order. Names stay strings here: below the
    absolute folders of `locations` (as resolve_locations and source_roots.widen make them) each name `_walk` yields
    is its `Path`'s string, so comparing and sorting them is comparing and sorting `Path`s. `known_cwd` is asked
    with one."""
    with collection_paused():
        return _discover(locations, settings, known_cwd)


def _discover(
    locations: Locations, settings: Settings, known_cwd: Callable[[str], str | None] | None
) -> list[SourceFile]:
    found: dict[str, SourceFile] = {}
    memory = settings.memory
    follow = settings.follow_external_symlinks
    for workspace in locations.workspaces:
        root = _Root(workspace, follow)
        for pattern in [*memory.include, *memory.extra_include]:
            unlisted: Unlisted = []
            for name, stat in sorted(_memory_files(root, pattern, unlisted), key=_name):
                if name not in found and not (memory.exclude and _excluded(name, [workspace], memory.exclude)):
                    found[name] = SourceFile.named(name, MEMORY, workspace, stat)
            for name, why in unlisted:
                if name not in found and not (memory.exclude and _excluded(name, [workspace], memory.exclude)):
                    found[name] = SourceFile.named(name, MEMORY, workspace, problem=why)
    exclude = settings.transcripts.exclude
    for folder in locations.transcript_dirs:
        if folder.is_dir():
            roots = [folder, *locations.workspaces]
            unlisted = []
            for name, stat in sorted(_transcript_files(_Root(folder, follow), unlisted), key=_name):
                if name not in found and not (exclude and _excluded(name, roots, exclude)):
                    found[name] = SourceFile.named(name, TRANSCRIPT, folder, stat)
            for name, why in unlisted:
                if name not in found and not (exclude and _excluded(name, roots, exclude)):
                    found[name] = SourceFile.named(name, TRANSCRIPT, folder, problem=why)
    for folder in locations.cwd_filtered_dirs:
        if not folder.is_dir():
            continue
        for name, stat in sorted(_transcript_files(_Root(folder, follow)), key=_name):
            if name in found or not _is_jsonl(name) or _excluded(name, [folder], exclude):
                continue
            if not locations.scope_all:
                cwd = (known_cwd(name) if known_cwd else None) or read_session_cwd(name)
                if cwd is None or not _within(cwd, locations.workspaces):
                    continue
            found[name] = SourceFile.named(name, TRANSCRIPT, folder, stat)
    return list(found.values())


def _transcript_files(root: _Root, unlisted: Unlisted | None = None) -> Iterator[Found]:
    return _walk(root, root.path, is_transcript_name, unlisted=unlisted)


def is_transcript_name(name: str) -> bool:
    """Whether a file of this name (or path) in a transcript folder may be a transcript: `.jsonl`, `.md`, or a
    rotated `.jsonl` (ROTATED_JSONL)."""
    return name.endswith(TRANSCRIPT_SUFFIXES) or ROTATED_JSONL.search(name) is not None


def _is_jsonl(name: str) -> bool:
    """`Path(name).suffix == ".jsonl"` (a file named just `.jsonl` has no suffix), or a rotated one's name."""
    base = name.rpartition(os.sep)[2]
    return (base.endswith(".jsonl") and base != ".jsonl") or ROTATED_JSONL.search(base) is not None


def classify(
    path: Path, locations: Locations, settings: Settings, known_cwd: Callable[[str], str | None] | None = None
) -> SourceFile | None:
    """The source a single changed path is, if `discover` would list it — without walking any folder. A path the
    system cannot open (a name too long) is none: the whole sync's walk reports it with why."""
    try:
        if not path.is_file():
            return None
    except (OSError, ValueError):
        return None
    name = os.fspath(path)
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
            and not _excluded(name, [workspace], memory.exclude)
            and _Root(workspace, follow).admits(path)
        ):
            return SourceFile(path, MEMORY, workspace)
    if not is_transcript_name(path.name) or any(part in PRUNED for part in path.parts):
        return None
    exclude = settings.transcripts.exclude
    for folder in locations.transcript_dirs:
        if folder in path.parents and not _excluded(name, [folder, *locations.workspaces], exclude):
            return SourceFile(path, TRANSCRIPT, folder) if _Root(folder, follow).admits(path) else None
    for folder in locations.cwd_filtered_dirs:
        if folder in path.parents and _is_jsonl(path.name) and not _excluded(name, [folder], exclude):
            if not _Root(folder, follow).admits(path):
                return None
            if not locations.scope_all:
                cwd = (known_cwd(name) if known_cwd else None) or read_session_cwd(name)
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
