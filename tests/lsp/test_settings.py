"""Settings over LSP: invalid values warn (never crash), exclusions hide sessions from every command, null pulls,
and workspace trust: an untrusted workspace's .memlens.json cannot choose where memlens reads or writes."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp.helpers import EXAMPLE, SERVER_COMMAND, Prebuilt, copy_index, execute, init_params, lsp_fixture

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]  # real server processes

OPENCLAW = "openclaw:9d3b6e21-47c8-4a0f-b2e5-6c1f8a9d0e74"


@lsp_fixture(scope="module", config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, lsp_prebuilt: Prebuilt) -> AsyncIterator[None]:
    lsp_client.prebuilt = lsp_prebuilt  # type: ignore[attr-defined]
    # an invalid value in initializationOptions: a warning, the default is used, the server runs
    params = init_params(lsp_prebuilt, copy_index(lsp_prebuilt, "settings"), search={"maxResults": "many"})
    # what a client sends on every change: its whole set of settings (here, what the test started with)
    lsp_client.base_settings = {  # type: ignore[attr-defined]
        k: v for k, v in (params.initialization_options or {}).items() if k != "search"
    }
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


def full(client: LanguageClient, changes: dict[str, Any]) -> dict[str, Any]:
    """The client's whole settings with `changes` applied (didChangeConfiguration replaces, it does not patch)."""
    return {**client.base_settings, **changes}  # type: ignore[attr-defined]


def configure(client: LanguageClient, settings: Any) -> None:
    if isinstance(settings, dict) and isinstance(settings.get("memlens"), dict):
        settings = {"memlens": full(client, settings["memlens"])}
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=settings))


async def eventually(check: Any, timeout: float = 60.0) -> Any:
    """Retry an async check until it returns a truthy value (settings apply asynchronously)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = await check()
        if value or loop.time() > deadline:
            return value
        await asyncio.sleep(0.2)


async def openclaw_hits(client: LanguageClient) -> list[dict[str, Any]]:
    response = await execute(client, "memlens.search", {"query": "offsite Café Nordlys agenda", "limit": 20})
    return [r for r in response["results"] if r.get("sessionKey") == OPENCLAW]


async def test_invalid_initialization_options_warn(client: LanguageClient) -> None:
    await eventually(lambda: asyncio.sleep(0, result=bool(client.messages)))
    warning = client.messages[0]
    assert warning.type == types.MessageType.Warning and "memlens.search.maxResults" in warning.message
    assert (await execute(client, "memlens.stats"))["totalChunks"] > 0


async def test_invalid_change_warns_and_server_answers(client: LanguageClient) -> None:
    before = len(client.messages)
    configure(client, {"memlens": {"search": {"mode": "psychic"}, "hover": {"minScore": "high"}, "bogus": 1}})
    await eventually(lambda: asyncio.sleep(0, result=len(client.messages) > before))
    message = client.messages[-1]
    assert message.type == types.MessageType.Warning
    for problem in ("memlens.search.mode", "memlens.hover.minScore", "memlens.bogus"):
        assert problem in message.message
    response = await execute(client, "memlens.search", {"query": "pgbouncer"})
    assert response["mode"] == "hybrid" and response["results"]  # defaults were used


async def test_a_warning_quoting_a_pasted_key_shows_it_masked(client: LanguageClient) -> None:
    """A setting's bad value is quoted in the editor's warning: a key pasted into the wrong field is masked there."""
    token = "ghp_" + "Zq7Lm2Np9Rt4Vw8Ys1Ua6Bc3De5Fg0Hj7Kk4M"
    before = len(client.messages)
    configure(client, {"memlens": {"search": {"mode": token}}})
    await eventually(lambda: asyncio.sleep(0, result=len(client.messages) > before))
    message = client.messages[-1].message
    assert "memlens.search.mode" in message and "[REDACTED:github-token]" in message and token not in message
    configure(client, {"memlens": {}})


async def test_exclude_sessions_hides_a_session_everywhere(client: LanguageClient) -> None:
    assert await openclaw_hits(client)
    configure(client, {"memlens": {"excludeSessions": [OPENCLAW]}})
    assert await eventually(lambda: _hidden(client))
    with pytest.raises(JsonRpcInvalidParams, match="unknown session"):
        await execute(client, "memlens.history", {"sessionKey": OPENCLAW})
    grep = await execute(client, "memlens.summaries.grep", {"pattern": "Nordlys"})
    assert all(r["sessionKey"] != OPENCLAW for r in grep["results"])
    pack = await execute(client, "memlens.context", {"question": "offsite agenda at Café Nordlys"})
    assert OPENCLAW not in pack["markdown"]
    with pytest.raises(JsonRpcInvalidParams, match="unknown session"):  # as a session that does not exist
        await execute(client, "memlens.search", {"query": "offsite", "filters": {"session": OPENCLAW}})
    configure(client, {"memlens": {}})  # the setting removed in the editor: it no longer applies
    assert await eventually(lambda: openclaw_hits(client))


async def _hidden(client: LanguageClient) -> bool:
    return not await openclaw_hits(client)


async def test_summary_ids_of_hidden_sessions_are_unknown(client: LanguageClient) -> None:
    grep = await execute(client, "memlens.summaries.grep", {"pattern": "Nordlys"})
    summary = next(r["summaryId"] for r in grep["results"] if r["sessionKey"] == OPENCLAW)
    configure(client, {"memlens": {"excludeSessions": ["9d3b6e21-47c8-4a0f-b2e5-6c1f8a9d0e74"]}})  # a session id
    assert await eventually(lambda: _hidden(client))
    for command in ("memlens.summaries.describe", "memlens.summaries.expand"):
        with pytest.raises(JsonRpcInvalidParams, match="unknown summary"):
            await execute(client, command, {"summaryId": summary})
    configure(client, {"memlens": {"excludeSessions": []}})
    assert await eventually(lambda: openclaw_hits(client))


async def test_null_settings_pull_workspace_configuration(client: LanguageClient) -> None:
    client.set_configuration(full(client, {"excludeSessions": [OPENCLAW]}), section="memlens")
    configure(client, None)
    assert await eventually(lambda: _hidden(client))
    client.set_configuration(full(client, {"excludeSessions": []}), section="memlens")
    configure(client, None)
    assert await eventually(lambda: openclaw_hits(client))


async def test_transcript_exclude_glob_reindexes_without_the_files(client: LanguageClient) -> None:
    prebuilt: Prebuilt = client.prebuilt  # type: ignore[attr-defined]
    configure(client, {"memlens": {"transcripts": {**prebuilt.options["transcripts"], "exclude": ["*openclaw*"]}}})

    async def gone() -> bool:
        stats = await execute(client, "memlens.stats")
        return "openclaw" not in stats["files"] and not stats["indexing"]

    assert await eventually(gone)
    assert not await openclaw_hits(client)
    with pytest.raises(JsonRpcInvalidParams, match="unknown session"):
        await execute(client, "memlens.history", {"sessionKey": OPENCLAW})
    assert (await execute(client, "memlens.search", {"query": "pgbouncer"}))["results"]


# -- workspace trust ------------------------------------------------------------------------------------------------

# the untrusted server falls back to the default index folder: keep it out of the user's cache
TRUST_CACHE = Path(tempfile.mkdtemp(prefix="memlens-trust-cache-"))
TRUST_CONFIG = ClientServerConfig(
    server_command=SERVER_COMMAND, server_env={**os.environ, "XDG_CACHE_HOME": str(TRUST_CACHE)}
)


def trust_params(root: Path, trusted: bool) -> types.InitializeParams:
    """The example workspace whose .memlens.json names an index folder and a transcripts folder."""
    workspace = root / "workspace"
    shutil.copytree(EXAMPLE, workspace)
    config = {"indexDir": str(root / "json-index"), "transcripts": {"paths": ["transcripts"], "agentDefaults": False}}
    (workspace / ".memlens.json").write_text(json.dumps(config))
    return types.InitializeParams(
        capabilities=types.ClientCapabilities(workspace=types.WorkspaceClientCapabilities(configuration=True)),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="workspace")],
        initialization_options={"workspaceTrusted": trusted, "embedding": {"enabled": False}},
    )


@lsp_fixture(scope="module", config=TRUST_CONFIG)
async def untrusted(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[None]:
    root = tmp_path_factory.mktemp("untrusted")
    lsp_client.root = root  # type: ignore[attr-defined]
    await lsp_client.initialize_session(trust_params(root, trusted=False))
    yield
    await lsp_client.shutdown_session()
    shutil.rmtree(TRUST_CACHE, ignore_errors=True)


@lsp_fixture(scope="module", config=TRUST_CONFIG)
async def trusted(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[None]:
    root = tmp_path_factory.mktemp("trusted")
    lsp_client.root = root  # type: ignore[attr-defined]
    await lsp_client.initialize_session(trust_params(root, trusted=True))
    yield
    await lsp_client.shutdown_session()


async def indexed_stats(client: LanguageClient) -> dict[str, Any]:
    async def done() -> dict[str, Any] | None:
        stats = await execute(client, "memlens.stats")
        return stats if stats["totalChunks"] > 0 and not stats["indexing"] else None

    stats: dict[str, Any] | None = await eventually(done)
    assert stats, "the server never finished indexing"
    return stats


async def test_untrusted_workspace_file_cannot_choose_locations(untrusted: LanguageClient) -> None:
    root: Path = untrusted.root  # type: ignore[attr-defined]
    stats = await indexed_stats(untrusted)
    assert Path(stats["indexDir"]).is_relative_to(TRUST_CACHE) and not (root / "json-index").exists()
    # transcripts.paths was not applied: only the memory notes and the workspace's own .specstory exports are indexed
    assert set(stats["files"]) <= {"markdown", "specstory"}
    warnings = " ".join(m.message for m in untrusted.messages if m.type == types.MessageType.Warning)
    for setting in ("memlens.indexDir", "memlens.transcripts.paths"):
        assert f"{setting}: not applied from {root / 'workspace' / '.memlens.json'}" in warnings
    assert "the workspace is not trusted" in warnings


async def test_trusted_workspace_file_applies_locations(trusted: LanguageClient) -> None:
    root: Path = trusted.root  # type: ignore[attr-defined]
    stats = await indexed_stats(trusted)
    assert Path(stats["indexDir"]) == root / "json-index"
    assert "claude-code" in stats["files"]  # transcripts.paths applied: the bundled Claude Code transcripts too
    assert not any("not trusted" in m.message for m in trusted.messages)
