"""The last index write that failed for a reason outside memlens (a full disk, a read-only or failing disk), kept
beside the index so that `memlens stats`, run later in another process, can say why files are not indexed.

The file keeps a fixed size from the day it is made and is overwritten in place: its blocks are already allocated,
so the cause still fits on the full disk that refused the index (a failed tantivy commit leaves its partial files
behind, so a full disk stays full). The folder probe (`errors.unwritable_folder_cause`) covers a folder that
cannot be written at all."""

from __future__ import annotations

import contextlib
from pathlib import Path

FILE_NAME = "last-write-failure.txt"
SIZE = 256


def reserve_write_failure_slot(index_dir: Path) -> None:
    """Make the file (blank) while there is space, so that a failure can be written into it later."""
    if not (index_dir / FILE_NAME).exists():
        _write(index_dir, "")


def record_write_failure(index_dir: Path, cause: str) -> None:
    _write(index_dir, cause)


def clear_write_failure(index_dir: Path) -> None:
    _write(index_dir, "")


def last_write_failure(index_dir: Path) -> str | None:
    """The cause of the last failed write (one line), or None when the last write succeeded."""
    try:
        text = (index_dir / FILE_NAME).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return " ".join(text.split()) or None


def _write(index_dir: Path, text: str) -> None:
    data = text.encode("utf-8")[:SIZE].ljust(SIZE, b" ")
    path = index_dir / FILE_NAME
    # the disk that refused the index may refuse this too; the caller has said the cause already
    with contextlib.suppress(OSError):
        try:
            with path.open("r+b") as handle:  # in place: blocks it already has need no free space
                handle.write(data)
        except FileNotFoundError:
            with path.open("wb") as handle:
                handle.write(data)
