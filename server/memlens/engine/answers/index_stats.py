"""What `memlens stats` (and the language server's and MCP's stats) report of an index: sizes, the embedding
backlog, files by format, and the files that could not be indexed or were not recognised, with their reasons; and
the few of those figures a status line shows, read alone since it asks them after every batch of a build.

Apart from the Engine, which only says what it knows of itself (its model, whether it is indexing, its folder):
the rest is read from the catalog here."""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from memlens.engine.answers.results import iso
from memlens.engine.catalog import Catalog
from memlens.engine.file_names import stored_path
from memlens.engine.indexing.ingest import MEMORY_FORMAT
from memlens.wire import IndexStatus, StatsResponse

FILE_ERRORS_SHOWN = 50  # files with problems (and unrecognised files) listed by stats; the counts cover them all


def index_stats(
    catalog: Catalog,
    *,
    model: str | None,
    provider_note: str,
    indexing: bool,
    index_dir: Path,
    read_only_reason: str | None,
    not_indexed: int,
    not_indexed_reason: str | None,
    watcher_errors: int = 0,
) -> StatsResponse:
    """`model`: the embedding model's name, None when keyword-only; `provider_note`: why there is none, if so;
    `watcher_errors`: changes live indexing failed on in this process."""
    backlog = _backlog(catalog, model)
    unrecognised, unrecognised_paths = catalog.unrecognised_files(FILE_ERRORS_SHOWN)
    empty, empty_paths = catalog.empty_files(FILE_ERRORS_SHOWN)
    return {
        **backlog,
        "chunksWithEmbeddings": backlog["totalChunks"] - backlog["chunksNeedingEmbeddings"] if model else 0,
        "providerNote": provider_note or None,
        "files": catalog.files_by_format(),
        "messages": catalog.messages_by_format(),
        "sessions": catalog.session_count(),
        "badLines": catalog.total_bad_lines(),
        "replaced": catalog.total_replaced(),
        "orphanedMessages": catalog.total_orphaned(),
        "filesWithErrors": catalog.count_file_problems(),
        "fileErrors": catalog.file_problems(FILE_ERRORS_SHOWN),
        "filesUnrecognised": unrecognised,
        "unrecognisedFiles": unrecognised_paths,
        "filesEmpty": empty,
        "emptyFiles": empty_paths,
        "aliases": catalog.count("aliases"),
        "watcherErrors": watcher_errors,
        "indexing": indexing,
        "indexDir": stored_path(index_dir),
        "readOnly": read_only_reason is not None,
        "readOnlyReason": read_only_reason,
        "filesNotIndexed": not_indexed,
        "notIndexedReason": not_indexed_reason,
    }


def index_status(catalog: Catalog, *, model: str | None, indexing: bool) -> IndexStatus:
    """The figures of `index_stats` a status line shows (`model` and `indexing` as there), each from one count:
    with 300,000 messages waiting for vectors, 0.09 s of CPU against the whole report's 0.15 (bench/status_cost.py)."""
    backlog = _backlog(catalog, model)
    return {
        "indexing": indexing,
        "sessions": catalog.session_count(),
        "messages": catalog.message_total(),
        "notes": catalog.count_files_of_format(MEMORY_FORMAT),
        "totalChunks": backlog["totalChunks"],
        "chunksNeedingEmbeddings": backlog["chunksNeedingEmbeddings"],
        "pendingMessages": backlog["pendingMessages"],
        "provider": backlog["provider"],
        "lastSync": backlog["lastSync"],
    }


class _Backlog(TypedDict):
    totalChunks: int
    chunksNeedingEmbeddings: int
    pendingMessages: int
    provider: str
    lastSync: str | None


def _backlog(catalog: Catalog, model: str | None) -> _Backlog:
    """The figures the stats report and the status line share: the chunks, how many wait for vectors (all of them
    without a model), the model, the last sync."""
    total_chunks = catalog.count("chunks")
    chunks_missing, pending_messages = catalog.embedding_backlog() if model is not None else (0, 0)
    last_sync = catalog.get_meta("last_sync")
    return {
        "totalChunks": total_chunks,
        "chunksNeedingEmbeddings": chunks_missing if model else total_chunks,
        "pendingMessages": pending_messages,
        "provider": model or "none",
        "lastSync": iso(float(last_sync)) if last_sync else None,
    }
