"""bench/learn_ranker.py's fit and check, on made-up questions whose answer a single feature gives away: the fitted
model must find it where the given (rules) order does not, and a dropped feature must leave it blind."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("lightgbm")

from bench.learn_ranker import Question, _without, evaluate, fit, fitted_items  # noqa: E402
from bench.transcripts import QUESTION_SETS, load_questions  # noqa: E402

from memlens.engine.ranking.learned_order import FEATURES  # noqa: E402

TELLING = FEATURES.index("cover")


def questions(count: int, seed: int) -> list[Question]:
    rng = random.Random(seed)
    out = []
    for number in range(count):
        rows, labels = [], []
        answer = rng.randrange(10, 40)  # never where the given order puts it first
        for place in range(40):
            row = [rng.random() for _ in FEATURES]
            row[TELLING] = 0.9 + 0.1 * rng.random() if place == answer else 0.5 * rng.random()
            rows.append(tuple(row))
            labels.append(int(place == answer))
        out.append(Question(f"c{number % 3}", rows, labels, 1))
    return out


def test_the_fitted_model_finds_what_one_feature_gives_away() -> None:
    model = fit(questions(60, seed=1), trees=30, leaves=4)
    scores = evaluate(model, questions(30, seed=2))
    assert scores["rules R@5"] == scores["rules P@1"] == 0.0
    assert scores["learned R@5"] >= 90.0
    assert scores["learned P@1"] >= 80.0  # the first hit: what a paraphrase's answer most needs


def test_a_dropped_feature_is_held_at_zero() -> None:
    train = [Question(q.group, [_without(r, ["cover"]) for r in q.rows], q.labels, 1) for q in questions(60, seed=1)]
    test = [Question(q.group, [_without(r, ["cover"]) for r in q.rows], q.labels, 1) for q in questions(30, seed=2)]
    assert all(row[TELLING] == 0.0 for q in train for row in q.rows)
    assert evaluate(fit(train, trees=30, leaves=4), test)["learned R@5"] <= 40.0


def test_the_fit_leaves_out_the_forgot_the_words_questions_unless_asked() -> None:
    """The tune set's "forgot-words" paraphrases are measured, not fitted on (a fit counting them ordered the other
    transcript questions worse); `--with-source` puts them back. Reads only the question file."""
    tune = load_questions(QUESTION_SETS["tune"])
    strict = {q["id"] for q in tune if q.get("source") == "forgot-words"}
    assert len(strict) >= 20
    assert {q["id"] for q in fitted_items(tune)} == {q["id"] for q in tune} - strict
    assert fitted_items(tune, sources=["forgot-words"]) == tune
