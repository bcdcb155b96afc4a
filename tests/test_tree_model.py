"""The learned ranker's tree evaluator against LightGBM itself, and the shipped model against the features written."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memlens.engine.ranking.learned_order import FEATURES, MODEL_PATH, bundled_model
from memlens.engine.ranking.tree_model import ModelFormatError, load_tree_model, parse_tree_model

lgb = pytest.importorskip("lightgbm")


def random_rows(count: int, width: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    rows = rng.normal(size=(count, width))
    rows[:, ::3] = rng.integers(0, 3, size=(count, len(range(0, width, 3))))  # ties at split thresholds too
    return rows


def test_the_shipped_model_reads_the_features_the_ranker_writes() -> None:
    assert bundled_model().feature_names == FEATURES


def test_the_shipped_model_scores_as_lightgbm_does() -> None:
    rows = random_rows(200, len(FEATURES), seed=1)
    expected = lgb.Booster(model_file=str(MODEL_PATH)).predict(rows, raw_score=True)
    np.testing.assert_allclose(bundled_model().predict(rows), expected, rtol=0, atol=1e-9)


@pytest.mark.parametrize("leaves", [2, 7, 31])
def test_a_fresh_ranking_model_scores_as_lightgbm_does(tmp_path: Path, leaves: int) -> None:
    rows = random_rows(600, 5, seed=leaves)
    labels = (rows[:, 0] + rows[:, 1] * rows[:, 2] > 0.5).astype(int)
    params = {"objective": "lambdarank", "num_leaves": leaves, "min_data_in_leaf": 5, "verbose": -1, "num_threads": 1}
    booster = lgb.train(params, lgb.Dataset(rows, label=labels, group=[30] * 20), num_boost_round=20)
    path = tmp_path / "model.txt"
    booster.save_model(str(path))
    model = load_tree_model(path)
    probe = random_rows(100, 5, seed=99)
    np.testing.assert_allclose(model.predict(probe), booster.predict(probe, raw_score=True), rtol=0, atol=1e-9)


def test_a_model_of_only_constant_trees_scores_every_row_alike(tmp_path: Path) -> None:
    rows = np.zeros((40, 3))
    booster = lgb.train(
        {"objective": "lambdarank", "verbose": -1}, lgb.Dataset(rows, label=[0] * 40, group=[20, 20]), num_boost_round=3
    )
    path = tmp_path / "model.txt"
    booster.save_model(str(path))
    predicted = load_tree_model(path).predict(random_rows(10, 3, seed=3))
    np.testing.assert_allclose(predicted, booster.predict(random_rows(10, 3, seed=3), raw_score=True))
    assert len(set(predicted.round(12))) == 1


def test_text_that_is_not_a_model_is_refused() -> None:
    with pytest.raises(ModelFormatError):
        parse_tree_model("hello\nTree=0\nnum_leaves=2\n")
