"""The name someone most likely meant by a misspelt one (a command, a flag, a choice, a request field): every door
says `did you mean …?` the same way."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

NEAR_ENOUGH = 0.7  # `serch`→`search` 0.91, `fix`→`fixes` 0.75; `--frobnicate`→`--format` 0.6 would be a wild guess


def _folded(name: str) -> str:
    """A name as compared: case, `_` and `-` inside it count for nothing (`session_key` means `sessionKey`)."""
    head = len(name) - len(name.lstrip("-"))
    return name[:head] + name[head:].replace("_", "").replace("-", "").lower()


def did_you_mean(typed: str, names: Iterable[str], *, quote: str = "'") -> str:
    """`; did you mean 'NAME'?` with the name nearest `typed` in spelling, or "" when none is near (or `typed` is
    one of them)."""
    by_folded = {_folded(name): name for name in names}
    if typed in by_folded.values():
        return ""
    near = difflib.get_close_matches(_folded(typed), list(by_folded), n=1, cutoff=NEAR_ENOUGH)
    return f"; did you mean {quote}{by_folded[near[0]]}{quote}?" if near else ""
