"""The model files are made once in the user's cache, wherever the index lives: an index given by --index-dir (a
folder anywhere) once put them two folders above itself, which for `--index-dir /tmp/x` is the file system's root."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import EXAMPLE_WORKSPACE, example_settings
from memlens.engine.engine import Engine

pytestmark = pytest.mark.slow


def test_an_index_anywhere_gathers_the_model_in_the_user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    workspace = tmp_path / "workspace"
    shutil.copytree(EXAMPLE_WORKSPACE, workspace)
    index_dir = tmp_path / "elsewhere" / "index"
    with Engine([workspace], example_settings(), index_dir=index_dir, embedder=True) as engine:
        assert engine.embedder is not None, engine.provider_note
        engine.sync()
        assert engine.search("how did we fix the dead-letter queue backup?", limit=3, mode="vector")["results"]
    gathered = tmp_path / "cache" / "memlens" / "models" / "all-MiniLM-L6-v2-int8"
    assert (gathered / "model.onnx").is_file() and (gathered / "tokenizer.json").is_file()
    assert not (tmp_path / "models").exists()  # two folders above the index
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "elsewhere", "workspace"]
