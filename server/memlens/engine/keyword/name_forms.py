"""A name found whatever way it is written: `reviewHeartbeatInterval`, `ReviewHeartbeatInterval`,
`review_heartbeat_interval`, `REVIEW_HEARTBEAT_INTERVAL`, `review-heartbeat-interval`, `review.heartbeat.interval`.

The `text` field's analyser splits a word at every character that is not a letter or a digit, so the snake, kebab,
dotted and spaced forms of a name are the same words in a row there ("review heartbeat interv"); a camelCase or
PascalCase word it keeps whole, lowercased ("reviewheartbeatinterv"). So a query writing the name one way and the
index holding it the other found it by the `ident` field's parts or by the vectors alone, and the calibration, which
asks the `text` field whether the index holds the query's words, read the query's name as absent and hid the hit.

Both directions are read as the index writes the name, as compounds.py reads "deadletter" and "dead letter":
- a camelCase word of the query that no document holds, whose parts the index holds in a row, is read as its
  snake_case form (`snake_form`: `parseHTTPResponse` → `parse_http_response`, `utf8Decoder` → `utf8_decoder`, digits
  kept with the letters before them as the analyser keeps them), by every stage, as `compounds.spelled_apart`'s words
  are; a prefix of a name (`reviewHeartbeat`) too, its parts being in a row wherever the whole name is. A camelCase
  name the index does not hold in a row (`reviewHeartbeatTimeout` where only `review_heartbeat_interval` is) stays
  whole, in no document: what it names is not here, and the query stays unanswered as it did. The start of a name
  the index holds joined (`reviewHeartbeat` of `reviewHeartbeatInterval`) is read so too when a longer word of the
  index starts with it and each part is a name's part in the `ident` field (its end, `heartbeatInterval`, is not:
  finding a word inside the index's words reads the whole term dictionary);
- the parts of a name written apart (`review_heartbeat_interval`, or three spaced words) that the index holds joined
  ask for the joined word as a compound's pair does (compounds.find: runs of up to MAX_JOINED words);
- a word the query writes in a name (`review_heartbeat`) that the `text` field lacks but the `ident` field holds as a
  camelCase name's part is held, and a hit whose names hold it holds it (ranking/query_facts.py `name_parts`). The
  same word in the query's prose stays absent: a question asked in other words than its answer's ("chat") must not
  be answered by any name that holds it (`ChatPanel`): counted for prose words too, it changed what nine transcript
  tune questions show, three of them answered with no target among the hits. `start-of-chat` is prose too.

`form_free` reads a text's names as their parts, whatever their form, for the places that compare what a query
copied with what a hit holds as written (ranking/verbatim.py's codes)."""

from __future__ import annotations

import re
from collections.abc import Callable

# a camelCase or PascalCase word: letters and digits, a capital after a lower-case letter or a digit, or a run of
# capitals followed by a capitalised word (`HTTPResponse`); a dotted or kebab name's camelCase segment too
# (`config.reviewHeartbeat`: the analyser splits at the dot)
_CAMEL_WORD = re.compile(r"(?<![\w$])[A-Za-z][A-Za-z0-9]*(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z])[A-Za-z0-9]*(?![\w$])")
# where a camelCase word's parts meet: before a capital that follows a lower-case letter, before a capitalised word
# that follows a digit or a run of capitals (`utf8|Decoder`, `HTTP|Response`); never between a letter and a digit,
# nor inside a hash in capitals (`0B2E5F71`)
_PART_EDGE = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z0-9])(?=[A-Z][a-z])")
PHRASE_COUNT_DOCS = 2048  # as compounds.py: a run of parts is looked up only while its rarest is in so few documents


def snake_form(word: str) -> str:
    """`word`'s parts lowercased and joined by `_`: `reviewHeartbeatInterval`, `ReviewHeartbeatInterval` →
    `review_heartbeat_interval`; `parseHTTPResponse` → `parse_http_response`; `utf8Decoder` → `utf8_decoder`."""
    return _PART_EDGE.sub("_", word).lower()


def reads_as_code(word: str) -> bool:
    """A camelCase word that names a thing in code rather than a brand: it starts in lower case with parts of two
    letters or more (`reviewHeartbeat`, not `iPhone`), or has three parts or more (`ReviewHeartbeatInterval`; not
    `PlayStation`, whose parts are common words)."""
    parts = snake_form(word).split("_")
    if len(parts) >= 3:
        return True
    return word[0].islower() and all(len(part) >= 2 for part in parts)


def written_apart(
    query: str,
    *,
    stem: Callable[[str], list[str]],
    doc_freq: Callable[[str], int],
    phrase_freq: Callable[[list[str]], int],
    part_freq: Callable[[str], int],
    holds_longer: Callable[[str], bool],
) -> str:
    """`query` with each camelCase word that no document holds written in its snake_case form, when the index holds
    its parts in a row (a phrase), or when its parts are each in more than PHRASE_COUNT_DOCS documents (too many to
    count the phrase over) and it reads as code (`reads_as_code`); or, for the start of a name the index holds joined
    (`reviewHeartbeat` of `reviewHeartbeatInterval`), when a longer word of the index starts with it and each of its
    parts is a name's part in the `ident` field. `stem` reads a text as the index's analyser does, `doc_freq` counts
    the documents holding an analysed term, `phrase_freq` those holding analysed words in a row, `part_freq` those
    holding a word in the `ident` field, `holds_longer` whether a longer word of the index starts with an analysed
    word."""

    def apart(match: re.Match[str]) -> str:
        word = match.group(0)
        whole = stem(word)
        if len(whole) != 1 or doc_freq(whole[0]):
            return word
        snake = snake_form(word)
        parts = stem(snake)
        if len(parts) < 2:
            return word
        freqs = [doc_freq(part) for part in parts]
        if min(freqs) > PHRASE_COUNT_DOCS:
            return snake if reads_as_code(word) else word
        if min(freqs) > 0 and phrase_freq(parts):
            return snake
        named = all(part_freq(part) for part in snake.split("_"))
        return snake if named and holds_longer(whole[0]) else word

    return _CAMEL_WORD.sub(apart, query)


def form_free(text: str) -> str:
    """`text` with its names' parts apart: each part edge of a camelCase word (`_PART_EDGE`) and each `_` a space, so
    `reviewHeartbeatInterval`, `REVIEW_HEARTBEAT_INTERVAL` and `review-heartbeat-interval` read as "review heartbeat
    interval" does once `verbatim.written_words` reads them. A hash or an id in capitals stays whole (no edge falls
    between a digit and a capital unless a lower-case letter follows it)."""
    return _PART_EDGE.sub(" ", text).replace("_", " ")
