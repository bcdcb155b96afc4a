"""The order a sync reads its changed files in, and where its batches (one catalog commit each) end.

Newest first: a first build or a reindex of a heavy user's disk makes the recent weeks searchable in its first
batches, not the files whose names sort first. The copies of one transcript (same session id: a copy in another
folder, a copy continued since) are kept together in their found order, at the place of the newest of them: the
first of them stored takes its session's plain key and the others `~name` keys (catalog_writer.py), and that stays
the one it was by name. Which files are copies is known only once read; those that begin with the same line are
taken for them (a session's first line holds its id and its first message's).

A batch ends at a count of files or at a budget of their bytes, whichever comes first: 200 files can be 100k+
messages, and nothing of a batch is searchable before it commits. The budget starts small, so the newest files are
searchable within seconds, and doubles from batch to batch, so a large build commits (and merges tantivy segments)
a few times, not once for every few megabytes. A file larger than the budget is a batch of its
own; it is not split: a file is read, parsed and stored whole (its session's chunks, its appended tail), and one
file is one session, which a search should not find half-stored as if it were complete.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from memlens.engine.indexing.file_identity import Named

T = TypeVar("T")

BATCH_FILES = 200
# what the first batch reads at most (unless one file is larger), each next one twice the one before up to
# BATCH_BYTES_MOST: a first batch of 1-2 s, and few commits after it (each is a tantivy segment that merges cost;
# 4 MB batches throughout cost a first build of 80 MB 10-20% more CPU). See bench/RESULTS.md "newest first"
BATCH_BYTES = 4 << 20
BATCH_BYTES_MOST = 64 << 20
FIRST_LINE_BYTES = 4096  # what tells copies of one transcript apart from other files: its first line, up to this


def newest_first(changed: Sequence[tuple[Named, T]]) -> list[tuple[Named, T]]:
    """`changed` newest first, by the newest mtime of each group of transcripts that begin with the same line (one
    session's copies); a group's files, and ties, in their order."""
    if len(changed) < 2:
        return list(changed)
    groups = [_group(named) for named, _ in changed]
    newest: dict[bytes | str, int] = {}
    for (named, _), group in zip(changed, groups, strict=True):
        newest[group] = max(newest.get(group, named.stat.st_mtime_ns), named.stat.st_mtime_ns)
    order = sorted(range(len(changed)), key=lambda i: -newest[groups[i]])  # (stable: a group keeps its order)
    return [changed[i] for i in order]


def _group(named: Named) -> bytes | str:
    """What a transcript's copies share: its first line (a copy continued since, or cut short, too); a note, or a
    file that cannot be read now, is its own."""
    if named.source.kind != "transcript":
        return named.key
    try:  # (not blocking: a FIFO swapped in since the walk would wait for a writer)
        descriptor = os.open(named.source.name, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return named.key
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return named.key
        head = os.read(descriptor, FIRST_LINE_BYTES)
    except OSError:
        return named.key
    finally:
        os.close(descriptor)
    return head.split(b"\n", 1)[0]


def batches(
    changed: Sequence[tuple[Named, T]],
    *,
    to_read: Callable[[tuple[Named, T]], int],
    max_files: int | None = None,
    first_bytes: int | None = None,
    most_bytes: int | None = None,
) -> Iterator[list[tuple[Named, T]]]:
    """`changed` cut into runs of at most `max_files` files, the first of at most `first_bytes` bytes `to_read` (a
    larger file alone), each next one twice the one before up to `most_bytes`; the module's figures when not given."""
    max_files = BATCH_FILES if max_files is None else max_files
    budget = BATCH_BYTES if first_bytes is None else first_bytes
    most = max(budget, BATCH_BYTES_MOST if most_bytes is None else most_bytes)
    batch: list[tuple[Named, T]] = []
    size = 0
    for item in changed:
        length = max(0, to_read(item))
        if batch and (len(batch) >= max_files or size + length > budget):
            yield batch
            batch, size, budget = [], 0, min(2 * budget, most)
        batch.append(item)
        size += length
    if batch:
        yield batch
