"""A fingerprint of the files a whole sync finds: each one's name as the catalog keys it, and what stat said of it.

A sync compares each file's stat with its catalog row (file_identity.changed). At tens of thousands of files, reading
every row and comparing them one by one was half of a sync that found nothing changed, which is what a CLI search
without a server and a server's start begin with. A whole sync that leaves every file wholly read keeps this
fingerprint in the catalog (`Catalog.keep_files_fingerprint`); a later one that finds the same has nothing to read.
Any write to a file row or an alias, by any process or version of memlens, forgets the kept one (triggers in
catalog/schema.py), so a kept fingerprint always describes the rows as they are.

What it covers is what `changed` reads of a stat (size, mtime, device, inode, ctime), for every name in the order
discovery gives them: a file added, removed, renamed or touched, or a change of which files the settings take in,
each makes another fingerprint.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from memlens.engine.indexing.file_identity import Named


def files_fingerprint(found: Sequence[Named]) -> str:
    """The fingerprint of these names and stats (hex): equal only for the same names, in the same order, with the
    same stats."""
    lines = "\n".join(
        f"{n.key}\0{n.stat.st_size}\0{n.stat.st_mtime_ns}\0{n.stat.st_dev}\0{n.stat.st_ino}\0{n.stat.st_ctime_ns}"
        for n in found
    )
    digest = hashlib.blake2b(lines.encode("utf-8", "surrogatepass"), digest_size=16)
    return f"{len(found)}:{digest.hexdigest()}"
