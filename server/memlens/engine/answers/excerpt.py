"""Bounded, redacted excerpts around the words a query matched."""

from __future__ import annotations

import functools
import re
import string
import unicodedata

from memlens.engine.indexing.markdown_chunker import HEADING_SEPARATOR
from memlens.redaction import redact


def fold(text: str) -> str:
    """Lowercase and without diacritics, one character for each of `text`'s, so a match found in the folded text is
    at the same place in the text. A character whose folded form is longer (an ellipsis, a ligature, a fraction, the
    lowercase of "İ") stays as it is: an excerpt cut from misaligned text would land away from its match."""
    if text.isascii():  # nothing to decompose: 0.3 µs instead of 7.5 for a 167-character message
        return text.lower()
    table = {ord(c): _folded_character(c) for c in set(text) if not c.isascii()}
    # most texts past ASCII hold only characters that fold to themselves and that lower() leaves as they are (dashes,
    # arrows, quotes, CJK, emoji): lower() then gives the same text, in C (the realistic corpus's such texts: 64 →
    # 18 µs; a `str.translate` of a text past ASCII looks up every character)
    if all(chr(code) == folded == folded.lower() for code, folded in table.items()):
        return text.lower()
    return text.translate(table | _ASCII_LOWER)


@functools.lru_cache(maxsize=4096)
def _folded_character(character: str) -> str:
    decomposed = unicodedata.normalize("NFKD", character)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c)).lower()
    if len(bare) == 1:
        return bare
    lowered = character.lower()
    return lowered if len(lowered) == 1 else character


_ASCII_LOWER = {ord(c): c.lower() for c in string.ascii_uppercase}


_AFTER_LAST = 12  # characters shown after the match's word when the room allows: it does not end the excerpt
MAX_MATCHES = 200  # a term's matches weighed for the densest part: a log quoting it thousands of times costs no more


def note_body(text: str, heading: str | None) -> str:
    """A note chunk's text as a reader sees it beside its heading: without the heading path the index puts first
    (markdown_chunker's `index_text`: "Ledgerline › Deploy" then the body) and without the body's own heading
    lines that path already names ("# 2026-02-12"). Each hit shows its heading apart, so an excerpt opening with it
    said it twice ("2026-02-12 # 2026-02-12 Leaked key: …")."""
    if not heading or not text.startswith(heading + "\n"):
        return text
    named = set(heading.split(HEADING_SEPARATOR))
    lines = text[len(heading) + 1 :].split("\n")
    first = 0
    while first < len(lines) - 1 and (
        not lines[first].strip() or (lines[first].startswith("#") and lines[first].lstrip("#").strip() in named)
    ):
        first += 1
    return "\n".join(lines[first:])


def make_excerpt(text: str, terms: list[str], max_chars: int) -> str:
    """A window of at most `max_chars` characters around the part of the text that matched best (where the most
    distinct query terms fall within one window; the earliest such part), secrets redacted."""
    # whitespace runs as one space, as `\s+` → " " then strip() gave (the same characters): 4.3 → 0.9 µs for 166 chars
    flat = " ".join(redact(text).split())
    if len(flat) <= max_chars:
        return flat
    first, last = densest(fold(flat), terms, max_chars)
    if first < 0:
        return flat[: max_chars - 1].rstrip() + "…"
    # a third of the room before the match, less where its word would be cut at the end
    start = max(0, min(first, max(first - max_chars // 3, last + _AFTER_LAST - max_chars)))
    end = min(len(flat), start + max_chars)
    start = max(0, end - max_chars)
    if start > 0:
        space = flat.find(" ", start, start + 30)
        start = space + 1 if space >= 0 else start
    snippet = flat[start:end].strip()
    return ("…" if start > 0 else "") + snippet + ("…" if end < len(flat) else "")


def densest(folded: str, terms: list[str], width: int) -> tuple[int, int]:
    """Where, in the window of `width` characters that holds the most of the query, the match of its rarest term
    begins and ends; (-1, -1) when no term occurs. A window holds each distinct term it matches, weighed by how rarely
    the text names it (the earliest window wins a tie), and its rarest term is the one to show: a long message names
    a query word in passing at its start and answers it further on, and a log's line that matters holds the word
    the text names once (`failed`), not the `test` of every line."""
    found: list[tuple[int, str]] = []
    occurrences: dict[str, int] = {}
    for term in dict.fromkeys(terms):
        starts = word_starts(folded, term)
        occurrences[term] = len(starts)
        # each term's first matches: a word the log repeats on every line must not crowd out a rarer one further on
        found += [(at, term) for at in starts[:MAX_MATCHES]]
    if not found:
        return -1, -1
    found.sort()
    reach = width * 2 // 3
    weight = {term: 1 / count for term, count in occurrences.items() if count}
    best, best_weight = (found[0][0], found[0][1]), 0.0
    # the matches within `reach` of each one, as a window sliding over them (they are in order): the terms it holds
    # counted, not gathered again for each match (up to 20,000 steps for a message quoting a word 200 times)
    # the held weight is summed again only when a term enters or leaves the window, not at every match (a long
    # paste's matches are mostly of terms the window holds already: 8 % of the excerpts' time of 300 pasted
    # queries), over the dict in its order as before: the same float, the same window
    held: dict[str, int] = {}
    held_weight = 0.0
    changed = True
    end = 0
    for i, (at, term) in enumerate(found):
        end = max(end, i)
        while end < len(found) and found[end][0] < at + reach:
            entering = found[end][1]
            count = held.get(entering, 0)
            changed = changed or count == 0
            held[entering] = count + 1
            end += 1
        if changed:
            held_weight = sum(weight[held_term] for held_term in held)
            changed = False
        if held_weight > best_weight + 1e-9:
            best = min(found[i:end] or [(at, term)], key=lambda match: occurrences[match[1]])
            best_weight = held_weight
        if end > i:  # this match leaves the window before the next one is looked at
            if held[term] == 1:
                del held[term]
                changed = True
            else:
                held[term] -= 1
    return best[0], best[0] + len(best[1])


def word_starts(text: str, word: str) -> list[int]:
    r"""Where `word` begins at a word boundary in `text`: what `re.finditer(r"\b" + re.escape(word), text)` finds,
    by str.find and a look at the character before (the regex tried each of a long text's positions: 0.12 ms per
    word in a 7,000-character message)."""
    if not word:
        return [m.start() for m in re.finditer(r"\b", text)]
    starts: list[int] = []
    first_is_word = _is_word(word[0])
    at = text.find(word)
    while at >= 0:
        if (at > 0 and _is_word(text[at - 1])) != first_is_word:  # \b: a word character on one side only
            starts.append(at)
            at = text.find(word, at + len(word))
        else:
            at = text.find(word, at + 1)
    return starts


def _is_word(character: str) -> bool:
    r"""What `\w` matches in a str pattern: alphanumerics (str.isalnum) and the underscore."""
    return character.isalnum() or character == "_"
