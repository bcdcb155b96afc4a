"""A date no calendar has ("February 30", "2026-13-01", "April 31") reads no day, and takes no part in ranking the
rest of the query: its month and number would otherwise pull up whatever mentions them (the example's offsite notes
and conversation, all of February, ranked above the dead-letter queue's). Alone, its words are what the query asks
for, and are searched."""

from __future__ import annotations

import pytest

from memlens.engine.engine import Engine
from memlens.engine.ranking.dates import without_unread_dates
from memlens.requests import unread_date_note
from memlens.wire import SearchResponse

QUERY = "dead-letter queue backup"
DLQ_SESSION = "claude-code:5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9"


def _search(engine: Engine, query: str, mode: str | None = None) -> SearchResponse:
    return engine.search(query, limit=8, mode=mode, filters=None, explain=False, fusion=None, min_score=0)


def _order(answer: SearchResponse) -> list[tuple[str, str | None, str]]:
    return [(hit["relPath"], hit.get("messageId"), hit["kind"]) for hit in answer["results"]]


@pytest.mark.parametrize("unread", ["on February 30", "on 2026-13-01", "April 31", "on the 31st of April"])
def test_a_date_no_calendar_has_does_not_move_the_rest_of_the_query(example: Engine, unread: str) -> None:
    plain = _order(_search(example, QUERY))
    assert plain  # the example answers the plain query
    dated = _search(example, f"{QUERY} {unread}")
    assert _order(dated) == plain
    assert dated["results"][0].get("sessionKey") == DLQ_SESSION
    said = dated["unreadDates"]
    assert len(said) == 1 and said[0]["wordsSearched"] is False
    assert "left out of the search" in unread_date_note(said[0])


def test_a_query_that_is_only_the_date_still_searches_its_words(example: Engine) -> None:
    answer = _search(example, "what did we do on February 30", mode="keyword")
    assert answer["results"]  # "february" and "30" are all it names: searched as words
    assert answer["unreadDates"][0]["wordsSearched"] is True
    assert "searched as words" in unread_date_note(answer["unreadDates"][0])


def test_what_is_left_of_a_query_without_its_unread_dates() -> None:
    assert without_unread_dates("dead-letter queue backup on February 30") == "dead-letter queue backup"
    assert without_unread_dates("on 2026-13-01 the DLQ backed up") == "the DLQ backed up"
    assert without_unread_dates("why did Feb 30 and April 31 deploys fail?") == "why did and deploys fail?"
    for fine in ("backup on March 3", "may 32 people", "2026-02-28 backup"):
        assert without_unread_dates(fine) == fine
