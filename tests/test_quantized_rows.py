"""int8 rows with a scale each: cosines within about 1e-3 of float32's, within about 1e-4 with their remainders, the
same rows however they are built, and a vector file of an older layout rebuilt rather than misread."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np
import pytest

from memlens.engine.engine import Engine
from memlens.engine.filters import SearchFilters
from memlens.engine.indexing.ingest import EMBED_TEXT_CHARS
from memlens.engine.sources.tool_output import scored_text
from memlens.engine.vectors import vector_file
from memlens.engine.vectors.quantized_rows import BLOCK, FileRows, QuantizedRows
from memlens.engine.vectors.vector_index import EXACT_ROWS, VectorIndex
from memlens.engine.vectors.vector_snapshot import VectorRow, VectorSnapshot


def _unit_rows(count: int, dim: int = 384, seed: int = 3) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((count, dim)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows


def test_cosines_stay_within_about_a_thousandth_of_float32() -> None:
    rows = _unit_rows(2_000)
    queries = _unit_rows(50, seed=4)
    quantized = QuantizedRows.of(rows)
    assert quantized.values_array().dtype == np.int8 and quantized.values_array().shape == rows.shape
    assert quantized.values_array().nbytes * 4 == rows.nbytes
    for query in queries:
        exact = rows @ query
        error = np.abs(quantized.scores(slice(None), query) - exact)
        assert error.max() < 2e-3 and error.mean() < 5e-4
    # with each value's 4-bit remainder: half a byte a component, and cosines a tenth as far off
    assert quantized.remainders_array().dtype == np.uint8 and quantized.remainders_array().nbytes * 8 == rows.nbytes
    refined = quantized.refined_rows(np.arange(len(rows)))
    assert refined.dtype == np.float32 and refined.shape == rows.shape
    for query in queries[:10]:
        refined_error = np.abs(refined @ query - rows @ query)
        assert refined_error.max() < 2e-4 and refined_error.mean() < 5e-5


def test_the_largest_component_is_exact_and_zero_rows_score_zero() -> None:
    rows = _unit_rows(3)
    rows[1] = 0.0
    quantized = QuantizedRows.of(rows)
    assert quantized.scales[1] == 0.0 and not quantized.values_array()[1].any()
    peaks = np.abs(rows).argmax(axis=1)
    for row in (0, 2):
        assert abs(int(quantized.values_array()[row, peaks[row]])) == 127
    assert quantized.scores(np.array([1]), _unit_rows(1, seed=9)[0])[0] == 0.0


def test_quantizing_again_changes_nothing_and_blocks_do_not_matter() -> None:
    rows = _unit_rows(BLOCK + 17)  # more than one block
    quantized = QuantizedRows.of(rows)
    again = QuantizedRows.of(quantized.values_array().astype(np.float32) * quantized.scales[:, np.newaxis])
    assert np.array_equal(again.values_array(), quantized.values_array())
    assert np.allclose(again.scales, quantized.scales, rtol=1e-6)
    one_by_one = QuantizedRows.of(rows[:5]).concat(QuantizedRows.of(rows[5:9]))
    assert np.array_equal(one_by_one.values_array(), quantized.values_array()[:9])
    assert np.array_equal(quantized.take(np.array([4, 2])).values_array(), quantized.values_array()[[4, 2]])


def test_rows_given_back_quantise_to_themselves() -> None:
    """The catalog keeps what the search keeps of a vector (its scale, int8 values and remainders), and the rows
    rebuilt from it are quantised again: they must come out exactly as they went in, or a vector file rebuilt from
    the catalog would hold other rows than the one written from the model's vectors."""
    rows = _unit_rows(BLOCK + 100, seed=8)
    rows[5] *= 0.0  # a zero row, and a row with one large component
    rows[6] = 0.01
    rows[6, 3] = 1.0
    first = QuantizedRows.of(rows)
    again = QuantizedRows.of(first.refined_rows(slice(None)))
    assert np.array_equal(again.values_array(), first.values_array())
    assert np.array_equal(again.remainders_array(), first.remainders_array())
    assert np.array_equal(again.scales, first.scales)
    blobs = first.encoded()
    assert {len(blob) for blob in blobs} == {QuantizedRows.encoded_size(384)} == {4 + 384 + 192}
    decoded = QuantizedRows.decoded(blobs[7], 384)
    assert np.array_equal(decoded.refined_rows(slice(None)), first.refined_rows(np.array([7])))


def test_rows_must_be_two_dimensional() -> None:
    with pytest.raises(ValueError, match="2-d"):
        QuantizedRows.of(np.zeros(384, np.float32))
    assert len(QuantizedRows.empty(384)) == 0 and QuantizedRows.empty(384).dim == 384


@pytest.mark.parametrize("magic", [b"MLVEC01\n", b"MLVEC03\n", b"MLVEC04\n"])
def test_a_vector_file_of_an_older_layout_is_rebuilt(
    example: Engine, caplog: pytest.LogCaptureFixture, magic: bytes
) -> None:
    """A file written by a version that stored float32 (MLVEC01) or float16 rows (MLVEC03), or remainders in
    sixteenths (MLVEC04), is stale, not damaged: it is read from SQLite and written again, with an info line rather
    than a warning."""
    assert example.embedder is not None
    example.indexer.embedding.persist(force=True)
    path: Path = vector_file.file_for(example.index_dir, example.embedder.name)
    data = bytearray(path.read_bytes())
    data[: len(vector_file.MAGIC)] = magic
    path.write_bytes(bytes(data))
    with caplog.at_level(logging.INFO, logger="memlens.engine.vectors.vector_file"):
        stored = vector_file.read(
            path, stamp=example.catalog.vector_stamp(), model=example.embedder.name, dim=example.vectors.dim
        )
    assert stored is None
    assert any("older layout" in r.getMessage() and r.levelno == logging.INFO for r in caplog.records)
    assert not any(r.levelno >= logging.WARNING for r in caplog.records)
    rebuilt = VectorIndex(example.vectors.dim)
    rebuilt.may_write = lambda: True
    rebuilt.load(example.catalog, example.embedder.name)
    assert len(rebuilt) == len(example.vectors)
    assert path.read_bytes().startswith(vector_file.MAGIC)  # written again in the current layout


def test_file_rows_read_any_order_and_survive_a_rename_over_their_path(tmp_path: Path) -> None:
    rows = _unit_rows(50, dim=8)
    path = tmp_path / "rows.bin"
    path.write_bytes(b"\x07" * 100 + rows.astype(np.float16).tobytes())  # rows of a two-byte dtype
    with path.open("rb") as handle:
        stored = FileRows(os.dup(handle.fileno()), offset=100, count=50, dim=8, dtype="<f2")
    wanted = np.array([3, 4, 5, 49, 0, 1, 17, 16], dtype=np.int64)  # runs, single rows, backwards
    assert np.array_equal(stored.stored(wanted), rows[wanted].astype(np.float16))
    assert stored.stored(np.empty(0, np.int64)).shape == (0, 8)
    replacement = tmp_path / "rows.new"
    replacement.write_bytes(b"\x00" * (100 + rows.nbytes))
    os.replace(replacement, path)  # a rewrite of the vector file renames a new one over the path
    assert np.array_equal(stored.stored(wanted), rows[wanted].astype(np.float16))
    with pytest.raises(IndexError):
        stored.stored(np.array([50]))


def test_a_search_scores_the_rows_it_returns_with_their_remainders(example: Engine) -> None:
    """Candidates are ranked by int8 rows; the cosines returned are within about 1e-4 of float32's (int8 alone is
    off by up to about 1e-3), read from the vector file."""
    assert example.embedder is not None
    example.indexer.embedding.persist(force=True)
    query = example.embedder.embed_query("dead letter queue")
    found = example.vectors.search(query, 5)
    units = example.catalog.units_by_id([unit_id for unit_id, _ in found])
    fresh = example.embedder.embed(
        [scored_text(units[unit_id]["text"], units[unit_id]["kind"])[:EMBED_TEXT_CHARS] for unit_id, _ in found]
    )
    exact = {unit_id: float(vector @ query) for (unit_id, _), vector in zip(found, fresh, strict=True)}
    assert found and all(cosine == pytest.approx(exact[unit_id], abs=1.5e-4) for unit_id, cosine in found)
    snapshot = example.vectors._current()
    assert isinstance(snapshot.base.remainders, FileRows)  # read from the file, not held in memory


def test_int8_rows_read_from_the_file_are_the_rows_held_in_memory(tmp_path: Path) -> None:
    """The re-rank's int8 rows come from the file by pread, sorted and with rows a few apart read at once: every
    pattern of request gives back exactly the rows an in-memory array gives, in the order asked."""
    count, dim = 3_000, 384
    values = QuantizedRows.of(_unit_rows(count, dim)).values_array()
    path = tmp_path / "values.bin"
    path.write_bytes(b"\x05" * 4096 + values.tobytes() + b"\x09" * 100)  # a header before, other bytes after
    with path.open("rb") as handle:
        stored = FileRows(os.dup(handle.fileno()), offset=4096, count=count, dim=dim, dtype="i1")
    rng = np.random.default_rng(11)
    asks = [
        np.array([0]),
        np.array([count - 1]),
        np.array([count - 1, 0]),  # the last row and the first, in one request
        np.array([7, 8, 9, 10]),  # adjacent rows
        np.array([20, 23, 29, 31]),  # a few rows apart: read at once
        np.array([100, 2_000, 101, 1_999]),  # far apart and out of order
        np.array([42, 42, 5, 42]),  # the same row more than once
        np.array([count - 3, count - 2, count - 1]),  # a run ending at the last row
        rng.choice(count, 1_000, replace=False),  # a re-rank's candidates
    ]
    for ask in asks:
        got = stored.stored(ask)
        assert got.dtype == np.int8 and np.array_equal(got, values[ask]), ask
    assert stored.stored(np.empty(0, np.int64)).shape == (0, dim)
    assert np.array_equal(stored.stored(slice(None)), values)
    assert np.array_equal(stored.stored(slice(10, 14)), values[10:14])
    for outside in (np.array([count]), np.array([-1]), np.array([3, count + 5])):
        with pytest.raises(IndexError):
            stored.stored(outside)
    scales = np.random.default_rng(2).random(count).astype(np.float32)
    in_file, in_memory = QuantizedRows(stored, scales, values), QuantizedRows(values, scales, values)
    query = _unit_rows(1, dim, seed=9)[0]
    for ask in asks:
        assert np.array_equal(in_file.scores(ask, query), in_memory.scores(ask, query))
    assert np.array_equal(in_file.scores(slice(None), query), in_memory.scores(slice(None), query))


def test_a_search_over_the_file_gives_what_the_same_rows_in_memory_give(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past EXACT_ROWS a search scans the sign codes and re-ranks its candidates from the int8 rows, mapped from the
    file while they are small and read with pread past MAP_VALUES_BYTES: the same units and the same scores as the
    in-memory rows either way, with and without filters."""
    count, dim = 6_000, 64
    assert count > EXACT_ROWS
    matrix = _unit_rows(count, dim, seed=21)
    rows = [
        VectorRow(1_000 + n, "memory" if n % 3 else "transcript", "", "", f"s{n % 7}", float(n), matrix[n])
        for n in range(count)
    ]
    in_memory = VectorSnapshot.of(rows, dim)
    in_memory.write_file(tmp_path / "v.bin", stamp="s", model="m")
    mapped = vector_file.read(tmp_path / "v.bin", stamp="s", model="m", dim=dim)
    assert mapped is not None and isinstance(mapped.matrix.values, np.memmap)  # 384 KB: under the map's size
    monkeypatch.setattr(vector_file, "MAP_VALUES_BYTES", count * dim - 1)
    read = vector_file.read(tmp_path / "v.bin", stamp="s", model="m", dim=dim)
    assert read is not None and isinstance(read.matrix.values, FileRows)
    from_map, from_reads, held = VectorIndex(dim), VectorIndex(dim), VectorIndex(dim)
    from_map._snapshot, from_reads._snapshot = VectorSnapshot.stored(mapped), VectorSnapshot.stored(read)
    held._snapshot = in_memory
    queries = _unit_rows(20, dim, seed=22)
    narrow = SearchFilters(kind="transcript")
    for query in queries:
        for limit, filters in ((10, None), (60, None), (10, narrow)):
            found = from_reads.search(query, limit, filters)
            assert len(found) == limit and found == held.search(query, limit, filters)
            assert found == from_map.search(query, limit, filters)


def test_searches_over_real_vectors_rank_and_score_as_exact_cosines_do(example: Engine) -> None:
    """On the real model's vectors of the example's messages, read from the vector file: each search's top 10 is the
    exact float32 top 10 (the model's own vectors, embedded again, scanned) and every cosine it returns is within
    1.5e-4 of the exact one. Ranked and scored from the int8 rows alone, the cosines are off by up to about 1e-3."""
    assert example.embedder is not None
    example.indexer.embedding.persist(force=True)
    snapshot = example.vectors._current()
    assert isinstance(snapshot.base.remainders, FileRows)
    ids = snapshot.ids.tolist()
    units = example.catalog.units_by_id(ids)
    assert len(units) == len(ids) >= 50
    exact_ids = np.array(ids)
    # what each unit's vector is of: a tool output's text without the call its header names
    embedded = [scored_text(str(units[unit_id]["text"]), units[unit_id]["kind"]) for unit_id in ids]
    matrix = example.embedder.embed([text[:EMBED_TEXT_CHARS] for text in embedded])
    texts = {unit_id: units[unit_id] for unit_id in ids[:: max(1, len(ids) // 40)]}
    queries = [" ".join(str(unit["text"]).split()[:8]) for unit in texts.values()]
    hits = total = 0
    worst = 0.0
    for text in queries:
        query = example.embedder.embed_query(text)
        found = example.vectors.search(query, 10, rerank=0)
        exact = matrix @ query
        truth = exact_ids[np.argsort(-exact, kind="stable")[:10]]
        hits += len({unit_id for unit_id, _ in found} & set(truth.tolist()))
        total += len(truth)
        cosine_of = dict(zip(exact_ids.tolist(), exact.tolist(), strict=True))
        worst = max(worst, *(abs(score - cosine_of[unit_id]) for unit_id, score in found))
    assert len(queries) >= 20
    assert hits / total >= 0.99
    assert worst < 1.5e-4


@pytest.mark.parametrize("order", ["ascending", "shuffled", "a repeated id"])
def test_rows_of_finds_each_unit_whatever_the_rows_order(order: str) -> None:
    """Rows in ascending id order (a file written in its rows' order, units given growing ids) are looked up
    without sorting them; in any other order they are sorted first: either way each asked unit gets its own row,
    and an absent one none."""
    ids = list(range(10, 410, 4))
    if order == "shuffled":
        np.random.default_rng(5).shuffle(ids)
    elif order == "a repeated id":
        ids[7] = ids[6]
    matrix = _unit_rows(len(ids), 16, seed=4)
    snapshot = VectorSnapshot.of([VectorRow(u, "memory", "", "", "s", 0.0, matrix[n]) for n, u in enumerate(ids)], 16)
    asked = [ids[50], 11, ids[0], ids[-1], 10_000, ids[7]]
    positions, found = snapshot.rows_of(asked)
    assert found == [ids[50], ids[0], ids[-1], ids[7]]  # 11 and 10,000 are no unit's
    assert [ids[p] for p in positions.tolist()] == found
    everything, _ = snapshot.rows_of(ids)
    assert [ids[p] for p in everything.tolist()] == ids
