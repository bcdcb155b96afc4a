"""Syncing the few files live indexing saw change (watcher events), rather than the whole walk."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from memlens.engine.catalog import Catalog
from memlens.engine.file_names import disk_path, stored_path
from memlens.engine.indexing.discovery import SourceFile
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
    report = indexer.remove_deleted(deleted)
    classified = (source_of(p) for p in dict.fromkeys(changed))
    chosen = [source for source in classified if source is not None]
    if chosen:
        report.merge(indexer.sync(chosen, embed=embed, prune=False))
    else:
        indexer.collect_garbage()
        indexer.embedding.persist()  # the deletions' changes into the vector file's log
    return report
