"""An update of the vector rows (VectorSnapshot.spliced) holds exactly what dropping the rows gone through a mask and
then appending the new rows held (`take` then `concat`), column by column and row by row, whatever the rows gone:
none, a few, the first and the last, every row, or more than a run per row is worth."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlens.engine.vectors.labels import Labels
from memlens.engine.vectors.vector_snapshot import SPLICED_RUNS, VectorRow, VectorSnapshot

DIM = 16


def _rows(ids: list[int], seed: int, *, sessions: tuple[str, ...] = ("a", "b")) -> list[VectorRow]:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((len(ids), DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return [
        VectorRow(
            unit,
            ("memory", "transcript")[unit % 2],
            "",
            "user",
            sessions[unit % len(sessions)],
            float(unit),
            vectors[n],
            seq=unit,
            text_hash=unit.to_bytes(20, "little"),
        )
        for n, unit in enumerate(ids)
    ]


def _same(left: VectorSnapshot, right: VectorSnapshot) -> None:
    for a, b in zip(left.small_columns(), right.small_columns(), strict=True):
        if isinstance(a, Labels):
            assert isinstance(b, Labels) and a.values() == b.values()
        else:
            np.testing.assert_array_equal(a, b)
    every = np.arange(len(left.ids))
    np.testing.assert_array_equal(left.value_rows(every), right.value_rows(every))
    np.testing.assert_array_equal(left.refined_rows(every), right.refined_rows(every))


def _grown(count: int, seed: int) -> VectorSnapshot:
    """A snapshot of `count` rows that has been changed once already (rows in `base` and in `extra`)."""
    first = VectorSnapshot.of(_rows(list(range(count)), seed), DIM)
    return first.concat(VectorSnapshot.of(_rows([count, count + 1], seed + 1, sessions=("c",)), DIM))


@settings(max_examples=60, deadline=None)
@given(
    count=st.integers(1, 40),
    gone=st.sets(st.integers(0, 41)),
    added=st.integers(0, 3),
    seed=st.integers(0, 2**16),
)
def test_a_splice_holds_what_take_then_concat_held(count: int, gone: set[int], added: int, seed: int) -> None:
    snapshot = _grown(count, seed)
    positions = np.array(sorted(p for p in gone if p < len(snapshot.ids)), dtype=np.int64)
    new = VectorSnapshot.of(_rows(list(range(1000, 1000 + added)), seed + 2, sessions=("d", "a")), DIM)
    keep = np.ones(len(snapshot.ids), dtype=bool)
    keep[positions] = False
    expected = snapshot.take(keep)
    if added:
        expected = expected.concat(new)
    _same(snapshot.spliced(positions, new), expected)


def test_nothing_gone_and_nothing_added_is_the_same_snapshot() -> None:
    snapshot = _grown(5, 3)
    assert snapshot.spliced(np.empty(0, np.int64), VectorSnapshot.empty(DIM)) is snapshot


@pytest.mark.parametrize("gone", [SPLICED_RUNS + 1, 3 * SPLICED_RUNS])
def test_many_rows_gone_give_the_same_rows(gone: int) -> None:
    snapshot = _grown(4 * SPLICED_RUNS, 7)
    positions = np.sort(np.random.default_rng(gone).choice(len(snapshot.ids), gone, replace=False)).astype(np.int64)
    new = VectorSnapshot.of(_rows([10_000], 8), DIM)
    keep = np.ones(len(snapshot.ids), dtype=bool)
    keep[positions] = False
    _same(snapshot.spliced(positions, new), snapshot.take(keep).concat(new))
