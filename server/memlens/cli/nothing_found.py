"""What a command that found nothing says, and where: on stderr, as ripgrep and grep say why they printed nothing,
so that stdout holds answers only (`memlens search x | wc -l` counts 0 lines; the exit status 1 tells a script).
With --json the answer keeps its shape on stdout, an empty list in it. An index that holds nothing is said as that,
with where a sync looked and what would find something (the engine's `EmptyIndex`), not as "no results"."""

from __future__ import annotations

import sys
from collections.abc import Iterable

from memlens.cli.terminal import clip, folded, width
from memlens.wire import EmptyIndex

PIPED_LINE = 200  # characters of a one-line message whose whole would be a paste (a traceback searched for)


def say_nothing_found(headline: str, notes: Iterable[str] = ()) -> None:
    """`memlens: no results for 'x'` and each note under it (what narrowed the answer, what was left out), a
    `memlens: ` line each on stderr. The headline may echo a pasted traceback: it is cut to the terminal's width, or
    in a pipe to a screenful's line; a note is folded instead, since a note cut short would lose what it says."""
    room = width() if sys.stderr.isatty() else 0
    print(clip(f"memlens: {headline}", room or PIPED_LINE), file=sys.stderr)
    for note in notes:
        print(folded(f"memlens: {note}", room, indent="  "), file=sys.stderr)


def say_empty_index(empty: EmptyIndex) -> None:
    """The engine's lines of an empty index (where it looked, the next step), a `memlens: ` line each on stderr,
    folded to a terminal's width (whole in a pipe): a path cut short would not say where to look."""
    room = width() if sys.stderr.isatty() else 0
    for line in empty["lines"]:
        print(folded(f"memlens: {line}", room, indent="  "), file=sys.stderr)
