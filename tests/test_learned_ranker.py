"""The learned ranker in a real search: every head hit gets its feature row, the model orders a hybrid search's head,
the shown scores still fall down the list, and keyword searches (the model was fitted on hybrid rows) keep the rules."""

from __future__ import annotations

from dataclasses import replace

from memlens.engine.engine import Engine
from memlens.engine.ranking.learned_order import FEATURES, bundled_model
from memlens.settings.tree import Ranker

QUESTIONS = [
    "how did we fix the dead letter queue backup",
    "what did we decide about the blue green deploy",
    "database migration failed",
    "who prefers short answers",
]


def ranked(engine: Engine, question: str, ranker: Ranker, mode: str = "hybrid") -> list[int]:
    engine.settings.search = replace(engine.settings.search, ranker=ranker)
    return [h.unit_id for h in engine.rank(question, mode=mode, limit=10).hits]


def test_every_head_hit_carries_a_full_feature_row(example: Engine) -> None:
    hits = example.rank(QUESTIONS[0], mode="hybrid", limit=10).hits
    rows = [h.ranker_features for h in hits if h.ranker_features]
    assert len(rows) >= min(10, len(hits))
    assert all(len(row) == len(FEATURES) for row in rows)
    assert all(all(value == value for value in row) for row in rows)  # no NaN: the evaluator has no missing rule


def test_the_learned_order_is_the_models_order_of_the_rules_head(example: Engine) -> None:
    import numpy as np

    example.settings.search = replace(example.settings.search, session_cap=0)  # the cap would move hits after
    changed = 0
    for question in QUESTIONS:
        rules = ranked(example, question, "rules")
        example.settings.search = replace(example.settings.search, ranker="learned")
        learned_hits = example.rank(question, mode="hybrid", limit=10).hits
        learned = [h.unit_id for h in learned_hits]
        assert sorted(learned) == sorted(rules)  # the same hits: the model orders, it adds and drops nothing
        head = [h for h in learned_hits if h.ranker_features]
        predicted = list(bundled_model().predict(np.array([h.ranker_features for h in head])))
        assert predicted == sorted(predicted, reverse=True)
        scores = [h.score for h in head]
        assert scores == sorted(scores, reverse=True)  # shown scores still fall down the re-scored head
        changed += learned != rules
    assert changed, "the model ordered every question exactly as the rules do"


def test_the_session_cap_still_holds_under_the_learned_order(example: Engine) -> None:
    example.settings.search = replace(example.settings.search, ranker="learned", session_cap=1)
    hits = example.rank(QUESTIONS[0], mode="hybrid", limit=10).hits
    sessions = [example.catalog.unit_facts_rows([h.unit_id])[0][4] for h in hits[:3]]
    assert len(set(sessions)) == len(sessions)
    scores = [h.score for h in hits if h.ranker_features]
    assert scores == sorted(scores, reverse=True)


def test_keyword_searches_keep_the_rules_order(example: Engine) -> None:
    for question in QUESTIONS:
        assert ranked(example, question, "learned", mode="keyword") == ranked(example, question, "rules", "keyword")
