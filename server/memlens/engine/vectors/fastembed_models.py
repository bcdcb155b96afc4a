"""Loading a fastembed model by name (a text embedding or a cross-encoder) so that failing takes one clear line.

fastembed, asked for a model it cannot download, logs every attempt through loguru to stderr and sleeps 3, 9 and 27 s
around its three tries before raising a bare ValueError: with no network here, `memlens search --model
BAAI/bge-small-en-v1.5` took 45 s and printed six loguru lines. memlens instead loads from the local folder the user
named, else from the model cache without the network, else downloads, but only once the hub has answered a TCP
connect; fastembed's own log lines are silenced meanwhile, and every failure is one `ModelUnavailable` naming the
model, the cause and what to do.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from memlens.errors import MemlensError

REACH_TIMEOUT = 3.0  # seconds a TCP connect to the model hub may take before it counts as unreachable
_PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")
_TRUE = {"1", "TRUE", "YES", "ON"}


class ModelUnavailable(MemlensError):
    """A model could not be found, downloaded, verified or loaded."""


@contextlib.contextmanager
def quiet_fastembed() -> Iterator[None]:
    """fastembed's loguru lines off while loading: its failures reach the user as one `ModelUnavailable` line."""
    from loguru import logger

    logger.disable("fastembed")
    try:
        yield
    finally:
        logger.enable("fastembed")


def hub_unreachable(timeout: float = REACH_TIMEOUT) -> str | None:
    """Why the model hub (huggingface_hub's endpoint, `HF_ENDPOINT`) cannot be reached; None when it answers, or
    when a proxy is configured (a direct connect then proves nothing, and the download itself decides)."""
    if any(os.environ.get(name) for name in _PROXY_VARIABLES):
        return None
    from huggingface_hub import constants

    url = urlsplit(constants.ENDPOINT)
    host = url.hostname or "huggingface.co"
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        return f"{host}:{port} cannot be reached ({exc.strerror or exc})"
    return None


def offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in _TRUE


def load_by_name(
    kind: Any, name: str, *, what: str, setting: str, cache_dir: Path, threads: int | None, model_path: str = ""
) -> Any:
    """`kind(name, …)` (fastembed's TextEmbedding or TextCrossEncoder): from `model_path` if given, else the cache,
    else a download. `what` names the kind of model and `setting` the setting that chose it, for the messages."""
    supported = {str(m["model"]).lower() for m in kind.list_supported_models()}
    if name.lower() not in supported:
        raise ModelUnavailable(
            f"{name!r} ({setting}) is not a {what} model fastembed knows (see {kind.__name__}.list_supported_models())"
        )
    kwargs: dict[str, Any] = {"cache_dir": str(cache_dir), "threads": threads}
    with quiet_fastembed():
        if model_path:
            if not Path(model_path).is_dir():
                raise ModelUnavailable(f"{model_path} ({setting}Path) is not a folder")
            try:
                return kind(name, specific_model_path=model_path, **kwargs)
            except Exception as exc:
                raise ModelUnavailable(f"cannot load the {what} model {name} from {model_path}: {exc}") from exc
        with contextlib.suppress(Exception):  # not in the cache (yet)
            return kind(name, local_files_only=True, **kwargs)
        advice = f"download it where the hub is reachable, or put its files in a folder named by {setting}Path"
        if offline():
            raise ModelUnavailable(f"the {what} model {name} is not in {cache_dir} and HF_HUB_OFFLINE is set: {advice}")
        reason = hub_unreachable()
        if reason is not None:
            raise ModelUnavailable(f"cannot download the {what} model {name}: {reason}; {advice}")
        try:
            return kind(name, **kwargs)
        except Exception as exc:
            raise ModelUnavailable(f"cannot download the {what} model {name}: {exc}; {advice}") from exc
