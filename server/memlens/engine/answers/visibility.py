"""What a request may return: excluded sessions and files, and the scope (this workspace's projects, or all).

Every search, history and session listing asks; working it out resolves the configured folders on disk, a third of
a millisecond that a search paid on every call. `VisibilityCache` keeps the answer until something it is worked out
from changes: the folders, the settings it reads (changed in place or replaced) and the home folder."""

from __future__ import annotations

import fnmatch
import functools
import os
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from memlens.engine.file_names import stored_path
from memlens.engine.indexing.discovery import Locations
from memlens.settings import Settings


@dataclass(frozen=True)
class Visibility:
    """What a request may return: nothing excluded (memlens.excludeSessions, exclude globs) and nothing outside
    the scope. With scope `workspace`, a file is in scope when it lies under a workspace or a transcript folder
    read for this workspace, or its session ran in a workspace (Codex and OpenClaw keep every project's sessions
    in one folder). An index shared with a `--scope all` run therefore never leaks other projects' sessions."""

    excluded_sessions: frozenset[str] = frozenset()
    excluded_globs: tuple[str, ...] = ()
    scope_roots: tuple[str, ...] | None = None  # None: every project is in scope
    scope_workspaces: tuple[str, ...] = ()

    def hides(
        self,
        session_key: str | None,
        session_id: str | None,
        path: str,
        cwd: str | None = None,
        parent_key: str | None = None,
    ) -> bool:
        if (
            session_key
            and self.excluded_sessions
            and not self.excluded_sessions.isdisjoint(family_names(session_key, session_id, parent_key))
        ):
            return True
        if any(fnmatch.fnmatch(path, g) for g in self.excluded_globs):
            return True
        if self.scope_roots is None or _under(path, self.scope_roots):
            return False
        return not (cwd and _under(cwd, self.scope_workspaces))

    def hides_row(self, row: sqlite3.Row, *, key: str | None = None) -> bool:
        """``hides`` for a catalog row of a session (``key`` when the row names it otherwise than ``key``)."""
        columns = row.keys()
        parent_key = row["parent_key"] if "parent_key" in columns else None
        return self.hides(
            key if key is not None else row["key"], row["session_id"], row["path"], row["cwd"], parent_key
        )


def family_names(session_key: str, session_id: str | None, parent_key: str | None) -> set[str]:
    """Every name by which excluding a session also excludes this one: its own key and id, its root session's key
    (a subagent "fmt:ID/agent-X", a second file of the session "fmt:ID~name") and its parent's key and id."""
    names = {session_key, _root_key(session_key)}
    if session_id:
        names.add(session_id)
    if parent_key:
        names.update({parent_key, _root_key(parent_key), parent_key.partition(":")[2]})
    for key in list(names):
        fmt, colon, rest = key.partition(":")
        if colon and rest:
            names.add(rest)  # a bare id names the session in every format
    return names


def _root_key(session_key: str) -> str:
    fmt, colon, rest = session_key.partition(":")
    return fmt + colon + rest.split("/agent-", 1)[0].split("~", 1)[0]


def _under(path: str, roots: tuple[str, ...]) -> bool:
    exact, folders = _root_prefixes(roots)
    return path in exact or path.startswith(folders)


@functools.lru_cache(maxsize=64)
def _root_prefixes(roots: tuple[str, ...]) -> tuple[frozenset[str], tuple[str, ...]]:
    """The roots themselves, and each as a folder prefix: worked out once per set of roots, not for each of the
    tens of thousands of sessions `memlens sessions` lists."""
    return frozenset(roots), tuple(root.rstrip("/") + "/" for root in roots)


def visibility_of(locations: Locations, settings: Settings) -> Visibility:
    roots = None
    if not locations.scope_all:
        scoped = [p for p in locations.transcript_dirs if p not in locations.unscoped_dirs]
        roots = tuple(stored_path(p) for p in [*locations.workspaces, *scoped])
    return Visibility(
        excluded_sessions=frozenset(settings.exclude_sessions),
        excluded_globs=tuple(settings.transcripts.exclude),
        scope_roots=roots,
        scope_workspaces=tuple(str(w) for w in locations.workspaces),  # compared with a session's cwd, not a path
    )


class VisibilityCache:
    """One engine's Visibility, worked out again only when what it is worked out from changes."""

    def __init__(self) -> None:
        self._key: tuple[object, ...] | None = None
        self._visibility: Visibility | None = None

    def get(
        self,
        *,
        workspaces: Sequence[Path],
        extra_transcripts: Sequence[Path],
        settings: Settings,
        locations: Callable[[], Locations],
        remembered: Sequence[object] = (),
    ) -> Visibility:
        transcripts = settings.transcripts
        key = (
            tuple(workspaces),  # absolute already: the current folder plays no part
            tuple(extra_transcripts),
            settings.scope,
            tuple(transcripts.paths),
            transcripts.agent_defaults,
            tuple(transcripts.exclude),
            tuple(settings.exclude_sessions),
            os.path.expanduser("~"),  # the agents' default folders lie under it
            tuple(remembered),  # the folders the index remembers (source_roots.widen)
        )
        if self._visibility is None or key != self._key:
            self._visibility, self._key = visibility_of(locations(), settings), key
        return self._visibility
