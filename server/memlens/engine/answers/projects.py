"""Projects: the folder a session worked in, named by its last part, and which sessions belong to a project.

Why it exists: "what did we do in the billing repo" is a question about a project, and every session already knows
its working folder (`cwd`). A project filter matches the folder's name (`billing`, any case) or the folder itself
and everything under it (`/home/me/src/billing`), so a user can name it either way; subagents share their parent's
folder and so its project.
"""

from __future__ import annotations

from memlens.engine.catalog import Catalog


def project_name(cwd: str | None) -> str | None:
    """The last part of a working folder (`/home/me/src/billing` → `billing`)."""
    if not cwd:
        return None
    name = cwd.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
    return name or None


def in_project(cwd: str | None, project: str) -> bool:
    """Whether a session that worked in `cwd` belongs to `project` (a folder's name, or a folder and its tree)."""
    wanted = project.strip()
    if not cwd or not wanted:
        return False
    folder = cwd.rstrip("/\\")
    root = wanted.rstrip("/\\")
    if ("/" in wanted or "\\" in wanted) and root:
        return folder == root or folder.startswith((root + "/", root + "\\"))
    name = project_name(cwd)
    return name is not None and name.casefold() == wanted.casefold()


def project_session_keys(catalog: Catalog, project: str) -> frozenset[str]:
    """The keys of every session of this project (visibility is applied by whoever shows them)."""
    return frozenset(str(r["key"]) for r in catalog.all_sessions() if in_project(r["cwd"], project))
