"""The string columns of the vector rows held as codes: joining, taking, filtering and writing give the strings
the rows were made with, however the names tables were built."""

from __future__ import annotations

import numpy as np

from memlens.engine.vectors.labels import Labels


def test_joined_labels_keep_their_strings_across_tables() -> None:
    first = Labels.of(["a", "b", "a"])
    second = Labels.of(["c", "a"])  # its own table: "a" has another code there
    joined = first.concat(second)
    assert joined.values() == ["a", "b", "a", "c", "a"]
    assert joined.equals("a").tolist() == [True, False, True, False, True]
    assert not joined.equals("missing").any()
    assert first.values() == ["a", "b", "a"]  # the older labels are unchanged by the shared table growing
    taken = joined[np.array([4, 1])]
    assert taken.values() == ["a", "b"] and taken.values(np.array([1])) == ["b"]
    assert Labels.joined([first, second, first[:1]]).values() == ["a", "b", "a", "c", "a", "a"]


def test_compact_writes_only_the_names_in_use() -> None:
    labels = Labels.of(["x", "y", "z", "y"])[np.array([3, 2, 3])]
    codes, names = labels.compact()
    assert names == ["y", "z"] and codes.tolist() == [0, 1, 0]
    empty_codes, empty_names = Labels.of([]).compact()
    assert len(empty_codes) == 0 and empty_names == []
