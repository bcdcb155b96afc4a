"""Acronym expansion for keyword queries: "dead letter queue" also asks for "dlq" (issue 13).

People spell a term out in a question ("how did we fix the dead letter queue?") while their transcripts only ever use
its acronym ("the orders DLQ", `orders-events-dlq`). BM25 then finds nothing for the spelled-out words, and the
calibrated score reads them as absent from the index (high absent share, coverage 0) and stays silent although the
conversation is there. So a run of 3–5 consecutive content words of the query whose initials spell a word the index
holds adds that word to the keyword query (keyword_index.py: the run's words or the acronym, whichever scores more), and
a hit holding it counts the run's words as found (query_facts.py: coverage, matched share; the query's absent share).

Guards against initials that spell an ordinary word by chance (measured on the benchmark questions):
- at least MIN_LETTERS letters (two-letter initials expanded 5 of the 40 absent-topic questions into junk such as
  "ls", "ms", "id"); not a stop word, not one of the run's own words; the stemmer leaves it as it is ("dates" would
  find every "date");
- a run starts and ends on a content word; its stop words are skipped, at most MAX_SKIPPED of them ("bureau of labor
  statistics" → "bls"); it breaks at punctuation other than hyphens ("dead-letter queue" is a run) and at a word
  that starts with a digit or a letter outside a–z after folding;
- more than UNKNOWN_SHARE of the run's content words are in no document: the index knows the thing by another name
  (with one such word enough, "Melanie enjoy listening" gave "mel" and "John done apart from yoga" "day" on LoCoMo;
  the price: "New York City" does not find "nyc" in an index that holds all three words);
- the acronym is in at least one document; runs do not overlap (the most content words win, then a whole run, then
  the first).
With these, of the tune questions only "finish knitting the sweater" ("fks", absent-topic set) and "drawn inside the
review page" ("dir", transcript set) expand.

A run may lack the acronym's last word: "dead letter" for "dlq" ("messages stuck in the dead letter"). Two initials
begin many acronyms by chance, so such a partial run holds PARTIAL_WORDS to MAX_RUN - 1 content words, all of them in
no document, and no stop word ("Sat and Sun" gave "sso"); no other word of the query is in no document (else it asks
about a thing the index lacks: "the Vulkan shader compile errors" gave "vsn", "scuba diving in the Maldives" "sdk");
one acronym in the index begins with the initials ("dla" and "dlq": a guess); and a message holding it writes it as
one (`confirmed`, which a search applies: "second kitten" gave "sky", "Tuesday this week" "two"). With only the run's
words in no document and one acronym, 28 tune questions expanded so (the absent-topic sets asked as typed and in lower
case: 24; transcripts 1, days 2, LoCoMo 1; errors 0); with all the guards, none (bench/RESULTS.md).

One direction only: a query that says "DLQ" does not find, by keywords, a message that spells "dead-letter queue"
out; that would need the initials of word runs at indexing time (a new field and a schema bump). The vector side
often finds it.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass

from memlens.engine.keyword.stop_words import STOP_WORDS

MIN_LETTERS = 3  # so three content words at least; two-letter initials spell too many words by chance
MAX_RUN = 5
PARTIAL_WORDS = 2  # a run without the acronym's last word: "dead letter" for "dlq"
MAX_SKIPPED = 1  # stop words inside a run: "bureau of labor statistics", not "part of his experimentation in …"
UNKNOWN_SHARE = 0.5  # a run expands only when more than this share of its content words is in no document
_BREAK = re.compile(r"[.,;:!?()\[\]{}<>\"|]+")


@dataclass(frozen=True, slots=True)
class Acronym:
    term: str  # the acronym, lowercased: a term of the keyword index as it is (the stemmer leaves it unchanged)
    words: tuple[str, ...]  # the run's content words as the keyword query holds them (stemmed)
    doc_freq: int  # documents holding `term`
    partial: bool = False  # the run lacks the acronym's last word ("dead letter" for "dlq"): see `confirmed`
    joined: bool = False  # not an acronym but the run's words written as one ("rollback"): compounds.py


def candidates(words: Sequence[str]) -> list[tuple[int, int, str]]:
    """(start, end, initials) for every run words[start:end] that may stand for an acronym: it starts and ends on a
    content word of two letters or more, holds MIN_LETTERS to MAX_RUN content words and at most MAX_SKIPPED stop
    words, which its initials skip. `words` are one stretch of the query (no punctuation between them), lowercased
    and unstemmed."""
    own = set(words)
    return [
        (start, end, initials)
        for start, end, initials in _runs(words, shortest=MIN_LETTERS, longest=MAX_RUN)
        if initials not in STOP_WORDS and initials not in own
    ]


def partial_candidates(words: Sequence[str]) -> list[tuple[int, int, str]]:
    """(start, end, initials) for every run that may be an acronym's term without its last word ("dead letter" for
    the "dead letter queue" an index calls "dlq"): as `candidates`, with PARTIAL_WORDS to MAX_RUN - 1 content words,
    since the acronym has one letter more, and no stop word inside ("Sat and Sun" is two days, not "sso"). Its
    initials are only the acronym's start: they may be any letters."""
    return _runs(words, shortest=PARTIAL_WORDS, longest=MAX_RUN - 1, skips=0)


def _runs(words: Sequence[str], *, shortest: int, longest: int, skips: int = MAX_SKIPPED) -> list[tuple[int, int, str]]:
    """(start, end, initials) for every run of `shortest` to `longest` content words and at most `skips` stop words
    (see `candidates`)."""
    # 0: breaks a run, 1: a stop word, 2: a content word, 3: a one-letter content word (ends a run)
    kinds = [(1 if w in STOP_WORDS else 2 if len(w) > 1 else 3) if _latin(w) else 0 for w in words]
    out: list[tuple[int, int, str]] = []
    for start, kind in enumerate(kinds):
        if kind != 2:
            continue
        initials, skipped = "", 0
        for end in range(start, len(words)):
            kind = kinds[end]
            if kind == 1:
                skipped += 1
                if skipped > skips:
                    break
                continue
            if kind != 2 or len(initials) == longest:
                break
            initials += words[end][0]
            if len(initials) >= shortest:
                out.append((start, end + 1, initials))
    return out


def _latin(word: str) -> bool:
    return "a" <= word[0] <= "z"  # words come lowercased and ASCII-folded; a digit or another script breaks a run


def find(
    query: str,
    *,
    split: Callable[[str], list[str]],
    stem: Callable[[str], list[str]],
    doc_freq: Callable[[str], int],
) -> tuple[Acronym, ...]:
    """The acronyms the query's word runs stand for in this index.

    `split` gives a text's words lowercased and unstemmed, `stem` the same words as the keyword index analyses them
    (one for one: the stemmer never drops a word), `doc_freq` how many documents hold an analysed term."""
    found: list[tuple[int, bool, int, int, Acronym]] = []  # (-content words, partial, start, end, acronym)
    freqs: dict[str, int] = {}

    def freq(term: str) -> int:
        if term not in freqs:
            freqs[term] = doc_freq(term)
        return freqs[term]

    stretches = []
    for stretch in _BREAK.split(query.replace('"', " ")):
        words = split(stretch)
        stems = stem(stretch) if words else []
        stretches.append((words, stems if len(stems) == len(words) else []))
    unknown = [  # per stretch, its content words in no document (all of them when the stemmer joined or split one)
        sum(1 for w, s in zip(words, stems, strict=True) if w not in STOP_WORDS and freq(s) == 0)
        if stems
        else sum(w not in STOP_WORDS for w in words)
        for words, stems in stretches
    ]
    offset = 0
    for (words, stems), count in zip(stretches, unknown, strict=True):
        if len(stems) >= PARTIAL_WORDS:
            whole = count == sum(unknown)
            found += [
                (-len(a.words), partial, offset + i, offset + j, a)
                for i, j, partial, a in _stretch(words, stems, stem, freq, whole=whole)
            ]
        offset += len(words) + 1
    chosen: list[tuple[int, bool, int, int, Acronym]] = []
    for item in sorted(found, key=lambda f: f[:3]):  # the most content words, a whole run before a partial one
        if all(item[3] <= c[2] or item[2] >= c[3] for c in chosen):
            chosen.append(item)
    return tuple(a for *_, a in sorted(chosen, key=lambda c: c[2]))


def _stretch(
    words: list[str], stems: list[str], stem: Callable[[str], list[str]], freq: Callable[[str], int], *, whole: bool
) -> list[tuple[int, int, bool, Acronym]]:
    """(start, end, partial, acronym) for each run of one stretch of the query that passes the guards; `whole`: no
    other stretch holds a word in no document."""
    own = [None if w in STOP_WORDS else s for w, s in zip(words, stems, strict=True)]  # the content words' stems
    unknown = [0]  # unknown[i]: the content words in no document among words[:i]
    for s in own:
        unknown.append(unknown[-1] + (s is not None and freq(s) == 0))
    if unknown[-1] < PARTIAL_WORDS:
        return []  # too few words in no document for any run

    def acronym(start: int, end: int, form: str, *, partial: bool = False) -> Acronym:
        return Acronym(form, tuple(s for s in own[start:end] if s is not None), freq(form), partial)

    def usable(form: str) -> bool:  # in a document, and the stemmer leaves it: "dates" would find every "date"
        return freq(form) > 0 and stem(form) == [form]

    out = []
    for start, end, form in candidates(words):  # a run has one content word per letter of its initials
        if unknown[end] - unknown[start] <= UNKNOWN_SHARE * len(form):
            continue  # the index knows most of the run's words: it needs no other name
        if usable(form):
            out.append((start, end, False, acronym(start, end, form)))
    run_words = set(words)
    for start, end, initials in partial_candidates(words):
        if unknown[end] - unknown[start] < len(initials):
            continue  # half a name is weaker evidence: every content word of the run is in no document
        if unknown[-1] > len(initials) or not whole:
            continue  # another word of the query is in no document: the query is about something the index lacks
        forms = [
            initials + letter
            for letter in string.ascii_lowercase
            if initials + letter not in STOP_WORDS and initials + letter not in run_words and usable(initials + letter)
        ]
        if len(forms) == 1:  # several acronyms start so ("dla", "dlq"): which one the run means is a guess
            out.append((start, end, True, acronym(start, end, forms[0], partial=True)))
    return out


def written(found: Sequence[Acronym], texts: Iterable[str]) -> tuple[Acronym, ...]:
    """The acronyms that one of `texts` (the hits ranked first) writes as an acronym: in capitals ("the orders DLQ")
    or joined into an identifier by _ . or / ("dlq_consumer", "queues/dlq"). Initials that spell an ordinary word
    ("car", "art") are found in prose; those stay words and count for nothing (query_facts.py)."""
    if not found:
        return ()
    texts = list(texts)
    out = []
    for acronym in found:
        if acronym.joined:  # a compound is a word of its own, however written
            out.append(acronym)
            continue
        term = re.escape(acronym.term)
        pattern = re.compile(rf"\b{term.upper()}\b|(?i:\w[_./]{term}\b|\b{term}[_./]\w)")
        if any(pattern.search(text) for text in texts):
            out.append(acronym)
    return tuple(out)


def confirmed(found: Sequence[Acronym], *, texts: Callable[[str], Iterable[str]]) -> tuple[Acronym, ...]:
    """`found` less each partial acronym that none of `texts(term)` (messages holding it) writes as one (`written`).
    Two words in no document and one acronym that begins with their initials happen by chance in a large index
    ("second kitten" and "sky", "Tuesday this week" and "two"); an acronym written so is what the run may mean."""
    return tuple(a for a in found if not a.partial or written([a], texts(a.term)))


def with_acronyms(acronyms: Sequence[Acronym], tokens: Container[str]) -> Container[str]:
    """A hit's analysed words, plus the words of each run whose acronym the hit holds (they count as found)."""
    if not acronyms:
        return tokens
    extra = frozenset(w for a in acronyms if a.term in tokens for w in a.words)
    return _Either(tokens, extra) if extra else tokens


class _Either:
    """Words in either of two containers."""

    __slots__ = ("first", "second")

    def __init__(self, first: Container[str], second: Container[str]) -> None:
        self.first, self.second = first, second

    def __contains__(self, word: object) -> bool:
        return word in self.first or word in self.second


def stand_ins(found: Sequence[Acronym], doc_freqs: Mapping[str, int]) -> dict[str, tuple[int, int]]:
    """The run words that no document holds, each with its acronym's document count and how many such words its run
    has: together they weigh in the query as the acronym would (query_facts.py shares the acronym's idf among them), and
    they are not absent."""
    out: dict[str, tuple[int, int]] = {}
    for acronym in found:
        missing = [w for w in acronym.words if doc_freqs.get(w, 1) == 0]
        for word in missing:
            out.setdefault(word, (acronym.doc_freq, len(missing)))
    return out
