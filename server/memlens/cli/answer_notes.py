"""What a search answer says about itself beside its hits: the weaker matches it withheld and how to see them, the
period a question about days was read as, what of a long query was left out, the dates it names that cannot exist
or that read as two days, and which flags narrowed an answer that found nothing."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING

from memlens.cli.terminal import Style, folded, width
from memlens.requests import (
    ambiguous_date_note,
    empty_window_note,
    event_day_note,
    left_out_note,
    parse_time,
    specs,
    unread_date_note,
)
from memlens.wire import Period, SearchResponse

if TYPE_CHECKING:
    from memlens.engine.catalog.units import TimeSpan


def given_flags(request: object, *, fields: Collection[str] | None = None) -> list[str]:
    """The flags `request`'s set fields came from, as typed (`--since 1d`), in the request's order; `fields`: only
    these."""
    given = []
    for spec in specs(type(request)):
        value = getattr(request, spec.name)
        if value is None or value is False or (fields is not None and spec.name not in fields):
            continue
        given.append(f"{spec.flag or '--' + spec.name.replace('_', '-')} {value}")
    return given


def narrowing_flags(
    request: object, span: Callable[[], TimeSpan], *, fields: Collection[str] | None = None
) -> list[str]:
    """`given_flags` less a `since` or `until` that leaves nothing of the index out: one before its first unit (after
    its last), or any in an empty index. A duration reaching before every message narrowed nothing. `span` is asked
    only when a `since` or `until` was given."""
    bounds = [
        (name, value, end)
        for name, end in (("since", False), ("until", True))
        if (value := getattr(request, name, None))
    ]
    if not bounds:
        return given_flags(request, fields=fields)
    held = span()
    unbounded = {name for name, value, end in bounds if not _bound_narrows(name, value, held, end_of_day=end)}
    return given_flags(request, fields=[f for f in _field_names(request, fields) if f not in unbounded])


def _field_names(request: object, fields: Collection[str] | None) -> list[str]:
    return [spec.name for spec in specs(type(request)) if fields is None or spec.name in fields]


def _bound_narrows(name: str, value: str, span: TimeSpan, *, end_of_day: bool) -> bool:
    """Whether the `since`/`until` `value` leaves out any unit of an index written over `span`."""
    if span.first is None or span.last is None:
        return False  # nothing indexed: nothing left out
    if span.untimed:
        return True  # units without a time are left out by any bound
    bound = parse_time(value, name, end_of_day=end_of_day)
    return bound > span.first if name == "since" else bound < span.last


def narrowed_note(flags: Sequence[str], *, widest: str) -> str:
    """`--format codex and --since 1d narrowed it: drop them to search everything` (`widest`: what then happens)."""
    from memlens.redaction import redact  # a flag's value is echoed as typed, and may be a pasted token

    named = flags[0] if len(flags) == 1 else ", ".join(flags[:-1]) + f" and {flags[-1]}"
    return redact(f"{named} narrowed it: drop {'it' if len(flags) == 1 else 'them'} to {widest}")


def answer_notes(response: SearchResponse, narrowed: Sequence[str] = ()) -> list[str]:
    """Lines printed after the hits (none when there is nothing to say); `narrowed`: the filter flags given."""
    lines = []
    query = response["query"]
    if response.get("namesNoTopic") and '"' not in query and any(c.isalnum() for c in query):  # a shell eats quotes
        lines.append(f"to find the words as written: memlens search {shlex.quote(chr(34) + query + chr(34))}")
    window = response.get("emptyWindow")
    if window is not None:  # said here with the flags' names, not as the engine's note
        lines.append(empty_window_note(window, flags=True))
    if not response["results"] and narrowed:
        lines.append(narrowed_note(narrowed, widest="search everything"))
    period = response.get("period")
    if period is not None:
        span = f"{_days_named(period)} ({period['timeZone']})"
        if response["results"]:
            lines.append(f"sessions {span}")
        elif "sessionsWritten" in period:  # the other words matched nothing written then: the note says so
            lines.append(response.get("note") or f"{period['sessionsWritten']} sessions {span}")
        else:
            lines.append(f"no sessions {span}")
            lines.append(_nearest(period))
        # counted from an event, or between two: the day each was taken to be, and why
        lines += [event_day_note(event) for event in (period.get("event"), period.get("endEvent")) if event]
    left_out = response.get("leftOut")
    if left_out is not None:
        lines.append(left_out_note(left_out, "query"))
    lines += [unread_date_note(unread) for unread in response.get("unreadDates", [])]
    lines += [ambiguous_date_note(ambiguous) for ambiguous in response.get("ambiguousDates", [])]
    withheld = response.get("withheld", 0)
    if withheld:
        matches = "weaker match" if withheld == 1 else "weaker matches"
        lines.append(f"{withheld} {matches} hidden; --min-score 0 shows them")
    return lines


def _days_named(period: Period) -> str:
    """`from 2026-02-10T00:00 to 2026-02-12T23:59`; for a list of days each run of them, joined by "and"."""
    parts = period.get("parts") or [{"since": period["since"], "until": period["until"]}]
    return " and ".join(f"from {part['since'][:16]} to {part['until'][:16]}" for part in parts)


def _nearest(period: Period) -> str:
    """When an empty period's nearest messages were written: `nearest: 2026-02-10 08:57 before, 2026-02-20 15:48
    after` (minutes, in the period's time zone)."""
    sides = [
        f"{when[:16].replace('T', ' ')} {side}"
        for when, side in ((period.get("nearestBefore"), "before"), (period.get("nearestAfter"), "after"))
        if when
    ]
    return "nearest: " + ", ".join(sides) if sides else "none before or after it either"


def print_answer_notes(response: SearchResponse, style: Style | None = None, narrowed: Sequence[str] = ()) -> None:
    """The notes under the footer, dimmed, folded to the width the hits are cut to (in a pipe too, as they are): a
    note cut short would lose what it says, as the number of lines a long query left out."""
    shown = style or Style(color=False)
    room = width()
    for line in answer_notes(response, narrowed):
        print(shown.dim(folded(line, room)))
