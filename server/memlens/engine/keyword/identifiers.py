"""Identifier-aware and CJK-aware terms for the keyword index.

The plain word field splits `recompute_and_push_sync` into its words and keeps `recomputeAndPush` as one
lowercased word, so an identifier is found neither whole nor (for camelCase) by its parts. These helpers give the
index two extra fields:

- `ident`: every snake_case / camelCase / dotted / path / kebab identifier whole (lowercased), each of its dotted or
  path segments, and the parts of camelCase words. A query naming an identifier matches it whole (boosted) and by
  parts, so whole matches come first.
- `cjk`: character bigrams of every run of Chinese, Japanese or Korean characters (a one-character run is kept as
  itself). A query's CJK run becomes a phrase of its bigrams, so any substring of two or more characters matches.
"""

from __future__ import annotations

import functools
import re

# a compound token: word characters joined by _ . / :: - (the joiners only between word characters)
_COMPOUND = re.compile(r"[A-Za-z0-9_$]+(?:(?:\.|/|::|-)[A-Za-z0-9_$]+)*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_SEGMENT = re.compile(r"\.|/|::|-")
# Han, Hiragana, Katakana (and its phonetic extensions), Hangul syllables and jamo, CJK compatibility ideographs
_CJK_CHARACTERS = (
    "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"
    "\U00020000-\U0002ffff"
)
_CJK_RUN = re.compile(f"[{_CJK_CHARACTERS}]+")
# one such character: a search for it is cheaper than `findall` of the runs (0.21 against 0.53 s CPU over the 65,355
# texts of the realistic corpus in bench/RESULTS.md, six in ten of them not ASCII, none with a CJK character)
_CJK_CHARACTER = re.compile(f"[{_CJK_CHARACTERS}]")
# A token that can never be an identifier (letters and digits with no capital after another letter: `word`, `Word`,
# `API`, `v2`); the lookahead makes it match only a whole token, so no shorter run of it can match either (possessive).
_PLAIN = r"(?:[a-z0-9]++|[A-Z][a-z0-9]*+|[A-Z0-9]++)(?![A-Za-z0-9_$]|(?:\.|/|::|-)[A-Za-z0-9_$])"
# The same tokens as _COMPOUND, but a run of plain tokens and what separates them (no character a token holds) is
# matched by the first, empty-grouped branch, so `findall` skips the bulk of a text's words without a Python call or
# a match of its own each (one match a run, not a word: 1.40 -> 0.99 s over the 97,967 texts of a realistic corpus,
# bench/RESULTS.md, cold indexing). A candidate ends a run where its first character is: the same tokens as one at a
# time.
_CANDIDATES = re.compile(rf"{_PLAIN}(?:[^A-Za-z0-9_$]++{_PLAIN})*+|([A-Za-z0-9_$]++(?:(?:\.|/|::|-)[A-Za-z0-9_$]++)*+)")
_LETTER = re.compile(r"[A-Za-z]")
_CAMEL_JOIN = re.compile(r"[a-z][A-Z]|[A-Z]{2,}[a-z]")
_HYPHENATED = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")
MAX_IDENTIFIER = 200
CANDIDATE_CACHE = 16_384  # distinct candidates whose terms are kept (see _candidate_terms)


def is_identifier(token: str) -> bool:
    """snake_case, camelCase/PascalCase, dotted, path-like or kebab-case with at least two parts."""
    if len(token) > MAX_IDENTIFIER or _LETTER.search(token) is None:
        return False
    if "_" in token.strip("_") or _SEGMENT.search(token):
        return True
    return _CAMEL_JOIN.search(token) is not None


def hyphenated_words(token: str) -> bool:
    """Words joined by hyphens and nothing else (`blue-green`, `start-of-chat`): English as often as a kebab-case name,
    so no evidence that a word of it is a name's part."""
    return _HYPHENATED.fullmatch(token) is not None


def identifiers(text: str) -> list[str]:
    """The identifiers of `text`, whole and lowercased, in order (repeats kept: they count for BM25)."""
    out: list[str] = []
    for found in _CANDIDATES.findall(text):
        if not found:
            continue
        token = found.strip("-.")
        if is_identifier(token):
            out.append(token.lower())
    return out


def identifier_terms(text: str) -> list[str]:
    """Terms for the `ident` field: each identifier whole, its segments, and the parts of camelCase words."""
    terms: list[str] = []
    for found in _CANDIDATES.findall(text):
        if found:
            terms += _candidate_terms(found)
    return terms


# A candidate's terms depend on it alone, and the same identifiers and paths come back message after message: worked
# out once per distinct candidate (a few MB at most), they cost a dictionary lookup after that.
@functools.lru_cache(maxsize=CANDIDATE_CACHE)
def _candidate_terms(found: str) -> tuple[str, ...]:
    token = found.strip("-.")
    if not is_identifier(token):
        return ()
    terms = [token.lower()]
    segments = [s for s in _SEGMENT.split(token) if s]
    if len(segments) > 1:
        terms += [s.lower() for s in segments if is_identifier(s)]
    for segment in segments:
        for word in segment.split("_"):
            parts = _CAMEL.findall(word)
            if len(parts) > 1:
                terms += [p.lower() for p in parts]
    return tuple(terms)


def identifier_parts(token: str) -> list[str]:
    """`recompute_and_push_sync` → recompute, and, push, sync; `fooBar.baz` → foo, bar, baz."""
    parts: list[str] = []
    for segment in _SEGMENT.split(token):
        for word in segment.split("_"):
            parts += [p.lower() for p in _CAMEL.findall(word)]
    return [p for p in parts if p]


def cjk_runs(text: str) -> list[str]:
    return _CJK_RUN.findall(text)


def cjk_bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def cjk_field(text: str) -> str:
    """The `cjk` field's text: bigrams of each CJK run, space-separated."""
    if text.isascii() or _CJK_CHARACTER.search(text) is None:  # most texts: no CJK character is in them
        return ""
    return " ".join(" ".join(cjk_bigrams(r)) for r in cjk_runs(text))


_COMMANDS = frozenset(
    [
        "git",
        "npm",
        "npx",
        "pnpm",
        "yarn",
        "pip",
        "uv",
        "python",
        "python3",
        "pytest",
        "cargo",
        "go",
        "make",
        "docker",
        "kubectl",
        "mix",
        "ls",
        "cd",
        "rm",
        "cp",
        "mv",
        "cat",
        "grep",
        "sed",
        "awk",
        "curl",
        "ssh",
        "node",
        "deno",
        "bun",
        "ruff",
        "mypy",
        "tsc",
        "gh",
        "aws",
        "gcloud",
        "terraform",
        "helm",
        "brew",
        "apt",
        "sudo",
    ]
)


def looks_technical(query: str) -> bool:
    """A query that names a command, a path, a flag or an identifier (tool-call inputs then weigh in full)."""
    if identifiers(query):
        return True
    first = query.strip().split(" ", 1)[0].lower()
    return first in _COMMANDS or bool(re.search(r"(^|\s)(--?[a-z]|[~.]?/\w)|`|\$ ", query, re.I))
