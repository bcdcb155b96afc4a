"""The transcript folders a user's settings name (`transcripts.paths`) that are not folders on disk.

A sync reads what it finds and skips the rest without a word, which suits the agents' default folders (most people
use one agent, so most of those folders are absent) but hides a typo in a folder the user named: the engine says
once, when it opens, which named folder it could not find. A `--transcripts DIR` flag is checked by the CLI before
the engine opens, as an error."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from memlens.settings import Settings


def missing_transcript_folders(workspaces: Iterable[Path], settings: Settings) -> list[Path]:
    """Each folder of `transcripts.paths` (a relative one is the workspace's) that is not a folder, once."""
    missing: dict[Path, None] = {}
    for workspace in workspaces:
        for configured in settings.transcripts.paths:
            path = Path(configured).expanduser()
            folder = path if path.is_absolute() else workspace / path
            if not folder.is_dir():
                missing[folder] = None
    return list(missing)
