"""Projects: the folder a session worked in, named by its last part, and which sessions belong to a project.

Why it exists: "what did we do in the billing repo" is a question about a project, and every session already knows
its working folder (`cwd`). A project filter matches the folder's name (`billing`, any case) or the folder itself
and everything under it (`/home/me/src/billing`), so a user can name it either way; subagents share their parent's
folder and so its project.
"""

from __future__ import annotations

from memlens.engine.answers.visibility import Visibility
from memlens.engine.catalog import Catalog
from memlens.settings.values import show


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


def unknown_project_note(catalog: Catalog, project: str, visibility: Visibility) -> str | None:
    """What an answer filtered by `project` says when no visible session worked in it (None when one did): the name
    may be mistyped, or a folder given that no session ran in, and nothing else tells an empty project from an
    unanswered question. Every answer that takes a project filter says it so (search, sessions); a hidden session
    counts as none, as it is never listed or named."""
    for row in catalog.all_sessions():
        if in_project(row["cwd"], project) and not visibility.hides_row(row):
            return None
    return f"no session worked in a folder named or under {show(project)}"
