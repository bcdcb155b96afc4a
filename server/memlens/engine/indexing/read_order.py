"""The order a sync reads its changed files in, and where its batches (one catalog commit each) end.

Newest first, by session: a first build or a reindex of a heavy user's disk makes the recent weeks searchable in its
first batches, not the files whose names sort first. But what a file stores depends on the files of its session
read before it: the first file to store a session id takes its plain key and later ones `~name` keys
(catalog_writer.py), and unit ids, which break ties between equal scores, follow the reading order. So the files of
one session (a transcript, its subagents' files, its copies) are kept together in their found (name) order, and the
groups are ordered by their newest member's mtime, equal ones in their found order: within a group, and between
groups of one mtime, the order is the one a name-order build had.

Which files are one session is known only once parsed; before that it is guessed from what costs a stat and the
first line: the path (`<session>.jsonl` and its `<session>/subagents/agent-….jsonl`), a session id a name holds
(a Claude Code file is named by it, a Codex file holds it), the ids the first line gives (`sessionId`, a session
line's `id`) and the first line itself (a copy, or a copy continued since). A guess that joins two sessions only
keeps them together; one that misses a link lets a newer file of a session be read before an older one, which then
stores under `~name`.

A batch ends at a count of files or at a budget of their bytes, whichever comes first: 200 files can be 100k+
messages, and nothing of a batch is searchable before it commits. The budget starts small, so the newest sessions
are searchable within seconds, and doubles from batch to batch, so a large build commits (and merges tantivy
segments) a few times, not once for every few megabytes. A file larger than the budget is a batch of its own; it is
not split: a file is parsed and stored whole (its sessions' chunks, its appended tail).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from memlens.engine.indexing.file_identity import Named

T = TypeVar("T")

BATCH_FILES = 200
# what the first batch reads at most (unless one file is larger), each next one twice the one before up to
# BATCH_BYTES_MOST: a first batch of ~0.1 s of CPU, and few commits after it (each is a tantivy segment that merges
# cost; starting at 1 MB is two more than at 4 MB). See bench/RESULTS.md "newest first, by session"
BATCH_BYTES = 1 << 20
BATCH_BYTES_MOST = 64 << 20
FIRST_LINE_BYTES = 4096  # a transcript's first line is read up to this to find the session it belongs to

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# the ids a first line names its session by: Claude Code's `sessionId`, a session line's `id` (OpenClaw, Codex)
_LINE_SESSION = re.compile(rb'"(?:sessionId|session_id|id)"\s*:\s*"([^"\\]{1,200})"')


def newest_first(changed: Sequence[tuple[Named, T]]) -> list[tuple[Named, T]]:
    """`changed` by session, newest session first (by its newest file's mtime); a session's files, and sessions of
    equal mtime, in their order in `changed`."""
    if len(changed) < 2:
        return list(changed)
    group = _Groups(len(changed))
    first_with: dict[tuple[int, bytes | str], int] = {}
    for index, (named, _) in enumerate(changed):
        for clue in _clues(named):
            other = first_with.setdefault(clue, index)
            if other != index:
                group.join(other, index)
    newest: dict[int, int] = {}
    earliest: dict[int, int] = {}
    for index, (named, _) in enumerate(changed):
        root = group.root(index)
        newest[root] = max(newest.get(root, named.stat.st_mtime_ns), named.stat.st_mtime_ns)
        earliest.setdefault(root, index)
    roots = [group.root(index) for index in range(len(changed))]
    order = sorted(range(len(changed)), key=lambda i: (-newest[roots[i]], earliest[roots[i]], i))
    return [changed[i] for i in order]


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


def _clues(named: Named) -> list[tuple[int, bytes | str]]:
    """What the files of one session share, as far as a name and a first line tell: (0, its path without the
    suffix, a subagent's its session folder), (1, a session id), (2, the first line). A note is its own."""
    if named.source.kind != "transcript":
        return [(3, named.key)]
    name = named.source.name
    folder, leaf = os.path.split(name)
    stem = leaf.split(".", 1)[0]
    if os.path.basename(folder) == "subagents" and stem.startswith("agent-"):
        session = os.path.dirname(folder)  # <session>/subagents/agent-….jsonl
        found = _UUID.search(os.path.basename(session))
    else:
        session = os.path.join(folder, stem)
        found = _UUID.search(stem)  # (a Claude Code session's file is named by its id; a Codex one holds it)
    clues: list[tuple[int, bytes | str]] = [(0, session)]
    if found:
        clues.append((1, found.group(0).lower()))
    line = _first_line(name)
    if line.startswith(b"{"):  # (a Markdown export's first line is the same in every file)
        clues.append((2, line))
        clues += [(1, found.decode("utf-8", "replace").lower()) for found in _LINE_SESSION.findall(line)]
    return clues


def _first_line(name: str) -> bytes:
    """The first line of a file (up to FIRST_LINE_BYTES), or nothing when it cannot be read now."""
    try:  # (not blocking: a FIFO swapped in since the walk would wait for a writer)
        descriptor = os.open(name, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return b""
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return b""
        head = os.read(descriptor, FIRST_LINE_BYTES)
    except OSError:
        return b""
    finally:
        os.close(descriptor)
    return head.split(b"\n", 1)[0].strip()


class _Groups:
    """Indexes joined into groups (union-find): each group named by one of its members."""

    def __init__(self, size: int) -> None:
        self.parent = list(range(size))

    def root(self, index: int) -> int:
        while self.parent[index] != index:
            self.parent[index] = self.parent[self.parent[index]]
            index = self.parent[index]
        return index

    def join(self, one: int, other: int) -> None:
        a, b = self.root(one), self.root(other)
        if a != b:
            self.parent[max(a, b)] = min(a, b)
