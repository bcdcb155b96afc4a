"""Letters a case-blind pattern takes for ASCII ones (`ſ` for s, the Kelvin sign for k, dotless and dotted i) in a
date's words: read as the ASCII spelling reads, never a lookup that fails (a message "shipped on Auguſt 3" once
stopped every search whose date boost read it)."""

from __future__ import annotations

import pytest

from memlens.engine.ranking import dates

WRITTEN = 1_757_000_000.0  # 2025-09-04
PHRASES = [
    "we shipped on August 3, 2025",
    "the release of 3 August 2025",
    "in August 2025",
    "late 2025 and the end of 2025",
    "two weeks ago, then three days ago",
    "last Monday and the Tuesday before last",
    "the first week of August",
    "the second half of last month",
    "Q3 last year",
    "six weeks back",
    "what did we do the week before the offsite on Friday",
    "between the offsite and the launch",
    "since the kickoff",
    "the kickoff is tomorrow",
]
SWAPS = {"s": "\u017f", "k": "\u212a", "i": "\u0131", "I": "\u0130"}


def _spelled_with(text: str, ascii_letter: str) -> str:
    return text.replace(ascii_letter, SWAPS[ascii_letter])


def _readers(text: str) -> list[object]:
    written = dates.day_of(WRITTEN)
    return [
        dates.message_windows(text, WRITTEN),
        [read[0] for read in dates.absolute_dates(text, year_hint=2025, today=written)],
        dates.query_windows(text, WRITTEN),
        dates.period_windows(text, WRITTEN),
        dates.period_days(text, WRITTEN),
        [read[0] for read in dates.stated_relative_days(text, written)],
        [event.offset for event in dates.anchored_events(text)],
        [event.offset for event in dates.since_events(text)],
        len(dates.event_spans(text)),
        [u["reason"] for u in dates.unread_dates(text)],
        len(dates.ambiguous_dates(text)),
    ]


@pytest.mark.parametrize("letter", sorted(SWAPS))
@pytest.mark.parametrize("phrase", PHRASES)
def test_a_date_spelled_with_a_letter_a_pattern_folds_reads_as_its_ascii_spelling(phrase: str, letter: str) -> None:
    assert _readers(_spelled_with(phrase, letter)) == _readers(phrase)
