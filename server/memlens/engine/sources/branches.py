"""Active-branch selection for transcripts with parent links (Claude Code `parentUuid`, OpenClaw `parentId`).

Why: a transcript file holds every branch the user ever made (edit a message and re-run, and the old answer stays
in the file), so indexing every record would mix abandoned answers into search. But a link can also be broken:
the parent's line was malformed and skipped, or it names a record that is not in the file at all. Keeping only
the chain from the last record back to its root would then drop, without a word, everything before the break.

The rule for broken chains: a record whose parent is missing from the file (a dangling link, or its parent's
line was bad) starts a new root, and so does a record with no parent; records under the same missing parent id
share that root. In every tree the kept records are the chain from its last main-line record (in file order) back
to its root: the tree holding the file's last record gives the active branch, every other tree (a run cut off by
a broken link, or a new start) is kept too, in file order. Records of a tree that are not on its chain branch off
a record on it that IS in the file: abandoned edits (the user edited a message and re-ran), dropped. Records in a
tree whose root is a missing parent are counted as orphaned. A tool result whose parent (its call) is kept is kept:
parallel calls' results branch off one another. Records without an id, summaries and sidechain
records are always kept, and so are records caught in a parent cycle.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .base import TranscriptRecord

_START = "\x00start:"  # + the root's uuid: the root key of a tree whose root has no parent
_CYCLE = "\x00cycle"  # the root key of records whose chain loops without reaching a root


@dataclass(slots=True)
class BranchSelection:
    """The kept records, how many of them are orphaned (kept off the active tree) and how many were dropped."""

    records: list[TranscriptRecord]
    orphaned: int = 0
    abandoned: int = 0


def _always_kept(record: TranscriptRecord) -> bool:
    return record.uuid is None or record.kind == "summary" or record.is_sidechain


def _root_keys(linked: list[TranscriptRecord]) -> dict[str, str]:
    """Each linked record's root key: _START + its root's uuid, a missing parent id, or _CYCLE."""
    by_uuid = {r.uuid: r for r in linked if r.uuid is not None}
    root: dict[str, str] = {}
    for record in linked:
        path: list[str] = []
        on_path: set[str] = set()
        current: TranscriptRecord | None = record
        key = _CYCLE
        while current is not None and current.uuid is not None:
            uuid = current.uuid
            if uuid in root:
                key = root[uuid]
                break
            if uuid in on_path:
                key = _CYCLE
                break
            path.append(uuid)
            on_path.add(uuid)
            parent = current.parent_uuid
            if parent is None:
                key = _START + uuid
                break
            if parent not in by_uuid:
                key = parent  # dangling: this record starts a tree of its own
                break
            current = by_uuid[parent]
        for uuid in path:
            root[uuid] = key
    return root


def split_branches(records: list[TranscriptRecord]) -> BranchSelection:
    """Apply the broken-chain rule (module docstring) to records in file order."""
    linked = [r for r in records if r.uuid is not None]
    if not any(not _always_kept(r) for r in linked):
        return BranchSelection(list(records))
    by_uuid = {r.uuid: r for r in linked}
    root = _root_keys(linked)
    tips: dict[str, TranscriptRecord] = {}
    for record in linked:
        if not record.is_sidechain:
            tips[root[record.uuid or ""]] = record  # the last one in file order wins
    keep: set[str] = set()
    for tip in tips.values():
        current: TranscriptRecord | None = tip
        while current is not None and current.uuid is not None and current.uuid not in keep:
            keep.add(current.uuid)
            current = by_uuid.get(current.parent_uuid) if current.parent_uuid is not None else None
    keep |= {uuid for uuid, key in root.items() if key == _CYCLE}
    # parallel tool calls: each result names the call's line as parent, so all but one branch off the chain;
    # a result whose call is kept is kept too (it is no abandoned edit)
    keep |= {r.uuid for r in linked if r.kind == "tool" and r.parent_uuid in keep and r.uuid is not None}
    kept = [r for r in records if _always_kept(r) or r.uuid in keep]
    candidates = [r for r in records if not _always_kept(r)]
    orphaned = sum(1 for r in candidates if r.uuid in keep and not root[r.uuid].startswith("\x00"))
    abandoned = sum(1 for r in candidates if r.uuid not in keep)
    return BranchSelection(kept, orphaned, abandoned)


def select_active_branch(records: list[TranscriptRecord]) -> list[TranscriptRecord]:
    """The records to index: the active branch plus runs orphaned by broken links (see the module docstring)."""
    return split_branches(records).records


def continues_branch(records: list[TranscriptRecord], anchor_ids: list[str]) -> bool:
    """True when records parsed from a file's resume point (an append) only extend its active branch, so adding
    them to the stored records gives what a parse of the whole file keeps. `anchor_ids` is what the earlier parse
    reported (ParseResult.anchor_ids): the last record before the resume point and the lines resolving to it."""
    anchors = set(anchor_ids)
    own = {r.uuid for r in records if r.uuid is not None}
    linked: list[TranscriptRecord] = []
    if anchor_ids:  # the stored branch's end, standing in for everything before the resume point
        linked.append(TranscriptRecord("", "assistant", "", None, 0, uuid=anchor_ids[0]))
    for record in records:
        if record.uuid is None or record.is_sidechain:
            linked.append(record)
            continue
        parent = record.parent_uuid
        if parent in anchors:
            parent = anchor_ids[0]
        elif anchors and parent is not None and parent not in own:
            return False  # a link to an earlier record that is not the branch's end, or to none in the file
        linked.append(replace(record, parent_uuid=parent))
    selection = split_branches(linked)
    return selection.abandoned == 0 and selection.orphaned == 0
