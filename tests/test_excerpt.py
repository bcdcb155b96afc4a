"""Excerpts: whitespace of every kind folded to single spaces, a window around the first query word, redacted."""

from __future__ import annotations

import random
import re
import string
import unicodedata

import pytest

from memlens.engine.answers.excerpt import MAX_MATCHES, densest, fold, make_excerpt, note_body, word_starts


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
    assert fold("ﬁle … İ") == "ﬁle … i"  # a ligature and an ellipsis fold to more than one character: kept as they are


def test_a_long_accented_text_is_still_cut_around_the_query_word() -> None:
    text = "Café notes. " * 40 + "The zeppelin hangar opened. " + "Naïve filler. " * 40
    excerpt = make_excerpt(text, ["zeppelin"], 80)
    assert "zeppelin" in excerpt and excerpt.startswith("…") and excerpt.endswith("…")


def test_fold_of_any_text_is_each_characters_decomposed_fold() -> None:
    """Each character folds to what dropping the combining characters of its NFKD form and lowercasing give, where
    that is one character; any other stays as it is, so the fold has the text's length."""

    def slow(text: str) -> str:
        out = []
        for c in text:
            decomposed = unicodedata.normalize("NFKD", c)
            bare = "".join(d for d in decomposed if not unicodedata.combining(d)).lower()
            out.append(bare if len(bare) == 1 else c.lower() if len(c.lower()) == 1 else c)
        return "".join(out)

    alphabet = (
        "aeiouAEIOU _-.\n" + "éèêëÉçÇñÑöÖüÜåÅøØß" + "\u0301\u0308\u0327" + "ﬁﬀ²½" + "日本語한국어" + "✅→🙂" + "İı"
    )
    # and texts past ASCII whose other characters all fold to themselves (dashes, arrows, CJK, emoji): lowered whole
    as_they_are = "aeiouAEIOU _-.\n" + "ß…—→✅🙂日本語한국어ﬁ"
    rng = random.Random(7)
    for _ in range(3000):
        for letters in (alphabet, as_they_are):
            text = "".join(rng.choice(letters) for _ in range(rng.randint(0, 60)))
            assert fold(text) == slow(text), text
            assert len(fold(text)) == len(text)


def test_a_trimmed_output_is_cut_around_its_rare_match() -> None:
    """An ellipsis (three characters in NFKD) once made the fold longer than the text, so every excerpt of a
    trimmed tool output showed its head; a word on every line of a log crowded a rarer one out of the matches."""
    lines = [f"tests/test_ledger.py::test_case_{i} PASSED" for i in range(300)]
    text = "\n".join([*lines[:5], "…", *lines[5:], "FAILED tests/test_ledger.py::test_carryover - KeyError"])
    excerpt = make_excerpt(text, ["fail", "test"], 320)
    assert excerpt.startswith("…") and "FAILED tests/test_ledger.py::test_carryover - KeyError" in excerpt
    accented = make_excerpt("Café … " * 60 + "the zeppelin hangar" + " naïve…" * 60, ["zeppelin"], 80)
    assert "zeppelin hangar" in accented


def test_word_starts_are_the_word_boundary_matches() -> None:
    """str.find and a look at the character before find what the regex `\\b` + word finds."""
    alphabet = "ab_ -.1é日\n"
    rng = random.Random(11)
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        word = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 3)))
        expected = [m.start() for m in re.finditer(r"\b" + re.escape(word), text)]
        assert word_starts(text, word) == expected, (text, word)
    for _ in range(500):  # a word that overlaps itself: a match is not looked for again inside the last one
        text = "".join(rng.choice("a-") for _ in range(rng.randint(0, 40)))
        assert word_starts(text, "a-a") == [m.start() for m in re.finditer(r"\ba\-a", text)], text


def test_densest_is_where_a_window_holds_the_most_distinct_terms() -> None:
    """The window sliding over the matches picks what looking again from each match picks."""

    def slow(folded: str, terms: list[str], width: int) -> tuple[int, int]:
        found: list[tuple[int, str]] = []
        occurrences = {}
        for term in dict.fromkeys(terms):
            starts = [m.start() for m in re.finditer(r"\b" + re.escape(term), folded)]
            occurrences[term] = len(starts)
            found += [(at, term) for at in starts[:MAX_MATCHES]]
        if not found:
            return -1, -1
        found.sort()
        best, best_weight = found[0], 0.0
        for i, (at, _) in enumerate(found):
            window = [(pos, term) for pos, term in found[i:] if pos < at + width * 2 // 3]
            held = sum(1 / occurrences[term] for term in {term for _, term in window})
            if held > best_weight + 1e-9:
                best, best_weight = min(window or [found[i]], key=lambda match: occurrences[match[1]]), held
        return best[0], best[0] + len(best[1])

    words = ["cache", "retry", "webhook", "filler", "deploy"]
    rng = random.Random(13)
    for _ in range(1500):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(0, 400)))
        terms = rng.sample(words, rng.randint(1, 3))
        width = rng.choice([0, 1, 2, 10, 40, 320])
        assert densest(text, terms, width) == slow(text, terms, width), (terms, width)
    # a paste's many terms, most repeated within a window (the held weight is summed again only as terms come and go)
    words = [f"w{n}" for n in range(60)]
    for _ in range(100):
        text = " ".join(rng.choice(words[: rng.randint(1, 60)]) for _ in range(rng.randint(0, 300)))
        terms = rng.sample(words, rng.randint(5, 60))
        width = rng.choice([10, 40, 200, 320, 1000])
        assert densest(text, terms, width) == slow(text, terms, width), (terms, width)


def test_a_note_excerpt_leaves_out_the_heading_its_hit_already_shows() -> None:
    """The index puts a note chunk's heading path first; a hit shows its heading apart, so the excerpt starts at
    the body, past the body's own heading lines that the path names (and no other line)."""
    indexed = "Ledgerline › Deploy and rollback\n## Deploy and rollback\n\nRollback is the same command.\n# Not named"
    assert note_body(indexed, "Ledgerline › Deploy and rollback") == "Rollback is the same command.\n# Not named"
    assert make_excerpt(note_body("2026-02-12\n# 2026-02-12\n\nLeaked key: rotated.", "2026-02-12"), [], 80) == (
        "Leaked key: rotated."
    )
    body = "## Other heading\nText."
    assert note_body(f"Notes\n{body}", "Notes") == body  # a heading the path does not name is the body's
    assert note_body("Some text without a path", None) == "Some text without a path"
    assert note_body("Other\nbody", "Notes") == "Other\nbody"  # a text the path does not start: as it is
    assert note_body("Title\n# Title", "Title") == "# Title"  # a section of its heading alone keeps it
