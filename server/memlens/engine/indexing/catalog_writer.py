"""Writes one parsed file into the catalog: its file row, sessions, chunks and units (a full replace or a tail).

An appended tail replaces the stored units from its `replace_from_line` on (a tail is parsed again from the start
of the record it may continue, see sources.base.ParseResult.resume_line) and regroups the chunks from there, so
an index grown by appends holds the same messages, texts and ids as one parse of the whole file.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from memlens.engine.catalog import Catalog, ChunkRow, Family, FileRow, Settled, UnitRow
from memlens.engine.file_names import escape_name, stored_path
from memlens.engine.indexing.discovery import SourceFile
from memlens.engine.indexing.file_identity import identity_values
from memlens.engine.indexing.ingest import ChunkSpec, FileContent, SessionSpec, chunk_records
from memlens.engine.indexing.removed_sessions import Claims, RemovedSessions, Stored
from memlens.engine.message_count import is_message
from memlens.engine.sources.base import TranscriptRecord
from memlens.engine.sources.common import errors_before_line
from memlens.settings import ChunkingSettings


@dataclass
class PendingChanges:
    """Unit ids one catalog transaction removed and added: what the derived indexes must mirror. `added_rows`: the
    rows the added units were inserted from, in the order of their ids (the mirror reads them from there)."""

    deleted_units: list[int] = field(default_factory=list)
    added_units: list[int] = field(default_factory=list)
    added_rows: list[UnitRow] = field(default_factory=list)
    claimed: Claims = field(default_factory=dict)  # of the removed files' counts: taken once this commits


class CatalogWriter:
    """Turns one parsed file into catalog rows through the catalog's write methods (it holds no SQL itself)."""

    def __init__(self, catalog: Catalog, chunking: ChunkingSettings) -> None:
        self.catalog = catalog
        self.chunking = chunking
        # the messages of files removed lately, by session key: a file that moved (removed under one name, read
        # under another, its session the same) adds none again, in one sync or across two (removed_sessions.py)
        self.removed = RemovedSessions()

    def write(
        self,
        db: sqlite3.Connection,
        *,
        source: SourceFile,
        row: FileRow | None,
        stat: os.stat_result,
        content: FileContent,
        appended: bool,
        pending: PendingChanges,
    ) -> Stored:
        """Record a parsed file: replace its contents, or with `appended` add the new tail's messages. Returns the
        messages (message_count.py) and chunks it added: those the index did not hold before (fewer than none for a
        file that shrank; the report counts that as none). An append parses its tail again from the message the new
        lines may continue, and writes the chunks from the one it joins on again: those are stored again but not
        added; a file read whole again (`reindex --full`, a new parser) adds only what it holds beyond what its rows
        held (a file that only grew adds its new messages, one read again unchanged adds none), and a file that moved
        only what its sessions hold beyond what they held under the old name (`removed`)."""
        path = stored_path(source.path)
        leaf = next((r.uuid for r in reversed(content.records) if r.uuid), None)
        values: dict[str, object] = {
            "format": content.format,
            "size": content.parsed_bytes if content.cut else stat.st_size,  # cut: as if the file ended there
            **identity_values(stat),
            "head_hash": content.head_digest,
            "parsed_bytes": content.parsed_bytes,
            "next_line": content.next_line,
            "error": _first_reasons(content.errors, _earlier_reasons(row, content) if appended else None),
            "resume_line": content.resume_line,
            "resume_bytes": content.resume_bytes,
            "anchor_ids": json.dumps(content.anchor_ids),
            "empty": int(content.empty),
        }
        if leaf is not None or not appended:
            values["leaf_uuid"] = leaf
        if appended and row is not None:
            values["bad_lines"] = row.bad_lines + content.bad_lines
            values["replaced"] = row.replaced + content.replaced
            values["orphaned"] = row.orphaned + content.orphaned
            file_id = self.catalog.upsert_file(db, path, source.kind, **values)
            if row.session_key and content.session is not None and content.session.cwd:
                self.catalog.fill_session_cwd(db, row.session_key, content.session.cwd)  # none read before it
            inserted = len(pending.added_units)
            replaced: list[bytes | None] = []
            added = self._append_chunks(
                db, file_id, row.session_key or "", content, pending, file_mtime=stat.st_mtime, replaced=replaced
            )
            # the only session an append writes to, and its other files' if the new messages are theirs too
            copies = (
                self.catalog.settle_appended(
                    db, row.session_key, added=pending.added_units[inserted:], replaced=replaced
                )
                if row.session_key
                else Settled([], 0)
            )
            self.catalog.refresh_session_activity(db, [row.session_key, *copies.keys])
            return Stored(added.messages + copies.messages, added.chunks)
        else:
            values["bad_lines"] = content.bad_lines
            values["replaced"] = content.replaced
            values["orphaned"] = content.orphaned
            file_id = self.catalog.upsert_file(db, path, source.kind, **values)
            held = Stored()
            families: set[Family] = set()  # the sessions it held: their other files may now keep what it held
            if row is not None:
                held = Stored(self.catalog.file_messages(db, file_id), self.catalog.file_chunks(db, file_id))
                families = self.catalog.file_families(db, file_id)
                pending.deleted_units += self.catalog.purge_file_contents(db, file_id)
            session_key = self._store_session(db, file_id, source.path, content.session) if content.session else None
            self.catalog.set_file_session(db, file_id, session_key)
            agent_keys = {s.agent_id: self._store_session(db, file_id, source.path, s) for s in content.subsessions}
            # a sidechain's chunks go to its subagent session
            keys = [agent_keys.get(c.agent_id, session_key) if c.agent_id else session_key for c in content.chunks]
            self._insert_chunks(
                db,
                file_id=file_id,
                session_keys=keys,
                format_=content.format,
                chunks=content.chunks,
                seq=0,
                file_mtime=stat.st_mtime,
                pending=pending,
            )
            written = [session_key, *agent_keys.values()]
            families |= self.catalog.key_families(db, written)
            copies = self.catalog.settle_copies(db, families)  # which of a session's files keeps each message
            self.catalog.refresh_session_activity(db, [*written, *copies.keys])
            if row is None:  # a new name: what a removed file held under its old one (claimed until this commits)
                held = self.removed.claim(written, pending.claimed)
                if content.kind == "memory":
                    note_chunks = [unit.embed_hash for chunk in content.chunks for unit in chunk.units]
                    held += self.removed.claim_note_chunks(note_chunks, pending.claimed)
            counted = _messages(content.chunks) + copies.messages  # each counted as inserted, then settled
            return Stored(counted - held.messages, len(content.chunks) - held.chunks)

    def _store_session(self, db: sqlite3.Connection, file_id: int, path: Path, session: SessionSpec) -> str:
        base = f"{session.format}:{session.session_id}"
        if session.agent_id:
            base += f"/agent-{session.agent_id}"
        key = base
        owner = self.catalog.session_file(db, key)
        if owner is not None and owner != file_id:  # the same session id in two files (e.g. a copied transcript)
            key = f"{base}~{escape_name(path.stem)}"  # escaped: a key is text a user can type, whatever the name
            owner = self.catalog.session_file(db, key)
            if owner is not None and owner != file_id:  # a third copy, or one of the same name in another folder
                key = f"{base}~{escape_name(path.stem)}~{file_id}"
        parent = f"{session.format}:{session.parent_session_id}" if session.parent_session_id else None
        self.catalog.put_session(
            db,
            key=key,
            session_id=session.session_id,
            format_=session.format,
            file_id=file_id,
            parent_key=parent,
            agent_id=session.agent_id,
            cwd=session.cwd,
            title=session.title,
        )
        return key

    def _append_chunks(
        self,
        db: sqlite3.Connection,
        file_id: int,
        session_key: str,
        content: FileContent,
        pending: PendingChanges,
        *,
        file_mtime: float,
        replaced: list[bytes | None],
    ) -> Stored:
        """Replace the units from `content.replace_from_line` on and regroup the chunks from the first one they
        touch (at least the last chunk, which the new messages may join); earlier chunks stay as they are. Returns
        the messages and chunks stored less those deleted: the ones the append added; `replaced` gets the copy
        identities of the units deleted (catalog/copies.py: another file's copy of one may keep it now)."""
        replace_from = content.replace_from_line
        chunk_ids = self.catalog.file_chunk_ids(db, file_id)
        first = len(chunk_ids) - 1 if chunk_ids else 0
        if replace_from is not None:
            touched = self.catalog.first_chunk_from(db, file_id, replace_from)
            if touched is not None and touched in chunk_ids:
                first = min(first, chunk_ids.index(touched))
        regrouped = chunk_ids[first:]
        carried: list[TranscriptRecord] = []
        deleted = 0
        first_seq = self.catalog.last_seq(db, file_id)
        if regrouped:
            rows = self.catalog.units_of_chunks(db, regrouped)
            kept = [r for r in rows if replace_from is None or r["position"] is None or r["position"] < replace_from]
            carried = [_record_of(r) for r in kept]
            if rows:  # numbering resumes where the first row had it (a tool result shares its message's seq)
                earliest = min(rows, key=lambda r: (int(r["seq"]), int(r["id"])))
                first_seq = int(earliest["seq"]) - (0 if earliest["kind"] == "tool" else 1)
            pending.deleted_units += [int(r["id"]) for r in rows]
            replaced += self.catalog.copy_identities(db, [int(r["id"]) for r in rows])
            deleted = sum(is_message(r["kind"], int(r["part"] or 0)) and not r["shadowed"] for r in rows)
            self.catalog.delete_chunks(db, regrouped)
        new = [r for r in content.records if r.agent_id is None]
        if not carried and not new:
            return Stored(-deleted, -len(regrouped))
        chunks = chunk_records(carried + new, self.chunking)
        self._insert_chunks(
            db,
            file_id=file_id,
            session_keys=[session_key] * len(chunks),
            format_=content.format,
            chunks=chunks,
            seq=first_seq,
            file_mtime=file_mtime,
            pending=pending,
        )
        return Stored(_messages(chunks) - deleted, len(chunks) - len(regrouped))

    def _insert_chunks(
        self,
        db: sqlite3.Connection,
        *,
        file_id: int,
        session_keys: list[str | None],
        format_: str,
        chunks: list[ChunkSpec],
        seq: int,
        file_mtime: float,
        pending: PendingChanges,
    ) -> int:
        """Insert chunks (each into the session of `session_keys` at its index) and their units numbered from
        seq + 1; returns the last seq used. A tool result takes the seq of the message before it: messages stay
        numbered one after another, so a message's neighbours (the keyword context, the reply boost) are the
        messages around it, whatever tool output lies between. A unit's place in the embedding queue is its time,
        else the file's mtime (newest first: the recent weeks get their vectors first)."""
        chunk_ids = self.catalog.insert_chunks(
            db,
            [
                ChunkRow(
                    file_id=file_id,
                    kind=chunk.kind,
                    session_key=key,
                    line_start=chunk.line_start,
                    line_end=chunk.line_end,
                    heading=chunk.heading,
                    ts_start=chunk.ts_start,
                    ts_end=chunk.ts_end,
                    message_count=sum(is_message(u.kind, u.part) for u in chunk.units),
                )
                for chunk, key in zip(chunks, session_keys, strict=True)
            ],
        )
        units: list[UnitRow] = []
        for chunk, key, chunk_id in zip(chunks, session_keys, chunk_ids, strict=True):
            for unit in chunk.units:
                if unit.kind != "tool":
                    seq += 1
                units.append(
                    UnitRow(
                        file_id=file_id,
                        chunk_id=chunk_id,
                        kind=unit.kind,
                        format=format_ if unit.kind != "memory" else "",
                        session_key=key,
                        message_id=unit.message_id,
                        role=unit.role,
                        ts=unit.ts,
                        seq=seq,
                        position=unit.position,
                        line_end=unit.line_end,
                        uuid=unit.uuid,
                        text=unit.text,
                        embed_text_hash=unit.embed_hash,
                        error=unit.error,
                        queue_ts=unit.ts if unit.ts is not None else file_mtime,
                        part=unit.part,
                    )
                )
        pending.added_units += self.catalog.insert_units(db, units)
        pending.added_rows += units
        return seq


def _messages(chunks: list[ChunkSpec]) -> int:
    """The messages among the chunks' units (message_count.py)."""
    return sum(is_message(unit.kind, unit.part) for chunk in chunks for unit in chunk.units)


def _record_of(row: sqlite3.Row) -> TranscriptRecord:
    """A stored unit back as a record, to regroup it with appended messages."""
    return TranscriptRecord(
        message_id=row["message_id"] or "",
        role=row["role"] or "assistant",
        text=row["text"],
        timestamp=row["ts"],
        position=row["position"] or 0,
        kind=row["kind"] if row["kind"] in ("summary", "tool") else "message",
        uuid=row["uuid"],
        error=bool(row["error"]),
        part=int(row["part"] or 0),
    )


MAX_REASONS = 3  # reasons kept per file for `stats` (the bad-line count covers them all)


def _earlier_reasons(row: FileRow | None, content: FileContent) -> str | None:
    """The reasons recorded before an append, less those about the lines it parsed again (it has its own)."""
    if row is None or not row.error:
        return None
    earlier = row.error.split("\n")
    if content.replace_from_line is not None:
        earlier = errors_before_line(earlier, content.replace_from_line)
    return "\n".join(earlier) or None


def _first_reasons(new: list[str], earlier: str | None) -> str | None:
    """The first few reasons this file had lines skipped, newline-joined (None when it had none)."""
    reasons = (earlier.split("\n") if earlier else []) + new
    return "\n".join(reasons[:MAX_REASONS]) or None
