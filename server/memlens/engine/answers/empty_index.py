"""What a sync or a search that meets an empty index tells its user: where memlens looked (the workspace folders
and why each is one, the memory-note names, the agents' transcript folders and for which project), and the next step
that would find something: the transcripts of other projects that `--scope all` reads, the transcript-looking files
under a workspace that `--transcripts DIR` reads; or, when the user named folders of transcripts that hold none,
what those folders hold instead (no .jsonl or .md file, or files no agent memlens reads wrote).

A new user's first command otherwise finds nothing and is told nothing. Only an empty index pays for this: the
counting is bounded (it stops at `CAP` files, `MAX_FOLDERS` folders and `MAX_SNIFFED` files read), and every face
shows the same facts (`lines` says them)."""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from memlens.engine.indexing.discovery import PRUNED, TRANSCRIPT_SUFFIXES, Locations
from memlens.engine.sources import detect_format_in
from memlens.settings import Settings
from memlens.wire import EmptyIndex, EmptyIndexFind

CAP = 1000  # files counted in one place before the count says "1,000+"
MAX_FOLDERS = 2000  # folders of a workspace walked for transcript-looking files
MAX_SNIFFED = 2000  # files of a workspace whose head is read to see whether an agent wrote it
HEAD_BYTES = 64 * 1024  # what of a file is read to recognise its format (a first line may be a long prompt)
# folders of a workspace no agent writes its transcripts in, left out of the walk besides discovery's own
NOT_TRANSCRIPTS = PRUNED | {".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".tox"}
AGENTS = "Claude Code, Codex CLI, OpenClaw, SpecStory"  # the formats of engine/sources, as a user knows them
SCOPE_ALL = "--scope all"
SCOPE_ALL_SETTING = 'memlens.scope "all"'


@dataclass
class _Count:
    count: int = 0
    more: bool = False  # stopped at a bound: there may be more


@dataclass
class _NamedFolders:
    """What the folders a user named (`--transcripts`, `transcripts.paths`) hold, when the index is empty: files
    with a transcript's suffix, and how many of those an agent memlens reads wrote (their sessions hold no message)."""

    shown: list[str]
    files: _Count
    transcripts: int


def empty_index(
    locations: Locations, settings: Settings, *, home: Path, workspace_reason: str | None = None
) -> EmptyIndex:
    """The facts of an empty index read from `locations` (what the sync walked) and the disk, bounded."""
    folders = [f for f in (*locations.transcript_dirs, *locations.cwd_filtered_dirs) if _looked_in(f, home)]
    finds: list[EmptyIndexFind] = []
    if settings.transcripts.agent_defaults and not locations.scope_all:
        agents = [home / ".claude" / "projects", home / ".codex" / "sessions", home / ".openclaw" / "agents"]
        for agent in agents:
            counted = _count(_jsonl_files(agent))
            if counted.count:
                finds.append(_find(_shown(agent, home), counted, SCOPE_ALL, SCOPE_ALL_SETTING))
    looked = set(locations.transcript_dirs)
    for workspace in locations.workspaces:
        under, counted = _transcripts_under(workspace, looked)
        if counted.count and under is not None:
            shown = _shown(under, home)
            setting = f"{str(under)!r} in memlens.transcripts.paths"
            finds.append(_find(shown, counted, f"--transcripts {_typed(shown)}", setting))
    finds.sort(key=lambda find: (find["flag"] == SCOPE_ALL, -find["count"]))  # a folder of this project first
    memory = [*settings.memory.include, *settings.memory.extra_include]
    facts: EmptyIndex = {
        "workspaces": [str(w) for w in locations.workspaces],
        "memoryFiles": memory,
        "transcriptFolders": [str(f) for f in folders],
        "scope": "all" if locations.scope_all else "workspace",
        "finds": finds,
        "lines": [],
        "settingLines": [],
    }
    named = _named_folders([f for f in folders if _named(f, locations, home)], home)
    said = _looked(facts, locations, home=home, workspace_reason=workspace_reason)
    facts["lines"] = [said, _next_step(finds, named, by_setting=False)]
    facts["settingLines"] = [said, _next_step(finds, named, by_setting=True)]
    return facts


def _looked_in(folder: Path, home: Path) -> bool:
    """Whether a sync could read `folder`: it exists, or it is Claude Code's folder of a project that has none yet
    (the agent's folder exists: the sentence names that one)."""
    return folder.is_dir() or (folder.parent == home / ".claude" / "projects" and folder.parent.is_dir())


def _find(folder: str, counted: _Count, flag: str, setting: str) -> EmptyIndexFind:
    return {"folder": folder, "count": counted.count, "more": counted.more, "flag": flag, "setting": setting}


def _count(files: Iterable[object]) -> _Count:
    counted = _Count()
    for _ in files:
        if counted.count >= CAP:
            counted.more = True
            break
        counted.count += 1
    return counted


def _jsonl_files(folder: Path) -> Iterator[str]:
    """The `.jsonl` files below an agent's folder (the agents write no other transcripts there), lazily."""
    for path, _ in _files(folder, (".jsonl",), set()):
        yield path


def _files(
    folder: Path, suffixes: tuple[str, ...], skip: set[Path], bound: _Count | None = None
) -> Iterator[tuple[str, str]]:
    """(path, its folder) of the files below `folder` with one of `suffixes`, symbolic links not followed, the
    folders of `skip` and NOT_TRANSCRIPTS left out; `bound` counts the folders listed and marks `more` at
    MAX_FOLDERS."""
    stack = [os.fspath(folder)]
    listed = 0
    while stack:
        current = stack.pop()
        listed += 1
        if listed > MAX_FOLDERS:
            if bound is not None:
                bound.more = True
            return
        try:
            with os.scandir(current) as entries:
                found = sorted(entries, key=lambda entry: entry.name)
        except OSError:
            continue
        deeper: list[str] = []
        for entry in found:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in NOT_TRANSCRIPTS and Path(entry.path) not in skip:
                        deeper.append(entry.path)
                elif entry.name.endswith(suffixes) and entry.is_file(follow_symlinks=False):
                    yield entry.path, current
            except OSError:
                continue
        stack.extend(reversed(deeper))


def _named_folders(folders: list[Path], home: Path) -> _NamedFolders | None:
    """The files with a transcript's suffix under the folders a user named, counted to CAP, and how many of them
    (at most MAX_SNIFFED read) an agent memlens reads wrote; None when no folder was named."""
    if not folders:
        return None
    files, transcripts = _Count(), 0
    for folder in folders:
        for path, _ in _files(folder, TRANSCRIPT_SUFFIXES, set(), files):
            if files.count >= CAP:
                files.more = True
                break
            files.count += 1
            if files.count <= MAX_SNIFFED and _recognised(path):
                transcripts += 1
    return _NamedFolders([_shown(folder, home) for folder in folders], files, transcripts)


def _recognised(path: str) -> bool:
    """Whether a transcript parser recognises the file at `path` by its head."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(HEAD_BYTES)
    except OSError:
        return False
    return detect_format_in(head, Path(path)) is not None


def _transcripts_under(workspace: Path, looked: set[Path]) -> tuple[Path | None, _Count]:
    """The files under `workspace` (outside the transcript folders a sync read) that a transcript parser recognises
    by their head, counted to CAP, and the deepest folder that holds them all."""
    counted = _Count()
    holders: list[str] = []
    for sniffed, (path, folder) in enumerate(_files(workspace, TRANSCRIPT_SUFFIXES, looked, counted)):
        if counted.count >= CAP or sniffed >= MAX_SNIFFED:
            counted.more = True
            break
        if _recognised(path):
            counted.count += 1
            holders.append(folder)
    if not holders:
        return None, counted
    return Path(os.path.commonpath(holders)), counted


def _shown(folder: Path | str, home: Path) -> str:
    """A folder as a user types it: `~/…` under the home folder."""
    text = os.fspath(folder)
    prefix = os.fspath(home).rstrip(os.sep) + os.sep
    return "~" + os.sep + text[len(prefix) :] if text.startswith(prefix) else text


def _typed(shown: str) -> str:
    """A folder as a shell takes it in a command to copy: quoted where it must be, a leading `~/` left to expand."""
    home = "~" + os.sep
    return home + shlex.quote(shown[len(home) :]) if shown.startswith(home) else shlex.quote(shown)


def _files_are(count: int, more: bool, of: str = "") -> str:
    """`1 transcript file is`, `19 transcript files of … are`, `1,000+ transcript files are`."""
    one = count == 1 and not more
    return f"{count:,}{'+' if more else ''} transcript file{'' if one else 's'}{of} {'is' if one else 'are'}"


def _looked(facts: EmptyIndex, locations: Locations, *, home: Path, workspace_reason: str | None) -> str:
    """What was looked in, in one sentence."""
    workspaces = ", ".join(_shown(w, home) for w in locations.workspaces)
    why = f" ({workspace_reason})" if workspace_reason else ""
    folders = [Path(folder) for folder in facts["transcriptFolders"]]
    named = [_shown(folder, home) for folder in folders if _named(folder, locations, home)]
    agents = [_agent_folder(folder, locations, home) for folder in folders if not _named(folder, locations, home)]
    whose = "this project's transcripts" if facts["scope"] == "workspace" else "transcripts"
    where = [f"in {', '.join(dict.fromkeys(agents))} for {whose}"] if agents else []
    where += [f"in {', '.join(named)} for every transcript"] if named else []
    transcripts = f" and {' and '.join(where)}" if where else "; no agent's transcript folder exists"
    return f"the index is empty: looked in {workspaces}{why} for {', '.join(facts['memoryFiles'])}{transcripts}"


def _named(folder: Path, locations: Locations, home: Path) -> bool:
    """Whether `folder` is one a user named (`--transcripts`, `transcripts.paths`): read whole, not for a project's
    sessions as an agent's own folder and a workspace's SpecStory exports are."""
    exports = any(folder == workspace / ".specstory" / "history" for workspace in locations.workspaces)
    agents = home / ".claude" / "projects"
    return not (exports or folder == agents or folder.parent == agents or folder in locations.cwd_filtered_dirs)


def _agent_folder(folder: Path, locations: Locations, home: Path) -> str:
    """A transcript folder as the sentence names it: Claude Code's folder of this project as `~/.claude/projects`
    (the sentence says it was read for this project), a workspace's own SpecStory exports by their relative path."""
    for workspace in locations.workspaces:
        if folder.parent.parent == workspace and folder.parent.name == ".specstory":
            return ".specstory/history"
    if folder.parent == home / ".claude" / "projects":
        return _shown(folder.parent, home)
    return _shown(folder, home)


def _next_step(finds: list[EmptyIndexFind], named: _NamedFolders | None, *, by_setting: bool) -> str:
    """The step that would find something, in one sentence, named by its command-line flag or, `by_setting`, by the
    setting an editor sets: a folder of this project's first; else what the folders the user named hold."""
    own = [find for find in finds if find["flag"] != SCOPE_ALL]
    if own:
        find = own[0]
        step = find["setting"] if by_setting else find["flag"]
        return f"{_files_are(find['count'], find['more'])} under {find['folder']}: {step} reads them"
    others = [find for find in finds if find["flag"] == SCOPE_ALL]
    if others:
        total, more = sum(find["count"] for find in others), any(find["more"] for find in others)
        where = ", ".join(find["folder"] for find in others)
        scope_all = SCOPE_ALL_SETTING if by_setting else SCOPE_ALL
        return f"{_files_are(total, more, ' of other projects')} in {where}: {scope_all} reads them"
    name_one = "a folder in memlens.transcripts.paths" if by_setting else "--transcripts DIR"
    if named is None:
        return f"nothing to read yet: write a MEMORY.md here, or name a folder of transcripts with {name_one}"
    where = ", ".join(named.shown)
    hold = "holds" if len(named.shown) == 1 else "hold"
    files = named.files
    if not files.count:
        held = f"{where} {hold} no .jsonl or .md file"
    elif named.transcripts == 1:
        held = f"the one transcript in {where} holds no message yet"
    elif named.transcripts:
        held = f"the {named.transcripts:,} transcripts in {where} hold no message yet"
    else:
        some = f"{files.count:,}{'+' if files.more else ''} .jsonl or .md file{'' if files.count == 1 else 's'}"
        held = f"{where} {hold} {some}, none written by an agent memlens reads ({AGENTS})"
    return f"{held}: name the folder an agent writes its transcripts in with {name_one}"
