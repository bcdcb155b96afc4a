"""The optional cross-encoder pass: a model that reads the query together with each of the top hits re-orders them.

Why it exists: a cross-encoder (fastembed's TextCrossEncoder, e.g. ms-marco-MiniLM) judges relevance better than
BM25 and cosine similarity, but no package on the registries memlens may use ships its weights, so it is off by
default (`memlens.reranker.model` = "") and meant for users who have a model hub or a local copy of a model.

What it changes: the order of the top `topN` hits only. The cross-encoder's score orders them (ties keep the fused
order); the scores and calibrated probabilities then stay with the ranks, not with the texts: the hit the
cross-encoder puts first gets the first rank's score and probability, and so on. So abstention (rescoring.py `shown`)
decides exactly as it would have without the reranker — whether to answer at all, and how many hits to show — and
a cross-encoder can bring a better hit forward but never makes a junk answer look confident. (The calibration was
fitted on the retriever's features, rank included; a cross-encoder's raw logits are not calibrated.)

Loading is lazy (fastembed is imported at the first reranked query) and a model that cannot be loaded is one
warning, after which searches go on unreranked.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlens.engine.vectors.fastembed_models import ModelUnavailable, load_by_name

if TYPE_CHECKING:
    from memlens.engine.catalog import Catalog
    from memlens.engine.ranking.hits import Ranking
    from memlens.settings import RerankerSettings

log = logging.getLogger(__name__)

LOCAL_NAME = "memlens/local-cross-encoder"
"""The name a local folder's model is registered under with fastembed when `model` names no model fastembed knows."""
LOCAL_MODEL_FILES = ("model.onnx", "onnx/model.onnx")  # where a local folder may hold the ONNX file
MAX_TEXT_CHARS = 4000  # a hit's text is cut here before tokenising: the model reads at most its limit (often 512)
BATCH_SIZE = 8  # pairs per ONNX run: a batch of 30 pairs of 512 word pieces holds ≈ 380 MB of attention


def _key(settings: RerankerSettings) -> tuple[str, str, int]:
    return settings.model, settings.model_path, settings.threads


def enabled(settings: RerankerSettings) -> bool:
    return bool(settings.model or settings.model_path)


def load_model(settings: RerankerSettings, cache_dir: Path) -> Any:
    """fastembed's TextCrossEncoder for `settings`: a model fastembed knows by name (from `model_path` if given,
    else its cache, else downloaded), or the ONNX model in the `model_path` folder (model.onnx or onnx/model.onnx,
    with tokenizer.json, tokenizer_config.json and optionally config.json and special_tokens_map.json beside it)."""
    from fastembed.common.model_description import ModelSource
    from fastembed.rerank.cross_encoder import TextCrossEncoder

    known = {str(m["model"]).lower() for m in TextCrossEncoder.list_supported_models()}
    name = settings.model
    if settings.model_path and name.lower() not in known:
        folder = Path(settings.model_path)
        model_file = next((f for f in LOCAL_MODEL_FILES if (folder / f).is_file()), None)
        if model_file is None:
            raise ModelUnavailable(
                f"{folder} (memlens.reranker.modelPath) holds neither {' nor '.join(LOCAL_MODEL_FILES)}"
            )
        name = f"{LOCAL_NAME}/{model_file}"
        if name.lower() not in known:
            TextCrossEncoder.add_custom_model(name, sources=ModelSource(hf=name), model_file=model_file)
    return load_by_name(
        TextCrossEncoder,
        name,
        what="cross-encoder",
        setting="memlens.reranker.model",
        cache_dir=cache_dir / "fastembed",
        threads=settings.threads,
        model_path=settings.model_path,
    )


class CrossEncoder:
    """The engine's cross-encoder pass. Holds the model loaded for the current settings; a change of settings
    (the editor applies them without reopening the engine) loads the model they name at the next query."""

    def __init__(self, cache_dir: Path) -> None:
        self.cache_dir = cache_dir
        self._lock = threading.Lock()
        self._loaded: tuple[tuple[str, str, int], Any] | None = None
        self._failed: dict[tuple[str, str, int], str] = {}

    @property
    def loaded(self) -> bool:
        return self._loaded is not None

    def model(self, settings: RerankerSettings) -> Any:
        """The cross-encoder for `settings`, loaded now if needed; None when it cannot be had (warned once)."""
        key = _key(settings)
        loaded = self._loaded
        if loaded is not None and loaded[0] == key:
            return loaded[1]
        with self._lock:
            if self._loaded is not None and self._loaded[0] == key:
                return self._loaded[1]
            if key in self._failed:
                return None
            try:
                model = load_model(settings, self.cache_dir)
            except ModelUnavailable as exc:
                reason = str(exc)
            except Exception as exc:  # a broken model must never stop search
                reason = f"{type(exc).__name__}: {exc}"
            else:
                self._loaded = (key, model)
                return model
            self._failed[key] = reason
            log.warning("no cross-encoder: %s; results are not reranked", reason)
            return None

    def note(self, settings: RerankerSettings) -> str | None:
        """Why the configured reranker is not in use (None when it is, or when none is configured)."""
        return self._failed.get(_key(settings)) if enabled(settings) else None

    def scores(self, settings: RerankerSettings, query: str, texts: list[str]) -> list[float] | None:
        """The cross-encoder's score of each (query, text) pair, in order; None without a usable model."""
        model = self.model(settings)
        if model is None:
            return None
        cut = [text[:MAX_TEXT_CHARS] for text in texts]
        order = sorted(range(len(cut)), key=lambda i: len(cut[i]))  # similar lengths batched: less padding
        ordered = list(model.rerank(query, [cut[i] for i in order], batch_size=BATCH_SIZE))
        result = [0.0] * len(cut)
        for position, score in zip(order, ordered, strict=True):
            result[position] = float(score)
        return result

    def rerank(self, query: str, ranking: Ranking, settings: RerankerSettings, catalog: Catalog) -> Ranking:
        """`ranking` with its top `settings.top_n` hits in the cross-encoder's order (see the module docstring);
        unchanged when no reranker is configured or it cannot be loaded."""
        if not enabled(settings) or len(ranking.hits) < 2:
            return ranking
        started = time.perf_counter()
        head = ranking.hits[: settings.top_n]
        rows = catalog.units_by_id([h.unit_id for h in head])
        texts = [str(rows[h.unit_id]["text"]) if h.unit_id in rows else "" for h in head]
        scores = self.scores(settings, query, texts)
        if scores is None:
            return ranking
        order = sorted(range(len(head)), key=lambda i: (-scores[i], i))
        ranks = [(h.score, h.rank_score, h.probability) for h in head]
        reordered = [head[i] for i in order]
        for hit, (score, rank_score, probability) in zip(reordered, ranks, strict=True):
            hit.score, hit.rank_score, hit.probability = score, rank_score, probability
        ranking.hits = reordered + ranking.hits[len(head) :]
        ranking.seconds += time.perf_counter() - started
        return ranking
