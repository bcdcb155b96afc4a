"""bench/ranker_misses.py's placing and classes, and bench/learn_ranker.py's check over several seeds: a message's
later parts do not count as places, a model's order of the head is read as messages, a question is out-ranked only
when a target was in the head, and the check's seeds are averaged."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

pytest.importorskip("lightgbm")

from bench.learn_ranker import Question, cross_check, cv_means  # noqa: E402
from bench.ranker_misses import Placing, classify, first_place, hidden, learned_place, summarise  # noqa: E402

from memlens.engine.ranking.learned_order import FEATURES  # noqa: E402


def placing(**changes: object) -> Placing:
    values: dict[str, object] = {"id": "q", "kind": "paraphrase", "vector": 1, "rules": 9, "learned": 9}
    values |= {"shipped": 1, "in_head": True, "cosine_rank": 1, "shown": 1} | changes
    return Placing(**values)  # type: ignore[arg-type]


def test_a_message_split_into_parts_counts_once() -> None:
    assert first_place(["a", "a", "b", None, "c"], {"c"}) == 3
    assert first_place(["a", "b"], {"z"}) is None


class Scores:
    """A model that gives each row of the head a fixed score (its first value)."""

    def predict(self, rows: object, raw_score: bool = True) -> list[float]:
        return [row[0] for row in rows]  # type: ignore[attr-defined]


def test_the_learned_place_follows_the_models_order_of_the_head() -> None:
    keys = ["a", "b", "b", "c"]
    question = Question("transcripts-a", [(0.1,), (0.2,), (0.3,), (0.9,)], [0, 0, 0, 1], 1, {"keys": keys})
    assert learned_place(Scores(), question, {"c"}) == 1
    assert learned_place(Scores(), question, {"a"}) == 3  # after c and b (b's two parts count once)
    assert learned_place(Scores(), Question("transcripts-a", [], [], 1, {"keys": []}), {"a"}) is None


def test_the_classes() -> None:
    assert classify(placing(learned=5), 5) == "found"
    assert classify(placing(learned=6), 5) == "out-ranked"
    assert classify(placing(learned=None, in_head=False), 5) == "outside the head"
    assert hidden(placing(shipped=2, shown=None), 5)
    assert not hidden(placing(shipped=6, shown=None), 5)
    summary = summarise([placing(learned=1), placing(vector=7, learned=None, in_head=False, kind="original")], 5)
    assert summary["all"] == {"questions": 2, "found": 1, "outside the head": 1, "out-ranked": 0, "hidden": 0}
    assert summary["paraphrase"]["questions"] == 1
    assert summary["vector finds"]["questions"] == 1


def telling_questions(count: int, seed: int, group: str) -> list[Question]:
    rng = random.Random(seed)
    telling = FEATURES.index("cover")
    out = []
    for _ in range(count):
        answer = rng.randrange(10, 40)
        rows = []
        for place in range(40):
            row = [rng.random() for _ in FEATURES]
            row[telling] = 0.9 + 0.1 * rng.random() if place == answer else 0.5 * rng.random()
            rows.append(tuple(row))
        out.append(Question(group, rows, [int(p == answer) for p in range(40)], 1))
    return out


def test_the_check_averages_its_seeds_and_reports_each_part() -> None:
    questions = (
        telling_questions(30, 1, "26") + telling_questions(30, 2, "30") + telling_questions(20, 3, "transcripts-a")
    )
    one = cross_check(questions, trees=10, leaves=4, seeds=1)
    three = cross_check(questions, trees=10, leaves=4, seeds=3)
    assert set(one) == {"26", "30", "transcripts-a"}
    assert one["26"]["rules R@5"] == three["26"]["rules R@5"] == 0.0  # the answer is never in the first ten
    assert three["26"]["learned R@5"] >= 90.0
    means = cv_means(three)
    assert means["locomo"]["learned R@10"] == pytest.approx(
        (three["26"]["learned R@10"] + three["30"]["learned R@10"]) / 2, abs=0.01
    )
    assert means["transcripts"] == three["transcripts-a"]
