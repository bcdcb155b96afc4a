"""A file's identity: which names are one file, and whether a file changed since it was read.

A file is its device and inode: a hard link or a symlink to a sibling reaches the same file under a second name, and
indexing it twice would show each of its sessions twice. Of the names that reach one file, one is indexed (the
source) and the others are recorded as its aliases. The name chosen depends only on the names, so it stays the same
from one sync to the next: a name that is the file itself before a symlink to it, then the first in byte order.

"Changed" is any difference in device, inode, size, mtime (ns) or ctime: a rewrite that keeps the size and puts the
old mtime back (`os.utime`, `touch -r`, `rsync --times`, a copy with `cp -p`) still moves the ctime, which only the
kernel sets. A replaced file (written elsewhere and renamed over) has a new inode.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from memlens.engine.catalog import FileRow, FileState
from memlens.engine.indexing.discovery import SourceFile


def identity_values(stat: os.stat_result) -> dict[str, int]:
    """What the catalog records of a file beside its size, to tell next time whether it changed."""
    return {"mtime_ns": stat.st_mtime_ns, "dev": stat.st_dev, "ino": stat.st_ino, "ctime_ns": stat.st_ctime_ns}


def changed(row: FileState | None, stat: os.stat_result) -> bool:
    """Whether a file must be read again. A row from before the catalog kept device, inode and ctime (NULL) is
    judged by size and mtime alone once; `needs_identity` says to record the rest then."""
    if row is None or row.size != stat.st_size or row.mtime_ns != stat.st_mtime_ns:
        return True
    if row.ctime_ns is None:
        return False
    return (row.dev, row.ino, row.ctime_ns) != (stat.st_dev, stat.st_ino, stat.st_ctime_ns)


def needs_identity(row: FileState | None) -> bool:
    return row is not None and row.ctime_ns is None


def same_file(row: FileRow, stat: os.stat_result) -> bool:
    """Whether `stat` is of the file the row was read from (an appended tail continues only that file)."""
    return row.ino is None or (row.dev, row.ino) == (stat.st_dev, stat.st_ino)


class Named(NamedTuple):
    """A source found on disk, with what stat said of it and its path as the catalog holds it (worked out once: a
    warm sync of thousands of files does little else; a tuple, not a frozen dataclass, whose construction cost a
    tenth of a sync that found nothing changed)."""

    source: SourceFile
    stat: os.stat_result
    key: str

    @property
    def identity(self) -> tuple[int, int]:
        return (self.stat.st_dev, self.stat.st_ino)


@dataclass
class Choice:
    """The names to index (one per file) and the others: (alias, the source it names)."""

    sources: list[Named]
    aliases: list[tuple[Named, Named]]


def _preference(named: Named) -> tuple[bool, bytes]:
    path = named.source.path
    return (path.is_symlink(), os.fsencode(path))


def choose_names(found: Iterable[Named]) -> Choice:
    """One name per file among `found` (in their order), the others its aliases."""
    found = list(found)
    first: dict[tuple[int, int], Named] = {}
    shared: dict[tuple[int, int], list[Named]] = {}  # only the files reached by more than one name
    for named in found:
        identity = named.identity
        if identity in first:
            shared.setdefault(identity, [first[identity]]).append(named)
        else:
            first[identity] = named
    if not shared:
        return Choice(found, [])
    choice = Choice([], [])
    for identity, named in first.items():
        names = shared.get(identity)
        if names is None:
            choice.sources.append(named)
            continue
        ranked = sorted(names, key=_preference)
        choice.sources.append(ranked[0])
        choice.aliases += [(alias, ranked[0]) for alias in ranked[1:]]
    return choice


def identities(found: Sequence[Named]) -> list[tuple[int, int]]:
    return list(dict.fromkeys(n.identity for n in found))
