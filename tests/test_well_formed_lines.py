"""A JSON-RPC line's lone surrogate escapes read as U+FFFD, and nothing else of the line changed
(memlens.mcp.well_formed)."""

from __future__ import annotations

import json

import pydantic_core
import pytest

from memlens.mcp.well_formed import lone_surrogates_replaced

CASES = [
    (r'{"q": "cut \ud83d"}', "cut \ufffd"),  # half an emoji
    (r'{"q": "\udc00 low first"}', "\ufffd low first"),
    (r'{"q": "\udfff\ud800"}', "\ufffd\ufffd"),  # low then high: no pair
    (r'{"q": "\\\ud800"}', "\\\ufffd"),  # an escaped backslash, then a lone escape
]
UNCHANGED = [
    r'{"q": "\ud83d\ude80"}',  # a pair: one emoji
    r'{"q": "\\ud800"}',  # a backslash and the letters ud800: no escape
    r'{"q": "\u00e9t\u00e9"}',
]


@pytest.mark.parametrize(("line", "text"), CASES)
def test_a_lone_surrogate_escape_reads_as_the_replacement_character(line: str, text: str) -> None:
    with pytest.raises(ValueError):
        pydantic_core.from_json(line)  # the parser the SDK reads a line with
    assert pydantic_core.from_json(lone_surrogates_replaced(line))["q"] == text


@pytest.mark.parametrize("line", UNCHANGED)
def test_a_line_without_one_is_left_as_it_is(line: str) -> None:
    assert lone_surrogates_replaced(line) == line
    assert pydantic_core.from_json(line) == json.loads(line)
