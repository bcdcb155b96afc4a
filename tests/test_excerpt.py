"""Excerpts: whitespace of every kind folded to single spaces, a window around the first query word, redacted."""

from __future__ import annotations

import random
import string
import unicodedata

import pytest

from memlens.engine.answers.excerpt import fold, make_excerpt


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


def test_fold_of_ascii_is_the_decomposed_fold() -> None:
    """The ASCII short cut gives what NFKD and dropping combining marks give, and other text still loses its marks."""

    def slow(text: str) -> str:
        decomposed = unicodedata.normalize("NFKD", text)
        return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()

    rng = random.Random(5)
    for _ in range(2000):
        text = "".join(rng.choice(string.printable) for _ in range(rng.randint(0, 40)))
        assert fold(text) == slow(text)
    assert fold("Crème Brûlée SÉANCE") == "creme brulee seance"
    assert fold("ﬁle") == slow("ﬁle") == "file"  # a ligature decomposes (the excerpt then finds no aligned word)


def test_a_long_accented_text_is_still_cut_around_the_query_word() -> None:
    text = "Café notes. " * 40 + "The zeppelin hangar opened. " + "Naïve filler. " * 40
    excerpt = make_excerpt(text, ["zeppelin"], 80)
    assert "zeppelin" in excerpt and excerpt.startswith("…") and excerpt.endswith("…")
