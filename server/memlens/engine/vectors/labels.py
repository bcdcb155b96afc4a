"""A column of short strings held as int32 codes into a table of names (a unit's kind, format, role, session).

The vector rows copy their small columns on every change (VectorSnapshot.take, concat); as numpy object arrays,
the four string columns were most of that copy (each pointer's reference count touched: about 9 ms per column at
300k rows, so an append cost 70 ms whatever it added). As codes they copy like any int32 column. The names table
only grows, and snapshots made one from another share it: a new name is appended, and an older snapshot never holds
a code that points at it. A rewrite of the vector file writes only the names still used.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from memlens.engine.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_module("numpy")


class Names:
    """The table of names, shared by the snapshots that grew from one another; only ever appended to."""

    def __init__(self, names: Iterable[str] = ()) -> None:
        # built whole, not a `code()` at a time: a vector file's table holds every session's key (28,000 at a
        # million messages), and every process that searches reads one
        self.names: list[str] = list(dict.fromkeys(names))  # each name once, numbered in order of first use
        self.index: dict[str, int] = {name: code for code, name in enumerate(self.names)}

    def code(self, name: str) -> int:
        found = self.index.get(name)
        if found is None:
            found = self.index[name] = len(self.names)
            self.names.append(name)
        return found


class Labels:
    """`codes[i]` is the index in `names` of row i's label."""

    __slots__ = ("codes", "names")

    def __init__(self, codes: np.ndarray, names: Names) -> None:
        self.codes = codes
        self.names = names

    @staticmethod
    def of(values: Iterable[object], names: Names | None = None) -> Labels:
        table = names if names is not None else Names()
        codes = np.fromiter((table.code(str(v)) for v in values), np.int32)
        return Labels(codes, table)

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, rows: Any) -> Labels:
        return Labels(self.codes[rows], self.names)

    def concat(self, other: Labels) -> Labels:
        """These labels, then `other`'s (its names added to this table)."""
        return Labels(np.concatenate([self.codes, self._codes_of(other)]), self.names)

    def spliced(self, runs: Sequence[slice], other: Labels | None = None) -> Labels:
        """The labels of these runs of rows, one after another, then `other`'s: one copy of the codes."""
        parts = [self.codes[run] for run in runs]
        if other is not None:
            parts.append(self._codes_of(other))
        return Labels(np.concatenate(parts) if parts else self.codes[:0], self.names)

    def _codes_of(self, other: Labels) -> np.ndarray:
        """`other`'s codes in this table (its names added to it)."""
        if other.names is self.names:
            return other.codes
        mapping = np.fromiter((self.names.code(name) for name in other.names.names), np.int32, len(other.names.names))
        codes: np.ndarray = mapping[other.codes]
        return codes

    @staticmethod
    def joined(parts: Sequence[Labels]) -> Labels:
        joined = parts[0][:0] if parts else Labels(np.empty(0, np.int32), Names())
        for part in parts:
            joined = joined.concat(part)
        return joined

    def equals(self, value: str) -> np.ndarray:
        """A mask of the rows labelled `value`."""
        code = self.names.index.get(value)
        if code is None:
            return np.zeros(len(self.codes), dtype=bool)
        mask: np.ndarray = self.codes == code
        return mask

    def within(self, values: Iterable[str]) -> np.ndarray:
        """A mask of the rows labelled with any of `values`."""
        codes = [code for value in values if (code := self.names.index.get(value)) is not None]
        mask: np.ndarray = np.isin(self.codes, np.asarray(codes, np.int32))
        return mask

    def values(self, rows: Any = slice(None)) -> list[str]:
        names = self.names.names
        return [names[code] for code in self.codes[rows].tolist()]

    def compact(self) -> tuple[np.ndarray, list[str]]:
        """(codes, names) with only the names in use, numbered in order of first use (what a file stores)."""
        used, first = np.unique(self.codes, return_index=True)
        used = used[np.argsort(first, kind="stable")]
        renumber = np.zeros(len(self.names.names), np.int32)
        renumber[used] = np.arange(len(used), dtype=np.int32)
        codes: np.ndarray = renumber[self.codes] if len(self.codes) else self.codes
        return codes, [self.names.names[code] for code in used.tolist()]
