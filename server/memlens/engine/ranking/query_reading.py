"""Reads a search's query once (keyword/parsed_query.py), with the dates it names: the words as the keyword index
analyses them, then, when search.dateBoost is on, the day windows of its dates and of the events it dates by
("two days before the demo", "between the offsite and the launch": each event's day from the messages that mention
it, event_dates.py), whose words are then no topic of the search."""

from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING

from memlens.engine.filters import SearchFilters
from memlens.engine.keyword.acronyms import confirmed
from memlens.engine.ranking.dates import Window, query_windows, without_unread_dates
from memlens.engine.ranking.event_dates import read_events
from memlens.engine.ranking.verbatim import query_codes

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
    """`text` parsed for one search (`ranked_text`, less the words of the events it dates: `without_events`); `now`
    reads relative dates ("last week"), None meaning the clock."""
    ranked = ranked_text(text, keyword)
    windows: list[Window] = []
    if settings.date_boost > 0:  # the dates only serve the date boost: not read when it is off
        rest = without_unread_dates(text)  # no day is read from a date no calendar has, nor a month ("in February 30")
        events = read_events(rest, keyword, catalog, mentions=settings.event_mentions)
        windows = query_windows(rest, time.time() if now is None else now) + events.windows
        if events.said and ranked == rest:
            ranked = without_events(rest, events.said, keyword)
    query = keyword.parse(ranked, filters)
    if any(a.partial for a in query.acronyms):
        query = with_confirmed_acronyms(query, keyword, catalog)
    if not (query.error_like or query.output_like or query.technical or query.phrases or query_codes(query.text)) and (
        filters is None or not filters.kind
    ):
        # plain words leave tool output out: the command output that shares them would only take prose's places. A
        # query naming an identifier, a path or a command keeps it (demoted: rescoring.demote_tool_results), since
        # that name may be printed nowhere else, and so do a quoted phrase, whose words as written may be too, and a
        # query of codes (a hash, a request's id: verbatim.query_codes), which a log printed; an error-like query, a
        # line pasted from an output, or one asking for kind tool, weighs it in full
        query = dataclasses.replace(query, filters=dataclasses.replace(filters or SearchFilters(), without_kind="tool"))
    if settings.date_boost <= 0:
        return query
    return dataclasses.replace(query, dates=tuple(windows))


def without_events(text: str, said: list[tuple[int, int]], keyword: KeywordIndex) -> str:
    """`text` less each dated event with what counts from it (`said`: "the week before the offsite", "between the
    offsite and the launch"): the event's words name days, which the date boost reads, not the topic. Ranked as topic
    words they pull up the messages that mention the event, written before it or on its day, above what was done in
    the days asked about. All of `text` when the rest names no topic."""
    rest = text
    for start, end in sorted(said, reverse=True):
        rest = f"{rest[:start].rstrip()} {rest[end:].lstrip()}".strip()
    return rest if keyword.parse(rest).names_a_topic else text


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
