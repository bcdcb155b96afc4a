"""Acronym expansion (issue 13): a spelled-out term finds the acronym the index uses, and only then.

Real tantivy indexes throughout; the end-to-end test asks the bundled example with the bundled model."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import example_settings
from memlens.engine.engine import Engine
from memlens.engine.keyword.acronyms import (
    Acronym,
    candidates,
    confirmed,
    partial_candidates,
    with_acronyms,
    written,
)
from memlens.engine.keyword.keyword_index import KeywordDoc, KeywordIndex
from memlens.engine.ranking.query_facts import coverage, matched_share, query_facts
from memlens.engine.ranking.query_reading import read_query
from memlens.engine.ranking.unit_facts import Words
from memlens.engine.vectors.embedder import Embedder

INCIDENT = "claude-code:5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9"  # the example's DLQ backlog session

TEXTS = (
    "the orders DLQ is backing up: failed messages piling up in orders-events-dlq",  # 1
    "the main queue is draining normally, consumer healthy",  # 2
    "Redrive done: the DLQ is empty again and the queue is fine",  # 3
    "the BLS numbers came out today",  # 4
    "fix: we moved the CI pipeline to a new runner",  # 5
    "so happy with the release",  # 6: "happi" in the index
    "this and that",  # 7
    "the pen is on the desk",  # 8
)


def index(tmp_path: Path, texts: tuple[str, ...] = TEXTS) -> KeywordIndex:
    keyword = KeywordIndex(tmp_path / "keyword")
    docs = [KeywordDoc(i, 1, "transcript", "claude-code", "s", "user", 0, t) for i, t in enumerate(texts, 1)]
    keyword.write(1, docs)
    return keyword


def words(text: str) -> list[str]:
    return text.split()


def terms(keyword: KeywordIndex, query: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(a.term, a.words) for a in keyword.acronyms(query)]


def test_candidates_are_runs_of_three_to_five_content_words_skipping_one_stop_word() -> None:
    assert candidates(words("how did we fix the dead letter queue backup")) == [
        (3, 7, "fdl"),
        (3, 8, "fdlq"),
        (3, 9, "fdlqb"),
        (5, 8, "dlq"),
        (5, 9, "dlqb"),
        (6, 9, "lqb"),
    ]
    assert [c[2] for c in candidates(words("bureau of labor statistics"))] == ["bls"]
    assert candidates(words("part of his experimentation in november")) == []  # two stop words inside
    assert candidates(words("continuous integration")) == []  # two letters: too many ordinary words
    assert candidates(words("dead 2 letter queue")) == []  # a number breaks the run
    assert candidates(words("acme national dashboard")) == []  # "and" is a stop word


def test_a_spelled_out_term_expands_to_the_acronym_the_index_holds(tmp_path: Path) -> None:
    keyword = index(tmp_path)
    assert terms(keyword, "dead letter queue") == [("dlq", ("dead", "letter", "queue"))]
    assert terms(keyword, "how did we fix the dead-letter queue backup?") == [("dlq", ("dead", "letter", "queue"))]
    assert terms(keyword, "Dead Letter Queue") == [("dlq", ("dead", "letter", "queue"))]
    assert terms(keyword, "bureau of labor statistics") == [("bls", ("bureau", "labor", "statist"))]


def test_partial_runs_are_two_to_four_content_words_of_any_initials() -> None:
    assert partial_candidates(words("stuck in the dead letter")) == [(3, 5, "dl")]
    assert [c[2] for c in partial_candidates(words("pull request to the main"))] == ["pr"]
    assert [c[2] for c in partial_candidates(words("one two three four five"))] == [
        *("ot", "ott", "ottf", "tt", "ttf", "ttff", "tf", "tff", "ff"),
    ]
    assert partial_candidates(words("dead 2 letter")) == []
    assert partial_candidates(words("sat and sun")) == []  # no stop word inside: a list, not a name


def test_a_run_without_its_last_word_expands_to_the_one_acronym_it_begins(tmp_path: Path) -> None:
    """ "dead letter" for the "dlq" an index holds: every word of the run in no document, one acronym that begins
    so, and the next word not in no document (else the run names a thing of its own)."""
    keyword = index(tmp_path)
    for query in ("dead letter", "dead letters", "dead-lettered messages", "failed messages in the dead letter"):
        assert terms(keyword, query) == [("dlq", ("dead", "letter"))], query
    assert terms(keyword, "Dead Letter") == [("dlq", ("dead", "letter"))]
    assert terms(keyword, "dead letter box") == []  # "box" is in no document: "dlb" would be its name
    assert terms(keyword, "consumer letter") == []  # "consumer" is in a document
    assert terms(keyword, "bureau labor") == [("bls", ("bureau", "labor"))]
    # a whole run wins over a partial one of the same words
    assert terms(keyword, "dead letter queue") == [("dlq", ("dead", "letter", "queue"))]
    ambiguous = index(tmp_path / "ambiguous", (*TEXTS, "the DLA contract renewal"))
    assert terms(ambiguous, "dead letter") == []  # "dla" or "dlq": a guess
    assert terms(ambiguous, "dead letter queue") == [("dlq", ("dead", "letter", "queue"))]
    # another word of the query in no document: it asks about something the index lacks
    assert terms(keyword, "dead letter for the walrus") == []
    assert terms(keyword, "dead letter. walrus") == []


def test_a_partial_run_counts_only_where_a_message_writes_its_acronym_as_one() -> None:
    dlq = Acronym("dlq", ("dead", "letter"), 1, partial=True)
    whole = Acronym("dlq", ("dead", "letter", "queue"), 1)
    two = Acronym("two", ("tuesday", "week"), 4, partial=True)
    texts = {"dlq": ["the orders DLQ is backing up"], "two": ["the two of them"]}
    assert confirmed([dlq, two], texts=texts.__getitem__) == (dlq,)
    assert confirmed([whole], texts=lambda term: []) == (whole,)  # a whole run needs no message read


def test_no_expansion_without_the_acronym_or_when_the_words_are_known(tmp_path: Path) -> None:
    keyword = index(tmp_path)
    assert terms(keyword, "dead. letter queue") == []  # punctuation breaks the run
    assert terms(keyword, "delayed letter exchange") == []  # "dle" is in no document
    assert terms(keyword, "continuous integration") == []  # "ci" is: two letters are not enough
    assert terms(keyword, "hotel alpha papa papa yankee") == []  # "happy" stems to "happi": not an acronym
    assert terms(keyword, "part of his experimentation in november") == []  # "pen" is there, the run is too loose
    assert terms(keyword, "the main queue") == []  # too short
    # "consumer healthy draining": every word is in the index, it needs no other name ("chd" or not)
    known = index(tmp_path / "known", (*TEXTS, "the CHD ward", "dead letter queue explained"))
    assert terms(known, "consumer healthy draining") == []
    assert terms(known, "dead letter queue") == []  # all three words are in a document now


def test_an_acronym_counts_where_a_hit_writes_it_as_one() -> None:
    dlq = Acronym("dlq", ("dead", "letter", "queue"), 1)
    car = Acronym("car", ("carolin", "attend", "recent"), 1)
    assert written([dlq], ["the orders DLQ is backing up"]) == (dlq,)
    assert written([dlq], ["see queues/dlq", "x"]) == (dlq,)
    assert written([dlq], ["the dlq_consumer restarted"]) == (dlq,)
    assert written([dlq], ["the dlq is empty", "DLQs"]) == ()  # lowercase prose; a longer word
    assert written([car, dlq], ["my car broke down", "orders_dlq"]) == (dlq,)
    assert written([], ["DLQ"]) == ()


def test_the_keyword_query_finds_the_acronym_and_counts_a_run_once(tmp_path: Path) -> None:
    keyword = index(tmp_path)
    found = dict(keyword.search(keyword.parse("dead letter queue"), 10))
    assert {1, 3} <= set(found)  # both DLQ messages, which never say "dead" or "letter"
    assert 2 in found  # "queue" alone still matches
    # message 3 holds both "queue" and "DLQ": the run scores as the better of the two, not their sum
    only_acronym = dict(keyword.search(keyword.parse("dlq"), 10))
    assert found[3] == pytest.approx(max(only_acronym[3], dict(keyword.search(keyword.parse("queue"), 10))[3]))
    # a query without a run expands to nothing: the same hits as before
    assert dict(keyword.search(keyword.parse("queue backlog"), 10)).keys() == {2, 3}


def test_a_hit_holding_the_acronym_counts_the_run_as_found(tmp_path: Path) -> None:
    keyword = index(tmp_path)
    facts = query_facts(keyword.parse("how did we fix the dead letter queue"), keyword, texts=TEXTS)
    assert facts.words == ["fix", "dead", "letter", "queue"]
    assert facts.absent == 0.0  # "dead" and "letter" are in no document, but the index calls them "dlq"
    dlq_hit = set(keyword.tokens(TEXTS[0]))
    queue_hit = set(keyword.tokens(TEXTS[1]))
    assert all(w in with_acronyms(facts.acronyms, dlq_hit) for w in ("dead", "letter", "queue"))
    assert with_acronyms(facts.acronyms, queue_hit) == queue_hit
    as_stored = Words(" ".join(dlq_hit))  # what a search reads of a unit (unit_facts.py): the same answers
    assert all(w in with_acronyms(facts.acronyms, as_stored) for w in ("dead", "letter", "queue"))
    assert matched_share(facts, as_stored) == 0.75 and "dlq" in as_stored and "dl" not in as_stored
    assert matched_share(facts, dlq_hit) == 0.75  # all but "fix"
    assert matched_share(facts, queue_hit) == 0.25
    assert coverage(facts, dlq_hit, TEXTS[0]) > 0.5 > coverage(facts, queue_hit, TEXTS[1])
    # without an acronym the facts are as before: the two unknown words count as absent
    plain = query_facts(keyword.parse("how did we fix the dead letter box"), keyword, texts=TEXTS)
    assert plain.acronyms == () and plain.absent > 0.5
    # the same query when no hit writes "dlq" as an acronym (capitals, or inside an identifier): nothing counts
    lowercase = query_facts(keyword.parse("how did we fix the dead letter queue"), keyword, texts=["dlq"])
    assert lowercase.acronyms == () and lowercase.absent > 0.5
    assert matched_share(lowercase, dlq_hit) == 0.0  # it holds "dlq", not "queue"


def test_the_example_answers_dead_letter_queue_with_the_dlq_incident(
    built_example: tuple[Path, Path], embedder: Embedder
) -> None:
    """Issue 13: the example says "DLQ", never "dead letter"; the question used to get no answer at all."""
    workspace, index_dir = built_example
    with Engine([workspace], example_settings(), index_dir=index_dir, embedder=embedder) as engine:
        keyword = engine.search("dead letter queue", mode="keyword")["results"]
        incident = [r for r in keyword[:3] if r.get("sessionKey") == INCIDENT]  # beside the DLQ naming note
        assert incident and "DLQ" in incident[0]["excerpt"].upper()
        for query in ("dead letter queue", "dead-letter queue"):
            hybrid = engine.search(query)["results"]
            assert hybrid, query
            assert INCIDENT in [r.get("sessionKey") for r in hybrid[:3]], query
        ranking = engine.rank("dead letter queue", limit=10)
        texts = engine.catalog.units_by_id([h.unit_id for h in ranking.hits[:3]])
        assert all("dlq" in str(row["text"]).lower() for row in texts.values())  # what the answer rests on
        assert max(h.probability for h in ranking.hits[:10]) >= example_settings().search.min_score


def test_the_example_answers_dead_letter_said_without_queue(
    built_example: tuple[Path, Path], embedder: Embedder
) -> None:
    """The example never spells "dead letter" out; said without "queue" the question used to get no answer."""
    workspace, index_dir = built_example
    with Engine([workspace], example_settings(), index_dir=index_dir, embedder=embedder) as engine:
        for query in ("dead letter", "dead letters", "dead-lettered messages", "messages stuck in the dead letter"):
            hybrid = engine.search(query)["results"]
            assert INCIDENT in [r.get("sessionKey") for r in hybrid[:3]], query
            keyword = engine.search(query, mode="keyword")["results"]
            assert INCIDENT in [r.get("sessionKey") for r in keyword[:3]], query
        # "fa…" begins one word of the example, "far", which it writes in prose only ("as far as I can tell")
        assert [a.term for a in engine.keyword.acronyms("ferocious armadillo")] == ["far"]
        settings = example_settings().search
        read = read_query(
            "ferocious armadillo", keyword=engine.keyword, catalog=engine.catalog, settings=settings, now=0
        )
        assert read.acronyms == () and read.loose_acronyms == ()
        read = read_query("dead letter", keyword=engine.keyword, catalog=engine.catalog, settings=settings, now=0)
        assert [a.term for a in read.loose_acronyms] == ["dlq"]
