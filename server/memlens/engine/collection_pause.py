"""Python's cyclic garbage collector paused while a sync builds one small object per file.

A sync's walk and its comparison with the catalog make a few objects per file (its name, its stat, the catalog's
state of it) that hold no reference cycles and live until the sync ends. At tens of thousands of files, the
collector's full passes over them were a fifth of a sync that found nothing changed, and found nothing to free.
Paused only around those loops (never around parsing, whose garbage may hold cycles); reference counting still frees
everything as usual. The collector is one per process: pauses in several threads nest, and the last one to end
restores what the first one found (a collector someone else disabled stays disabled).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def collection_paused() -> Iterator[None]:
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
