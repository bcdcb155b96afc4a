"""A keyword index in a folder nobody may write (a read-only mount, a backup snapshot, another user's index this
user may only read) opened through a private folder of links to its files: tantivy writes a lock file to open any
index, which such a folder refuses, and a reader needs nothing else written. `meta.json`, the one file a writer
replaces, is copied, so the view keeps the segments it opened (an open segment's files stay readable after a writer
deletes them: they are mapped) and is a snapshot of the index as it was when opened."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import weakref
from pathlib import Path

import tantivy

META_FILE = "meta.json"
_LOCK_PREFIX = ".tantivy-"  # the lock files tantivy makes in the view itself


class LinkedView:
    """Links to `folder`'s files in a temporary folder of this user's, removed when the view is closed or collected
    (and at exit). Raises OSError where links cannot be made (a Windows user without the right to make them)."""

    def __init__(self, folder: Path) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="memlens-keyword-view-"))
        self._finalizer = weakref.finalize(self, shutil.rmtree, self.path, True)
        try:
            for entry in os.scandir(folder):
                if entry.name.startswith(_LOCK_PREFIX) or not entry.is_file():
                    continue
                target = self.path / entry.name
                if entry.name == META_FILE:
                    shutil.copyfile(entry.path, target)
                else:
                    target.symlink_to(Path(entry.path).absolute())
        except BaseException:
            self.close()
            raise

    def open(self) -> tantivy.Index:
        return tantivy.Index.open(str(self.path))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._finalizer()
