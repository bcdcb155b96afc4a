"""The order a sync reads its changed files in, and where its batches (one catalog commit each) end.

Newest first: a first build or a reindex of a heavy user's disk makes the recent weeks searchable in its first
batches, not the files whose names sort first. Files of one name (copies of one transcript in other folders) are
kept together in their found order, at the place of the newest of them: the first of them stored takes its
session's plain key and the others `~name` keys (catalog_writer.py), and that stays the one it was by name.

A batch ends at a count of files or at a budget of their bytes, whichever comes first: 200 files can be 100k+
messages, and nothing of a batch is searchable before it commits. A file larger than the budget is a batch of its
own; it is not split: a file is read, parsed and stored whole (its session's chunks, its appended tail), and one
file is one session, which a search should not find half-stored as if it were complete.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from memlens.engine.indexing.file_identity import Named

T = TypeVar("T")

BATCH_FILES = 200
# what a batch reads at most (unless one file is larger): see bench/RESULTS.md "byte-capped batches"
BATCH_BYTES = 4 << 20


def newest_first(changed: Sequence[tuple[Named, T]]) -> list[tuple[Named, T]]:
    """`changed` by the newest mtime of each name's files, newest first; ties and a name's files in their order."""
    newest: dict[str, int] = {}
    for named, _ in changed:
        base = os.path.basename(named.source.name)
        newest[base] = max(newest.get(base, named.stat.st_mtime_ns), named.stat.st_mtime_ns)

    def order(item: tuple[Named, T]) -> tuple[int, str]:
        base = os.path.basename(item[0].source.name)
        return (-newest[base], base)

    return sorted(changed, key=order)  # (stable: the files of one name keep their order)


def batches(
    changed: Sequence[tuple[Named, T]],
    *,
    to_read: Callable[[tuple[Named, T]], int],
    max_files: int | None = None,
    max_bytes: int | None = None,
) -> Iterator[list[tuple[Named, T]]]:
    """`changed` cut into runs of at most `max_files` files and `max_bytes` bytes `to_read` (a larger file alone);
    BATCH_FILES and BATCH_BYTES when not given."""
    max_files = BATCH_FILES if max_files is None else max_files
    max_bytes = BATCH_BYTES if max_bytes is None else max_bytes
    batch: list[tuple[Named, T]] = []
    size = 0
    for item in changed:
        length = max(0, to_read(item))
        if batch and (len(batch) >= max_files or size + length > max_bytes):
            yield batch
            batch, size = [], 0
        batch.append(item)
        size += length
    if batch:
        yield batch
