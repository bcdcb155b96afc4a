"""Search filters (kind, agent format, session, role, time range) and their parsing from user input."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from memlens.errors import InvalidRequest

KINDS = ("memory", "transcript", "summary")
FORMATS = ("claude-code", "codex", "openclaw", "specstory")
ROLES = ("user", "assistant")


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

    def is_empty(self) -> bool:
        return not any((self.kind, self.format, self.session, self.role)) and (
            self.since is None and self.until is None
        )


def parse_time(value: str, field: str, end_of_day: bool = False) -> float:
    """ISO 8601 date or date-time (naive = UTC) → epoch seconds. A bare date `until` means the end of that day."""
    text = value.strip()
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise InvalidFilter(f"{field}: {value!r} is not an ISO date or date-time (e.g. 2026-02-10)") from exc
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    seconds = parsed.timestamp()
    if end_of_day and len(text) == 10:
        seconds += 86400 - 0.001
    return seconds


def _choice(value: Any, field: str, allowed: tuple[str, ...]) -> str | None:
    if value in (None, ""):
        return None
    if value not in allowed:
        raise InvalidFilter(f"{field}: {value!r} is not one of {', '.join(allowed)}")
    return str(value)


def filters_from_dict(data: dict[str, Any] | None) -> SearchFilters:
    """Build filters from camelCase wire data; raises InvalidFilter with a clear message."""
    if not data:
        return SearchFilters()
    if not isinstance(data, dict):
        raise InvalidFilter("filters must be an object")
    unknown = set(data) - {"kind", "format", "session", "sessionKey", "role", "since", "until"}
    if unknown:
        raise InvalidFilter(f"unknown filter(s): {', '.join(sorted(unknown))}")
    session = data.get("session") or data.get("sessionKey")
    if session is not None and not isinstance(session, str):
        raise InvalidFilter("session: must be a string")
    since, until = data.get("since"), data.get("until")
    for name, value in (("since", since), ("until", until)):
        if value is not None and not isinstance(value, str):
            raise InvalidFilter(f"{name}: must be an ISO date string")
    return SearchFilters(
        kind=_choice(data.get("kind"), "kind", KINDS),
        format=_choice(data.get("format"), "format", FORMATS),
        session=session or None,
        role=_choice(data.get("role"), "role", ROLES),
        since=parse_time(since, "since") if since else None,
        until=parse_time(until, "until", end_of_day=True) if until else None,
    )
