"""What publishing to a team index reads of the catalog: every unit with its chunk, file and session (its vector is
the vector file's: VectorIndex.stored_vectors)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from memlens.engine.catalog.connection import CatalogConnection


class PublishRow(NamedTuple):
    """One unit as a team index receives it, before redaction (`PublishReads.publish_rows`)."""

    unit_id: int
    text: str
    kind: str
    format: str
    session_key: str | None
    message_id: str | None
    role: str | None
    ts: float | None
    seq: int
    line_start: int | None
    heading: str | None
    path: str
    session_id: str | None
    cwd: str | None
    parent_key: str | None
    title: str | None
    shadowed: int  # 1: another file of its session keeps the message (catalog/copies.py): read, never sent


class PublishReads(CatalogConnection):
    def publish_rows(self) -> Iterator[PublishRow]:
        """Every unit, streamed, a session's messages together and in order (redaction reads them as a sequence). The
        units another file of their session keeps come too, marked: a token cut between a message of the copy and one
        of its own is found over their join, as it is at storage."""
        sql = """SELECT u.id, u.text, u.kind, COALESCE(u.format, ''), u.session_key, u.message_id, u.role, u.ts, u.seq,
                        COALESCE(u.position, c.line_start), c.heading, f.path, s.session_id, s.cwd, s.parent_key,
                        s.title, u.shadowed
                 FROM plain_units u JOIN chunks c ON c.id = u.chunk_id JOIN files f ON f.id = u.file_id
                 LEFT JOIN sessions s ON s.key = u.session_key
                 ORDER BY u.file_id, u.session_key, u.seq, u.id"""
        for row in self._tuples(sql, ()):
            yield PublishRow._make(row)
