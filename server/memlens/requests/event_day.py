"""What an answer says of the event a question counts its days from ("the week before the offsite"): which day it
took the event to be, and why, or that no message names it. One sentence for every door (the CLI's line under the
hits, the MCP text, the engine's note for the editor), so a week counted from the wrong day is never silent."""

from __future__ import annotations

from datetime import date

from memlens.wire import PeriodEvent, UnnamedEvent

_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def event_day_note(event: PeriodEvent) -> str:
    """`the offsite: Fri 20 Feb 2026 (stated in 9d3b6e21:f1d2721b: "Friday 20 Feb")`, or `(the day its mentions were
    written)` when none states a date."""
    when = date.fromisoformat(event["day"])
    day = f"{_WEEKDAYS[when.weekday()]} {when.day:02d} {_MONTHS[when.month - 1]} {when.year}"  # not the locale's
    stated, where = event.get("stated"), event.get("statedIn")
    why = f'stated in {where}: "{stated}"' if stated and where else "the day its mentions were written"
    return f"the {event['event']}: {day} ({why})"


def unnamed_event_note(unnamed: UnnamedEvent) -> str:
    """`no message names "offsite": no day to count "the week before" from`."""
    return f'no message names "{unnamed["event"]}": no day to count "{unnamed["offset"]}" from'
