"""The names a sync finds its files under: each source's stat (an unreadable one kept as it is stored), the other
names watcher events reach an indexed file by, and the aliases recorded when several names reach one file (which
name is indexed: file_identity.py)."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

from memlens.engine.catalog import Catalog, FileState
from memlens.engine.file_names import disk_path, stored_path
from memlens.engine.indexing.discovery import SourceFile
from memlens.engine.indexing.file_identity import Choice, Named, identities

log = logging.getLogger(__name__)


def stat_all(
    sources: list[SourceFile], cancel: threading.Event | None, note_error: Callable[[Path, str], object]
) -> tuple[list[Named], set[str]]:
    """(each source with its stat, the stored paths of the others: unreadable (told to `note_error`), or not reached
    before `cancel`; their rows are kept as they are). The stat is the one the walk that found the source took, if
    it did. By name: no `Path` is built for a file that is only stat'd. A folder the walk could not list is told to
    `note_error` with its problem."""
    found: list[Named] = []
    kept: set[str] = set()
    for source in sources:
        name = source.name
        if cancel is not None and cancel.is_set():
            kept.add(stored_path(name))
            continue
        if source.problem is not None:
            kept.add(stored_path(name))
            note_error(source.path, source.problem)
            continue
        try:
            found.append(Named(source, source.stat or os.stat(name), stored_path(name)))
        except (OSError, ValueError) as exc:
            kept.add(stored_path(name))
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            note_error(source.path, f"cannot read: {reason}")
    return found, kept


def other_names(catalog: Catalog, found: list[Named], known: dict[str, FileState]) -> list[Named]:
    """The indexed files that a few changed names (watcher events) also reach: a change seen under an alias
    re-reads its source, and a new name of an indexed file is recorded as an alias, never indexed twice."""
    given = {n.key for n in found}
    others: list[Named] = []
    for row in catalog.files_with_identities(identities(found)):
        if row.path in given:
            continue
        path = disk_path(row.path)
        try:
            stat = path.stat()
        except (OSError, ValueError):
            continue
        if (stat.st_dev, stat.st_ino) == (row.dev, row.ino):
            others.append(Named(SourceFile(path, row.kind, path.parent), stat, row.path))
            known[row.path] = row.state()
    return others


def record_aliases(catalog: Catalog, choice: Choice, *, whole: bool) -> None:
    """Record the aliases `choice` found (with `whole`, they are all there are); writes only what changed."""
    aliases = [(a.key, s.key) for a, s in choice.aliases]
    recorded = catalog.aliases()
    sources = [] if whole else [n.key for n in choice.sources]
    if whole and recorded == dict(aliases):
        return
    if not whole and all(recorded.get(a) == s for a, s in aliases) and not any(p in recorded for p in sources):
        return
    for alias, source in aliases:
        log.debug("%s is another name of %s: indexed once, as the latter", alias, source)
    with catalog.transaction() as db:
        if whole:
            catalog.replace_aliases(db, aliases)
        else:
            catalog.update_aliases(db, aliases, sources)
