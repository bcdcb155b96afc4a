"""Dates of named events: "two days before the demo" names a day only the corpus knows, the day of the demo.

The event's words (dates.anchored_events) are looked up in the keyword index, as a phrase first and loosely if the
phrase is nowhere; the days its best few matches were written date the event, and the offset is applied to each
(dates.AnchoredEvent.window). The windows join the query's other dates for the re-scoring's date boost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memlens.engine.ranking.dates import Window, anchored_events, day_of, epoch_day

if TYPE_CHECKING:
    from memlens.engine.catalog import Catalog
    from memlens.engine.keyword.keyword_index import KeywordIndex


def event_windows(query: str, keyword: KeywordIndex, catalog: Catalog, *, mentions: int) -> list[Window]:
    """The day windows `query` names relative to events, each event dated by its `mentions` best keyword matches."""
    if mentions <= 0:
        return []
    windows: list[Window] = []
    for event in anchored_events(query):
        phrase = keyword.search(keyword.parse(f'"{event.phrase}"'), mentions)
        hits = phrase or keyword.search(keyword.parse(event.phrase), mentions)
        rows = catalog.units_by_id([unit_id for unit_id, _ in hits])
        days: set[int] = set()
        for row in rows.values():
            ts = row["ts"]
            if ts is None or float(ts) < 0:
                continue
            try:
                days.add(epoch_day(day_of(float(ts))))
            except (OverflowError, OSError, ValueError):
                continue
        windows += [event.window(day) for day in sorted(days)]
    return windows
