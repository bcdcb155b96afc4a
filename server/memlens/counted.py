"""A count and its noun as people write them ("1 result", "2 results", "1 past occurrence"), and a size in
megabytes: what every front end says of a count or a file's size, kept in one place so none of them says "1 results"."""

from __future__ import annotations


def counted(count: object, noun: str, plural: str | None = None, *, grouped: bool = False) -> str:
    """`count` and `noun`, the noun made plural (`plural`, else `noun` + "s") unless the count is 1. `grouped`: the
    number with thousands separators. A count that is not a number (a field an answer left out) is shown as it is,
    with the plural."""
    number = f"{count:,}" if grouped and isinstance(count, int) else str(count)
    return f"{number} {noun if count == 1 else (plural or noun + 's')}"


def megabytes(size: int) -> str:
    """A size in megabytes (10^6 bytes), tenths below ten: `0.1 MB`, `312 MB`."""
    value = size / 1_000_000
    return f"{value:.1f} MB" if value < 10 else f"{value:,.0f} MB"
