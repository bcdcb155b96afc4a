"""What the re-scoring passes (rescoring.py) weigh a hit against: the parsed query's words with their idf in this
index, and how much of them a hit's own text holds."""

from __future__ import annotations

import math
import re
from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memlens.engine.keyword.acronyms import Acronym, stand_ins, with_acronyms, written
from memlens.engine.keyword.identifiers import cjk_runs, hyphenated_words, identifier_terms
from memlens.engine.ranking.unit_facts import Words

if TYPE_CHECKING:
    from memlens.engine.keyword.keyword_index import KeywordIndex
    from memlens.engine.keyword.parsed_query import ParsedQuery

BM25_K1_PLUS_1 = 2.2  # tantivy's BM25: k1 = 1.2


@dataclass(slots=True)
class QueryFacts:
    words: list[str]
    idf: list[float]
    technical: bool
    windows: list[tuple[int, int]]
    absent: float = 0.0  # the idf-weighted share of the query's words that no document contains
    acronyms: tuple[Acronym, ...] = ()  # a hit holding one counts its run's words as found (acronyms.py)
    documents: int = 0  # how many documents the index holds (what an idf is relative to)
    absent_named: float = 0.0  # the idf-weighted share of the query's words that no document holds, written as names
    parts: dict[str, str] = field(default_factory=dict)  # word → as written, for words held only as a name's part
    # worked out once, not for each of the hundred hits re-scored:
    total_idf: float = field(init=False)  # sum(idf)
    cjk: tuple[bool, ...] = field(init=False)  # per word: a CJK run, which the analyser leaves whole
    needles: tuple[str, ...] = field(init=False)  # per word: " word ", as a unit's stored Words are searched

    def __post_init__(self) -> None:
        self.total_idf = sum(self.idf)
        self.cjk = tuple(bool(cjk_runs(w)) for w in self.words)
        self.needles = tuple(f" {w} " for w in self.words)


def query_facts(
    query: ParsedQuery,
    keyword: KeywordIndex,
    *,
    texts: Iterable[str] = (),  # the head's texts: an acronym counts once one of them writes it as one
) -> QueryFacts:
    words = list(query.terms)
    total, freqs = keyword.document_frequencies([w for w in words if not cjk_runs(w)])
    freq_of = dict(zip([w for w in words if not cjk_runs(w)], freqs, strict=True))
    parts = name_parts(query, keyword, [w for w in words if not cjk_runs(w) and freq_of.get(w, 1) == 0])
    freq_of.update((w, f) for w, (_, f) in parts.items())
    runs = written(query.acronyms, texts)
    stand_in = stand_ins(runs, freq_of)  # a run's words in no document weigh as its acronym: (its freq, share)
    freq_of.update((w, f) for w, (f, _) in stand_in.items())
    idf = [math.log(1 + (total - freq_of.get(w, 1) + 0.5) / (freq_of.get(w, 1) + 0.5)) for w in words]
    idf = [i / stand_in[w][1] if w in stand_in else i for w, i in zip(words, idf, strict=True)]
    total_idf = sum(idf)
    unknown = sum(i for w, i in zip(words, idf, strict=True) if not cjk_runs(w) and freq_of.get(w, 1) == 0)
    absent = unknown / total_idf if total_idf > 0 else 0.0
    named = set(named_words(query.text, keyword))
    unknown_named = sum(
        i for w, i in zip(words, idf, strict=True) if w in named and not cjk_runs(w) and freq_of.get(w, 1) == 0
    )
    absent_named = unknown_named / total_idf if total_idf > 0 else 0.0
    parts_of = {w: part for w, (part, _) in parts.items()}
    return QueryFacts(words, idf, query.technical, list(query.dates), absent, runs, total, absent_named, parts_of)


def name_parts(query: ParsedQuery, keyword: KeywordIndex, missing: list[str]) -> dict[str, tuple[str, int]]:
    """Of the query's words that no document holds in the `text` field (`missing`, stemmed), those the query writes in
    a name (`review_heartbeat`) and the `ident` field holds as a name's part, each with its word as written
    (lowercased) and how many documents hold it so: "heartbeat" of a `reviewHeartbeatInterval`, which the `text` field
    keeps whole (identifiers.py splits it for `ident`). The index holds them, so they are not absent, and a hit
    holding the name holds them (`found_in_text`). A word of the query's prose stays absent though a name holds it:
    "chat" where only `ChatPanel` is, in a question written in other words than its answer's, found only names."""
    names = [name for name in query.identifiers if not hyphenated_words(name)]  # `start-of-chat` is prose
    if not missing or not names:
        return {}
    written_as: dict[str, str] = {}
    for surface in dict.fromkeys(w for name in names for w in keyword.unstemmed_words(name)):
        stems = keyword.tokens(surface)
        if len(stems) == 1 and stems[0] in missing:
            written_as.setdefault(stems[0], surface)
    freqs = keyword.part_frequencies(list(written_as.values()))
    return {w: (part, f) for (w, part), f in zip(written_as.items(), freqs, strict=True) if f > 0}


_WORD = re.compile(r"[^\W_]\w*")


def names(text: str) -> list[str]:
    """The words a text writes as names, in any cased script: a word with a capital after its first letter or two
    capitals (iOS, gRPC, GDPR, McKinsey), or a capitalised word with a lower-case letter or digit after it that does
    not open a sentence (Meilisearch, Vienna, Москва; not the "How" of "How did we …")."""
    found = []
    for match in _WORD.finditer(text):
        word = match.group(0)
        capitals = sum(c.isupper() for c in word)
        if capitals >= 2 or any(c.isupper() for c in word[1:]):
            found.append(word)
        elif word[0].isupper() and len(word) > 1 and (word[1].islower() or word[1].isdigit()):
            before = text[: match.start()].rstrip()
            if before and before[-1] not in ".!?":
                found.append(word)
    return found


def named_words(text: str, keyword: KeywordIndex) -> list[str]:
    """The analysed words of the names a query writes (`names`). "How did we set up Meilisearch?" names Meilisearch.
    A question written in other words of something the index holds seldom names what it has never seen: when no
    document holds a name the query gives, the topic is likely not in the index at all (the answerable models read
    this share)."""
    return [t for word in names(text) for t in keyword.tokens(word)]


def found_words(facts: QueryFacts, tokens: Container[str]) -> list[bool]:
    """Per query word, whether a hit's analysed words hold it (an acronym's run counts when the hit holds the acronym).
    A unit's stored `Words` are searched with the query's padded words, so each test is a substring search in C."""
    tokens = with_acronyms(facts.acronyms, tokens) if facts.acronyms else tokens
    if type(tokens) is Words:
        padded = tokens.padded
        return [needle in padded for needle in facts.needles]
    return [w in tokens for w in facts.words]


def found_in_text(facts: QueryFacts, found: list[bool], text: str) -> list[bool]:
    """`found` with each CJK word the analyser leaves whole counted as found when the hit's text holds it: its
    analysed words hold the whole run it is part of ("データベースの移行は…"), never the query's shorter run, which
    the keyword index matched as bigrams; and each word the index holds only as a name's part (`QueryFacts.parts`)
    when the hit's names hold it (`reviewHeartbeatInterval` holds "heartbeat")."""
    if facts.parts and not all(found):
        held = set(identifier_terms(text))
        parts = facts.parts
        found = [is_found or (w in parts and parts[w] in held) for w, is_found in zip(facts.words, found, strict=True)]
    if not any(facts.cjk):
        return found
    lowered = text.lower()
    return [is_found or (cjk and w in lowered) for w, cjk, is_found in zip(facts.words, facts.cjk, found, strict=True)]


def coverage(facts: QueryFacts, tokens: Container[str], text: str) -> float:
    """The idf-weighted share of the query's words found in a hit's own text."""
    return found_coverage(facts, found_words(facts, tokens), text)


def found_coverage(facts: QueryFacts, found: list[bool], text: str) -> float:
    """`coverage` from `found_words` already worked out."""
    total = facts.total_idf
    if total <= 0:
        return 0.0
    covered = 0.0
    lowered: str | None = None  # lowercased only for a CJK word the analyser does not split
    for w, i, cjk, is_found in zip(facts.words, facts.idf, facts.cjk, found, strict=True):
        if is_found:
            covered += i
        elif cjk:
            lowered = text.lower() if lowered is None else lowered
            if w in lowered:
                covered += i
    return covered / total


def matched_share(facts: QueryFacts, tokens: Container[str]) -> float:
    """The share of the query's words (unweighted) found in a hit's own text."""
    return found_share(found_words(facts, tokens))


def found_share(found: list[bool]) -> float:
    """`matched_share` from `found_words` already worked out."""
    return sum(found) / len(found) if found else 0.0


def bm25_share(bm25: float, facts: QueryFacts) -> float:
    """Raw BM25 against the most the query's words could give (each word at most about (k1 + 1) × its idf)."""
    total = BM25_K1_PLUS_1 * facts.total_idf
    return min(1.0, bm25 / total) if total > 0 else 0.0
