"""Find and mask secrets (API keys, tokens, private keys, passwords) in any text that leaves the engine.

``redact(text)`` replaces each secret with ``[REDACTED:<kind>]``; ``find_secrets(text)`` lists them as spans.
The detectors are Yelp detect-secrets' published plugin patterns (``library``) plus our own for contexts and
formats it lacks (``patterns``, ``provider_tokens``, ``command_secrets``), all run on RE2 in linear time
(``scanner``). Values after a key are kept when they are plainly not secrets: placeholders, ``$VAR`` references,
words such as ``required`` (``values``).
Redaction is idempotent: a marker is never itself taken for a secret.

``redact_sequence(texts)`` redacts consecutive messages together: a token cut in two, its first half ending one
message and the rest starting the next, is found over their join and masked in both; a key block one message
ends inside is masked in the next through the body lines that start it, never into its words.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memlens.redaction.clear_cuts import clear_end
from memlens.redaction.command_secrets import COMMAND_DETECTORS
from memlens.redaction.detector import Detector, Span
from memlens.redaction.key_blocks import BLOCK_KIND
from memlens.redaction.library import library_detectors
from memlens.redaction.markup_secrets import MARKUP_DETECTORS
from memlens.redaction.patterns import CONTEXT_DETECTORS, TOKEN_DETECTORS
from memlens.redaction.provider_tokens import PROVIDER_TOKENS
from memlens.redaction.scanner import Scanner, merge
from memlens.redaction.stdin_secrets import STDIN_DETECTORS

__all__ = [
    "DETECTORS",
    "Detector",
    "Span",
    "clear_cut",
    "find_secrets",
    "find_secrets_in_sequence",
    "marker",
    "redact",
    "redact_sequence",
    "redact_title",
]

# Token formats first: where a format and a context find the same span, the format names its kind.
DETECTORS: list[Detector] = [
    *TOKEN_DETECTORS,
    *PROVIDER_TOKENS,
    *library_detectors(),
    *CONTEXT_DETECTORS,
    *COMMAND_DETECTORS,
    *MARKUP_DETECTORS,
    *STDIN_DETECTORS,
]
_SCANNER = Scanner(DETECTORS)


def marker(kind: str) -> str:
    """The text that replaces a secret of this kind."""
    return f"[REDACTED:{kind}]"


def clear_cut(text: str, end: int) -> int:
    """Where to cut ``text`` near ``end`` so that no secret is cut in two: ``end``, or the start of the secret a cut
    there would run through (``clear_cuts``)."""
    return clear_end(_SCANNER, text, end)


def find_secrets(text: str) -> list[Span]:
    """The secrets in ``text``: non-overlapping spans in order of position."""
    return _SCANNER.find(text)


# How much of each side of a cut between two messages is read together: more than the longest token format.
_JOIN_CHARS = 512
# A message's first word, which a secret ending the message before must not run on over.
_FIRST_WORD = re.compile(r"[A-Za-z]{1,20}")
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-.~:@!%*#$&")


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``."""
    return _masked(text, _SCANNER.find(text))


def redact_strings(value: object, mask: Callable[[str], str] = redact) -> object:
    """`value` (text, or text inside lists and mappings: an error's data, a JSON body) with every string passed
    through `mask`; anything else as it is. (A response from the engine goes through `redact_response`, which knows
    its fields.)"""
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, dict):
        return {key: redact_strings(item, mask) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact_strings(item, mask) for item in value]
    return value


def find_secrets_in_sequence(texts: list[str], cache: dict[str, list[Span]] | None = None) -> list[list[Span]]:
    """The secrets of each of these consecutive texts, including the parts of a secret cut between two of them.

    ``cache`` keeps each text's own spans: a message and the unit made of it are one text, scanned once (and the
    join of two messages is the join of the two units made of them)."""
    found = [_cached_find(text, cache) for text in texts]
    opening = ""  # the opening line of a key block the text before goes on with from the texts before it
    for index in range(len(texts) - 1):
        before, after = texts[index], texts[index + 1]
        block_start = _open_block_start(before, found[index])
        # a token cut in two has a character of a token on each side of the cut (no space, quote or bracket)
        if before and after and before[-1] in _TOKEN_CHARS and after[0] in _TOKEN_CHARS:
            tail = before[-_JOIN_CHARS:]
            cut = len(tail)
            ends_whole = _whole_at_end(before, found[index])
            for span in _cached_find(tail + after[:_JOIN_CHARS], cache):  # the units' joins repeat the messages'
                if not span.start < cut < span.end:
                    continue
                # a secret whole in the text before runs on over the token characters after it (a longer token of
                # a newer format): across a cut that took the next message's first word ("…AKIA…", "I set"); a
                # token's own rest (digits, or longer than a word) is still masked
                whole = (span.kind, len(before) - cut + span.start) in ends_whole
                if whole and _FIRST_WORD.fullmatch(after[: span.end - cut]):
                    continue
                if span.kind == BLOCK_KIND:  # a block cut in two: read on below, at a line break
                    block_start = min(block_start, len(before) - cut + span.start)
                    continue
                found[index].append(Span(span.kind, len(before) - cut + span.start, len(before)))
                found[index + 1].append(Span(span.kind, 0, span.end - cut))
        if block_start >= len(before):
            opening = ""
            continue
        opening = opening if block_start == 0 and opening else _first_line(before[block_start:])
        block = before[block_start:] if before[block_start:].startswith(opening) else f"{opening}\n{before}"
        found[index].append(Span(BLOCK_KIND, block_start, len(before)))
        continued = _block_continued(block, after, cache)
        found[index + 1] += continued
        if not continued:
            opening = ""
    return [merge(spans) for spans in found]


def _whole_at_end(text: str, spans: list[Span]) -> set[tuple[str, int]]:
    """The (kind, start) of each secret found in ``text`` alone that runs to its end."""
    return {(span.kind, span.start) for span in spans if span.end == len(text)}


def _open_block_start(text: str, spans: list[Span]) -> int:
    """Where a key block that runs to the end of ``text`` (nothing but space after it) starts; ``len(text)`` when
    none does."""
    last = max(spans, key=lambda span: span.end, default=None)
    if last is not None and last.kind == BLOCK_KIND and not text[last.end :].strip():
        return min(span.start for span in spans if span.kind == BLOCK_KIND and span.end == last.end)
    return len(text)


_LINE_BREAK = re.compile(r"\r?\n|(?:\\\\)*\\[nr]")


def _first_line(block: str) -> str:
    """A block's opening line: what a text that goes on with its body lines is read after."""
    line_break = _LINE_BREAK.search(block)
    return block[: line_break.start()] if line_break else block


def _block_continued(block: str, after: str, cache: dict[str, list[Span]] | None) -> list[Span]:
    """The span of ``after`` that goes on with a key block the text before it ends inside (``block``: that block
    from its opening line). A block is made of lines, and a text is cut from the next one at a line break (a long
    message's parts) or is a message of its own: read together with a line break between, the block goes on only
    through ``after``'s leading body lines (and its closing line), never into its words."""
    cut = len(block) + 1
    for span in _cached_find(f"{block}\n{after}", cache):
        if span.kind == BLOCK_KIND and span.start < cut < span.end:
            return [Span(BLOCK_KIND, 0, span.end - cut)]
    return []


def redact_sequence(texts: list[str], cache: dict[str, list[Span]] | None = None) -> list[str]:
    """Consecutive texts (a session's messages in order) redacted alone and across each cut between two of them."""
    spans = find_secrets_in_sequence(texts, cache)
    return [_masked(text, found) for text, found in zip(texts, spans, strict=True)]


def _cached_find(text: str, cache: dict[str, list[Span]] | None) -> list[Span]:
    if cache is None:
        return _SCANNER.find(text)
    spans = cache.get(text)
    if spans is None:
        spans = cache[text] = _SCANNER.find(text)
    return list(spans)


def redact_title(title: str) -> str:
    """A title redacted as text and as the file name it may come from: SpecStory names an export after its first
    prompt and its title turns the name's hyphens into spaces ("sk proj Ab3…"), which no token format matches."""
    hyphenated = title.replace(" ", "-")  # the same length: a span in one is the same span in the other
    spans = _SCANNER.find(title)
    if hyphenated != title:
        spans = merge([*spans, *_SCANNER.find(hyphenated)])
    return _masked(title, spans)


def _masked(text: str, spans: list[Span]) -> str:
    if not spans:
        return text
    parts: list[str] = []
    position = 0
    for span in spans:
        parts.append(text[position : span.start])
        parts.append(marker(span.kind))
        position = span.end
    parts.append(text[position:])
    return "".join(parts)
