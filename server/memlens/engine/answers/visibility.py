"""What a request may return: excluded sessions and files, and the scope (this workspace's projects, or all).

Every search, history and session listing asks; working it out resolves the configured folders on disk, a third of
a millisecond that a search paid on every call. `VisibilityCache` keeps the answer until something it is worked out
from changes: the folders, the settings it reads (changed in place or replaced) and the home folder."""

from __future__ import annotations

import fnmatch
import os
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

    def hides(self, session_key: str | None, session_id: str | None, path: str, cwd: str | None = None) -> bool:
        if session_key and (session_key in self.excluded_sessions or session_id in self.excluded_sessions):
            return True
        if any(fnmatch.fnmatch(path, g) for g in self.excluded_globs):
            return True
        if self.scope_roots is None or _under(path, self.scope_roots):
            return False
        return not (cwd and _under(cwd, self.scope_workspaces))


def _under(path: str, roots: tuple[str, ...]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def visibility_of(locations: Locations, settings: Settings) -> Visibility:
    roots = None
    if not locations.scope_all:
        roots = tuple(stored_path(p) for p in [*locations.workspaces, *locations.transcript_dirs])
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
        )
        if self._visibility is None or key != self._key:
            self._visibility, self._key = visibility_of(locations(), settings), key
        return self._visibility
