"""Shared fixtures: the real model loaded once, the example workspace, the shared real transcripts."""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from memlens.engine.engine import Engine
from memlens.engine.vectors.embedder import Embedder, load_embedder
from memlens.settings import EmbeddingSettings, Settings, load_workspace_file, merge

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_WORKSPACE = REPO / "examples" / "workspace"
# the real data next to the clone; MEMLENS_SHARED=/nonexistent runs the suite as a clone without ../shared would
SHARED = Path(os.environ.get("MEMLENS_SHARED") or REPO.parent / "shared")
FIXTURES = SHARED / "fixtures" / "transcripts"


def ctrl_c_reaches() -> None:
    """A child process's `preexec_fn`: SIGINT as a terminal gives it. A test run started in the background of a
    script (nohup, `&`) ignores SIGINT, its children inherit that, and a Ctrl-C sent to them would never arrive."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="session")
def embedder(model_cache: Path) -> Embedder:
    """The real bundled all-MiniLM-L6-v2 (int8), loaded once per test session."""
    loaded, reason = load_embedder(EmbeddingSettings(), model_cache)
    assert loaded is not None, f"the bundled model must load offline: {reason}"
    return loaded


@pytest.fixture(scope="session")
def transcript_folder() -> Path:
    """The real transcripts in ../shared, else the committed synthetic ones (every format): a clone without the
    real data runs the same test on them."""
    return FIXTURES if FIXTURES.is_dir() else REPO / "tests" / "fixtures" / "transcripts"


def example_settings() -> Settings:
    """What the CLI and the server read for the example: defaults plus its .memlens.json."""
    warnings: list[str] = []
    settings = merge(Settings(), load_workspace_file(EXAMPLE_WORKSPACE, warnings), warnings)
    assert not warnings, warnings
    return settings


@pytest.fixture(scope="session")
def built_example(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> tuple[Path, Path]:
    """A copy of the example workspace and its fully built index (with vectors), made once per session."""
    root = tmp_path_factory.mktemp("example")
    workspace = root / "workspace"
    shutil.copytree(EXAMPLE_WORKSPACE, workspace)
    index_dir = root / "index"
    with Engine([workspace], example_settings(), index_dir=index_dir, embedder=embedder) as engine:
        engine.sync()
    return workspace, index_dir


@pytest.fixture
def example(built_example: tuple[Path, Path], tmp_path: Path, embedder: Embedder) -> Iterator[Engine]:
    """A private copy of the built example (workspace + index) that a test may change freely."""
    workspace, index_dir = tmp_path / "workspace", tmp_path / "index"
    shutil.copytree(built_example[0], workspace)
    shutil.copytree(built_example[1], index_dir)
    # the catalog stores absolute paths: point it at this copy; and each file's device, inode and ctime, which a copy
    # does not keep: forgotten, as in a catalog from before them, so the copy counts as unchanged
    with Engine([workspace], example_settings(), index_dir=index_dir, embedder=embedder) as engine:
        with engine.catalog.transaction() as db:
            db.execute("UPDATE files SET path = replace(path, ?, ?)", (str(built_example[0]), str(workspace)))
            db.execute("UPDATE roots SET path = replace(path, ?, ?)", (str(built_example[0]), str(workspace)))
            db.execute("UPDATE files SET dev = NULL, ino = NULL, ctime_ns = NULL")
        yield engine


def notes_engine(tmp_path: Path, notes: dict[str, str]) -> Engine:
    """A keyword-only engine over memory notes only (no agent transcript folders), synced: `notes` maps a file name
    under `memory/` to its text."""
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True, exist_ok=True)
    for name, text in notes.items():
        (workspace / "memory" / name).write_text(text, encoding="utf-8")
    settings = Settings()
    settings.transcripts.agent_defaults = False
    engine = Engine([workspace], settings, index_dir=tmp_path / "index", embedder=False)
    engine.sync()
    return engine
