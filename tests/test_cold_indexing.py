"""Cold indexing made cheaper must index the same things: the identifier terms, the redacted texts and the catalog
rows are compared with the straightforward way of making them; and the embedding queue runs newest first, resumes
where an interrupted run stopped, and shows its rate and time left."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FIXTURES
from memlens.engine.keyword.identifiers import identifier_terms, identifiers

# the identifier rules written plainly (one regex match and one check per token), as the fast path must agree with
_COMPOUND = re.compile(r"[A-Za-z0-9_$]+(?:(?:\.|/|::|-)[A-Za-z0-9_$]+)*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_SEGMENT = re.compile(r"\.|/|::|-")


def _is_identifier(token: str) -> bool:
    if len(token) > 200 or not any(c.isalpha() for c in token):
        return False
    if "_" in token.strip("_") or _SEGMENT.search(token):
        return True
    return bool(re.search(r"[a-z][A-Z]|[A-Z]{2,}[a-z]", token))


def _plain_identifier_terms(text: str) -> list[str]:
    terms: list[str] = []
    for match in _COMPOUND.finditer(text):
        token = match.group(0).strip("-.")
        if not _is_identifier(token):
            continue
        terms.append(token.lower())
        segments = [s for s in _SEGMENT.split(token) if s]
        if len(segments) > 1:
            terms += [s.lower() for s in segments if _is_identifier(s)]
        for segment in segments:
            for word in segment.split("_"):
                parts = _CAMEL.findall(word)
                if len(parts) > 1:
                    terms += [p.lower() for p in parts]
    return terms


def _plain_identifiers(text: str) -> list[str]:
    return [m.group(0).strip("-.").lower() for m in _COMPOUND.finditer(text) if _is_identifier(m.group(0).strip("-."))]


_PIECES = [*"aZbY09_$.-/: é\n", "::", "HTTP", "camelCase", "v2", "Ab"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30).map("".join))
def test_identifier_terms_as_the_plain_rules_give_them(text: str) -> None:
    assert identifier_terms(text) == _plain_identifier_terms(text)
    assert identifiers(text) == _plain_identifiers(text)


def test_identifier_terms_of_real_transcripts_unchanged() -> None:
    texts = [p.read_text(errors="replace") for p in sorted(FIXTURES.rglob("*.jsonl"))] if FIXTURES.is_dir() else []
    texts.append("recompute_and_push_sync fooBar.baz HTTPServer v2.3.1 src/memlens/engine.py a::b::C x-y- .z $v")
    for text in texts:
        for line in text.splitlines():
            assert identifier_terms(line) == _plain_identifier_terms(line)
