"""What a search answer says about itself beside its hits: the weaker matches it withheld and how to see them, and
the period a question about days was read as."""

from __future__ import annotations

from memlens.cli.terminal import Style, clip, width
from memlens.wire import SearchResponse


def answer_notes(response: SearchResponse) -> list[str]:
    """Lines printed after the hits (none when there is nothing to say)."""
    lines = []
    period = response.get("period")
    if period is not None:
        lines.append(f"sessions from {period['since'][:16]} to {period['until'][:16]} ({period['timeZone']})")
    withheld = response.get("withheld", 0)
    if withheld:
        matches = "weaker match" if withheld == 1 else "weaker matches"
        lines.append(f"{withheld} {matches} hidden; --min-score 0 shows them")
    return lines


def print_answer_notes(response: SearchResponse, style: Style | None = None) -> None:
    """The notes under the footer, dimmed and clipped to the terminal as it is."""
    shown = style or Style(color=False)
    room = width()
    for line in answer_notes(response):
        print(shown.dim(clip(line, room)))
