"""Reads a search's query once (keyword/parsed_query.py), with the dates it names: the words as the keyword index
analyses them, then, when search.dateBoost is on, the day windows of its dates and of the events it dates by
("two days before the demo": the demo's day from the messages that mention it, event_dates.py)."""

from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING

from memlens.engine.filters import SearchFilters
from memlens.engine.ranking.dates import query_windows
from memlens.engine.ranking.event_dates import event_windows

if TYPE_CHECKING:
    from memlens.engine.catalog import Catalog
    from memlens.engine.keyword.keyword_index import KeywordIndex
    from memlens.engine.keyword.parsed_query import ParsedQuery
    from memlens.settings import SearchSettings


def read_query(
    text: str,
    *,
    keyword: KeywordIndex,
    catalog: Catalog,
    settings: SearchSettings,
    now: float | None,
    filters: SearchFilters | None = None,
) -> ParsedQuery:
    """`text` parsed for one search; `now` reads relative dates ("last week"), None meaning the clock."""
    query = keyword.parse(text, filters)
    if not (query.error_like or query.technical) and (filters is None or not filters.kind):
        # plain words leave tool output out: the command output that shares them would only take prose's places. A
        # query naming an identifier, a path or a command keeps it (demoted: rescoring.demote_tool_results), since
        # that name may be printed nowhere else; an error-like query, or one asking for kind tool, weighs it in full
        query = dataclasses.replace(query, filters=dataclasses.replace(filters or SearchFilters(), without_kind="tool"))
    if settings.date_boost <= 0:  # the dates only serve the date boost: not read when it is off
        return query
    windows = query_windows(text, time.time() if now is None else now)
    windows += event_windows(text, keyword, catalog, mentions=settings.event_mentions)
    return dataclasses.replace(query, dates=tuple(windows))
