"""Writing down the folders an index is built from: the ones a sync is told to read, those an older index implies,
and forgetting one on request (what the folders are and how they widen a walk: source_roots.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from memlens.engine.answers.results import display_path
from memlens.engine.catalog import Catalog, RootRow
from memlens.engine.file_names import disk_path, stored_path
from memlens.engine.indexing.indexer import Indexer
from memlens.engine.indexing.source_roots import inferred_roots
from memlens.errors import InvalidRequest


def remember_named_roots(indexer: Indexer, catalog: Catalog, named: Sequence[RootRow]) -> list[RootRow]:
    """Record the folders a sync is told to read (a folder now named whole widens one named in part); the folders
    remembered after."""
    known = {root.path: root for root in catalog.roots()}
    new = [r for r in named if r.path not in known or (r.whole and not known[r.path].whole)]
    if new:
        indexer.remember_roots(new)
    return catalog.roots()


def adopt_older_index(indexer: Indexer, catalog: Catalog, named_roots: Callable[[], list[RootRow]]) -> None:
    """A catalog with no folders recorded: started anew after damage, it takes back the copy beside it (roots.json);
    built before folders were remembered, it records the named folders and one for every file no named folder
    holds. At open, so an upgrade removes nothing and the first command already says what the index holds."""
    if catalog.roots():
        return
    if not indexer.restore_roots() and catalog.count("files"):
        named = named_roots()
        kinds = {path: row.kind for path, row in catalog.files().items()}
        indexer.remember_roots([*named, *inferred_roots(kinds, named, Path.home())])


def removable_root(
    folder: str | Path, catalog: Catalog, named_roots: Callable[[], list[RootRow]]
) -> tuple[str, list[RootRow]]:
    """The remembered folder `folder` names, as stored, and the folders that remain without it. A folder the index
    does not hold, or one the settings or flags still name (the next sync would add it back), is refused."""
    target = stored_path(disk_path(str(folder)).expanduser().resolve())  # as the catalog keys it
    known = {root.path: root for root in catalog.roots()}
    shown = display_path(target, [])
    if target not in known:
        raise InvalidRequest(f"{shown} is not a folder this index holds (memlens sources lists them)")
    named = next((root for root in named_roots() if root.path == target), None)
    if named is not None:
        raise InvalidRequest(
            f"{shown} is named by this command's settings or flags ({named.added_from}); "
            "stop naming it there, then remove it"
        )
    return target, [root for path, root in known.items() if path != target]
