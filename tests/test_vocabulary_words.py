"""The writer's vocabulary (keyword/vocabulary.py): a batch's texts are analysed in one call, and what it records is
what recording each text's `surface_words` one by one records: the first surface form of each stem, in order."""

from __future__ import annotations

from pathlib import Path

from memlens.engine.catalog import Catalog
from memlens.engine.keyword.keyword_index import KeywordIndex
from memlens.engine.keyword.vocabulary import collect_words, is_word

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
    found: dict[str, str] = {}
    for text in texts:
        for word in keyword.surface_words(text):
            if is_word(word):
                for stem in keyword.tokens(word):
                    found.setdefault(stem, word)
    return list(found.items())


def test_a_batch_records_the_words_its_texts_record_one_by_one(tmp_path: Path) -> None:
    catalog, keyword = Catalog(tmp_path / "catalog.sqlite3"), KeywordIndex(tmp_path / "kw")
    assert collect_words(catalog, keyword, TEXTS) == len(_one_by_one(keyword, TEXTS))
    recorded = catalog.words_without_vectors(1_000)
    assert sorted(recorded) == sorted(_one_by_one(keyword, TEXTS))
    surfaces = {surface for _, surface in recorded}
    assert {"painted", "painters", "deploying", "runs"} <= surfaces  # the first surface form of each stem
    assert not surfaces & {"fence", "painting", "deployed", "the"}  # quoted, later forms of a stem, a stop word
