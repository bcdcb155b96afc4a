"""Reading a long text's dates skips each pattern the text cannot match (dates.py's `_holds`) and tries a pattern
that starts with a month's name only where one is (`_MONTH_LED`); this proves neither changes a reading. The oracle
is the reading that scans the whole text with every pattern, as it did before: the same module with `_holds`
answering yes to every text and `_MONTH_LED` empty. Both read every text of the real transcripts (../shared, skipped
without it), the LoCoMo turns but the held-out ones, the committed synthetic fixtures and random texts that mix date
phrases (in capitals too, and with the letters outside ASCII that a case-blind pattern takes for ASCII ones) with
noise."""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, REPO, SHARED
from memlens.engine.ranking import dates

LOCOMO = SHARED / "datasets" / "locomo"
HELD_OUT = {"42.json", "43.json"}  # LoCoMo's held-out conversations: not read here either
WRITTEN = (None, 1_700_000_000.0, 1_735_689_600.0, 1_772_000_000.0)  # no day, Nov 2023, 1 Jan 2025, Feb 2026
PHRASES = (
    "yesterday", "last Friday", "on Wed", "Monday last week", "the Tuesday before last", "two Tuesdays ago",
    "a week ago Friday", "3 weeks ago, on Monday", "a week ago today", "this time last week", "last week on Monday",
    "since Monday", "Mon-Wed", "Sat and Sun", "last sat", "Monday's release", "wensday", "thrusday", "three days ago",
    "a few weeks back", "8 May 2023", "May 8, 2023", "2023-05-08", "May 2023", "2023-05", "in March", "Feb 10-12",
    "between March 2 and 5", "between the 2nd and 5th of March", "early March", "midMarch", "mid-march",
    "the first half of March", "the first week of March", "the last week of febuary", "12 Feb 26", "Feb 12 '26",
    "12.02.26", "13/02/26", "2026/02/11", "11.02.2026", "25/02/2026", "in 2025", "late 2025", "last March",
    "on Feb 10 and 12", "March 3 and 4 people", "the first Monday of March", "over Christmas", "last summer",
    "Q3 last year", "H2 2025", "yesterdy", "Sept 3", "3rd of sept", "the day before yesterday", "next Tuesday",
    "in -March", "MONDAY", "FEB 3", "LAST FRIDAY", "MAY 8, 2023", "2 WEEKS AGO",
    "\u017funday", "\u017fat and \u017fun", "Frıday", "FRİDAY", "\u017fince Monday",
    "Mar\u212a", "2 wee\u212as ago",
)  # fmt: skip
NOISE = (
    "the", "deploy", "failed", "at", "12:03:44", "ERROR", "common", "month", "summary", "decode", "github", "allowed",
    "friend", "saturate", "monitor", "->", "\n", "  ", "café", "naïve", "日本", "—", "x", "42", "v3.12.10", "/tmp/a",
    "ago", "back", "week", "weeks", "may", "march", "sun", "mon", ",", ".", "'s", "between", "from", "to", "and",
)  # fmt: skip


def noise(rng: random.Random) -> str:
    word = rng.choice(NOISE)
    return word.upper() if rng.random() < 0.2 else word


def strings(value: Any) -> Iterator[str]:
    """Every string held in a parsed JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def json_texts(paths: list[Path]) -> list[str]:
    """Every string of every JSON document (a whole file, or each line of a .jsonl) at `paths`, and the unparsed
    lines too (a Markdown transcript's)."""
    found: list[str] = []
    for path in paths:
        raw = path.read_text(encoding="utf-8", errors="replace")
        documents = raw.splitlines() if path.suffix != ".json" else [raw]
        for document in documents:
            try:
                found += strings(json.loads(document))
            except ValueError:
                found.append(document)
    return [text for text in found if text.strip()]


def same_reading(texts: list[str]) -> None:
    """Each reader that skips patterns reads each of `texts` as the one that scans with every pattern does."""
    for text in texts:
        for ts in WRITTEN:
            assert dates.message_windows(text, ts) == oracle(dates.message_windows, text, ts), text[:200]
        anchor = date(2025, 3, 12)
        for question in (False, True):
            got = dates.absolute_dates(text, 2025, anchor, question=question)
            assert got == oracle(dates.absolute_dates, text, 2025, anchor, question=question), text[:200]
            got = dates._relative_reads(text, anchor, question=question, bare_weekdays=question)
            assert got == oracle(dates._relative_reads, text, anchor, question=question, bare_weekdays=question)
        assert dates.absolute_dates(text) == oracle(dates.absolute_dates, text), text[:200]


def oracle(reader: Any, *args: Any, **kwargs: Any) -> Any:
    """What `reader` answers scanning the whole text with every pattern: no text lacks what one needs, and none is
    searched for only where a month is named."""
    holds, month_led = dates._holds, dates._MONTH_LED
    setattr(dates, "_holds", lambda *_, **__: True)  # noqa: B010 (mypy: a function is no variable)
    dates._MONTH_LED = frozenset()
    try:
        return reader(*args, **kwargs)
    finally:
        setattr(dates, "_holds", holds)  # noqa: B010
        dates._MONTH_LED = month_led


@pytest.mark.slow
@pytest.mark.skipif(not FIXTURES.is_dir(), reason="needs the real transcripts in ../shared")
def test_every_real_transcript_text_reads_the_same() -> None:
    texts = json_texts(sorted(path for path in FIXTURES.rglob("*") if path.is_file()))
    assert len(texts) > 1000
    same_reading(texts)


@pytest.mark.slow
@pytest.mark.skipif(not LOCOMO.is_dir(), reason="needs LoCoMo in ../shared")
def test_every_locomo_turn_reads_the_same() -> None:
    texts = json_texts(sorted(path for path in LOCOMO.glob("*.json") if path.name not in HELD_OUT))
    assert len(texts) > 1000
    same_reading(texts)


def test_every_committed_fixture_text_reads_the_same() -> None:
    texts = json_texts(sorted(path for path in (REPO / "tests" / "fixtures").rglob("*") if path.is_file()))
    assert len(texts) > 100
    same_reading(texts)


def test_random_date_phrases_among_noise_read_the_same() -> None:
    rng = random.Random(24)
    texts = []
    for _ in range(400):
        # the noise in capitals too; the phrases as written (a month's name with "ſ" still fails either way: "Auguſt 3")
        words = [rng.choice(PHRASES) if rng.random() < 0.3 else noise(rng) for _ in range(rng.randint(1, 40))]
        texts.append(rng.choice((" ", "", "-", ", ")).join(words))
    same_reading(texts)
    assert any(dates.message_windows(text, WRITTEN[1])[1:] for text in texts)  # the phrases were read, not all skipped


def test_a_text_without_the_names_a_pattern_needs_skips_it_and_reads_the_same() -> None:
    log = "\n".join(
        f"2025-03-{day:02d} 10:00:00 worker {day} retried the upload, exit code 137" for day in range(1, 29)
    )
    assert not dates._holds(dates.folded(log), dates.WEEKDAYS)
    assert dates.message_windows(log, WRITTEN[1]) == oracle(dates.message_windows, log, WRITTEN[1])
    assert len(dates.message_windows(log, WRITTEN[1])) == 29  # its day written and each ISO date


def test_the_letters_folded_to_ascii_are_every_one_a_case_blind_pattern_takes_for_an_ascii_letter() -> None:
    ascii_letter = re.compile("[a-z]", re.I)
    taken = {chr(code) for code in range(128, sys.maxunicode + 1) if ascii_letter.fullmatch(chr(code))}
    assert taken == set(dates._FOLDED_TO_ASCII)
    for letter, ascii in dates._FOLDED_TO_ASCII.items():
        assert re.fullmatch(ascii, letter, re.I)
    assert dates.folded("\u017fUNDAY Mar\u212a FRİDAY") == "sunday mark friday"


def test_each_pattern_tried_only_where_a_month_is_named_starts_with_one() -> None:
    assert dates._MONTH_LED
    for pattern in dates._MONTH_LED:
        assert pattern.pattern.startswith(rf"\b{dates._MONTH}"), pattern.pattern
    text = "shipped May 8, 2023; mayday May 2023 and Feb 10-12, not xmarch 3 nor summary 2024"
    assert [m.span() for m in dates._matches_at(dates._MONTH_DAY_YEAR, text, [8, 21, 43])] == [(8, 19)]
    for pattern in dates._MONTH_LED:
        at = [m.start() for m in dates._MONTH_WORD.finditer(text)]
        assert [m.span() for m in dates._matches_at(pattern, text, at)] == [m.span() for m in pattern.finditer(text)]
