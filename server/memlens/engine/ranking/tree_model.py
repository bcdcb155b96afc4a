"""A gradient-boosted tree model in LightGBM's own text format, evaluated with numpy.

The learned ranker is trained by LightGBM (bench/learn_ranker.py) and saved with `Booster.save_model`. Searching does
not import LightGBM: it pulls in scipy (0.8 s before the first search) for what is, at query time, a walk down a
hundred small trees for forty candidates. Every tree is flattened into one set of arrays and all trees are walked
together, one level at a time, for all rows at once (a few vectorised steps per level instead of a Python loop per
row and tree). A leaf is a node of its own that leads back to itself, so a row that reached one stays there and each
level is the same few steps for every row and tree, with no test for which have arrived.
tests/test_tree_model.py checks the result against LightGBM's own `predict` on random rows.

Only what LightGBM writes for numerical features is read: a split sends a row left when its value is at most the
threshold. Features are never missing here (the ranker writes a number for every one), so the missing-value rules
of `decision_type` are not needed; a model with categorical splits is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

_CATEGORICAL = 1  # decision_type bit: a categorical split


class ModelFormatError(ValueError):
    """A model file that is not a LightGBM text model of numerical splits."""


@dataclass(frozen=True, slots=True)
class TreeModel:
    """The trees as flat arrays of nodes: every tree's splits, then one node per leaf, which leads to itself."""

    feature_names: tuple[str, ...]
    roots: np.ndarray  # per tree: its first node (its leaf, for a tree that is one leaf)
    feature: np.ndarray  # per node: the feature it splits on (0 for a leaf)
    threshold: np.ndarray  # per node: go left when the value is ≤ this (+inf for a leaf)
    children: np.ndarray  # per node, its right then its left node (a leaf's own, for a leaf): node n goes to 2n + left
    leaf_value: np.ndarray  # per node: its value (0 for a split)
    depth: int  # the deepest path, in splits

    def predict(self, rows: np.ndarray) -> np.ndarray:
        """The raw score (sum of the trees' leaves) of each row of `rows` (shape: rows × features)."""
        import numpy as np

        count = rows.shape[0]
        if count == 0 or self.roots.size == 0:
            return np.zeros(count)
        values = np.ascontiguousarray(rows, dtype=float).ravel()
        starts = (np.arange(count) * rows.shape[1])[:, None]  # each row's first value in `values`
        node = np.broadcast_to(self.roots, (count, self.roots.size))
        for _ in range(self.depth):  # `take`: a fraction of the cost of indexing with an array
            goes_left = values.take(starts + self.feature.take(node)) <= self.threshold.take(node)
            node = self.children.take(2 * node + goes_left)
        return np.asarray(self.leaf_value.take(node).sum(axis=1), dtype=float)


def load_tree_model(path: Path) -> TreeModel:
    """Read a model saved by LightGBM's `Booster.save_model` (raises ModelFormatError for anything else)."""
    return parse_tree_model(path.read_text(encoding="utf-8"))


def parse_tree_model(text: str) -> TreeModel:
    import numpy as np

    header, _, body = text.partition("\nTree=")
    body = body.partition("\nend of trees")[0]
    fields = _fields(header)
    if "feature_names" not in fields:
        raise ModelFormatError("not a LightGBM text model (no feature_names line)")
    names = tuple(fields["feature_names"].split())
    roots: list[int] = []
    feature: list[int] = []
    threshold: list[float] = []
    left: list[int] = []
    right: list[int] = []
    leaves: list[float] = []
    depth = 0
    for block in body.split("\nTree=") if body else []:  # each block opens with its tree's number
        tree = _fields(block)
        if "leaf_value" not in tree:
            raise ModelFormatError("a tree without leaf values")
        values = [float(v) for v in tree["leaf_value"].split()]
        first_node, first_leaf = len(feature), len(leaves)
        leaves.extend(values)
        if int(tree["num_leaves"]) == 1:
            roots.append(-(first_leaf + 1))
            continue
        kinds = [int(v) for v in tree["decision_type"].split()]
        if any(k & _CATEGORICAL for k in kinds):
            raise ModelFormatError("the model has categorical splits, which this evaluator does not read")

        def child(index: int, first_node: int = first_node, first_leaf: int = first_leaf) -> int:
            return first_node + index if index >= 0 else -(first_leaf + (-index - 1) + 1)

        feature.extend(int(v) for v in tree["split_feature"].split())
        threshold.extend(float(v) for v in tree["threshold"].split())
        lefts = [int(v) for v in tree["left_child"].split()]
        rights = [int(v) for v in tree["right_child"].split()]
        left.extend(child(i) for i in lefts)
        right.extend(child(i) for i in rights)
        roots.append(first_node)
        depth = max(depth, _depth(lefts, rights))
    # the leaves become nodes after the splits: leaf i is node `splits + i`, and leads to itself
    splits = len(feature)
    leaf_nodes = [splits + i for i in range(len(leaves))]

    def node_of(index: int) -> int:
        return index if index >= 0 else splits + (-index - 1)

    return TreeModel(
        feature_names=names,
        roots=np.array([node_of(r) for r in roots], dtype=np.int64),
        feature=np.array(feature + [0] * len(leaves), dtype=np.int64),
        threshold=np.array(threshold + [np.inf] * len(leaves), dtype=float),
        children=np.array(
            [n for pair in zip(right, left, strict=True) for n in (node_of(pair[0]), node_of(pair[1]))]
            + [n for leaf in leaf_nodes for n in (leaf, leaf)],
            dtype=np.int64,
        ),
        leaf_value=np.array([0.0] * splits + leaves, dtype=float),
        depth=depth,
    )


def _fields(block: str) -> dict[str, str]:
    """`key=value` lines of a model block."""
    out: dict[str, str] = {}
    for line in block.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            out[key.strip()] = value.strip()
    return out


def _depth(lefts: list[int], rights: list[int]) -> int:
    """The most splits on a path from the root of one tree to a leaf."""
    deepest, stack = 0, [(0, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        for nxt in (lefts[node], rights[node]):
            if nxt >= 0:
                stack.append((nxt, level + 1))
    return deepest
