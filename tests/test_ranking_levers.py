"""Two ranking levers chosen on the LoCoMo tune split: the reply boost (search.replyBoost) and the keyword side's
expansion by meaning (search.expansionWeight: the writer's vocabulary, engine/keyword/vocabulary.py, read by
engine/keyword/term_expansion.py). Each test fails when its lever is removed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memlens.engine.engine import Engine
from memlens.engine.keyword import vocabulary
from memlens.engine.keyword.term_expansion import TermExpander
from memlens.engine.vectors.embedder import Embedder
from memlens.settings import Settings
from test_search_features import openclaw_session


def plain_settings() -> Settings:
    settings = Settings()
    settings.transcripts.agent_defaults = False
    return settings


def unit_id_of(engine: Engine, words: str) -> int:
    """The id of the one unit whose text holds `words`."""
    rows = engine.catalog.db.execute("SELECT id FROM plain_units WHERE text LIKE ?", (f"%{words}%",)).fetchall()
    assert len(rows) == 1, rows
    return int(rows[0][0])


def test_reply_boost_lifts_only_the_reply_to_a_matching_question(tmp_path: Path, embedder: Embedder) -> None:
    """The answer ("Postgres, …") shares no word with the query; the question before it does. search.replyBoost
    lifts the reply (the next message, another speaker) and nothing else, and the calibrated chance reads the score
    without the lift."""
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    openclaw_session(
        transcripts / "db.jsonl",
        "dddd0000-0000-4000-8000-000000000004",
        [
            "I fixed the flaky login test this morning.",
            "Which database did the billing service move to last quarter?",
            "Postgres, after the long outage of the old cluster.",
            "Nice, thanks for the summary.",
        ],
    )
    (tmp_path / "ws").mkdir()
    query = "which database did the billing service move to"
    with Engine([tmp_path / "ws"], plain_settings(), [transcripts], tmp_path / "index", embedder=embedder) as engine:
        engine.sync()
        reply, after = unit_id_of(engine, "Postgres, after"), unit_id_of(engine, "Nice, thanks")
        assert engine.settings.search.reply_boost == 0.3  # the default
        engine.settings.search.reply_boost = 0.0
        plain = {h.unit_id: h for h in engine.rank(query, mode="hybrid", limit=10).hits}
        engine.settings.search.reply_boost = 0.5
        boosted = {h.unit_id: h for h in engine.rank(query, mode="hybrid", limit=10).hits}
        assert boosted[reply].lift > 0
        assert boosted[reply].score > plain[reply].score
        assert boosted[after].lift == 0.0 and boosted[after].score == pytest.approx(plain[after].score)
        assert boosted[reply].features[0] == pytest.approx(plain[reply].features[0])


def write_notes(workspace: Path, notes: dict[str, str]) -> None:
    (workspace / "memory").mkdir(parents=True, exist_ok=True)
    for name, text in notes.items():
        (workspace / "memory" / name).write_text(text, encoding="utf-8")


def test_expansion_finds_a_note_by_a_word_near_in_meaning(tmp_path: Path, embedder: Embedder) -> None:
    """ "mountains" is near "hiking" for the model, not for BM25: with search.expansionWeight the keyword search
    finds the note that holds only "mountains"; off, it does not. The word vectors come from the writer, so an
    engine without a model (keyword-only) expands the same way."""
    workspace = tmp_path / "ws"
    write_notes(
        workspace,
        {
            "walks.md": "# Weekend\n\nSaturday: hiking with Ana near the lake.\n",
            "trip.md": "# Norway\n\nWe spent the week in the mountains near Bergen.\n",
            "billing.md": "# Billing\n\nThe invoice export runs nightly at two.\n",
        },
    )

    def settings() -> Settings:
        chosen = plain_settings()
        chosen.search.expansion_min_cosine = 0.45
        return chosen

    with Engine([workspace], settings(), index_dir=tmp_path / "index", embedder=embedder) as engine:
        engine.sync()
        trip = unit_id_of(engine, "the mountains near Bergen")
        assert engine.settings.search.expansion_weight == 0.2  # the default
        assert trip in {h.unit_id for h in engine.rank("hiking", mode="keyword", limit=10).hits}
        engine.settings.search.expansion_weight = 0.0
        assert trip not in {h.unit_id for h in engine.rank("hiking", mode="keyword", limit=10).hits}
    with Engine([workspace], settings(), index_dir=tmp_path / "index", embedder=False) as keyword_only:
        assert trip in {h.unit_id for h in keyword_only.rank("hiking", mode="keyword", limit=10).hits}


def stored_words(engine: Engine) -> dict[str, bytes | None]:
    return {str(s): v for s, v in engine.catalog.db.execute("SELECT stem, vec FROM words")}


def test_the_writer_embeds_each_word_once_and_the_reader_follows(tmp_path: Path, embedder: Embedder) -> None:
    """A sync records the new units' words and embeds only words not embedded before; a reader (TermExpander)
    picks up the new vectors without reading the old ones again, and never offers a query word's own stem."""
    workspace = tmp_path / "ws"
    write_notes(workspace, {"a.md": "# Walks\n\nhiking hikes hiked in the mountains\n"})
    with Engine([workspace], plain_settings(), index_dir=tmp_path / "index", embedder=embedder) as engine:
        engine.sync()
        first = stored_words(engine)
        assert {"hike", "mountain", "walk"} <= first.keys() and all(v is not None for v in first.values())
        assert "the" not in first and "in" not in first  # stop words and short words are not words here
        expander = TermExpander(engine.catalog, engine.keyword)
        found = dict(expander.expand(engine.keyword.parse("hiking"), min_cosine=0.0, per_word=5))
        assert "hike" not in found and "mountain" in found
        write_notes(workspace, {"b.md": "# Sea\n\nsailing in the mountains\n"})
        engine.sync()
        second = stored_words(engine)
        assert second.keys() - first.keys() == {"sea", "sail"}
        assert all(second[stem] == vector for stem, vector in first.items())  # nothing embedded twice
        hiking = engine.keyword.parse("hiking")
        everything = dict(expander.expand(hiking, min_cosine=-1.0, per_word=100))  # the lists stored since
        assert {"sea", "sail"} <= everything.keys()  # the new words entered the older word's list


def test_a_catalog_from_before_the_vocabulary_gains_it_at_the_next_sync(tmp_path: Path, embedder: Embedder) -> None:
    """An index built before words were recorded (no rows, no version mark) has them all after its next sync, and a
    change of embedding model embeds every word again."""
    workspace = tmp_path / "ws"
    write_notes(workspace, {"a.md": "# Garden\n\ntomatoes and cucumbers in the greenhouse\n"})
    with Engine([workspace], plain_settings(), index_dir=tmp_path / "index", embedder=embedder) as engine:
        engine.sync()
        with engine.catalog.transaction() as db:  # as an older release left it
            db.execute("DELETE FROM words")
            db.execute("DELETE FROM meta WHERE key LIKE 'vocabulary%'")
    with Engine([workspace], plain_settings(), index_dir=tmp_path / "index", embedder=embedder) as engine:
        report = engine.sync()
        assert report.files_parsed == 0
        words = stored_words(engine)
        assert {"tomato", "cucumb", "greenhous"} & words.keys() and all(v is not None for v in words.values())
        with engine.catalog.transaction() as db:
            engine.catalog.set_meta(db, "vocabulary_model", "another-model")
        engine.sync()
        assert engine.catalog.vocabulary_model() == embedder.name
        assert all(v is not None for v in stored_words(engine).values())


def test_the_live_indexing_path_embeds_new_words_too(tmp_path: Path, embedder: Embedder) -> None:
    """The watcher syncs without embedding, then embeds a few batches at a time between events (embed_pending): the
    words of what it indexed get their vectors on that path too, after the units' vectors, within the batch budget."""
    workspace = tmp_path / "ws"
    write_notes(workspace, {"a.md": "# Sea\n\nsailing past the lighthouse at dawn\n"})
    with Engine([workspace], plain_settings(), index_dir=tmp_path / "index", embedder=embedder) as engine:
        engine.sync(embed=False)
        assert engine.pending_embeddings() > 0 and engine.pending_words() > 0
        assert {"sail", "lighthous"} <= stored_words(engine).keys()
        assert engine.embed_pending(max_batches=0) == 0 and engine.pending_words() > 0  # no budget: nothing
        engine.embed_pending(max_batches=4)
        assert engine.pending_embeddings() == 0 and engine.pending_words() == 0
        assert all(v is not None for v in stored_words(engine).values())


def test_indexing_lasts_until_the_words_have_their_vectors(tmp_path: Path, embedder: Embedder) -> None:
    """Answers change once the vocabulary's words have their vectors (expansion finds more), so `indexing` stays true
    until then, not only until the units have theirs: a client that waits for it (the editor's self-test did) gets
    the answer it will keep getting. The count is cached: a search after it is known reads no word count."""
    workspace = tmp_path / "ws"
    write_notes(
        workspace,
        {"a.md": "# Walks\n\nhiking in the mountains at dawn\n", "b.md": "# Budget\n\nthe quarterly review\n"},
    )
    with Engine([workspace], plain_settings(), index_dir=tmp_path / "index", embedder=embedder) as engine:
        engine.sync(embed=False)
        assert engine.indexing()
        engine.embed_pending(max_batches=1)  # the units' one batch: the budget ends before the words
        assert engine.pending_embeddings() == 0 and engine.pending_words() > 0
        assert engine.indexing() and engine.search("walks")["indexing"]
        engine.embed_pending()
        assert engine.pending_words() == 0 and not engine.indexing()
        assert not engine.search("walks")["indexing"]
        statements: list[str] = []
        engine.catalog.db.set_trace_callback(statements.append)
        try:
            engine.search("walks")
        finally:
            engine.catalog.db.set_trace_callback(None)
        assert statements and not [s for s in statements if "FROM words WHERE near IS NULL" in s]


def test_a_search_that_began_before_the_words_had_vectors_says_indexing(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`indexing` is read before the answer is worked out: when the words get their vectors while a search ranks, its
    answer is from before, and says so (read at the end, it said false for an answer that lacked the expansions)."""
    workspace = tmp_path / "ws"
    write_notes(workspace, {"a.md": "# Walks\n\nhiking in the mountains at dawn\n"})
    with Engine([workspace], plain_settings(), index_dir=tmp_path / "index", embedder=embedder) as engine:
        engine.sync(embed=False)
        engine.embed_pending(max_batches=1)
        assert engine.pending_embeddings() == 0 and engine.pending_words() > 0
        rank = engine.retriever.rank

        def rank_while_the_writer_finishes(*args: Any, **kwargs: Any) -> Any:
            ranking = rank(*args, **kwargs)
            engine.embed_pending()  # the writer finishes the words while this search works
            return ranking

        monkeypatch.setattr(engine.retriever, "rank", rank_while_the_writer_finishes)
        assert engine.search("walks")["indexing"]
        assert not engine.indexing()
        monkeypatch.undo()
        assert not engine.search("walks")["indexing"]


def test_neighbour_lists_linked_word_by_word_equal_lists_made_at_once(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer links new words into the lists of the words before them; the result is what working out every
    list again from the vectors gives (the lists a search reads do not depend on the order words came in)."""
    monkeypatch.setattr(vocabulary, "NEAREST", 4)  # short lists, so new words must push older neighbours out
    workspace = tmp_path / "ws"
    notes = {
        "a.md": "# Walks\n\nhiking hikes in the mountains near the river valley\n",
        "b.md": "# Sea\n\nsailing boats across the harbour at dawn\n",
        "c.md": "# Kitchen\n\nbaking bread and roasting vegetables for dinner\n",
    }
    with Engine([workspace], plain_settings(), index_dir=tmp_path / "index", embedder=embedder) as engine:
        for name, text in notes.items():  # three syncs: each links its new words into the older lists
            write_notes(workspace, {name: text})
            engine.sync()
        assert engine.pending_words() == 0
        stepwise = dict(engine.catalog.db.execute("SELECT stem, near FROM words"))
        with engine.catalog.transaction() as db:
            db.execute("UPDATE words SET near = NULL")
        engine.indexer.embedding.forget_words()  # written behind the writer's back: its cached count is told
        assert engine.pending_words() == len(stepwise)  # unlinked words are work still to do
        assert vocabulary.link_words(engine.catalog) == len(stepwise)
        at_once = dict(engine.catalog.db.execute("SELECT stem, near FROM words"))

    def parsed(lists: dict[str, str]) -> dict[str, list[tuple[str, float]]]:
        return {stem: [(n, round(c, 3)) for n, c in json.loads(near)] for stem, near in lists.items()}

    assert len(stepwise) > 3 * vocabulary.NEAREST and all(len(json.loads(n)) == 4 for n in stepwise.values())
    assert parsed(stepwise) == parsed(at_once)


def test_a_catalog_with_word_vectors_but_no_lists_links_them_at_the_next_sync(
    tmp_path: Path, embedder: Embedder
) -> None:
    """A catalog from round 7 (word vectors, no `near` columns) gains the columns at open; its words count as work
    still to do, and the next sync links them, after which expansion finds what it found before."""
    workspace = tmp_path / "ws"
    write_notes(workspace, {"a.md": "# Walks\n\nhiking hikes hiked in the mountains\n"})
    with Engine([workspace], plain_settings(), index_dir=tmp_path / "index", embedder=embedder) as engine:
        engine.sync()
        before = dict(
            TermExpander(engine.catalog, engine.keyword).expand(
                engine.keyword.parse("hiking"), min_cosine=0.0, per_word=5
            )
        )
        engine.catalog.db.executescript(  # as round 7 left it
            "DROP INDEX words_without_neighbours; ALTER TABLE words DROP COLUMN near_floor;"
            "ALTER TABLE words DROP COLUMN near;"
        )
    with Engine([workspace], plain_settings(), index_dir=tmp_path / "index", embedder=embedder) as engine:
        assert engine.pending_words() == len(stored_words(engine)) > 0
        assert (
            TermExpander(engine.catalog, engine.keyword).expand(
                engine.keyword.parse("hiking"), min_cosine=0.0, per_word=5
            )
            == []
        )
        engine.sync()
        assert engine.pending_words() == 0
        after = dict(
            TermExpander(engine.catalog, engine.keyword).expand(
                engine.keyword.parse("hiking"), min_cosine=0.0, per_word=5
            )
        )
        assert "mountain" in after and after.keys() == before.keys()
