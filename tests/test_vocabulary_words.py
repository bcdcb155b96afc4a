"""The writer's vocabulary (keyword/vocabulary.py): a batch's texts are analysed in one call, and what it records is
what recording each text's `surface_words` one by one records; each stem is recorded in the form a rule picks from
the forms its units write (`canonical_form`), whatever order they were read in and whichever units left."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from conftest import notes_engine
from memlens.engine.catalog import Catalog
from memlens.engine.keyword.keyword_index import KeywordIndex
from memlens.engine.keyword.vocabulary import canonical_form, collect_words, is_word

TEXTS = [
    'She said "painting the fence" while painters painted',  # a quoted phrase's words are left out
    "the and of",  # stop words alone: none is a word
    "Café naïve CAFÉ cafés; deploying deployed deploys x86_64 fooBar",
    'an "unclosed quote stays, and\nruns on',
    "日本語 текст на русском Straße straße strasse",
    "",
    "painting PAINTING paint",
]


def _one_by_one(keyword: KeywordIndex, texts: list[str]) -> list[tuple[str, str]]:
    forms: dict[str, set[str]] = {}
    for text in texts:
        for word in keyword.surface_words(text):
            if is_word(word):
                for stem in keyword.tokens(word):
                    forms.setdefault(stem, set()).add(word)
    return [(stem, canonical_form(sorted(found))) for stem, found in forms.items()]


def test_a_batch_records_the_words_its_texts_record_one_by_one(tmp_path: Path) -> None:
    catalog, keyword = Catalog(tmp_path / "catalog.sqlite3"), KeywordIndex(tmp_path / "kw")
    assert collect_words(catalog, keyword, TEXTS) == len(_one_by_one(keyword, TEXTS))
    recorded = catalog.words_without_vectors(1_000)
    assert sorted(recorded) == sorted(_one_by_one(keyword, TEXTS))
    surfaces = {surface for _, surface in recorded}
    assert {"paint", "painters", "deploys", "runs"} <= surfaces  # each stem's shortest form
    assert not surfaces & {"fence", "painted", "deploying", "the"}  # quoted, longer forms of a stem, a stop word


def test_the_form_recorded_does_not_depend_on_the_order_the_texts_were_read_in(tmp_path: Path) -> None:
    keyword = KeywordIndex(tmp_path / "kw")
    forward, backward = Catalog(tmp_path / "forward.sqlite3"), Catalog(tmp_path / "backward.sqlite3")
    for text in TEXTS:
        collect_words(forward, keyword, [text])
    for text in reversed(TEXTS):
        collect_words(backward, keyword, [text])
    assert forward.surfaces() == backward.surfaces() == dict(_one_by_one(keyword, TEXTS))
    assert forward.surfaces()["paint"] == "paint"  # read last forward, first backward


def _surfaces(index: Path) -> dict[str, str]:
    with sqlite3.connect(index / "catalog.sqlite3") as db:
        return {str(stem): str(surface) for stem, surface in db.execute("SELECT stem, surface FROM words")}


def test_a_form_whose_units_left_gives_way_as_in_a_fresh_build(tmp_path: Path) -> None:
    staying = {"later.md": "# Later\n\nWe were deploying the parsers and the deployed one failed.\n"}
    leaving = {"first.md": "# First\n\nWe deploy the parser.\n"}
    synced = notes_engine(tmp_path / "synced", {**leaving, **staying})
    fresh = notes_engine(tmp_path / "fresh", staying)
    try:
        assert (
            _surfaces(tmp_path / "synced" / "index")["deploy"],
            _surfaces(tmp_path / "fresh" / "index")["deploy"],
        ) == (
            "deploy",
            "deployed",
        )
        (tmp_path / "synced" / "ws" / "memory" / "first.md").unlink()
        synced.sync()
        assert _surfaces(tmp_path / "synced" / "index") == _surfaces(tmp_path / "fresh" / "index")
        # a form the staying note writes too stays while one unit holds it
        (tmp_path / "synced" / "ws" / "memory" / "first.md").write_text("# First\n\nWe deploy it.\n", encoding="utf-8")
        synced.sync()
        assert _surfaces(tmp_path / "synced" / "index")["deploy"] == "deploy"
        assert _surfaces(tmp_path / "synced" / "index")["parser"] == "parsers"
    finally:
        synced.close()
        fresh.close()
