"""Whether a running server can answer a command as the command's own engine would: both index with the same
settings and the server reads every transcript folder the command names (named to it, or remembered by its index).
Either side computes `terms` from its settings; the server compares and declines with the first difference, which
the CLI says (under -v, or when the user's flags caused it) before it opens the index itself."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from memlens.settings import Settings
from memlens.settings.values import cut_shown

# what does not change an answer: the hover's look, and where the index lives (the socket's folder decides that)
_IGNORED = ("hover", "index_dir")
_MODEL_KEYS = ("embedding.",)  # a keyword search reads no vectors: the model then does not matter


def terms(settings: Settings, transcripts: Iterable[Path]) -> dict[str, Any]:
    """What decides what an engine indexes and answers: its settings, flattened, and the transcript folders named."""
    data = {k: v for k, v in dataclasses.asdict(settings).items() if k not in _IGNORED}
    flat = _flatten(json.loads(json.dumps(data, default=str)))
    if not flat.get("display.time_zone"):
        # "" is the machine's zone, which is each process's (its TZ): a server started in another zone reads the
        # asker's "yesterday" and "--since monday" as other days, so the zone itself is compared
        flat["display.time_zone"] = machine_zone()
    return {"settings": flat, "transcripts": sorted(str(Path(p).expanduser().resolve()) for p in transcripts)}


def machine_zone() -> str:
    """This process's zone as a user reads it, with its offset now: two zones of one abbreviation differ by it."""
    now = datetime.now().astimezone()
    offset = now.strftime("%z")
    return f"the machine's zone ({now.tzname()}, {offset[:3]}:{offset[3:]})"


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, Mapping):
            out.update(_flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def difference(asked: object, served: dict[str, Any], server_folders: Iterable[str], *, keyword: bool) -> str | None:
    """Why a server with `served` terms and `server_folders` (the folders its index holds) cannot answer a request
    that `asked` for, or None when it can. `keyword`: the request reads no vectors."""
    if not isinstance(asked, Mapping):
        return "the request's settings are not an object"
    asked_settings = asked.get("settings")
    if not isinstance(asked_settings, Mapping):
        return "the request's settings are not an object"
    for key in sorted(set(asked_settings) | set(served["settings"])):
        if keyword and key.startswith(_MODEL_KEYS):
            continue
        mine, theirs = asked_settings.get(key), served["settings"].get(key)
        if mine != theirs:
            return f"the server runs with {_setting(key)}={_show(theirs)}, this command with {_show(mine)}"
    known = set(served["transcripts"]) | set(server_folders)
    for folder in asked.get("transcripts") or []:
        if str(folder) not in known:
            return f"the server does not read {folder}"
    return None


def _setting(key: str) -> str:
    head, _, tail = key.partition(".")
    camel = "".join(w.capitalize() if i else w for i, w in enumerate((tail or head).split("_")))
    return f"{head}.{camel}" if tail else camel


def _show(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else cut_shown(text, 57) + "…"
