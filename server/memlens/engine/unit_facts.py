"""What the last ranking pass (rerank.py) needs of a hit's unit, read and worked out once per unit, not per query.

Every query re-scores its best hits, and the same units come back query after query: re-reading each one's row and
re-running the word analyser over its text was most of a keyword search's CPU time. The facts are kept in a bounded
LRU per catalog, dropped whole whenever the catalog's generation changes (every write bumps it), so a cached fact is
always the one a fresh read would give."""

from __future__ import annotations

import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memlens.engine.catalog import Catalog
    from memlens.engine.keyword_index import KeywordIndex

CAPACITY = 20_000  # units (≈ 1 KB each with their text): the heads of a few hundred recent queries
_TOOL_LINE = re.compile(r"^\s*\[[\w.:/-]{1,40}\]( |$)")


def tool_share(text: str) -> float:
    """The share of a text's non-empty lines that are tool-call inputs (`[Bash] git add …`)."""
    if "[" not in text:  # most texts: no line can start a tool call, so skip splitting them into lines
        return 0.0
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return 0.0
    return sum(1 for line in lines if _TOOL_LINE.match(line)) / len(lines)


@dataclass(frozen=True, slots=True)
class UnitFacts:
    text: str
    ts: float | None
    session: str  # what the per-session cap counts: the session key, else the file
    tokens: frozenset[str]  # the analysed words of the text (the keyword index's `text` field)
    tool: float  # tool_share(text)
    key: str  # the text lowercased with runs of whitespace as one space: identical texts merge


MISSING = UnitFacts("", None, "", frozenset(), 0.0, "")  # a hit whose unit is gone (deleted since the search)


class UnitFactsCache:
    def __init__(self, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        self.generation = -1
        self._facts: OrderedDict[int, UnitFacts] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, catalog: Catalog, keyword: KeywordIndex, unit_ids: Sequence[int]) -> dict[int, UnitFacts]:
        """The facts of each of `unit_ids` (MISSING for a unit no longer in the catalog), one catalog read for
        the ones not cached."""
        generation = catalog.generation()
        found: dict[int, UnitFacts] = {}
        with self._lock:
            if generation != self.generation:
                self._facts.clear()
                self.generation = generation
            for unit_id in unit_ids:
                facts = self._facts.get(unit_id)
                if facts is not None:
                    self._facts.move_to_end(unit_id)
                    found[unit_id] = facts
        missing = [u for u in unit_ids if u not in found]
        if not missing:
            return found
        fresh: dict[int, UnitFacts] = {}
        for unit_id, text, ts, session_key, file_id in catalog.unit_facts_rows(missing):
            fresh[unit_id] = UnitFacts(
                text=text,
                ts=None if ts is None else float(ts),
                session=session_key or f"file:{file_id}",
                tokens=keyword.token_set(text),
                tool=tool_share(text),
                key=" ".join(text.lower().split()),
            )
        for unit_id in missing:  # in the order asked, as the cached ones are
            found[unit_id] = fresh.get(unit_id, MISSING)
        with self._lock:
            if generation == self.generation:
                self._facts.update(fresh)
                while len(self._facts) > self.capacity:
                    self._facts.popitem(last=False)
        return found


_CACHES: weakref.WeakKeyDictionary[Catalog, UnitFactsCache] = weakref.WeakKeyDictionary()
_CACHES_LOCK = threading.Lock()


def unit_facts(catalog: Catalog, keyword: KeywordIndex, unit_ids: Sequence[int]) -> dict[int, UnitFacts]:
    """The facts of `unit_ids` from `catalog`'s cache (see the module docstring)."""
    with _CACHES_LOCK:
        cache = _CACHES.get(catalog)
        if cache is None:
            cache = _CACHES[catalog] = UnitFactsCache()
    return cache.get(catalog, keyword, unit_ids)
