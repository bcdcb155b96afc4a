"""Helpers for the language-server tests: the prebuilt workspace, init params, command calls, status capture."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig

from conftest import FIXTURES

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "workspace"
SHARED_TRANSCRIPTS = FIXTURES  # the real ones in ../shared, when present
SYNTHETIC_TRANSCRIPTS = REPO / "tests" / "fixtures" / "transcripts"
SERVER_COMMAND = [sys.executable, "-m", "memlens", "serve"]
# the transcripts copied in beside the example: small real ones (embedding is slow on CI machines), else small
# committed synthetic ones
SHARED_PICK = ("openclaw/*.jsonl", "claude-code/short.jsonl")
SYNTHETIC_PICK = ("openclaw/*.jsonl", "claude-code/8d2e4b6a-1c3f-4a5b-9e7d-0f1a2b3c4d5e.jsonl")

_Fixture = TypeVar("_Fixture", bound=Callable[..., Any])


def lsp_fixture(*, config: ClientServerConfig, **kwargs: Any) -> Callable[[_Fixture], _Fixture]:
    """`pytest_lsp.fixture` with a type: the library's decorator is unannotated, which mypy --strict refuses."""
    return cast(Callable[[_Fixture], _Fixture], pytest_lsp.fixture(config=config, **kwargs))


@dataclass
class Prebuilt:
    """A workspace (read-only for tests), its indexed settings and a ready index to copy."""

    root: Path
    workspace: Path
    index: Path
    options: dict[str, Any]
    has_shared: bool


def base_options(workspace: Path, index_dir: Path, has_shared: bool) -> dict[str, Any]:
    paths = ["transcripts", ".specstory/history", "shared"]
    return {
        "indexDir": str(index_dir),
        "transcripts": {"paths": paths, "agentDefaults": False},
    }


def copy_index(prebuilt: Prebuilt, name: str) -> Path:
    """A private copy of the prebuilt index (same workspace paths, so nothing needs embedding again)."""
    target = prebuilt.root / "indexes" / name
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(prebuilt.index, target, ignore=shutil.ignore_patterns("writer.lock"))
    return target


def init_params(prebuilt: Prebuilt, index_dir: Path, **overrides: Any) -> types.InitializeParams:
    """InitializeParams for the prebuilt workspace, with work-done progress and configuration support."""
    options = {**prebuilt.options, "indexDir": str(index_dir), **overrides}
    return types.InitializeParams(
        capabilities=types.ClientCapabilities(
            window=types.WindowClientCapabilities(work_done_progress=True, show_message=None),
            workspace=types.WorkspaceClientCapabilities(configuration=True, workspace_folders=True),
        ),
        workspace_folders=[types.WorkspaceFolder(uri=prebuilt.workspace.as_uri(), name="workspace")],
        initialization_options=options,
    )


class StatusLog:
    """Collects `memlens/indexStatus` notifications."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def __call__(self, params: Any) -> None:
        self.items.append(params if isinstance(params, dict) else _plain(params))


def _plain(value: Any) -> Any:
    """pygls hands custom notification params over as attribute objects; turn them back into dicts."""
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def claude_folder_params(tmp_path: Path) -> types.InitializeParams:
    """A keyword-only server over `tmp_path/claude` alone (no agent folder), its index in `tmp_path/index`, that
    reports its progress (the workspace `tmp_path/ws` is made here)."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    options = {
        "indexDir": str(tmp_path / "index"),
        "scope": "all",
        "transcripts": {"paths": [str(tmp_path / "claude")], "agentDefaults": False},
        "embedding": {"enabled": False},
    }
    return types.InitializeParams(
        capabilities=types.ClientCapabilities(
            window=types.WindowClientCapabilities(work_done_progress=True),
            workspace=types.WorkspaceClientCapabilities(configuration=True, workspace_folders=True),
        ),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
        initialization_options=options,
    )


async def stop_client(client: Any) -> None:
    """pygls's `JsonRPCClient.stop`, which is unannotated (mypy --strict refuses untyped calls)."""
    stop = cast(Callable[[], Awaitable[None]], client.stop)
    await stop()


async def execute(client: Any, command: str, argument: dict[str, Any] | None = None) -> Any:
    """`workspace/executeCommand` with one object argument."""
    params = types.ExecuteCommandParams(command=command, arguments=[argument if argument is not None else {}])
    return await client.workspace_execute_command_async(params)


async def wait_until(predicate: Any, timeout: float = 60.0, step: float = 0.1) -> None:
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(step)
