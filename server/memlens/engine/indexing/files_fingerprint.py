"""A fingerprint of the files a whole sync finds: each one's name as discovery found it, and what stat said of it.

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
import itertools
import operator
import os
import struct
from collections.abc import Sequence

from memlens.engine.indexing.discovery import SourceFile

# What `changed` reads of a stat, packed as binary: formatting five numbers as text for each of 70,000 files, or
# building lists of them, cost twice what packing them does
_FIELDS = operator.attrgetter("st_size", "st_mtime_ns", "st_ctime_ns", "st_dev", "st_ino")
_PACK = struct.Struct("<qqqQQ").pack


def files_fingerprint(sources: Sequence[SourceFile]) -> str | None:
    """The fingerprint of these names and their stats (hex): equal only for the same names, in the same order, with
    the same stats. None when a file cannot be stat'd now: the sync then compares rows and says why.

    From the names as discovery gives them and the stats its walk took, so a sync that finds nothing changed builds
    nothing per file (stat_all's tuples, the catalog's keys) but the bytes hashed here."""
    stats: list[os.stat_result] = []
    for source in sources:
        try:
            stats.append(source.stat or os.stat(source.name))  # a plain path (MEMORY.md) is not walked
        except (OSError, ValueError):
            return None
    try:
        packed = b"".join(itertools.starmap(_PACK, map(_FIELDS, stats)))
    except struct.error:  # a number past 64 bits, which no platform memlens runs on gives: compare rows instead
        return None
    digest = hashlib.blake2b(digest_size=16)
    digest.update("\0".join(source.name for source in sources).encode("utf-8", "surrogatepass"))
    digest.update(packed)
    return f"{len(sources)}:{digest.hexdigest()}"
