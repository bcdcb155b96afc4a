"""A pasted text is answered first by the messages that hold it as written. Someone who pastes an error line (or any
line they copied) wants the place it came from: the tool output that printed it. The messages that discuss it (the
agent's "Expected — the module doesn't exist yet", its edit of the failing test, its summary) share its words and
its meaning, and the learned ranker and the vectors put them first; but they hold a few of its words, not its runs
of words, and not the lines around it. So once the head is ordered, the hits that hold the most of the query in runs
of RUN words or more, in the query's order, are put first: the most held first; among those that hold as much, for
a paste that reads as an error (error_query.py), a tool output (where a command printed it) before a message quoting
it, then the earliest (a quote follows its source), and for any other paste (a command, a commit message: the call,
its output and a summary hold it alike) the order the other passes gave.

The head is what the fused score put first, and for a paste the vectors can leave its source out of it: a line many
outputs share most words of (a failing test's `file.exs:50: (test)` frame, printed by every run of that test) is as
near each of them in meaning as in BM25, and the cosines decide which of them make the head. So the hits the BM25 list
alone would have put in the head (a keyword search's head: its first forty) are read too when the fused score left
them out, and those holding at least MIN_HELD of the paste as written join the head before it is ordered
(`take_in_holders`): the output that printed a paste comes first in hybrid search as in keyword search, whatever the
vectors say.

A query of a few codes (a ticket's id `LED-231`, a hash, a request's id, a version) is copied too, though it is
short: the hits holding every code come first. In both cases the index holds what was copied, so whether anything
here answers the query is settled (`held_as_written`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memlens.engine.keyword.error_query import reads_as_question
from memlens.engine.keyword.identifiers import hyphenated_words, is_identifier
from memlens.engine.keyword.name_forms import form_free

if TYPE_CHECKING:
    from memlens.engine.keyword.parsed_query import ParsedQuery
    from memlens.engine.ranking.head import Head
    from memlens.engine.ranking.hits import UnitHit
    from memlens.engine.ranking.unit_facts import UnitFacts

RUN = 4  # words in a row, as the query has them, that count as held as written: fewer are common phrases
MIN_HELD = 6  # words of the query a hit must hold in such runs to be put first: a shorter run is a phrase, no paste
MAX_CODES = 3  # a query of more words is a phrase or a question, not codes looked up
MOST_OF_A_PASTE = 0.75  # the share of a paste's words a hit holds as written that makes it the paste's source...
HELD_PASTE_CHANCE = 0.5  # ...whose chance is then at least this: strong (answers/confidence.py)
_WORD = re.compile(r"\w+")
_DIGIT = re.compile(r"\d")
_LETTER = re.compile(r"[^\W\d_]")
_CODE_EDGES = "\"'`()[]{}<>,;:!?#"  # quotes and brackets around a code, a ticket's `#`


def written_words(text: str) -> str:
    """A text's words as written (case folded; punctuation, spaces and line breaks between them read as one space),
    space-padded. Not the index's analysed words: those are stored as a set, and a run needs their order."""
    return " " + " ".join(_WORD.findall(text.casefold())) + " "


def query_runs(query: ParsedQuery) -> list[str] | None:
    """The query's runs of RUN words as written, each space-padded; None when the query is no paste: a question
    (asked, not copied) or fewer than MIN_HELD words."""
    words = written_words(query.text).split()
    if len(words) < MIN_HELD or _asked(query.text):
        return None
    return [" " + " ".join(words[at : at + RUN]) + " " for at in range(len(words) - RUN + 1)]


def _asked(text: str) -> bool:
    """A question, typed: one line that reads as one (error_query.reads_as_question) and does not end as a sentence
    does, as a copied line that starts with a question word does (`when defining the variable "conn", you must …`).
    A text of several lines is pasted."""
    text = text.strip()
    return "\n" not in text and reads_as_question(text) and not text.endswith((".", ":"))


def is_code(token: str) -> bool:
    """A ticket's id, a hash, a request's id, a version, an identifier (`LED-231`, `0b2e5f71`, `v1.8.0`, `9041`,
    `mark_shipped`): a word with a digit and a letter, a number of four digits or more, or an identifier that is not
    a plain hyphenated word (`blue-green` is English)."""
    token = token.strip(_CODE_EDGES)
    if _DIGIT.search(token):
        return _LETTER.search(token) is not None or sum(c.isdigit() for c in token) >= 4
    return is_identifier(token) and not hyphenated_words(token)


def query_codes(text: str) -> list[str] | None:
    """Each code's words as written, space-padded, when a query's `text` is nothing but a few codes (`is_code`); else
    None. A name's words are its parts, whatever its form (name_forms.form_free): `reviewHeartbeatInterval` is held by
    a text writing `review_heartbeat_interval`.
    Nobody types such a thing from memory: it was copied, and the messages holding it are what is asked for,
    whatever the vectors make of it (the nearest in meaning to `LED-231` is any ticket talk)."""
    tokens = text.split()
    if not 0 < len(tokens) <= MAX_CODES or not all(is_code(token) for token in tokens):
        return None
    return [written_words(form_free(token)) for token in tokens]


@dataclass(frozen=True, slots=True)
class Copied:
    """What a query copied, to be found as written: a paste's runs of RUN words (`runs`), each hit holding at least
    MIN_HELD of its words; or a query's codes, each hit holding every one."""

    needles: list[str]
    runs: bool
    enough: int

    def held(self, text: str) -> int:
        """How much of it a hit's `text` holds: a paste's words held in runs, or the codes held (its names read in
        any form, as the codes are)."""
        if self.runs:
            return held_words(self.needles, written_words(text))
        words = written_words(form_free(text))
        return sum(code in words for code in self.needles)


def copied(query: ParsedQuery) -> Copied | None:
    """What `query` copied (`Copied`), or None when it was typed."""
    runs = query_runs(query)
    if runs is not None:
        return Copied(runs, runs=True, enough=MIN_HELD)
    codes = query_codes(query.text)
    return Copied(codes, runs=False, enough=len(codes)) if codes else None


def held_words(runs: list[str], text: str, *, run: int = RUN) -> int:
    """How many of the query's words `text` (`written_words`) holds in runs of `run` or more in the query's order
    (`runs`: the query's runs of that many words)."""
    held = 0
    covered_to = 0  # the query's words up to here are counted
    for at, words in enumerate(runs):
        if words in text:
            held += run - max(0, covered_to - at)
            covered_to = at + run
    return held


def _pairs(text: str) -> list[str]:
    """`text`'s runs of two words as written, each space-padded."""
    words = written_words(text).split()
    return [f" {first} {second} " for first, second in zip(words, words[1:], strict=False)]


def take_in_holders(
    head: Head,
    tail: list[UnitHit],
    query: ParsedQuery,
    *,
    size: int,
    texts: Callable[[Sequence[int]], dict[int, str]],
    facts: Callable[[Sequence[int]], dict[int, UnitFacts]],
) -> list[UnitHit]:
    """For a paste: move into `head`, at its end, the hits of `tail` among the first `size` of the BM25 list (the
    head a keyword search re-scores) that hold at least MIN_HELD of the query's words as written and whose text no
    head hit holds already, each with the chance its score has below the head's last (as scale_tail gives the
    tail); return the rest of `tail`. `texts` reads the units' texts (of those few: most of the BM25 list's first
    are in the head), `facts` the facts of those taken. put_verbatim_first then puts them where their share of the
    paste says. A query of codes (`query_codes`): the hits holding every code."""
    pasted = copied(query)
    found = [hit for hit in tail if hit.keyword_rank is not None and hit.keyword_rank < size]
    if pasted is None or not found or not head.hits:
        return tail
    read = texts([hit.unit_id for hit in found])
    holders = [hit for hit in found if pasted.held(read.get(hit.unit_id, "")) >= pasted.enough]
    if not holders:
        return tail
    units = facts([hit.unit_id for hit in holders])
    held_texts = {head.units[hit.unit_id].key for hit in head.hits} - {""}
    taken: list[UnitHit] = []
    for hit in holders:
        key = units[hit.unit_id].key
        if key and key in held_texts:
            continue
        held_texts.add(key)
        taken.append(hit)
    if not taken:
        return tail
    last = head.hits[-1]
    for hit in taken:
        hit.probability = last.probability * hit.score / last.score if last.score > 0 else 0.0
        head.units[hit.unit_id] = units[hit.unit_id]
    head.hits.extend(taken)
    ids = {hit.unit_id for hit in taken}
    return [hit for hit in tail if hit.unit_id not in ids]


def put_verbatim_first(head: Head, query: ParsedQuery) -> None:
    """Put first the hits that hold at least MIN_HELD of the query's words as written (most first; for an error
    pasted, then a tool output, then the earliest), and hand out the head's scores and chances again in the new
    order, so both still fall down the list. A query of codes (`query_codes`): the hits holding every code first,
    in the order they had."""
    pasted = copied(query)
    if pasted is None or not head.hits:
        return
    held = {hit.unit_id: pasted.held(head.units[hit.unit_id].text) for hit in head.hits}
    holders = [hit for hit in head.hits if held[hit.unit_id] >= pasted.enough]
    if not holders:
        return

    printed = pasted.runs and query.error_like  # an error pasted: the output that printed it is where it happened

    def first(hit: UnitHit) -> tuple[int, bool, float]:
        if not printed:  # a command, a commit message: the call, its output and a summary hold it alike
            return (-held[hit.unit_id], False, 0.0)
        unit = head.units[hit.unit_id]
        return (-held[hit.unit_id], unit.kind != "tool", unit.ts if unit.ts is not None else float("inf"))

    holders.sort(key=first)  # stable: the head's order among equals
    ids = {hit.unit_id for hit in holders}
    order = holders + [hit for hit in head.hits if hit.unit_id not in ids]
    held_as_written(head)
    if [h.unit_id for h in order] != [h.unit_id for h in head.hits]:
        scores = sorted((h.score for h in head.hits), reverse=True)
        chances = sorted((h.probability for h in head.hits), reverse=True)
        for hit, score, chance in zip(order, scores, chances, strict=True):
            hit.score = score
            hit.probability = chance
        head.hits = order
    if not pasted.runs:  # every code held: what was asked, as a named hash is (lift_named_literals)
        for hit in holders:
            hit.probability = max(hit.probability, HELD_PASTE_CHANCE)
        return
    # nearly the whole paste, as written (a name or a number in it changed, as a paste from another checkout has
    # them): the place it was copied from, however little else of the index shares its words. A sentence of an
    # error's message without its exception's name reads as prose, and every chance of the list fell under minScore:
    # "no results" for a line the index holds
    pairs = _pairs(query.text)
    most = MOST_OF_A_PASTE * (len(pairs) + 1)
    for hit in holders:  # held two words at a time: a name changed loses its own words, not the runs around it
        if held_words(pairs, written_words(head.units[hit.unit_id].text), run=2) >= most:
            hit.probability = max(hit.probability, HELD_PASTE_CHANCE)


def held_as_written(head: Head) -> None:
    """The index holds the paste as written, so whether anything here answers it is settled: each hit's chance is its
    own model's again, without the factor of the query-level guess (calibration.answerable). That guess reads the head
    the fused score chose, and for a paste whose values differ from the stored ones (another id, another route, the
    known list cut short) it read a head of messages that discuss the error and hid the output that printed it."""
    if 0.0 < head.answerable < 1.0:
        for hit in head.hits:
            hit.probability = min(1.0, hit.probability / head.answerable)
        head.answerable = 1.0


def lift_named_literals(head: Head, query: ParsedQuery) -> None:
    """A hit holding the commit hash or the URL the query names (`ParsedQuery.literals`: required, so every hit its
    words found holds it) is what was asked, whatever else the query says ("commit 05fd186": the output that printed
    it had a chance of 0.0015, a tool output the word "commit" does not cover): at least HELD_PASTE_CHANCE."""
    if not query.literals:
        return
    for hit in head.hits:
        if hit.bm25 > 0:
            hit.probability = max(hit.probability, HELD_PASTE_CHANCE)
