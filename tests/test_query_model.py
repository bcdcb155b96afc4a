"""Queries embedded by the bundled model's int8 copy while documents stay fp32 (`embedding.quantizeQueries`): the
copy is made once in the model cache with its checksums recorded, its query vectors stay close to the fp32 model's,
and a copy that cannot be made leaves queries on the full model instead of failing the search."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import numpy as np
import pytest

from memlens.engine.vectors import bundled_model
from memlens.engine.vectors.bundled_model import QUANTIZED_FILE, QUANTIZED_MANIFEST, assemble_bundled_model
from memlens.engine.vectors.embedder import Embedder, load_embedder
from memlens.settings import EmbeddingSettings

QUERIES = [
    "how did we fix the dead letter queue backup",
    "which port does the dev server bind to",
    "the stylesheet is served from an ignored static folder",
]


def test_queries_use_the_int8_copy_made_once_in_the_cache(model_cache: Path, embedder: Embedder) -> None:
    assert embedder.quantized_queries  # the default
    vectors = np.stack([embedder.embed_query(q) for q in QUERIES])
    full = embedder.embed(QUERIES)  # documents: the fp32 model
    cosines = (vectors * full).sum(axis=1)
    assert np.all(cosines > 0.95) and np.all(cosines < 0.99999)  # close to fp32, yet another model's arithmetic
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    folder = assemble_bundled_model(model_cache)
    manifest = json.loads((folder / QUANTIZED_MANIFEST).read_text(encoding="utf-8"))
    assert (folder / QUANTIZED_FILE).is_file() and len(manifest["sha256"]) == 64
    made = (folder / QUANTIZED_FILE).stat().st_mtime_ns
    again, _ = load_embedder(EmbeddingSettings(), model_cache)  # another process on the same cache
    assert again is not None
    assert np.allclose(again.embed_query(QUERIES[0]), vectors[0], atol=1e-6)
    assert (folder / QUANTIZED_FILE).stat().st_mtime_ns == made  # not made again


def test_off_queries_are_embedded_like_documents(model_cache: Path) -> None:
    plain, _ = load_embedder(EmbeddingSettings(quantize_queries=False), model_cache)
    assert plain is not None and not plain.quantized_queries
    assert np.allclose(plain.embed_query(QUERIES[1]), plain.embed([QUERIES[1]])[0], atol=1e-5)


def test_a_query_model_that_cannot_be_made_falls_back_to_the_full_model(
    model_cache: Path, caplog: pytest.LogCaptureFixture
) -> None:
    full, _ = load_embedder(EmbeddingSettings(quantize_queries=False), model_cache)
    assert full is not None

    def broken() -> object:
        raise OSError("read-only model cache")

    embedder = Embedder(full.model, full.name, full.info.dim, 32, query_model=broken)  # type: ignore[arg-type]
    with caplog.at_level(logging.WARNING):
        vector = embedder.embed_query(QUERIES[2])
        embedder.forget_queries()
        embedder.embed_query(QUERIES[2])
    assert np.allclose(vector, full.embed([QUERIES[2]])[0], atol=1e-5)
    assert sum("no int8 query model" in r.getMessage() for r in caplog.records) == 1  # said once
    assert not embedder.quantized_queries


@pytest.mark.slow  # embeds a corpus
def test_whoever_embeds_documents_makes_the_int8_copy_first(tmp_path: Path) -> None:
    writer, _ = load_embedder(EmbeddingSettings(), tmp_path)
    assert writer is not None
    writer.embed(["a document"])  # the index writer loads the fp32 model: the query copy is made beside it
    folder = assemble_bundled_model(tmp_path)
    assert (folder / QUANTIZED_FILE).is_file() and (folder / QUANTIZED_MANIFEST).is_file()


def test_documents_are_embedded_even_when_the_int8_copy_cannot_be_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def refuse(folder: Path) -> str:
        raise OSError("read-only model cache")

    monkeypatch.setattr("memlens.engine.vectors.embedder.quantized_model", refuse)
    writer, _ = load_embedder(EmbeddingSettings(), tmp_path)
    assert writer is not None
    with caplog.at_level(logging.WARNING):
        documents = writer.embed(["a document", "another one"])
        query = writer.embed_query("a document")
    assert documents.shape == (2, 384)
    assert np.allclose(query, documents[0], atol=1e-5)  # the query fell back to the fp32 model
    assert any("no int8 query model" in r.getMessage() for r in caplog.records)


def test_cached_files_are_hashed_again_only_when_they_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = assemble_bundled_model(tmp_path)
    hashed: list[str] = []
    real = bundled_model._sha256

    def counted(path: Path) -> str:
        hashed.append(path.name)
        return real(path)

    monkeypatch.setattr(bundled_model, "_sha256", counted)
    assert assemble_bundled_model(tmp_path) == folder
    assert hashed == []  # every file as it was recorded: none read again
    config = folder / "config.json"
    before = config.stat()
    damaged = config.read_bytes().replace(b"{", b"[", 1)
    config.write_bytes(damaged)
    os.utime(config, ns=(before.st_atime_ns, before.st_mtime_ns))  # same size and mtime: only the ctime moved
    assemble_bundled_model(tmp_path)
    assert "config.json" in hashed  # read again, found damaged, and copied afresh from its package
    assert config.read_bytes() != damaged
    hashed.clear()
    assemble_bundled_model(tmp_path)
    assert hashed == []
