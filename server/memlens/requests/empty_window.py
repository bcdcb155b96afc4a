"""What a search says when its `since`/`until` window holds no message at all: one sentence for every door (the
engine's note for the editor and MCP, the CLI's line on stderr with the flags' names), so that "0 results" for a window
before the first session, or a since in the future, is not read as "nothing matched"."""

from __future__ import annotations

from memlens.wire import EmptyWindow


def empty_window_note(window: EmptyWindow, *, flags: bool = False) -> str:
    """`--since 2099-01-01 is after today; nothing was written since 2099-01-01 (UTC); the last message before it is
    from 2026-03-05 10:00` (`flags`: the bounds named as the CLI's flags, else as the filters' fields)."""
    dash = "--" if flags else ""
    since, until = window.get("since"), window.get("until")
    said = []
    if since is not None and window.get("sinceInFuture"):
        later = "after today" if _minutes(since).endswith("00:00") else "later than now"
        said.append(f"{dash}since {_shown(since, end=False)} is {later}")
    if since is not None and until is not None:
        first, last = _shown(since, end=False), _shown(until, end=True)
        span = f"on {first}" if first == last else f"from {first} to {last}"
    else:
        span = f"since {_shown(since, end=False)}" if since is not None else f"until {_shown(until or '', end=True)}"
    said.append(f"nothing was written {span} ({window['timeZone']})")
    before, after = window.get("nearestBefore"), window.get("nearestAfter")
    sides = [
        f"the last message before it is from {_minutes(before)}" if before else "",
        f"the first after it is from {_minutes(after)}" if after else "",
    ]
    said.append(" and ".join(side for side in sides if side) or "nothing was written before or after it either")
    return "; ".join(said)


def _minutes(iso: str) -> str:
    return iso[:16].replace("T", " ")


def _shown(iso: str, *, end: bool) -> str:
    """A bound as its day when it is one (a since at midnight, an until at the day's last minute), else to the
    minute."""
    minutes = _minutes(iso)
    return minutes[:10] if minutes.endswith("23:59" if end else "00:00") else minutes
