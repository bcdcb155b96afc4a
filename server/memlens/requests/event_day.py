"""What an answer says of the event a question counts its days from ("the week before the offsite"), or of the two
it runs between ("between the offsite and the launch"): which day it took each event to be, and why, or that no
message names one. One sentence for every door (the CLI's line under the hits, the MCP text, the engine's note for
the editor), so days counted from the wrong day are never silent, nor a pick between mentions that disagree."""

from __future__ import annotations

from datetime import date

from memlens.wire import PeriodEvent, UnnamedEvent

_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def event_day_note(event: PeriodEvent) -> str:
    """`the offsite: Fri 20 Feb 2026 (stated in 9d3b6e21:f1d2721b: "Friday 20 Feb")`; said relative to the day the
    message was written, that day too (`stated in s1:m1 on Thu 19 Feb: "tomorrow"`); `(the day its mentions were
    written)` when none states a date. Mentions that state other days are counted and the reason for the pick said:
    `; most mentions: 2 of 3, 1 says Fri 06 Mar` or `; the latest statement: 1 of 2, 1 says Fri 06 Mar`."""
    when = date.fromisoformat(event["day"])
    stated, where = event.get("stated"), event.get("statedIn")
    if stated and where:
        on = event.get("statedOn")
        written = f" on {_day(date.fromisoformat(on), year=False)}" if on else ""
        why = f'stated in {where}{written}: "{stated}"'
    else:
        why = "the day its mentions were written"
    others = event.get("otherDays")
    if others:
        total = event.get("mentions", 0) + sum(other["mentions"] for other in others)
        reason = "the latest statement" if event.get("chosenBy") == "latest" else "most mentions"
        say = ", ".join(f"{o['mentions']} says {_day(date.fromisoformat(o['day']), year=False)}" for o in others)
        why += f"; {reason}: {event.get('mentions', 0)} of {total}, {say}"
    return f"the {event['event']}: {_day(when)} ({why})"


def _day(when: date, *, year: bool = True) -> str:
    """`Fri 20 Feb 2026` (`year`: with it), in English whatever the locale."""
    said = f"{_WEEKDAYS[when.weekday()]} {when.day:02d} {_MONTHS[when.month - 1]}"
    return f"{said} {when.year}" if year else said


def unnamed_event_note(unnamed: UnnamedEvent) -> str:
    """`no message names "offsite": no day to count "the week before" from`; one end of days between two events:
    `no message names "launch": no day for the end of "between the offsite and the launch"`."""
    end = unnamed.get("end")
    if end is not None:
        return f'no message names "{unnamed["event"]}": no day for the {end} of "{unnamed["offset"]}"'
    return f'no message names "{unnamed["event"]}": no day to count "{unnamed["offset"]}" from'
