"""What the last ranking pass (rescoring.py) needs of a hit's unit, read and worked out once per unit, not per query.

Every query re-scores its best hits, and the same units come back query after query: re-reading each one's row and
re-running the word analyser over its text was most of a keyword search's CPU time. The facts are kept in a bounded
LRU per catalog, dropped whole whenever the catalog's generation (every write bumps it) or the version of its stored
facts changes, so a cached fact is always the one a fresh read would give.

The costly facts (`DerivedFacts`: the analysed words, the tool-call share, the digest identical texts share, the share
that asks) are worked out once, by the index writer after it commits a unit (`fill_unit_facts`), and stored beside the
unit in the catalog; a row that has none yet (a catalog from before them, a unit written a moment ago, or facts of
another FACTS_VERSION) gets them from its text at read time, by the same function, so both ways give the same facts."""

from __future__ import annotations

import hashlib
import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from memlens.engine.keyword.keyword_index import SCHEMA_VERSION as KEYWORD_SCHEMA_VERSION
from memlens.engine.sources.tool_output import scored_text, split_call

if TYPE_CHECKING:
    import sqlite3

    from memlens.engine.catalog import Catalog
    from memlens.engine.keyword.keyword_index import KeywordIndex

CAPACITY = 20_000  # units (≈ 1 KB each with their text): the heads of a few hundred recent queries
FILL_BATCH = 2_000  # units whose facts one catalog transaction fills in
# Stored facts are used only when the catalog says they were worked out by this version of `derived_facts` and of
# the word analyser: bump the first number whenever what derived_facts gives changes.
FACTS_VERSION = f"1.{KEYWORD_SCHEMA_VERSION}"
_TOOL_LINE = re.compile(r"^\s*\[[\w.:/-]{1,40}\]( |$)")
_ATTACHMENT = re.compile(r"\[[^\[\]\n]*\]")  # "[shares a photo of …]", "[image]"
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)")
_CODE = re.compile(r"```.*?(?:```|$)|`[^`\n]*`", re.DOTALL)  # fenced blocks (an unclosed one runs to the end), inline


def tool_share(text: str) -> float:
    """The share of a text's non-empty lines that are tool-call inputs (`[Bash] git add …`)."""
    if "[" not in text:  # most texts: no line can start a tool call, so skip splitting them into lines
        return 0.0
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return 0.0
    return sum(1 for line in lines if _TOOL_LINE.match(line)) / len(lines)


def question_share(text: str) -> float:
    """The share of a text's prose characters in sentences that ask something (tool-call lines, code and bracketed
    attachments left out): 1 for "You play any instruments?", about 0.15 for three sentences of news that end
    "What's been up since?".

    What search.questionPenalty scales by: a share rather than "ends with ?" because news that ends by asking back is
    often what was asked about."""
    if "?" not in text:  # most texts: nothing to split
        return 0.0
    prose = "\n".join(line for line in text.splitlines() if not _TOOL_LINE.match(line))  # a tool call's input asks
    body = _ATTACHMENT.sub(" ", _CODE.sub(" ", prose)).strip()  # nothing of anyone, nor does code (`valid?`, `a ? b`)
    asked = sum(len(sentence) for sentence in _SENTENCE.findall(body) if sentence.rstrip().endswith("?"))
    return min(1.0, asked / len(body)) if body else 0.0


class DerivedFacts(NamedTuple):
    """What the catalog stores of a unit for ranking (its `ADDED_COLUMNS` of units)."""

    words: str  # the analysed words (the keyword index's `text` field), sorted, space-separated
    tool: float  # tool_share(text)
    key: str  # a digest of the text lowercased with runs of whitespace as one space; "" for a blank text
    question: float  # question_share(text) of a transcript message; 0 for notes and summaries


def derived_facts(text: str, kind: str, keyword: KeywordIndex, analysed: str | None = None) -> DerivedFacts:
    """A unit's derived facts, as the writer stores them and as a reader works them out when they are not stored.
    `analysed`: the text's words as `KeywordIndex.analysed` gives them, when they are worked out already (no word
    holds a space or is empty: the same words as `tokens`) of its `scored_text`: a tool output's facts leave out the
    call its header names."""
    text = scored_text(text, kind)
    tokens = keyword.tokens(text) if analysed is None else analysed.split(" ") if analysed else []
    words = " ".join(sorted(set(tokens)))
    folded = " ".join(text.lower().split())
    key = hashlib.blake2b(folded.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest() if folded else ""
    question = question_share(text) if kind == "transcript" else 0.0  # a note's open question is what it records
    return DerivedFacts(words, tool_share(text), key, question)


def fill_unit_facts(
    catalog: Catalog,
    keyword: KeywordIndex,
    units: Iterable[tuple[int, str, str]],
    words_of: Callable[[str], str] | None = None,
) -> int:
    """Work out and store the derived facts of (id, text, kind) units (`words_of`: text → its analysed words, when
    worked out already); returns how many."""
    rows = facts_rows(keyword, units, words_of)
    if rows:
        catalog.set_unit_facts(rows)
    return len(rows)


def facts_rows(
    keyword: KeywordIndex, units: Iterable[tuple[int, str, str]], words_of: Callable[[str], str] | None = None
) -> list[tuple[int, DerivedFacts]]:
    """The derived facts of (id, text, kind) units, as `Catalog.set_unit_facts` takes them (`words_of`: text → its
    analysed words, when worked out already)."""
    return [
        (unit_id, derived_facts(text, kind, keyword, None if words_of is None else words_of(scored_text(text, kind))))
        for unit_id, text, kind in units
    ]


def fill_facts_from_analysed(
    catalog: Catalog, keyword: KeywordIndex, rows: Sequence[sqlite3.Row], words_of: Callable[[str], str]
) -> int:
    """Fill in the facts of those of a keyword rewrite's `rows` (id, text, kind) that have none, from the words the
    rewrite analysed (`words_of`: text → words): a first build that defers tantivy to one rewrite at its end
    leaves its units' facts to it, so each text is analysed once, not once for its facts and again for tantivy."""
    lacking = catalog.units_lacking_facts([int(row["id"]) for row in rows])
    return fill_unit_facts(
        catalog,
        keyword,
        ((int(row["id"]), row["text"], row["kind"]) for row in rows if int(row["id"]) in lacking),
        words_of,
    )


def backfill_unit_facts(catalog: Catalog, keyword: KeywordIndex, cancel: threading.Event | None = None) -> int:
    """Fill in the facts of every unit that has none (a catalog from before them, or facts worked out by another
    FACTS_VERSION, which are forgotten first), FILL_BATCH at a time; returns how many. The writer runs it before it
    fills in any new unit's facts. Searches stay correct meanwhile (they work missing or outdated facts out)."""
    if catalog.unit_facts_state()[1] != FACTS_VERSION:
        catalog.forget_unit_facts(FACTS_VERSION)
    done = 0
    while not (cancel is not None and cancel.is_set()):
        filled = fill_unit_facts(catalog, keyword, catalog.units_without_facts(FILL_BATCH))
        done += filled
        if filled < FILL_BATCH:
            break
    return done


class Words:
    """A unit's analysed words as one space-padded string, asked `word in words`: a substring test, so a search
    builds no set for each of the hundred hits it re-scores (3.4 µs a unit for a set of 21 words, measured)."""

    __slots__ = ("padded",)

    def __init__(self, words: str) -> None:
        self.padded = f" {words} "

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and f" {word} " in self.padded

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Words) and other.padded == self.padded

    def __hash__(self) -> int:
        return hash(self.padded)

    def __repr__(self) -> str:
        return f"Words({self.padded.strip()!r})"


class UnitFacts(NamedTuple):  # a tuple, not a frozen dataclass: built for every hit a search has not seen yet
    text: str  # its scored_text: a tool output's without the call its header names
    ts: float | None
    session: str  # what the per-session cap counts: the session key, else the file
    tokens: Words  # the analysed words of the text (the keyword index's `text` field)
    tool: float  # tool_share(text)
    key: str  # identical texts (up to case and whitespace) share it and merge; "" merges with nothing
    question: float  # question_share(text) of a transcript message, else 0
    kind: str = ""  # the unit's kind: memory | transcript | summary | tool
    call: str = ""  # the analysed words of the call a tool output's header names (split_call), "" for none
    copy: bool = False  # another file of its session holds the message and keeps it (catalog/copies.py)


MISSING = UnitFacts("", None, "", Words(""), 0.0, "", 0.0)  # a hit whose unit is gone (deleted since the search)


class UnitFactsCache:
    def __init__(self, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        self.state: tuple[int, str | None] = (-1, None)
        self._facts: OrderedDict[int, UnitFacts] = OrderedDict()
        self._lock = threading.Lock()

    def get(
        self,
        catalog: Catalog,
        keyword: KeywordIndex,
        unit_ids: Sequence[int],
        state: tuple[int, str | None] | None = None,
    ) -> dict[int, UnitFacts]:
        """The facts of each of `unit_ids` (MISSING for a unit no longer in the catalog), one catalog read for
        the ones not cached. `state`: the catalog's `unit_facts_state()` when the caller has read it."""
        if state is None:
            state = catalog.unit_facts_state()  # (generation, the version of the stored facts)
        found: dict[int, UnitFacts] = {}
        with self._lock:
            if state != self.state:
                self._facts.clear()
                self.state = state
            for unit_id in unit_ids:
                facts = self._facts.get(unit_id)
                if facts is not None:
                    self._facts.move_to_end(unit_id)
                    found[unit_id] = facts
        missing = [u for u in unit_ids if u not in found]
        if not missing:
            return found
        fresh: dict[int, UnitFacts] = {}
        stale = state[1] != FACTS_VERSION  # stored facts of another version: worked out again from the text
        for unit_id, text, kind, ts, session, words, tool, key, question, copy in catalog.unit_facts_rows(missing):
            if stale or words is None or tool is None or key is None or question is None:
                words, tool, key, question = derived_facts(text, kind, keyword)
            scored, call = split_call(text, kind)
            call_words = keyword.analysed(call) if call else ""
            facts = UnitFacts(scored, ts, session, Words(words), tool, key, question, kind, call_words, bool(copy))
            fresh[unit_id] = facts
        for unit_id in missing:  # in the order asked, as the cached ones are
            found[unit_id] = fresh.get(unit_id, MISSING)
        with self._lock:
            if state == self.state:
                self._facts.update(fresh)
                while len(self._facts) > self.capacity:
                    self._facts.popitem(last=False)
        return found


_CACHES: weakref.WeakKeyDictionary[Catalog, UnitFactsCache] = weakref.WeakKeyDictionary()
_CACHES_LOCK = threading.Lock()


def unit_facts(
    catalog: Catalog,
    keyword: KeywordIndex,
    unit_ids: Sequence[int],
    state: tuple[int, str | None] | None = None,
) -> dict[int, UnitFacts]:
    """The facts of `unit_ids` from `catalog`'s cache (see the module docstring); `state` as UnitFactsCache.get."""
    with _CACHES_LOCK:
        cache = _CACHES.get(catalog)
        if cache is None:
            cache = _CACHES[catalog] = UnitFactsCache()
    return cache.get(catalog, keyword, unit_ids, state)
