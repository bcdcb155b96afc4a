"""The extension manifest declares every server setting, under `memlens.`, with the server's own default."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memlens.settings import Settings, to_wire

MANIFEST = Path(__file__).resolve().parents[1] / "package.json"
CLIENT_ONLY = {"memlens.server.pythonPath", "memlens.trace.server"}


def leaves(tree: dict[str, Any], prefix: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            out.update(leaves(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def test_every_server_setting_is_declared_with_its_default() -> None:
    manifest = json.loads(MANIFEST.read_text())
    sections = manifest["contributes"]["configuration"]
    sections = sections if isinstance(sections, list) else [sections]
    declared = {k: v for section in sections for k, v in section["properties"].items()}
    server = leaves(to_wire(Settings()), "memlens.")
    assert set(declared) - CLIENT_ONLY == set(server)
    for key, default in server.items():
        assert declared[key]["default"] == default, key
        assert declared[key].get("description") or declared[key].get("markdownDescription"), key
