"""Bounded, redacted excerpts around the words a query matched."""

from __future__ import annotations

import re
import unicodedata

from memlens.engine.redact import redact


def fold(text: str) -> str:
    """Lowercase and strip diacritics, keeping string length aligned for ASCII-foldable characters."""
    if text.isascii():  # nothing to decompose: 0.3 µs instead of 7.5 for a 167-character message
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    # the marks among the text's few distinct characters, dropped in one pass (a generator over each of a 7,000
    # character message's characters cost 0.41 ms)
    marks = [c for c in set(decomposed) if not c.isascii() and unicodedata.combining(c)]
    if marks:
        decomposed = decomposed.translate(dict.fromkeys(map(ord, marks)))
    return decomposed.lower()


MAX_MATCHES = 200  # matches weighed for the densest part: a log quoting a word thousands of times costs no more


def make_excerpt(text: str, terms: list[str], max_chars: int) -> str:
    """A window of at most `max_chars` characters around the part of the text that matched best (where the most
    distinct query terms fall within one window; the earliest such part), secrets redacted."""
    # whitespace runs as one space, as `\s+` → " " then strip() gave (the same characters): 4.3 → 0.9 µs for 166 chars
    flat = " ".join(redact(text).split())
    if len(flat) <= max_chars:
        return flat
    folded = fold(flat)
    first = densest(folded, terms, max_chars) if len(folded) == len(flat) else -1
    if first < 0:
        return flat[: max_chars - 1].rstrip() + "…"
    start = max(0, first - max_chars // 3)
    end = min(len(flat), start + max_chars)
    start = max(0, end - max_chars)
    if start > 0:
        space = flat.find(" ", start, start + 30)
        start = space + 1 if space >= 0 else start
    snippet = flat[start:end].strip()
    return ("…" if start > 0 else "") + snippet + ("…" if end < len(flat) else "")


def densest(folded: str, terms: list[str], width: int) -> int:
    """Where the window of `width` characters holding the most distinct `terms` begins its matches (the offset of
    its first match), -1 when no term occurs. A long message names a query word in passing at its start and answers
    it further on: the part holding most of the query is the part that matched."""
    found: list[tuple[int, str]] = []
    for term in dict.fromkeys(terms):
        found += [(at, term) for at in word_starts(folded, term)]
    if not found:
        return -1
    found = sorted(found)[:MAX_MATCHES]
    reach = width * 2 // 3
    best, best_count = found[0][0], 0
    # the matches within `reach` of each one, as a window sliding over them (they are in order): the terms it holds
    # counted, not gathered again for each match (up to 20,000 steps for a message quoting a word 200 times)
    held: dict[str, int] = {}
    end = 0
    for i, (at, term) in enumerate(found):
        end = max(end, i)
        while end < len(found) and found[end][0] < at + reach:
            held[found[end][1]] = held.get(found[end][1], 0) + 1
            end += 1
        if len(held) > best_count:
            best, best_count = at, len(held)
        if end > i:  # this match leaves the window before the next one is looked at
            if held[term] == 1:
                del held[term]
            else:
                held[term] -= 1
    return best


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
