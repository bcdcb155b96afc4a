"""English stems in the keyword index: a question's word finds its other forms ("hiking" → "hikes"), stop words
are dropped before stemming, identifiers still match by their unstemmed parts, and an older index is rebuilt."""

from __future__ import annotations

from pathlib import Path

from conftest import notes_engine
from memlens.engine.engine import Engine
from memlens.engine.keyword.keyword_index import SCHEMA_FILE, SCHEMA_VERSION, KeywordIndex


def _engine(tmp_path: Path, notes: dict[str, str]) -> Engine:
    return notes_engine(tmp_path, notes)


def test_word_forms_match_and_stop_words_go_first(tmp_path: Path) -> None:
    index = KeywordIndex(tmp_path / "kw")
    assert index.content_words("Which paintings does she like hiking with?") == ["paint", "like", "hike"]
    assert index.content_words("does it rain") == ["rain"]  # "does" is a stop word before it is a stem ("doe")


def test_a_question_finds_other_forms_of_its_words(tmp_path: Path) -> None:
    notes = {
        "hikes.md": "# Weekend\n\nShe hikes the ridge trail every Sunday with her dog.",
        "other.md": "# Weekend\n\nShe reads novels every Sunday with her cat.",
        "camel.md": "# Client\n\nThe client calls fetchUserProfile on every hover.",
    }
    with _engine(tmp_path, notes) as engine:
        hits = engine.search("where does she go hiking?", mode="keyword", min_score=0)["results"]
        assert hits and hits[0]["relPath"] == "memory/hikes.md"
        by_parts = engine.search("user profile fetch", mode="keyword", min_score=0)["results"]
        assert by_parts and by_parts[0]["relPath"] == "memory/camel.md"


def test_an_index_of_the_unstemmed_schema_is_rebuilt(tmp_path: Path) -> None:
    notes = {"hikes.md": "# Weekend\n\nShe hikes the ridge trail every Sunday."}
    with _engine(tmp_path, notes):
        pass
    (tmp_path / "index" / "keyword" / SCHEMA_FILE).write_text(str(SCHEMA_VERSION - 1))
    with _engine_again(tmp_path) as engine:
        assert (tmp_path / "index" / "keyword" / SCHEMA_FILE).read_text() == str(SCHEMA_VERSION)
        hits = engine.search("hiking", mode="keyword", min_score=0)["results"]
        assert hits and hits[0]["relPath"] == "memory/hikes.md"


def _engine_again(tmp_path: Path) -> Engine:
    return notes_engine(tmp_path, {})  # the same workspace and index, opened again
