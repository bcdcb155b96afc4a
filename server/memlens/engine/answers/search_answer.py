"""A search, from the query as given to the `--json` / `memlens.search` response: the request checked, the query
parsed once and ranked, the ranking made into bounded results, labelled and timed, with a note when the requested
mode could not run."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Protocol, cast

from memlens.engine.answers.empty_window import empty_window
from memlens.engine.answers.event_period import event_period, read_event_question
from memlens.engine.answers.period import (
    PERIOD_MATCHES,
    Hides,
    PeriodQuestion,
    nearest_outside,
    period_results,
    read_period,
    time_zone,
    unmatched_note,
)
from memlens.engine.answers.projects import unknown_project_note
from memlens.engine.answers.references import add_references
from memlens.engine.answers.results import ResultBuilder
from memlens.engine.answers.sessions import label_results, resolve_session
from memlens.engine.answers.visibility import Visibility
from memlens.engine.catalog import Catalog
from memlens.engine.filters import SearchFilters, filters_from_request
from memlens.engine.keyword.keyword_index import KeywordIndex
from memlens.engine.keyword.pasted_noise import without_pasted_noise
from memlens.engine.keyword.source_excerpts import without_source_excerpts
from memlens.engine.keyword.stack_frames import without_stack_frames
from memlens.engine.ranking.cross_encoder import CrossEncoder
from memlens.engine.ranking.dates import ambiguous_dates, unread_dates
from memlens.engine.ranking.hits import Ranking, UnitHit
from memlens.engine.ranking.query_reading import ranked_text
from memlens.engine.ranking.search import Retriever
from memlens.engine.sources.common import scrub
from memlens.requests import (
    SearchFilterRequest,
    SearchRequest,
    checked,
    empty_window_note,
    read_end,
    unnamed_event_note,
)
from memlens.settings import Settings
from memlens.wire import FusionMode, LeftOut, SearchResponse, UnnamedEvent

NO_TOPIC_NOTE = (
    "nothing searched: only stop words, lone letters or punctuation, which name no topic; add a word that does, or"
    " quote the words to find them as written"
)


class SearchSource(Protocol):
    """What a search reads: the engine's index, its settings, and what a request may show."""

    catalog: Catalog
    settings: Settings
    workspaces: list[Path]
    retriever: Retriever
    cross_encoder: CrossEncoder
    provider_note: str

    def refresh(self) -> None: ...

    def indexing(self) -> bool: ...

    def visibility(self) -> Visibility: ...


def ranked(
    engine: SearchSource,
    query: str,
    *,
    mode: str | None,
    filters: SearchFilters | None,
    limit: int | None,
    fusion: str | None,
) -> Ranking:
    """The ranking once the engine has followed the writer (`refresh`). The query is parsed here, once, and every
    step after reads the parsed query."""
    parsed = engine.retriever.read(query, engine.settings.search, filters)
    ranking = engine.retriever.rank(parsed, engine.settings.search, mode, fusion, limit)
    return engine.cross_encoder.rerank(parsed.text, ranking, engine.settings.reranker, engine.catalog)


def search(
    engine: SearchSource,
    query: str,
    *,
    limit: int | None,
    mode: str | None,
    filters: SearchFilters | SearchFilterRequest | None,
    explain: bool,
    fusion: str | None,
    min_score: float | None,
) -> SearchResponse:
    """The response, before the door's redaction (`Engine._outbound`)."""
    checked(SearchRequest, query=query, limit=limit, mode=mode, fusion=fusion, explain=explain, min_score=min_score)
    if isinstance(filters, SearchFilterRequest):
        filters = filters_from_request(filters, zone=time_zone(engine.settings.display.time_zone))
    started = time.perf_counter()
    query, left_out = read_end(SearchRequest, "query", query)  # a pasted traceback: its end tells
    query = scrub(query)  # raw bytes that are not UTF-8 (a shell passes them as typed) read as stored text does
    # a pasted trace is searched by its message, not the files it ran through, nor its colours and time stamps, nor
    # the code a compiler's error quotes;
    # the answer says what was read
    read = without_pasted_noise(query)
    searched = without_source_excerpts(without_stack_frames(read))
    settings = engine.settings.search
    limit = limit or settings.max_results
    engine.refresh()
    if filters is not None and filters.session:  # a session id or a unique prefix, as history takes it
        session = resolve_session(engine.catalog, filters.session, engine.visibility())
        filters = dataclasses.replace(filters, session=session)
    # read before the answer is worked out: work that ends during the search (the words' vectors) must not make
    # an answer from before it read as final (the editor's self-test saw 6 hits said final, then 7)
    indexing = engine.indexing()
    period = period_question(engine, read)
    if period is None:
        dated = event_question(engine, read, filters)
        if isinstance(dated, dict):  # the event is named nowhere: no day to count from, said
            unnamed = _unnamed_event(engine, query, dated, mode=mode, indexing=indexing, started=started)
            return _said_of_the_query(unnamed, left_out, engine.retriever.keyword)
        period = dated
    if period is not None:
        floor = settings.min_score if min_score is None else min_score
        answered = period_search(
            engine, query, period, limit=limit, mode=mode, filters=filters, min_score=floor, started=started
        )
        return _said_of_the_query(answered, left_out, engine.retriever.keyword)
    ranking = ranked(engine, searched, mode=mode, filters=filters, limit=limit, fusion=fusion)
    builder = ResultBuilder(engine.catalog, engine.workspaces, engine.visibility())
    answer = builder.answer(
        ranking,
        limit,
        settings.min_score if min_score is None else min_score,
        settings.excerpt_chars,
        settings.max_response_chars,
        explain,
    )
    results = answer.results
    label_results(engine.catalog, results)
    add_references(engine.catalog, results, builder.visibility)
    response: SearchResponse = {
        "query": query,
        "mode": ranking.mode,
        "results": results,
        "totalResults": len(results),
        "searchTimeMs": round((time.perf_counter() - started) * 1000, 2),
        "indexing": indexing,
        "withheld": answer.withheld,
    }
    if not ranking.names_a_topic:
        response["namesNoTopic"] = True
        response["note"] = NO_TOPIC_NOTE
    elif ranking.mode != (mode or settings.mode):
        response["note"] = f"no embedding model ({engine.provider_note or 'no vectors yet'}); keyword search only"
    if filters is not None and filters.project and not results:
        _add_note(response, unknown_project_note(engine.catalog, filters.project, builder.visibility))
    if not results:
        _say_empty_window(engine, response, filters, builder.visibility.hides)
    if explain:
        response["fusion"] = cast(FusionMode, ranking.fusion)  # the retriever checked it against FUSIONS
    return _said_of_the_query(response, left_out, engine.retriever.keyword)


def _say_empty_window(
    engine: SearchSource, response: SearchResponse, filters: SearchFilters | None, hides: Hides
) -> None:
    """When the filters' since/until window holds no message at all: that, in place of any other note (nothing was
    searched, so neither the mode nor a project's name had a say)."""
    window = empty_window(
        filters,
        catalog=engine.catalog,
        hides=hides,
        zone=time_zone(engine.settings.display.time_zone),
        now=engine.retriever.now,
    )
    if window is not None:
        response["emptyWindow"] = window
        response["note"] = empty_window_note(window)


def _add_note(response: SearchResponse, said: str | None) -> None:
    """`said` after any note the answer already carries."""
    if said is not None:
        response["note"] = f"{said}; {response['note']}" if response.get("note") else said


def _said_of_the_query(response: SearchResponse, left_out: LeftOut | None, keyword: KeywordIndex) -> SearchResponse:
    """The answer, saying what of a long query's start was not read, which dates it names no calendar has, and
    whether their words were searched (query_reading.ranked_text), and which numeric dates read as two days (searched
    as words); every door shows all three."""
    if left_out is not None:
        response["leftOut"] = left_out
    unread = unread_dates(response["query"])
    if unread:
        searched = ranked_text(response["query"], keyword) == response["query"]
        response["unreadDates"] = [{**date, "wordsSearched": searched} for date in unread]
    ambiguous = ambiguous_dates(response["query"])
    if ambiguous:
        response["ambiguousDates"] = ambiguous
    return response


def period_question(engine: SearchSource, query: str) -> PeriodQuestion | None:
    """The days `query` asks about when it is a question about a period ("what did we do yesterday")."""
    return read_period(query, now=engine.retriever.now, zone=time_zone(engine.settings.display.time_zone))


def event_question(
    engine: SearchSource, query: str, filters: SearchFilters | None
) -> PeriodQuestion | UnnamedEvent | None:
    """The days around an event `query` asks about when it is a question about them ("what did we do the week before
    the offsite"), the event dated by the messages this search may show (answers/event_period.py)."""
    settings = engine.settings.search
    asked = read_event_question(query) if settings.event_mentions > 0 else None
    if asked is None:
        return None
    builder = ResultBuilder(engine.catalog, engine.workspaces, engine.visibility())

    def name(unit_id: int) -> str:
        """How the answer refers to a message: its reference, or a note's relPath:line."""
        row = engine.catalog.result_rows([unit_id])[unit_id]
        result = builder.result(row, UnitHit(unit_id), [], settings.excerpt_chars)
        add_references(engine.catalog, [result], builder.visibility)
        return result.get("reference") or f"{result['relPath']}:{result.get('lineStart')}"

    return event_period(
        asked,
        keyword=engine.retriever.keyword,
        catalog=engine.catalog,
        hides=builder.visibility.hides,
        filters=filters,
        zone=time_zone(engine.settings.display.time_zone),
        mentions=settings.event_mentions,
        name=name,
        now=engine.retriever.now,
    )


def _unnamed_event(
    engine: SearchSource, query: str, unnamed: UnnamedEvent, *, mode: str | None, indexing: bool, started: float
) -> SearchResponse:
    """The answer to a question about the days around an event no message names: none, saying so."""
    return {
        "query": query,
        "mode": engine.retriever.mode_used(mode or engine.settings.search.mode),
        "results": [],
        "totalResults": 0,
        "searchTimeMs": round((time.perf_counter() - started) * 1000, 2),
        "indexing": indexing,
        "withheld": 0,
        "unnamedEvent": unnamed,
        "note": unnamed_event_note(unnamed),
    }


def period_search(
    engine: SearchSource,
    query: str,
    period: PeriodQuestion,
    *,
    limit: int,
    mode: str | None,
    filters: SearchFilters | None,
    min_score: float,
    started: float,
) -> SearchResponse:
    """A period's sessions and their telling messages (answers/period.py), ordered by the query's other words; none
    when those words match nothing written then, saying so."""
    settings = engine.settings.search
    indexing = engine.indexing()
    ranking = (
        ranked(engine, period.rest, mode=mode, filters=period.narrow(filters), limit=limit, fusion=None)
        if period.rest
        else None
    )
    builder = ResultBuilder(engine.catalog, engine.workspaces, engine.visibility())
    answer = period_results(
        period,
        catalog=engine.catalog,
        matches=ranking.hits[:PERIOD_MATCHES] if ranking else [],
        hides=builder.visibility.hides,
        make_result=builder.result,
        filters=filters,
        limit=limit,
        terms=ranking.query_terms if ranking else [],
        excerpt_chars=settings.excerpt_chars,
        min_score=min_score,
        calibrated=ranking.calibrated if ranking else False,
        # the vectors' own reading of a paraphrase stands in for the default floor, never for a stricter one asked
        typical=(
            engine.retriever.typical_nearness(period.rest)
            if ranking and ranking.mode != "keyword" and min_score <= settings.min_score
            else None
        ),
    )
    results = answer.results
    label_results(engine.catalog, results)
    add_references(engine.catalog, results, builder.visibility)
    zone = time_zone(engine.settings.display.time_zone)
    nearest = (
        (None, None)
        if results or answer.unmatched
        else nearest_outside(period, catalog=engine.catalog, hides=builder.visibility.hides, filters=filters)
    )
    response: SearchResponse = {
        "query": query,
        "mode": ranking.mode if ranking else engine.retriever.mode_used(mode or settings.mode),
        "results": results,
        "totalResults": len(results),
        "searchTimeMs": round((time.perf_counter() - started) * 1000, 2),
        "indexing": indexing,
        "withheld": answer.withheld,
        "period": period.wire(zone, nearest=nearest),
    }
    if answer.unmatched:
        response["period"]["sessionsWritten"] = answer.unmatched
        response["note"] = unmatched_note(period, answer.unmatched, zone)
    return response
