"""A query's text read once: its words as the index has them, its quoted phrases, identifiers, acronyms, the dates it
names and its filters. Made at the top of a search (ranking/query_reading.py) and handed to everything that asks
what the query says: the keyword query builder, term expansion, the re-scoring passes and the excerpts, so no stage
analyses the text again (and none can read it differently from another)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

import tantivy

from memlens.engine.filters import SearchFilters
from memlens.engine.keyword.acronyms import Acronym
from memlens.engine.keyword.error_query import asks_for_output, looks_like_error, looks_like_output
from memlens.engine.keyword.identifiers import identifiers, looks_technical
from memlens.engine.keyword.stop_words import STOP_WORDS

PHRASE = re.compile(r'"([^"]+)"')
# what only its own characters name, typed among a few words: a commit hash (or its prefix) and a URL's host with a
# path ("github.com/rrrene/credo", a prefix of the URL printed). Read as quoted: as loose words, the hash matched
# nothing that a plain word's search reads (tool output is left out of it) and the host's words matched every link
LITERAL = re.compile(
    r"(?<![\w./:-])(?:(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}"
    r"|(?:https?://)?(?:[a-z0-9-]+\.)+[a-z]{2,}(?:/[\w.~%+-]+)+/?)(?![\w/:-])",
    re.I,
)
MAX_WORDS_BESIDE_LITERAL = 4  # "what did commit a230dbf change": more words are a question or a paste that names one


class Analysis(Protocol):
    """What reading a query asks of its index (KeywordIndex): the schema, and the words of a text as the index has
    them."""

    schema: tantivy.Schema

    def tokens(self, text: str) -> list[str]: ...
    def content_words(self, text: str) -> list[str]: ...
    def surface_words(self, text: str) -> list[str]: ...
    def acronyms(self, text: str) -> tuple[Acronym, ...]: ...
    def spelled_apart(self, text: str) -> str: ...


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    """What a query says. "Loose" parts are read outside its quoted phrases (they are OR-ed; a phrase is required as
    a whole); `terms` and `acronyms` read the phrases' words too, since a hit holding them covers the query."""

    text: str
    phrases: tuple[tuple[str, ...], ...]  # each quoted phrase's analysed words, in order
    loose_terms: tuple[str, ...]  # distinct stemmed content words outside the phrases
    loose_surface: tuple[str, ...]  # the same words unstemmed (what term expansion embeds)
    loose_acronyms: tuple[Acronym, ...]  # acronyms that runs of the loose words stand for
    identifiers: tuple[str, ...]  # distinct identifiers outside the phrases, whole
    terms: tuple[str, ...]  # distinct stemmed content words, phrases included: what re-scoring weighs
    acronyms: tuple[Acronym, ...]  # acronyms of the whole text
    tokens: tuple[str, ...]  # every analysed word, stop words included: what excerpts centre on
    technical: bool  # names a command, path, flag or identifier (tool-call inputs then weigh in full)
    names_a_topic: bool  # a quoted phrase, an identifier, or a word that is no stop word, lone letter or digit
    literal: bool  # only its quoted phrases name its topic ("to be or not to be" in quotes), or it names a commit
    # hash or a URL (`literals`): hits must hold them
    error_like: bool = False  # a pasted error or log line, or asks for one (tool output then weighs in full)
    output_like: bool = False  # a line pasted from a command's output (tool output then weighs in full)
    asks_output: bool = False  # asks what a command printed: its output ranks above the call and the prose about it
    filters: SearchFilters | None = None
    dates: tuple[tuple[int, int], ...] = ()  # (first, last) epoch days the query names, dated events included
    literals: tuple[str, ...] = ()  # the commit hashes and URLs it names among few words (LITERAL), read as quoted


def parse_words(text: str, index: Analysis, *, filters: SearchFilters | None = None) -> ParsedQuery:
    """The query's words, phrases, identifiers and acronyms as `index` analyses them; no dates (they need a clock
    and the catalog: ranking/query_reading.py adds them). A joined word the index holds only spelled apart is read
    as its two words ("deadletter" as "dead letter": compounds.spelled_apart), by every stage: the vector side embeds
    `text` so read too (the model splits "deadletter" into pieces that mean little)."""
    text = index.spelled_apart(text)
    # a phrase is typed on one line; the quotes of a pasted output of several lines are its own (a traceback's
    # `File "/srv/app.py"`), and required as phrases they would miss the output the index keeps in part
    one_line = "\n" not in text.strip()
    quoted = PHRASE.findall(text) if one_line else []
    loose = PHRASE.sub(" ", text) if quoted else text
    named: list[str] = []
    if one_line and LITERAL.search(loose) and not (looks_like_error(text) or looks_like_output(text)):
        beside = LITERAL.sub(" ", loose)
        if len(index.content_words(beside)) <= MAX_WORDS_BESIDE_LITERAL:
            named = LITERAL.findall(loose)
            quoted, loose = quoted + named, beside
    phrases = tuple(tuple(index.tokens(phrase)) for phrase in quoted)
    found = tuple(dict.fromkeys(identifiers(loose)))
    loose_topic = bool(found) or any(_topic_words(index.surface_words(loose)))
    return ParsedQuery(
        text=text,
        phrases=phrases,
        loose_terms=tuple(index.content_words(loose)),
        loose_surface=tuple(index.surface_words(loose)),
        loose_acronyms=index.acronyms(loose),
        identifiers=found,
        terms=tuple(index.content_words(text.replace('"', " "))),
        acronyms=index.acronyms(text),
        tokens=tuple(index.tokens(text)),
        technical=looks_technical(text),
        names_a_topic=loose_topic or any(phrases),
        literal=(any(phrases) and not loose_topic) or bool(named),
        error_like=looks_like_error(text),
        output_like=looks_like_output(text),
        asks_output=asks_for_output(text),
        filters=filters,
        literals=tuple(named),
    )


def _topic_words(words: list[str]) -> list[bool]:
    """For each word, whether it can say what a message is about: not a stop word (the, to, be, …), nor a lone Latin
    letter or digit (`a`, `x`, `3`), which nearly every message holds. A lone CJK character is a word."""
    return [w not in STOP_WORDS and not (len(w) == 1 and w.isascii()) for w in words]
