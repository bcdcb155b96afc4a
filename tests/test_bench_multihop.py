"""bench/multihop.py's reading of a missed evidence turn: the bands of a raw list's places, the question with the
speakers' names left out for the cosine list, and the words a turn shares with the question besides those names."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.multihop import content_words, raw_place, without_names  # noqa: E402


def test_raw_places_fall_in_their_bands() -> None:
    assert raw_place(0) == "1–10"
    assert raw_place(9) == "1–10"
    assert raw_place(10) == "11–40"
    assert raw_place(399) == "201–400"
    assert raw_place(400) == "past 400"
    assert raw_place(None) == "not in it"


def test_names_and_their_possessives_are_left_out_of_the_question() -> None:
    names = ("Melanie", "Caroline")
    assert without_names("What do Melanie's kids like?", names) == "What do their kids like?"
    assert without_names("What has melanie painted with Caroline?", names) == "What has they painted with they?"
    assert without_names("What did Melanies paint?", names) == "What did Melanies paint?"  # another word


def test_shared_words_leave_out_stop_words_names_and_plurals() -> None:
    asked = content_words("What activities has Melanie done with her kids?", ("Melanie", "Caroline"))
    assert asked == {"activitie", "done", "kid"}
    said = content_words("Melanie: Thanks, Caroline! The kid loved the museum.", ("Melanie", "Caroline"))
    assert asked & said == {"kid"}
    assert not asked & content_words("Caroline: Melanie, you are great!", ("Melanie", "Caroline"))
