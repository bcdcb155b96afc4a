"""The fast paths: lazy imports, the direct ONNX runner, the query-vector cache, binary codes with an exact re-rank."""

from __future__ import annotations

import json
import os
import sqlite3
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest

from memlens.engine.filters import SearchFilters
from memlens.engine.vectors.bundled_model import BUNDLED_MODEL, assemble_bundled_model, register_with_fastembed
from memlens.engine.vectors.embedder import Embedder
from memlens.engine.vectors.vector_index import EXACT_ROWS, VectorIndex
from memlens.engine.vectors.vector_snapshot import VectorRow
from vector_files import narrow_codes

TEXTS = [
    "how did we fix the dead letter queue backup?",
    "SQS messages stuck in the poison queue were reprocessed after adding the routing entry",
    "café naïve ünïcode 日本語のテキスト",
    "x " * 700,  # longer than the 256 word pieces read
    "",
]


def test_keyword_commands_import_no_vector_stack() -> None:
    """`stats`, `history`, `sessions` and keyword search open an Engine: that must not import numpy, ONNX Runtime,
    fastembed or faiss (each costs tens to hundreds of milliseconds of start-up), nor importlib.metadata (about
    45 ms, wanted only to name an optional model's version)."""
    code = (
        "import sys; import memlens.cli, memlens.engine.engine; "
        "print(sorted(m for m in ('numpy', 'onnxruntime', 'fastembed', 'faiss', 'tokenizers', 'importlib.metadata')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("pinned_before", [True, False])
def test_vector_work_runs_one_blas_thread(pinned_before: bool) -> None:
    """Per-query vector work runs one BLAS thread: set by OPENBLAS_NUM_THREADS before numpy loads (what every
    `memlens` command does), without threadpoolctl's look through the process's libraries; otherwise by it."""
    code = (
        "import sys, numpy; from memlens.engine.vectors.vector_index import single_threaded_blas; "
        "looked = 'threadpoolctl' in sys.modules; single_threaded_blas(); looked = 'threadpoolctl' in sys.modules; "
        "from threadpoolctl import threadpool_info; "
        "print(looked, sorted({i['num_threads'] for i in threadpool_info() if i['user_api'] == 'blas'}))"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if pinned_before:
        env["OPENBLAS_NUM_THREADS"] = "1"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.split() == [str(not pinned_before), "[1]"]


def test_a_keyword_search_that_expands_its_words_imports_no_vector_stack(built_example: tuple[Path, Path]) -> None:
    """The CLI's keyword search on an index with word vectors expands its words (the writer's neighbour lists) and
    still imports neither numpy nor a model: numpy alone costs about 0.08–0.14 s of CPU per call."""
    workspace, index_dir = built_example
    code = (
        "import sys; from memlens.cli.commands import main; "
        f"main(['search', 'how did we fix the dead-letter queue backup?', '--workspace', {str(workspace)!r}, "
        f"'--index-dir', {str(index_dir)!r}, '--no-sync', '--no-server', '--mode', 'keyword', '--json']); "
        "print(sorted(m for m in ('numpy', 'onnxruntime', 'fastembed', 'faiss', 'tokenizers') if m in sys.modules), "
        "file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)["results"]
    assert done.stderr.strip().splitlines()[-1] == "[]"
    with sqlite3.connect(f"file:{index_dir / 'catalog.sqlite3'}?mode=ro", uri=True) as db:
        [(near,)] = db.execute("SELECT near FROM words WHERE stem = 'queue'").fetchall()
    assert json.loads(near)  # the query's words had neighbours to expand to: the lookup really ran


@pytest.mark.slow  # loads the model twice
def test_direct_runner_matches_fastembed(embedder: Embedder, model_cache: Path) -> None:
    ours = embedder.embed(TEXTS)
    register_with_fastembed()
    from fastembed import TextEmbedding

    model = TextEmbedding(BUNDLED_MODEL, specific_model_path=str(assemble_bundled_model(model_cache)))
    cast(Any, model.model).tokenizer.enable_truncation(max_length=256)  # the ONNX model behind it: untyped
    theirs = np.array(list(model.embed(TEXTS)), dtype=np.float32)
    theirs /= np.linalg.norm(theirs, axis=1, keepdims=True)
    assert np.min(np.sum(ours * theirs, axis=1)) > 0.9999


def test_query_vectors_are_cached(embedder: Embedder) -> None:
    first = embedder.embed_query("a query typed twice")
    assert embedder.embed_query("a query typed twice") is first
    assert not first.flags.writeable
    assert float(first @ embedder.embed(["a query typed twice"])[0]) > 0.95  # the int8 copy: close to fp32


def _rows(matrix: np.ndarray, start: int = 0) -> list[VectorRow]:
    return [
        VectorRow(start + i, "transcript", "codex", "user" if i % 2 else "assistant", f"s{i % 7}", float(i), v, i)
        for i, v in enumerate(matrix)
    ]


@pytest.fixture(scope="module")
def corpus() -> np.ndarray:
    rng = np.random.default_rng(3)
    centres = rng.normal(size=(300, 384))  # clustered, as text embeddings are
    matrix = centres[rng.integers(0, 300, 3 * EXACT_ROWS)] + rng.normal(scale=0.6, size=(3 * EXACT_ROWS, 384))
    unit: np.ndarray = (matrix / np.linalg.norm(matrix, axis=1, keepdims=True)).astype(np.float32)
    return unit


def test_codes_and_rerank_keep_the_exact_top_ten(corpus: np.ndarray) -> None:
    index = VectorIndex(384)
    index.update(add=_rows(corpus))
    rng = np.random.default_rng(4)
    found = 0
    for q in corpus[rng.integers(0, len(corpus), 40)] + rng.normal(scale=0.02, size=(40, 384)).astype(np.float32):
        exact = index.search(q, 10, rerank=0)
        fast = index.search(q, 10)
        assert [round(s, 5) for _, s in fast] == sorted((round(s, 5) for _, s in fast), reverse=True)
        found += len({u for u, _ in exact} & {u for u, _ in fast})
        assert fast[0] == exact[0]  # the best is always kept, its cosine exact
    assert found / 400 >= 0.98


def test_filters_add_and_remove_without_rebuild(corpus: np.ndarray) -> None:
    index = VectorIndex(384)
    index.update(add=_rows(corpus))
    q = corpus[5]
    assert index.search(q, 1)[0][0] == 5
    hits = index.search(q, 20, SearchFilters(role="user", session="s1"))
    assert hits and all(u % 2 == 1 and u % 7 == 1 for u, _ in hits)
    index.update(remove=[5])
    assert all(u != 5 for u, _ in index.search(q, 50))
    index.update(add=_rows(corpus[5:6], start=10**6))
    assert index.search(q, 1)[0][0] == 10**6
    places, missing = index.places([3, 10**6, 10**9])
    assert places == {3: ("s3", 3), 10**6: ("s0", 0)} and missing == [10**9]
    assert index.places([10**6, 3]) == ({10**6: ("s0", 0), 3: ("s3", 3)}, [])  # all held: nothing to ask the catalog
    assert index.roles([3, 10**9]) == {3: "user"} and index.roles([4]) == {4: "assistant"}


def test_token_batches_bound_attention_memory() -> None:
    from memlens.engine.vectors.embedder import ATTENTION_BUDGET, token_batches

    lengths = sorted([8] * 100 + [256] * 7 + [100] * 20)
    batches = token_batches(lengths, 32)
    assert sorted(p for b in batches for p in b) == list(range(len(lengths)))
    for batch in batches:
        longest = max(lengths[p] for p in batch)
        assert len(batch) <= 32 and (len(batch) == 1 or len(batch) * longest**2 <= ATTENTION_BUDGET)


_REDACTION_PROBE = (
    "import json, sys; from memlens.redaction import DETECTORS, find_secrets; "
    "print(json.dumps({'modules': sorted(m for m in ('detect_secrets', 'requests', 'urllib3') if m in sys.modules), "
    "'detectors': [[d.kind, d.pattern] for d in DETECTORS], "
    "'found': [s.kind for s in find_secrets('key ghp_' + 'a1B2' * 9 + ' and AKIA' + 'ABCDEFGH12345678')]}))"
)


def _redaction_probe(cache_home: Path) -> dict[str, list[Any]]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    out = subprocess.run([sys.executable, "-c", _REDACTION_PROBE], capture_output=True, text=True, check=True, env=env)
    result: dict[str, list[Any]] = json.loads(out.stdout)
    return result


def test_redaction_patterns_come_from_the_cache_without_detect_secrets(tmp_path: Path) -> None:
    """The first command converts detect-secrets' patterns and keeps them; the next reads them back without
    importing detect-secrets or requests, and has exactly the same detectors and findings."""
    first = _redaction_probe(tmp_path)
    assert "detect_secrets" in first["modules"]
    assert list((tmp_path / "memlens" / "redaction").glob("library-*.json"))
    second = _redaction_probe(tmp_path)
    assert second["modules"] == []
    assert second["detectors"] == first["detectors"]
    assert second["found"] == first["found"] and "github-token" in second["found"]


@pytest.mark.slow  # CLI processes
def test_a_broken_redaction_cache_is_rebuilt(tmp_path: Path) -> None:
    """An empty or garbled cache file must not drop the library's detectors: it is converted afresh."""
    reference = _redaction_probe(tmp_path / "fresh")
    (cache,) = (tmp_path / "fresh" / "memlens" / "redaction").glob("library-*.json")
    for broken in ('{"key": "x"}', "not json", cache.read_text().replace('"patterns": [[', '"patterns": [[""], [')):
        cache.write_text(broken)
        again = _redaction_probe(tmp_path / "fresh")
        assert again["detectors"] == reference["detectors"]
        assert "detect_secrets" in again["modules"]
    assert _redaction_probe(tmp_path / "fresh")["modules"] == []  # and the rebuilt file is used again


def test_entropy_is_detect_secrets_entropy() -> None:
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString

    from memlens.redaction.values import entropy

    theirs = Base64HighEntropyString()
    assert entropy("") == 0.0
    samples = ["a", "aaaa", "hunter2", "Xk3#p9Lq", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "a-b_c\\d=e+f/g"]
    samples += ["".join(chr(33 + (i * 7 + j) % 90) for j in range(i)) for i in range(1, 60)]
    for sample in samples:
        assert entropy(sample) == pytest.approx(theirs.calculate_shannon_entropy(sample), abs=1e-12)


def test_flat_word_query_scores_as_the_nested_one(tmp_path: Path) -> None:
    """A words-only query is sent to tantivy as a flat disjunction (its top-k pruning applies); it must find the
    same units with the same BM25 as the disjunction wrapped in a required clause, in both fields."""
    import tantivy

    from memlens.engine.keyword.keyword_index import KeywordDoc, KeywordIndex

    index = KeywordIndex(tmp_path / "kw")
    words = ["deploy", "queue", "ledger", "refund", "retry", "webhook", "billing", "timeout", "cache", "rollout"]
    docs = [
        KeywordDoc(
            unit_id=i,
            file_id=i % 7,
            kind="transcript",
            format="codex",
            session_key=f"s{i % 5}",
            role="user",
            ts=i,
            text=" ".join(words[(i * j) % len(words)] for j in range(1, 2 + i % 6)),
            context=" ".join(words[(i + j) % len(words)] for j in range(8)),
        )
        for i in range(1, 300)
    ]
    index.write(1, add=docs)
    searcher = index.index.searcher()
    for query in ("deploy queue", "refund retry webhook", "billing", "cache rollout timeout ledger"):
        for field in ("text", "context"):
            flat = index.search(index.parse(query), 40, field=field)
            inner = index.queries.word_queries(index.parse(query), field)
            nested = tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in inner]))]
            )
            hits = searcher.search(nested, 40, count=False).hits
            ids = searcher.fast_field_values("unit_id", [address for _, address in hits])
            assert flat and flat == [(int(cast(int, u)), float(score)) for (score, _), u in zip(hits, ids, strict=True)]


@pytest.mark.slow  # runs the benchmark
def test_speed_benchmark_on_a_prebuilt_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`bench/speed.py --prebuilt ROOT` times search, warm start and appends on an index an earlier run left
    (ROOT/corpus, ROOT/index), without indexing anything cold."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bench import speed
    from bench.corpus import make_corpus, open_engine

    root = tmp_path / "pre"
    engine = open_engine(make_corpus(root / "corpus", 200), root / "index", None)
    engine.sync()
    engine.close()
    argv = ["--sizes", "", "--prebuilt", str(root), "--no-vectors", "--no-shared", "--queries", "10", "--appends", "2"]
    report = speed.main([*argv, "--json"], embedder=None)
    assert json.loads(capsys.readouterr().out)["prebuilt"]["counts"]["units"] == 288
    pre = report["prebuilt"]
    assert pre["counts"]["chunks"] == 192 and pre["search"]["keyword"]["queries"] == 10
    assert pre["warmStart"]["filesUnchanged"] == pre["warmStart"]["files"] == 20
    assert pre["appendToSearchable"]["appends"] == 2 and pre["appendToSearchable"]["missed"] == 0
    targets = {t["what"]: t for t in report["targets"]}
    assert targets["keyword p50 ms"]["measured"] == pre["search"]["keyword"]["cpuP50Ms"]
    assert "warm start s (prebuilt index)" in targets


@pytest.mark.parametrize(("given", "expected"), [(None, "1"), ("3", "3")])
def test_the_cli_keeps_blas_to_one_thread_unless_told_otherwise(given: str | None, expected: str) -> None:
    """OpenBLAS starting a thread per core at numpy's import cost a hybrid CLI search about 0.1 s of CPU."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    code = "import os, memlens.cli; print(os.environ['OPENBLAS_NUM_THREADS'])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.strip() == expected


def test_a_wide_filter_finds_the_kept_rows_nearest_codes(corpus: np.ndarray) -> None:
    """A filter that keeps many rows scans every code and drops the rest after; when the query's nearest codes are
    mostly left out, it scans the kept codes alone: either way the kept rows' nearest codes, as many as asked."""
    from memlens.engine.vectors.vector_index import _nearest_codes
    from memlens.engine.vectors.vector_snapshot import binary_codes

    codes = binary_codes(corpus)
    query = corpus[7]
    distance = np.unpackbits(codes ^ binary_codes(query[np.newaxis, :]), axis=1).sum(axis=1)
    half = np.arange(len(corpus)) % 2 == 1
    far = distance > np.quantile(distance, 0.3)  # keeps 70% of the rows, none of the query's nearest codes
    for mask in (half, far):
        rows = np.flatnonzero(mask)
        found = _nearest_codes(codes, query, mask, 500)
        assert len(found) == 500 and mask[found].all()
        # the same distances as the 500 nearest of the kept rows (which ones at the last distance may differ)
        assert sorted(distance[found]) == sorted(distance[rows])[:500]


def test_sign_products_are_the_query_against_each_codes_bits() -> None:
    from memlens.engine.vectors.vector_index import _sign_products
    from memlens.engine.vectors.vector_snapshot import binary_codes

    rng = np.random.default_rng(8)
    for dim in (384, 13):
        rows = rng.normal(size=(50, dim)).astype(np.float32)
        query = rng.normal(size=dim).astype(np.float32)
        bits = (rows > 0).astype(np.float32)
        assert np.allclose(_sign_products(binary_codes(rows), query), bits @ query, atol=1e-4)


@pytest.mark.parametrize("layout", ["current", "narrow codes"])
def test_codes_are_held_padded_for_the_scan_and_kept_so_in_the_file(tmp_path: Path, layout: str) -> None:
    """faiss compares 64-byte codes faster than 48-byte ones: a snapshot holds its codes zero-padded, and the vector
    file keeps them so, so a process reads them from the file's pages without a copy (63 MB at a million rows). A
    file of the layout before (48 bytes a row) is read as it is, its codes padded as they are read: the same codes
    and the same answers either way."""
    from memlens.engine.vectors import vector_file
    from memlens.engine.vectors.vector_snapshot import VectorSnapshot

    rng = np.random.default_rng(9)
    matrix = rng.normal(size=(EXACT_ROWS + 600, 384)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    held = VectorSnapshot.of(_rows(matrix), 384)
    assert held.codes.shape == (len(matrix), 64) and not held.codes[:, 48:].any()
    assert np.array_equal(held.codes[:, :48], np.packbits(held.base.refined_rows(slice(None)) > 0, axis=-1))
    path = tmp_path / "vectors.bin"
    held.write_file(path, stamp="s", model="m")
    with path.open("rb") as handle:  # the file's codes section: 64 bytes a row
        (length,) = struct.unpack("<I", handle.read(len(vector_file.MAGIC) + 4)[len(vector_file.MAGIC) :])
        assert json.loads(handle.read(length))["sections"]["codes"][1] == len(matrix) * 64
    if layout == "narrow codes":
        narrow_codes(path)
    stored = vector_file.read(path, stamp="s", model="m", dim=384)
    assert stored is not None and stored.codes.shape == (len(matrix), 64)
    # the file's own pages (read-only) when it keeps them padded; a padded copy of an older file's
    assert stored.codes.flags.writeable == (layout == "narrow codes")
    read = VectorSnapshot.stored(stored)
    assert np.array_equal(read.codes, held.codes)
    from_file, in_memory = VectorIndex(384), VectorIndex(384)
    from_file._snapshot, in_memory._snapshot = read, held
    for query in matrix[:5]:
        assert from_file.search(query, 10) == in_memory.search(query, 10)
    read.write_file(tmp_path / "again.bin", stamp="s", model="m")  # written again: the current layout
    assert (tmp_path / "again.bin").read_bytes().startswith(vector_file.MAGIC)


def test_a_kind_left_out_is_remembered_and_never_narrowed_by_another_filter(corpus: np.ndarray) -> None:
    """Every plain query leaves tool output out: the kept rows' mask is worked out once per snapshot and shared, so
    a search that narrows it further (a role) must not narrow it for the searches after."""
    rows = [
        VectorRow(i, "tool" if i % 3 == 0 else "transcript", "codex", "user" if i % 2 else "assistant", "s", 0.0, v)
        for i, v in enumerate(corpus[:300])
    ]
    index = VectorIndex(384)
    index.update(add=rows)
    query = corpus[1]
    users = index.search(query, 60, SearchFilters(without_kind="tool", role="user"))
    assert users and all(u % 2 == 1 and u % 3 != 0 for u, _ in users)
    anyone = index.search(query, 60, SearchFilters(without_kind="tool"))
    assert all(u % 3 != 0 for u, _ in anyone) and {u % 2 for u, _ in anyone} == {0, 1}
    assert index.search(query, 60, SearchFilters(without_kind="tool", role="user")) == users
