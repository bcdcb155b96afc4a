"""The editor's face of an empty index: when the language server's first sync leaves the index holding nothing, it
shows one message saying where it looked and what would find something (the engine's `EmptyIndex` lines), and
`memlens.reindex` answers the same facts as `empty`."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp.helpers import SERVER_COMMAND, SYNTHETIC_TRANSCRIPTS, execute, lsp_fixture, wait_until


@lsp_fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[None]:
    workspace = tmp_path / "ws"
    shutil.copytree(SYNTHETIC_TRANSCRIPTS / "openclaw", workspace / "exports")  # not where any agent writes
    options: dict[str, Any] = {
        "indexDir": str(tmp_path / "index"),
        "transcripts": {"agentDefaults": False},
        "embedding": {"enabled": False},
    }
    params = types.InitializeParams(
        capabilities=types.ClientCapabilities(
            window=types.WindowClientCapabilities(work_done_progress=True, show_message=None)
        ),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
        initialization_options=options,
    )
    lsp_client.exports = str((workspace / "exports").resolve())  # type: ignore[attr-defined]
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


def told(client: LanguageClient) -> list[str]:
    return [m.message for m in client.messages if "the index is empty" in m.message]


@pytest.mark.slow  # a real language server process
async def test_a_first_sync_that_leaves_the_index_empty_is_shown_with_the_step_that_finds_something(
    client: LanguageClient,
) -> None:
    await wait_until(lambda: told(client))
    exports = client.exports  # type: ignore[attr-defined]
    # the editor's user is told the setting to set, not a command-line flag
    step = f"2 transcript files are under {exports}: {exports!r} in memlens.transcripts.paths reads them."
    assert told(client)[0].startswith("memlens: the index is empty: looked in ") and told(client)[0].endswith(step)
    report = await execute(client, "memlens.reindex", {})
    assert report["empty"]["finds"] == [
        {
            "folder": exports,
            "count": 2,
            "more": False,
            "flag": f"--transcripts {exports}",
            "setting": f"{exports!r} in memlens.transcripts.paths",
        }
    ]
