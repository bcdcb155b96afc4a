"""Publishing this machine's search units to a team index: redacted, visible ones only, by content hash.

Redaction here is unconditional: `privacy.redactIndex` decides what this machine's own index keeps, never what
leaves it. Consecutive messages of a session are redacted as one sequence (a token cut between two messages is masked
in both), names (paths, session keys, titles) pass the detector as the door's do, a message id holding a secret
goes by its masked form as answers show it (answers/masked_references.py), and a unit whose text redaction
changed is embedded again from its redacted text (or sent without a vector when no model is loaded): a vector made
from a secret must not leave either. Sessions `excludeSessions` or the scope hide are not sent, so excluding one
later deletes it from the team index at the next publish. A message two files of a session hold (a hand copy, a
rotation, a resumed session replaying it: catalog/copies.py) is sent once, by the file that keeps it; when that file
goes, the next publish sends it from the file that keeps it then.

A session is published under the title this machine shows it by (answers/sessions.titles: its first real request,
redacted before it is cut), on each of its rows, so the team's list and hits name it as the local ones do. A title
is part of a row's content hash: rows published under another title (the parser's, before) are sent again once.

A tool output is published as the local index reads it: its text without the call its header names (full text and
vector), and the call beside it (shown with the hit, searched for a question asking what a command printed).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memlens.engine.answers.masked_references import shown_message_id
from memlens.engine.answers.sessions import visible_titles
from memlens.engine.answers.visibility import Visibility
from memlens.engine.catalog import Catalog, PublishRow
from memlens.engine.lazy import lazy_module
from memlens.engine.sources.tool_output import split_call
from memlens.engine.team.team_catalog import VECTOR_DIM, TeamCatalog, as_timestamp
from memlens.engine.vectors.embedder import Embedder
from memlens.redaction import redact, redact_sequence, redact_title
from memlens.wire.team import PublishResponse

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_module("numpy")  # a team search or publish only: the CLI's keyword path never loads numpy

BATCH_ROWS = 2000
"""Rows per COPY and commit: a cut connection loses at most one batch, and the next publish sends only the rest."""
BULK_MIN_ROWS = 5000
REBUILD_RATIO = 4
"""See rebuild_vector_index."""


@dataclass(frozen=True, slots=True)
class PublishTarget:
    url: str
    publisher: str
    project: str


@dataclass(slots=True)
class OutgoingUnit:
    """One unit as it will be stored in the team index (redacted). `text` is what its row is found and embedded by:
    a tool output's without the call its header names, which goes in `call` (sources/tool_output.split_call)."""

    row: PublishRow
    text: str
    call: str | None
    path: str
    session_key: str | None
    title: str | None
    heading: str | None
    vector: np.ndarray | None
    hash: str = ""


def outgoing_units(
    catalog: Catalog,
    visibility: Visibility,
    *,
    model: str | None,
    embedder: Embedder | None,
    stored_vectors: Callable[[list[int]], dict[int, np.ndarray]],
) -> Iterator[OutgoingUnit]:
    """The visible units, redacted, with the vectors that may leave (see the module's docstring). `stored_vectors`:
    the vectors the index holds of some units, by id (VectorIndex.stored_vectors), asked a session at a time."""
    named = visible_titles(catalog, visibility)
    rows = (r for r in catalog.publish_rows() if not _hidden(r, visibility))
    for _, group in itertools.groupby(rows, key=lambda r: (r.path, r.session_key)):
        units = list(group)
        texts = [u.text for u in units]
        masked = [redact(t) for t in texts] if units[0].kind == "memory" else redact_sequence(texts)
        # a message another file of the session keeps is sent once, by that file: read above for the sequence only
        sent = [i for i, unit in enumerate(units) if not unit.shadowed]
        changed = [i for i in sent if texts[i] != masked[i]]
        split = [split_call(text, unit.kind) for text, unit in zip(masked, units, strict=True)]
        # embedded again only for a team that takes this machine's vectors (`model` is then the team's), from the
        # text the local vectors were made from (ingest.py: a tool output's without its call)
        again = _embedded_again([split[i][0] for i in changed], embedder if model else None)
        fresh = dict(zip(changed, again, strict=False))  # none at all without a model
        stored = stored_vectors([units[i].unit_id for i in sent]) if model and sent else {}
        title = named.get(units[0].session_key or "", units[0].title)  # a memory note's: its own (none)
        for i in sent:
            unit = units[i]
            vector = stored.get(unit.unit_id)
            if i in changed:
                vector = fresh.get(i)
            yield OutgoingUnit(
                row=unit,
                text=split[i][0],
                call=split[i][1] or None,
                path=redact_title(unit.path),
                session_key=redact_title(unit.session_key) if unit.session_key else None,
                title=redact_title(title) if title else None,
                heading=redact(unit.heading) if unit.heading else None,
                vector=vector if vector is not None and vector.shape == (VECTOR_DIM,) else None,
            )


def _hidden(row: PublishRow, visibility: Visibility) -> bool:
    return visibility.hides(row.session_key, row.session_id, row.path, row.cwd, row.parent_key)


def _embedded_again(texts: list[str], embedder: Embedder | None) -> list[np.ndarray]:
    if not texts or embedder is None:
        return []
    return list(np.asarray(embedder.embed(texts), dtype=np.float32))


def content_hash(unit: OutgoingUnit, project: str) -> str:
    """What makes a published row: the redacted text and every field shown with it, and whether a vector goes too
    (a unit published before its vector existed is sent again once it has one). A tool output's call comes last, and
    only when it has one: the hash of any other unit is what it was before calls had a column of their own, and a
    tool output published with its call in its text (team schema 3) is sent again, split."""
    r = unit.row
    fields = [
        project,
        r.kind,
        r.format,
        unit.session_key,
        r.session_id,
        shown_message_id(r.message_id) if r.message_id else None,  # a clean id as it was: its row's hash too
        r.role,
        r.ts,
        r.seq,
        unit.path,
        r.line_start,
        unit.heading,
        unit.title,
        unit.text,
        unit.vector is not None,
    ]
    if unit.call:
        fields.append(unit.call)
    return hashlib.sha256(json.dumps(fields, ensure_ascii=False).encode()).hexdigest()


def _copy_row(unit: OutgoingUnit, target: PublishTarget) -> tuple[object, ...]:
    r = unit.row
    return (
        target.publisher,
        unit.hash,
        target.project,
        r.kind,
        r.format,
        unit.session_key,
        redact_title(r.session_id) if r.session_id else None,
        shown_message_id(r.message_id) if r.message_id else None,
        r.role,
        as_timestamp(r.ts),
        r.seq,
        unit.path,
        r.line_start,
        unit.heading,
        unit.title,
        unit.text.replace("\x00", "\ufffd"),  # PostgreSQL text holds no NUL
        unit.call.replace("\x00", "\ufffd") if unit.call else None,
        unit.vector,
    )


def rebuild_vector_index(*, adding: int, partition_rows: int) -> bool:
    """Whether a publish that may add `adding` rows to a partition holding `partition_rows` drops that partition's
    HNSW index and builds it again after the load, rather than inserting each row into the live graph.

    pgvector builds a graph about five times faster per row than it inserts rows into one (bench/team.py), so the
    rebuild (every row of the partition) costs less than the inserts (the new rows only) while the partition holds
    fewer than about four times the new rows (REBUILD_RATIO). A small publish (under BULK_MIN_ROWS) always inserts:
    it is quick either way, and the graph stays searchable (without it a vector search of that partition scans
    exactly, right but slower)."""
    return adding >= BULK_MIN_ROWS and partition_rows <= REBUILD_RATIO * adding


def publish(
    team: TeamCatalog,
    target: PublishTarget,
    units: Callable[[str | None], Iterable[OutgoingUnit]],
    *,
    model: str | None,
    local_units: int,
) -> PublishResponse:
    """Send what the team index lacks and delete what this publisher no longer has, for one project.
    `units(model)`: the outgoing units with vectors of `model` (None: none); `local_units`: about how many."""
    started = time.perf_counter()
    team.ensure_schema()
    team_model = team.team_model(model) if model else team.read_model()
    vectors_of = model if model is not None and model == team_model else None
    remote = team.published_hashes(target.publisher, target.project)
    adding = local_units - len(remote)
    partition = team.partition_of(target.publisher)
    bulk = (
        adding >= BULK_MIN_ROWS  # no count of the partition for a publish that inserts anyway
        and team.owns_units()  # another role may not drop the index: it inserts
        and rebuild_vector_index(adding=adding, partition_rows=team.partition_rows(partition))
        and team.drop_vector_index(partition)
    )
    try:
        answer = _send(team, target, units(vectors_of), remote)
    finally:
        team.ensure_vector_index()  # after a bulk load, or one a cut connection left without it
    if bulk:
        team.analyze_partition(partition)
    answer["seconds"] = round(time.perf_counter() - started, 3)
    if bulk:
        answer["note"] = "a bulk load: the vector index of this publisher's partition was built again"
    if model and vectors_of is None:
        answer["note"] = f"the team index holds vectors of {team_model}; this machine's ({model}) were not sent"
    return answer


def _send(team: TeamCatalog, target: PublishTarget, units: Iterable[OutgoingUnit], remote: set[str]) -> PublishResponse:
    local: set[str] = set()
    pending: list[tuple[object, ...]] = []
    sent = with_vectors = 0
    for unit in units:
        unit.hash = content_hash(unit, target.project)
        if unit.hash in local:
            continue  # the same text and fields twice (a message repeated): one row
        local.add(unit.hash)
        with_vectors += unit.vector is not None
        if unit.hash in remote:
            continue
        pending.append(_copy_row(unit, target))
        if len(pending) >= BATCH_ROWS:
            sent += team.copy_units(pending)
            pending.clear()
    if pending:
        sent += team.copy_units(pending)
    gone = sorted(remote - local)
    deleted = sum(
        team.delete_units(target.publisher, target.project, gone[i : i + 10_000]) for i in range(0, len(gone), 10_000)
    )
    answer: PublishResponse = {
        "publisher": target.publisher,
        "project": target.project,
        "units": len(local),
        "sent": sent,
        "deleted": deleted,
        "unchanged": len(local & remote),
        "withVectors": with_vectors,
        "seconds": 0.0,
    }
    return answer
