"""Reads a search's query once (keyword/parsed_query.py), with the dates it names: the words as the keyword index
analyses them, then, when search.dateBoost is on, the day windows of its dates and of the events it dates by
("two days before the demo": the demo's day from the messages that mention it, event_dates.py)."""

from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING

from memlens.engine.filters import SearchFilters
from memlens.engine.keyword.acronyms import confirmed
from memlens.engine.ranking.dates import query_windows, without_unread_dates
from memlens.engine.ranking.event_dates import event_windows

ACRONYM_PROBES = 20  # messages holding a partial run's acronym read for it written as one (capitals, an identifier)

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
    """`text` parsed for one search (`ranked_text`); `now` reads relative dates ("last week"), None meaning the
    clock."""
    query = keyword.parse(ranked_text(text, keyword), filters)
    if any(a.partial for a in query.acronyms):
        query = with_confirmed_acronyms(query, keyword, catalog)
    if not (query.error_like or query.output_like or query.technical or query.phrases) and (
        filters is None or not filters.kind
    ):
        # plain words leave tool output out: the command output that shares them would only take prose's places. A
        # query naming an identifier, a path or a command keeps it (demoted: rescoring.demote_tool_results), since
        # that name may be printed nowhere else, and so does a quoted phrase, whose words as written may be too; an
        # error-like query, a line pasted from an output, or one asking for kind tool, weighs it in full
        query = dataclasses.replace(query, filters=dataclasses.replace(filters or SearchFilters(), without_kind="tool"))
    if settings.date_boost <= 0:  # the dates only serve the date boost: not read when it is off
        return query
    rest = without_unread_dates(text)  # no day is read from a date no calendar has, nor a month ("in February 30")
    windows = query_windows(rest, time.time() if now is None else now)
    windows += event_windows(rest, keyword, catalog, mentions=settings.event_mentions)
    return dataclasses.replace(query, dates=tuple(windows))


def with_confirmed_acronyms(query: ParsedQuery, keyword: KeywordIndex, catalog: Catalog) -> ParsedQuery:
    """`query` less the acronyms of partial runs that no message holding them writes as one (acronyms.confirmed)."""

    def texts(term: str) -> list[str]:
        hits = keyword.search(keyword.parse(term), ACRONYM_PROBES)
        return list(catalog.unit_texts([unit_id for unit_id, _ in hits]).values())

    found = confirmed(query.acronyms, texts=texts)
    if found == query.acronyms:
        return query
    return dataclasses.replace(
        query, acronyms=found, loose_acronyms=tuple(a for a in query.loose_acronyms if a in found)
    )


def ranked_text(text: str, keyword: KeywordIndex) -> str:
    """What of a query is ranked: `text` less the dates no calendar has ("on February 30", dates.py), whose month and
    number would pull up whatever mentions them above what the rest asks for; all of it when the rest names no topic
    ("what did we do on February 30"), where those words are all the query says."""
    rest = without_unread_dates(text)
    if rest == text or keyword.parse(rest).names_a_topic:
        return rest
    return text
