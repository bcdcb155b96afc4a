"""Compounds written as one word (compounds.py): "front-end" finds the "frontend" an index mostly writes joined.

Real tantivy indexes: the index's own term and phrase counts decide."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlens.engine.keyword import compounds
from memlens.engine.keyword.acronyms import written
from memlens.engine.keyword.keyword_index import KeywordDoc, KeywordIndex
from memlens.engine.ranking.query_facts import matched_share, query_facts

TEXTS = (
    "the frontend build failed on the login page",  # 1
    "we shipped the frontend fix",  # 2
    "the front end team owns it",  # 3: the pair as a phrase, once
    "did a rollback of the deploy",  # 4
    "the setup script is slow",  # 5
    "set the flag up",  # 6
    "LiveViewTest helpers",  # 7: an identifier, which the word field keeps whole
    "the end of the front",  # 8
)


def index(tmp_path: Path, texts: tuple[str, ...] = TEXTS) -> KeywordIndex:
    keyword = KeywordIndex(tmp_path / "keyword")
    docs = [KeywordDoc(i, 1, "transcript", "claude-code", "s", "user", 0, t) for i, t in enumerate(texts, 1)]
    keyword.write(1, docs)
    return keyword


def joined(keyword: KeywordIndex, query: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(a.term, a.words) for a in keyword.acronyms(query) if a.joined]


def test_a_pair_the_index_mostly_writes_joined_asks_for_the_joined_word(tmp_path: Path) -> None:
    keyword = index(tmp_path)
    assert joined(keyword, "the front-end build") == [("frontend", ("front", "end"))]
    assert joined(keyword, "Front End") == [("frontend", ("front", "end"))]
    assert joined(keyword, "roll back the deploy") == [("rollback", ("roll", "back"))]
    assert joined(keyword, "liveview tests") == [("liveviewtest", ("liveview", "test"))]


def test_pairs_stay_apart_without_the_joined_word_or_when_the_index_writes_them_apart(tmp_path: Path) -> None:
    keyword = index(tmp_path)
    assert joined(keyword, "set up the script") == []  # "up" is a stop word
    assert joined(keyword, "front. end") == []  # punctuation parts them
    assert joined(keyword, "login page") == []  # no "loginpage"
    apart = index(tmp_path / "apart", (*TEXTS, "the front end again", "front end review"))
    assert joined(apart, "front end") == []  # the phrase in 3 documents, "frontend" in 2


def test_the_keyword_query_finds_the_joined_word_and_a_hit_holding_it_covers_the_pair(tmp_path: Path) -> None:
    keyword = index(tmp_path)
    found = dict(keyword.search(keyword.parse("front end"), 10))
    assert {1, 2, 3} <= set(found)  # "frontend" twice, the pair once
    facts = query_facts(keyword.parse("front end build"), keyword, texts=TEXTS[:2])
    assert [a.term for a in written(facts.acronyms, [])] == ["frontend"]  # a word, not an acronym to see written
    assert matched_share(facts, set(keyword.tokens(TEXTS[0]))) == 1.0  # "frontend" and "build"


def test_a_phrase_is_counted_only_over_few_documents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    keyword = index(tmp_path)
    # "roll" is in no document: "rollback" outnumbers the phrase's rarer word, no count needed, whatever the limit
    monkeypatch.setattr(compounds, "PHRASE_COUNT_DOCS", 0)
    assert joined(keyword, "roll back the deploy") == [("rollback", ("roll", "back"))]
    # "front" is in 2 documents as "frontend" is: only the phrase's count (1) says which the index writes more, and
    # past the limit it is not counted, so the pair stays apart
    assert joined(keyword, "front end") == []
    monkeypatch.setattr(compounds, "PHRASE_COUNT_DOCS", 2)
    assert joined(keyword, "front end") == [("frontend", ("front", "end"))]


def test_past_the_limit_no_phrase_is_counted() -> None:
    counts = {"front": 5000, "end": 9000, "frontend": 40}

    def phrase_freq(words: list[str]) -> int:
        raise AssertionError(f"counted {words}")

    found = compounds.find(
        "front end", split=str.split, stem=str.split, doc_freq=lambda t: counts.get(t, 0), phrase_freq=phrase_freq
    )
    assert found == ()


APART = (
    "messages pile up in the dead letter queue",  # 1
    "redrive the dead-letter queue",  # 2: hyphenated, read as the pair
    "a letter from the dead",  # 3: both words, not in a row
    "the end of the front",  # 4
    "the frontend build",  # 5
)


def test_a_joined_word_no_document_holds_is_read_as_the_pair_the_index_writes_apart(tmp_path: Path) -> None:
    keyword = index(tmp_path, APART)
    assert keyword.spelled_apart("deadletter queue") == "dead letter queue"
    assert keyword.spelled_apart("the Deadletter backlog") == "the Dead letter backlog"
    parsed = keyword.parse("deadletter")
    assert parsed.text == "dead letter"  # as the vector side embeds it
    assert parsed.loose_terms == ("dead", "letter")
    found = keyword.search(parsed, 10)
    assert {1, 2} <= {unit for unit, _ in found}
    assert found == keyword.search(keyword.parse("dead letter"), 10)  # as the words spelled apart
    facts = query_facts(parsed, keyword)
    assert facts.absent == 0.0  # no word of the query is in no document: the answer is not held back as absent
    assert matched_share(facts, set(keyword.tokens(APART[1]))) == 1.0


def test_a_word_stays_whole_when_the_index_holds_it_or_no_split_is_written_in_a_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    keyword = index(tmp_path, APART)
    assert keyword.spelled_apart("frontend") == "frontend"  # a word of the index
    assert keyword.spelled_apart("endfront") == "endfront"  # both words, never in a row
    assert keyword.spelled_apart("theend") == "theend"  # "the" is a stop word
    assert keyword.spelled_apart("dead_letter deadletter2") == "dead_letter deadletter2"  # names, not plain words
    # a camelCase name is read in the form the index holds its parts in (name_forms.py), not as compounds.py's halves
    assert keyword.spelled_apart("deadLetter") == "dead_letter"
    assert keyword.spelled_apart("queue.deadletter") == "queue.deadletter"  # a name's part, not a word
    monkeypatch.setattr(compounds, "PHRASE_COUNT_DOCS", 1)  # "dead" and "letter" are in 3 documents each
    assert keyword.spelled_apart("deadletter") == "deadletter"
