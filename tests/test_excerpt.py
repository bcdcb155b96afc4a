"""Excerpts: whitespace of every kind folded to single spaces, a window around the first query word, redacted."""

from __future__ import annotations

import pytest

from memlens.engine.excerpt import make_excerpt


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  retry\tthe\n\nwebhook  ", "retry the webhook"),
        ("a\r\nb\x0bc\x0cd", "a b c d"),
        ("non\xa0breaking\u2003em\u3000ideographic\u2028line", "non breaking em ideographic line"),
        ("unit\x1fseparator\x85next-line", "unit separator next-line"),  # what str.isspace() and \s both take
        ("zero\u200bwidth", "zero\u200bwidth"),  # not whitespace: kept
        ("", ""),
    ],
)
def test_whitespace_folds_to_single_spaces(text: str, expected: str) -> None:
    assert make_excerpt(text, [], 320) == expected


def test_a_long_text_is_cut_around_the_first_query_word() -> None:
    text = " ".join(["filler"] * 100 + ["webhook", "retry"] + ["tail"] * 100)
    excerpt = make_excerpt(text, ["webhook"], 80)
    assert "webhook" in excerpt and excerpt.startswith("…") and excerpt.endswith("…") and len(excerpt) <= 82


def test_secrets_are_redacted_before_the_cut() -> None:
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    excerpt = make_excerpt(f"the token is {secret} for the deploy bot", ["token"], 320)
    assert secret not in excerpt and "REDACTED" in excerpt
