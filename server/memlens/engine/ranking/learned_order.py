"""The learned ranker: the head's order decided by a tree model fitted on questions, not by hand-set weights.

Each hit of the re-scored head gets one row of features (`FEATURES`, in that order, each declared with how it is
worked out in ranker_features.py, which builds the rows of the whole head at once): its signals from each list
(BM25, the context field, cosine, its rank in each), what the hand-set passes made of them, how much of the query
its own text holds, what kind of unit it is, how many of the head's hits share its session, and what the query is
like (how long, how rare its words, whether it names an identifier, an error or a date, whether it asks). The model
(bench/learn_ranker.py fits it with LightGBM's LambdaRank on the tune questions; `ranker.txt` beside this module)
gives each row a score and the head is put in that order. Query features only matter through their interactions
with the others: that is what lets one model weigh words for "HistoryParser SessionOrchestrator" and meaning for
"how do people know the lookup is still running?".

The rows are written on every search with vectors (`hit.ranker_features`), whichever ranker orders: the benchmark
reads them to fit the model under the rules' order.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from memlens.engine.ranking.ranker_features import FEATURES as FEATURES  # the model's inputs, declared there
from memlens.engine.ranking.ranker_features import feature_matrix
from memlens.engine.ranking.tree_model import TreeModel, load_tree_model

if TYPE_CHECKING:
    from memlens.engine.keyword.parsed_query import ParsedQuery
    from memlens.engine.ranking.head import Head
    from memlens.engine.ranking.hits import UnitHit

MODEL_PATH = Path(__file__).with_name("ranker.txt")


@functools.cache
def bundled_model() -> TreeModel:
    """The shipped model, read once per process."""
    return load_tree_model(MODEL_PATH)


def write_features(head: Head, query: ParsedQuery) -> None:
    """Work out the head's feature matrix (FEATURES order, from the head as the hand-set passes left it) and give each
    hit its row (`ranker_features`, which bench/learn_ranker.py fits the model on)."""
    if not head.hits:
        return
    matrix = feature_matrix(head, query)
    head.ranker_rows = matrix
    head.ranker_row_of = {hit.unit_id: at for at, hit in enumerate(head.hits)}
    for hit, row in zip(head.hits, matrix.tolist(), strict=True):
        hit.ranker_features = tuple(row)


def predict(head: Head, model: TreeModel) -> None:
    """Set every head hit's `learned` score from its feature row."""
    import numpy as np

    if not head.hits:
        return
    if head.ranker_rows is None:  # rows not worked out for this head: read them from the hits
        rows = np.array([h.ranker_features for h in head.hits], dtype=float)
    else:
        rows = head.ranker_rows.take([head.ranker_row_of[h.unit_id] for h in head.hits], axis=0)
    for hit, value in zip(head.hits, model.predict(rows).tolist(), strict=True):
        hit.learned = value


def order_by_model(head: Head) -> None:
    """Put the head in the order of its `learned` scores (ties: the rules' score, then the unit id)."""
    head.hits.sort(key=lambda h: (-h.learned, -h.score, h.unit_id))


def hand_out_scores(hits: list[UnitHit]) -> None:
    """The hits keep the head's scores, handed out best first in their new order: a shown score still falls down
    the list, and the scores keep the scale the rest of the engine reads (0–1, the tail scaled below the head)."""
    for hit, score in zip(hits, sorted((h.score for h in hits), reverse=True), strict=True):
        hit.score = score
