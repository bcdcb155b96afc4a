"""A list's confidence words follow its order: never "strong, weak, possible" down a ranked list (each hit's chance
is its own model's, from features beside its rank), read from the closest chances that never rise
(answers/confidence.py)."""

from __future__ import annotations

import pytest

from memlens.engine.answers.confidence import confidence, in_rank_order
from memlens.engine.engine import Engine

STRENGTH = {"weak": 0, "possible": 1, "strong": 2}


@pytest.mark.parametrize(
    ("chances", "words"),
    [
        ([], []),
        ([0.9, 0.3, 0.1], ["strong", "possible", "weak"]),  # in order already: each its own word
        ([0.6, 0.1, 0.2], ["strong", "possible", "possible"]),  # 0.1 and 0.2 pooled: 0.15
        ([0.1, 0.6], ["possible", "possible"]),  # 0.35 each
        ([0.12, 0.1, 0.14, 0.05], ["weak", "weak", "weak", "weak"]),  # 0.12 each, then 0.05
        ([0.3, 0.7, 0.2, 0.25], ["strong", "strong", "possible", "possible"]),  # 0.5, 0.5, 0.225, 0.225
    ],
)
def test_words_from_the_closest_chances_that_never_rise(chances: list[float], words: list[str]) -> None:
    assert in_rank_order(chances) == words


def test_chances_in_order_keep_their_own_words() -> None:
    chances = [0.97, 0.5, 0.49, 0.15, 0.149, 0.0]
    assert in_rank_order(chances) == [confidence(c) for c in chances]


@pytest.mark.parametrize(
    "query", ["how did we fix the dead-letter queue backup?", "what did we decide about the ledger", "rate limit"]
)
def test_a_ranked_list_s_words_never_rise(example: Engine, query: str) -> None:
    """On the example these three lists held a hit more sure than the one above it (min_score 0 shows them whole)."""
    answer = example.search(query, min_score=0, limit=10, explain=True)
    words = [r["confidence"] for r in answer["results"]]
    assert len(words) == 10
    assert all(STRENGTH[a] >= STRENGTH[b] for a, b in zip(words, words[1:], strict=False)), words
    own = [confidence(r["explain"]["probability"]) for r in answer["results"]]
    assert own != words  # the hits' own words rose somewhere down this list
