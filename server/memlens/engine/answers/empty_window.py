"""A search whose `since`/`until` window holds no message at all ("--since 2099-01-01", a window before the first
session): nothing was searched, and a bare "0 results" would read as "nothing matched". The answer names the window
and, as a question about days that held none does (period.py `nearest_outside`), when the nearest messages this
search may show were written before and after it; a `since` later than now says that too. A window that holds
messages of which none match is the usual no results."""

from __future__ import annotations

import math
import time
from datetime import tzinfo

from memlens.engine.answers.period import Hides, PeriodQuestion, iso_time, nearest_outside, zone_name
from memlens.engine.catalog import Catalog
from memlens.engine.filters import SearchFilters
from memlens.wire import EmptyWindow


def empty_window(
    filters: SearchFilters | None, *, catalog: Catalog, hides: Hides, zone: tzinfo, now: float | None
) -> EmptyWindow | None:
    """The window of `filters` when it holds no unit at all (None: no window, or one that holds some); `now`: the
    clock's when None."""
    if filters is None or (filters.since is None and filters.until is None):
        return None
    if catalog.holds_units_between(filters.since, filters.until):
        return None
    window = PeriodQuestion(
        since=-math.inf if filters.since is None else filters.since,
        until=math.inf if filters.until is None else filters.until,
        zone=zone_name(zone),
        rest="",
    )
    before, after = nearest_outside(window, catalog=catalog, hides=hides, filters=filters)
    said: EmptyWindow = {"timeZone": window.zone}
    if filters.since is not None:
        said["since"] = iso_time(filters.since, zone)
        if filters.since > (time.time() if now is None else now):
            said["sinceInFuture"] = True
    if filters.until is not None:
        said["until"] = iso_time(filters.until, zone)
    if before is not None:
        said["nearestBefore"] = iso_time(before, zone)
    if after is not None:
        said["nearestAfter"] = iso_time(after, zone)
    return said
