"""The folders an index was built from, as `memlens sources` and `memlens.sources` show them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, cast

from memlens.engine.answers.results import display_path
from memlens.engine.catalog import Catalog, RootRow
from memlens.wire import RemoveSourceResponse, SourceFolder, SourcesResponse

FolderKind = Literal["memory", "transcripts", "agent"]


def source_folders(catalog: Catalog, roots: Sequence[RootRow], named: Sequence[RootRow]) -> list[SourceFolder]:
    """`roots` with what the index holds below each; `named` says which the current settings and flags name."""
    names = {root.path for root in named}
    folders: list[SourceFolder] = []
    for root in roots:
        counts = catalog.counts_under(root.path)
        folders.append(
            {
                "path": root.path,
                "displayPath": display_path(root.path, []),
                "kind": cast(FolderKind, root.kind),
                "files": counts.files,
                "units": counts.units,
                "addedFrom": root.added_from,
                "named": root.path in names,
            }
        )
    return folders


def sources_answer(catalog: Catalog, remembered: Sequence[RootRow], named: Sequence[RootRow]) -> SourcesResponse:
    """Every folder the index remembers, and any named that no sync has recorded yet."""
    known = {root.path for root in remembered}
    roots = [*remembered, *(root for root in named if root.path not in known)]
    return {"sources": source_folders(catalog, roots, named)}


def removed_answer(target: str, files_removed: int) -> RemoveSourceResponse:
    return {"path": target, "displayPath": display_path(target, []), "filesRemoved": files_removed}
