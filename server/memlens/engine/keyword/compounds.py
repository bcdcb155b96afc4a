"""Compounds written as one word: "front-end" or "roll back" in a query also asks for the "frontend" or "rollback" the
index mostly holds.

The analyser splits a hyphenated word ("dead-letter" is "dead letter"), so a query's spaced and hyphenated forms
match each other; a word written joined ("rollback", `LiveViewTest`, which the `text` field keeps whole) matches
neither. So two neighbouring content words of the query whose joined form is one term of the index stand for it as an
acronym's run does (acronyms.py: the pair's words or the term, whichever scores more; a hit holding the term counts
the pair as found), when the index writes the term in more documents than the pair as a phrase: it names the thing
joined. Both words are content words ("set up", "work out" and "feel in", with a stop word, stay apart: "feel in"
gave "feelin" on LoCoMo). Over the tune questions (absent-topic, transcript, bags, error, day, LoCoMo 26/30/41), five
join: "roll back", "front-end", "LiveView test(s)" (three); and the absent error "panic: runtime error" finds Python's
`RuntimeError`, which leaves it unanswered still (bench.errors). A run of three to MAX_JOINED words that starts and
ends on a content word joins when the index holds it joined at all: such a run joined is a name's parts written
apart (`review_heartbeat_interval` for `reviewHeartbeatInterval`: name_forms.py), never a word by chance.

The other direction, a query's joined word ("deadletter") for the two words the index writes apart ("dead letter",
"dead-letter"): `spelled_apart` reads a word of the query that no document holds as its two halves when both are
content words of the index and it holds them in a row (a phrase), the split it holds most often. Only a word in no
document is split, so a query never loses a word the index has; the query then reads as it does spelled apart, by
every stage (the vector side embeds it so too: the model cuts "deadletter" into pieces that mean little). A phrase
query for the pair as well ranked the example's hits as the spaced query does but lowered how sure the answer was.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from memlens.engine.keyword.acronyms import Acronym
from memlens.engine.keyword.stop_words import STOP_WORDS

PHRASE_COUNT_DOCS = 2048  # a pair's phrase is counted only while its rarer word is in at most this many documents
# a dot parts a stretch where it ends a sentence, not inside a dotted name (`review.heartbeat.interval`)
_BREAK = re.compile(r"[,;:!?()\[\]{}<>\"|/]+|\.(?:\s|$)")
MAX_JOINED = 5  # the most words of a run read as one name written joined (`reviewHeartbeatInterval`: three)
MIN_HALF = 3  # letters in each half of a joined word split apart: "dead|letter"; "a|sync", "re|try" stay whole
# a word of lower-case letters (a capital first): "deadletter", "Deadletter"; not an identifier ("deadLetter", which the
# ident field reads by parts) nor a word with digits or an underscore
_PLAIN_WORD = re.compile(rf"(?<![\w.-])[A-Za-z][a-z]{{{2 * MIN_HALF - 1},}}(?![\w-])")


def find(
    query: str,
    *,
    split: Callable[[str], list[str]],
    stem: Callable[[str], list[str]],
    doc_freq: Callable[[str], int],
    phrase_freq: Callable[[list[str]], int],
    taken: Collection[str] = (),
) -> tuple[Acronym, ...]:
    """The joined terms of this index that pairs of the query's neighbouring words stand for, as `Acronym`s with
    `joined` set. `split` and `stem` read a text as acronyms.find's do; `doc_freq` counts the documents holding an
    analysed term, `phrase_freq` those holding analysed words in a row; `taken`: stems of words another name covers
    (an acronym's run), left alone."""
    found: list[Acronym] = []
    used: set[int] = set()
    offset = 0
    for stretch in _BREAK.split(query.replace('"', " ")):
        words = split(stretch)
        stems = stem(stretch) if len(words) >= 2 else []
        if len(stems) == len(words):
            found += _joined_runs(words, stems, offset, used, stem=stem, doc_freq=doc_freq, taken=taken)
            for i in range(len(words) - 1):
                if {offset + i, offset + i + 1} & used or not _joinable(words[i], words[i + 1]):
                    continue
                if stems[i] in taken or stems[i + 1] in taken:
                    continue
                joined = stem(words[i] + words[i + 1])
                if len(joined) != 1 or not (freq := doc_freq(joined[0])):
                    continue
                if _written_joined(freq, [stems[i], stems[i + 1]], doc_freq=doc_freq, phrase_freq=phrase_freq):
                    found.append(Acronym(joined[0], (stems[i], stems[i + 1]), freq, joined=True))
                    used |= {offset + i, offset + i + 1}
        offset += len(words) + 1
    return tuple(found)


def _written_joined(
    freq: int, pair: list[str], *, doc_freq: Callable[[str], int], phrase_freq: Callable[[list[str]], int]
) -> bool:
    """Whether the index writes a pair joined (in `freq` documents) more often than as a phrase. The phrase is in no
    more documents than its rarer word, so a joined word that outnumbers that word needs no count; a phrase is counted
    only while its rarer word is in at most PHRASE_COUNT_DOCS documents, since counting it reads every document
    holding both words (about 3 ms a query for pairs in 15,000 of 147,000 messages, bench/RESULTS.md): past that, the
    pair stays apart."""
    rarer = min(doc_freq(pair[0]), doc_freq(pair[1]))
    if freq > rarer:
        return True
    return rarer <= PHRASE_COUNT_DOCS and freq > phrase_freq(pair)


def _joined_runs(
    words: list[str],
    stems: list[str],
    offset: int,
    used: set[int],
    *,
    stem: Callable[[str], list[str]],
    doc_freq: Callable[[str], int],
    taken: Collection[str],
) -> list[Acronym]:
    """The terms of this index that runs of three to MAX_JOINED of one stretch's `words` (`stems` theirs) stand for
    written joined: a name's parts written apart (`review_heartbeat_interval`, "review heartbeat interval" for
    `reviewHeartbeatInterval`), the longest run first; `used` (the query's word positions, the stretch's first at
    `offset`) gains those of each run found. A run starts and ends on a content word starting with a letter a–z and
    holds only letters a–z and digits (a stop word inside it is a part as any other: `get_or_create`)."""
    part = [w.isascii() and w.isalnum() for w in words]
    end_word = [p and "a" <= w[0] <= "z" and w not in STOP_WORDS for p, w in zip(part, words, strict=True)]
    found: list[Acronym] = []
    for i in range(len(words) - 2):
        if not end_word[i]:
            continue
        for end in range(min(len(words), i + MAX_JOINED), i + 2, -1):
            at = set(range(offset + i, offset + end))
            if not end_word[end - 1] or not all(part[i:end]) or at & used or set(stems[i:end]) & set(taken):
                continue
            joined = stem("".join(words[i:end]))
            if len(joined) == 1 and (freq := doc_freq(joined[0])):
                found.append(Acronym(joined[0], tuple(stems[i:end]), freq, joined=True))
                used |= at
                break
    return found


def _joinable(first: str, second: str) -> bool:
    """Two content words of two letters or more, each starting with a letter a–z (as acronyms.py reads words)."""
    return all(len(w) > 1 and "a" <= w[0] <= "z" and w not in STOP_WORDS for w in (first, second))


def spelled_apart(
    query: str,
    *,
    stem: Callable[[str], list[str]],
    doc_freq: Callable[[str], int],
    phrase_freq: Callable[[list[str]], int],
) -> str:
    """`query` with each plain word that no document holds written as the two words the index holds in a row
    ("deadletter queue" → "dead letter queue"; `query` itself when there is none): the query then reads as the one
    spelled apart does, in each stage. `stem` reads a text as the index's analyser does, `doc_freq` counts the
    documents holding an analysed term, `phrase_freq` those holding analysed words in a row. A phrase is counted only
    while its rarer word is in at most PHRASE_COUNT_DOCS documents (as `_written_joined`), so a word whose halves are
    both common in a large index stays whole."""

    def apart(match: re.Match[str]) -> str:
        word = match.group(0)
        whole = stem(word)
        if len(whole) != 1 or doc_freq(whole[0]):
            return word
        best, best_freq = word, 0
        for cut in range(MIN_HALF, len(word) - MIN_HALF + 1):
            first, second = word[:cut], word[cut:]
            if first.lower() in STOP_WORDS or second.lower() in STOP_WORDS:
                continue
            pair = stem(first) + stem(second)
            if len(pair) != 2 or min(freqs := (doc_freq(pair[0]), doc_freq(pair[1]))) == 0:
                continue
            if min(freqs) > PHRASE_COUNT_DOCS:
                continue
            if (freq := phrase_freq(pair)) > best_freq:
                best, best_freq = f"{first} {second}", freq
        return best

    return _PLAIN_WORD.sub(apart, query)
