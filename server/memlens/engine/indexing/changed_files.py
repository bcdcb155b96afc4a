"""Syncing the few files live indexing saw change (watcher events), rather than the whole walk."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from memlens.engine.catalog import Catalog
from memlens.engine.file_names import disk_path, stored_path
from memlens.engine.indexing.discovery import PRUNED, SourceFile, is_transcript_name
from memlens.engine.indexing.indexer import Indexer, SyncReport


def with_aliases_of(catalog: Catalog, changed: Iterable[Path], deleted: list[Path]) -> list[Path]:
    """`changed`, and the other names (hard links, symlinks) of the `deleted` files that were recorded as aliases:
    one of them is now indexed instead."""
    named = catalog.aliases_of([stored_path(p) for p in deleted])
    return [*changed, *(disk_path(alias) for alias in named)]


def sync_changed(
    indexer: Indexer,
    changed: Iterable[Path],
    deleted: list[Path],
    *,
    source_of: Callable[[Path], SourceFile | None],
    embed: bool,
) -> SyncReport:
    """Remove `deleted` (Indexer.remove_deleted), then sync those of `changed` that are sources (`source_of`); the
    others are ignored."""
    changed = list(dict.fromkeys(changed))
    report = indexer.remove_deleted([*deleted, *_folders_now(indexer.catalog, changed)])
    classified = (source_of(p) for p in changed)
    chosen = [source for source in classified if source is not None]
    if chosen:
        report.merge(indexer.sync(chosen, embed=embed, prune=False))
    if report.files_deleted or report.files_parsed:  # a file gone or emptied may have held a key another takes now
        indexer.settle_stranded_keys(source_of, report)
    if not chosen:
        indexer.collect_garbage()
        indexer.embedding.persist()  # the deletions' changes into the vector file's log
    return report


def _folders_now(catalog: Catalog, changed: list[Path]) -> list[Path]:
    """The changed names the index holds a file under that are a folder now (a watcher sees the name change, not
    the file go): the file is gone, as a whole sync's walk, which enters the folder, finds."""
    folders = [path for path in changed if os.path.isdir(path) and not os.path.islink(path)]
    if not folders:
        return []
    held = catalog.files([stored_path(path) for path in folders])
    return [path for path in folders if stored_path(path) in held]


def files_of_folders(catalog: Catalog, folders: Iterable[Path]) -> tuple[set[Path], set[Path]]:
    """The files behind folders that appeared, moved or went under a watched folder, as (changed, deleted): a
    folder's rename or move is one event naming the folder and none naming its files, and a folder made with its
    files at once (`cp -r`, `tar x`) may fill before a watch is on it. Changed: the files below each folder now on
    disk; deleted: those the catalog holds below it that are gone. A name that is neither (an editor's temporary
    file, gone) costs one lookup of the catalog."""
    changed: set[Path] = set()
    deleted: set[Path] = set()
    for folder in _outermost(folders):
        on_disk = set(_files_below(folder))
        changed |= on_disk
        for name in catalog.files_under(stored_path(folder)):
            path = disk_path(name)
            if path not in on_disk and not os.path.lexists(path):
                deleted.add(path)
    return changed, deleted


def _outermost(folders: Iterable[Path]) -> list[Path]:
    """Each folder once, those inside another left out (its walk holds them)."""
    kept: list[Path] = []
    for folder in sorted(set(folders), key=lambda p: len(p.parts)):
        if not any(outer == folder or outer in folder.parents for outer in kept):
            kept.append(folder)
    return kept


def _files_below(folder: Path) -> Iterator[Path]:
    """The names below `folder` that a source may have (links not followed: classify decides where one may lead)."""
    for top, subfolders, names in os.walk(folder):
        subfolders[:] = [name for name in subfolders if name not in PRUNED]
        yield from (Path(top, name) for name in names if is_transcript_name(name))
