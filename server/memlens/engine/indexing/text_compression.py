"""The writer's side of compressed texts (catalog/compressed_text.py): train the catalog's dictionary once it holds
enough texts, then compress the values written before it, a batch per transaction."""

from __future__ import annotations

import logging
import threading
import time

from memlens.engine.catalog import Catalog
from memlens.engine.catalog.compressed_text import TRAIN_AFTER, TRAIN_SAMPLE, train

log = logging.getLogger(__name__)

BATCH = 2_000  # units a transaction compresses
TRIED_KEY = "text_dictionary_tried"  # the highest unit id when training last failed (too little text): tried again
# once the catalog has twice as many units, not at every sync


def compress_stored_texts(catalog: Catalog, cancel: threading.Event | None = None) -> int:
    """Train the dictionary when the catalog has none and holds enough units, then compress the plain values left
    (a catalog from before compression: once, cancellable, searches reading both forms meanwhile). Returns how
    many units were looked at."""
    if catalog.know_dictionaries() is None:
        highest = catalog.highest_unit_id()
        if highest < max(TRAIN_AFTER, 2 * int(catalog.get_meta(TRIED_KEY) or 0)):
            return 0
        started = time.process_time()
        dictionary = train(catalog.text_samples(TRAIN_SAMPLE))
        if dictionary is None:  # too little text to learn from: stored plain, which is only larger
            log.info("no text dictionary from %d units yet", highest)
            with catalog.transaction() as db:
                catalog.set_meta(db, TRIED_KEY, str(highest))
            return 0
        number = catalog.store_dictionary(dictionary)
        log.info("text dictionary %d trained: %.1f s of CPU", number, time.process_time() - started)
    done = 0
    while not (cancel is not None and cancel.is_set()):
        looked = catalog.compress_plain_values(BATCH)
        done += looked
        if looked < BATCH:
            break
    return done
