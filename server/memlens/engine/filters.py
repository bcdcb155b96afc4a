"""Search filters (kind, agent format, session, project, role, time range) and their parsing from user input."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, tzinfo
from typing import Any

from memlens.errors import InvalidRequest
from memlens.requests import FORMATS, KINDS, ROLES, SearchFilterRequest, parse, parse_time

__all__ = ["FORMATS", "KINDS", "ROLES", "InvalidFilter", "SearchFilters", "filters_from_dict", "parse_time"]


class InvalidFilter(InvalidRequest):
    """A filter value that cannot be used; the message says which and why."""


@dataclass(frozen=True, slots=True)
class SearchFilters:
    kind: str | None = None
    format: str | None = None
    session: str | None = None  # a session key
    role: str | None = None
    since: float | None = None  # epoch seconds, inclusive
    until: float | None = None
    # a kind left out unless asked for: tool results, for a query that neither looks like an error nor asks for
    # that kind (ranking/query_reading.py), so they take no candidate's place in the retrievers
    without_kind: str | None = None
    project: str | None = None  # a folder's name or path (answers.projects)
    sessions: frozenset[str] | None = None  # the project's session keys, resolved against the catalog

    def is_empty(self) -> bool:
        return not any((self.kind, self.format, self.session, self.role, self.without_kind, self.project)) and (
            self.since is None and self.until is None and self.sessions is None
        )


def filters_from_request(request: SearchFilterRequest, *, zone: tzinfo = UTC) -> SearchFilters:
    """The engine's filters for a checked request (dates as epoch seconds; a bare `until` date is its day's end; a
    day word, `yesterday`, a day of `zone`)."""
    return SearchFilters(
        kind=request.kind,
        format=request.format,
        session=request.session or request.session_key or None,
        role=request.role,
        project=request.project or None,
        since=parse_time(request.since, "since", zone=zone) if request.since else None,
        until=parse_time(request.until, "until", end_of_day=True, zone=zone) if request.until else None,
    )


def filters_from_dict(data: dict[str, Any] | None) -> SearchFilters:
    """Build filters from camelCase wire data (memlens.requests.SearchFilterRequest); raises InvalidFilter."""
    if not data:
        return SearchFilters()
    cleaned = data if not isinstance(data, dict) else {k: v for k, v in data.items() if v != ""}  # "" = no filter
    try:
        return filters_from_request(parse(SearchFilterRequest, cleaned))
    except InvalidFilter:
        raise
    except InvalidRequest as exc:
        raise InvalidFilter(str(exc)) from None
