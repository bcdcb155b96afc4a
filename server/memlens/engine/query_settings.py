"""Which settings an open engine takes as they change, and which shape the index (a change to those reopens it)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path

from memlens.settings import Settings, to_wire

# The settings an open engine takes as they change (`apply_query_settings`), as the settings' wire names; every other
# one shapes what is indexed or where, and a change to it needs the engine reopened (`index_identity`).
QUERY_SETTINGS = frozenset({"search", "reranker", "hover", "excludeSessions", "team"})


def index_identity(settings: Settings, workspaces: Iterable[Path]) -> tuple[str, ...]:
    """What, if changed, needs the engine reopened and the index resynced: every setting but QUERY_SETTINGS
    (a setting added later reopens the index until it is known to change none), and the workspaces."""
    wire = to_wire(settings)
    shaping = [(key, value) for key, value in wire.items() if key not in QUERY_SETTINGS]
    return (repr(shaping), *map(str, workspaces))


def apply_query_settings(current: Settings, new: Settings) -> None:
    """Copy the settings that change no index (QUERY_SETTINGS) from `new` into `current`."""
    current.search = dataclasses.replace(new.search)
    current.reranker = dataclasses.replace(new.reranker)
    current.hover = dataclasses.replace(new.hover)
    current.exclude_sessions = list(new.exclude_sessions)
    current.team = dataclasses.replace(new.team)
