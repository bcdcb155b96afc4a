"""The language server keeps a folder its settings stop naming: the index still syncs and searches it, the client is
told which folder and where it was added from (`memlens/unnamedSources`), and only `memlens.removeSource` removes it.
The real server over stdio, as the editor drives it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp.helpers import SERVER_COMMAND, Prebuilt, StatusLog, copy_index, execute, init_params, lsp_fixture

pytestmark = pytest.mark.asyncio(loop_scope="module")

SESSION_ID = "dddd0000-0000-4000-8000-00000000000d"
QUERY = "zeppelin hangar mooring mast"


def write_session(folder: Path) -> None:
    """An OpenClaw session of two messages about a zeppelin (words nothing else in the workspace uses)."""
    entries: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": SESSION_ID}]
    talk = [("user", "Where does the zeppelin moor at night?"), ("assistant", "At the hangar's mooring mast.")]
    for n, (role, text) in enumerate(talk):
        entries.append(
            {
                "type": "message",
                "id": f"z{n}",
                "parentId": f"z{n - 1}" if n else None,
                "timestamp": "2026-03-01T10:00:00Z",
                "message": {"role": role, "content": [{"type": "text", "text": text}]},
            }
        )
    folder.mkdir(parents=True)
    (folder / f"{SESSION_ID}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")


@lsp_fixture(scope="module", config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, lsp_prebuilt: Prebuilt) -> AsyncIterator[None]:
    extra = lsp_prebuilt.root / "source-folders" / "zeppelin"
    write_session(extra)
    index = copy_index(lsp_prebuilt, "source-folders")
    transcripts = {**lsp_prebuilt.options["transcripts"]}
    transcripts["paths"] = [*transcripts["paths"], str(extra)]
    params = init_params(lsp_prebuilt, index, transcripts=transcripts)
    lsp_client.base_settings = dict(params.initialization_options or {})  # type: ignore[attr-defined]
    lsp_client.extra = extra  # type: ignore[attr-defined]
    lsp_client.told = []  # type: ignore[attr-defined]
    lsp_client.feature("memlens/unnamedSources")(lambda p: lsp_client.told.append(p))  # type: ignore[attr-defined]
    lsp_client.feature("memlens/indexStatus")(StatusLog())
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


async def eventually(check: Any, timeout: float = 90.0) -> Any:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = await check()
        if value or loop.time() > deadline:
            return value
        await asyncio.sleep(0.2)


async def zeppelin_hits(client: LanguageClient) -> list[dict[str, Any]]:
    response = await execute(client, "memlens.search", {"query": QUERY, "mode": "keyword", "limit": 20})
    return [r for r in response["results"] if r["path"].startswith(str(client.extra))]  # type: ignore[attr-defined]


def plain(value: Any) -> Any:
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


async def test_settings_that_drop_a_folder_keep_it_and_say_so(client: LanguageClient) -> None:
    extra: Path = client.extra  # type: ignore[attr-defined]
    assert await eventually(lambda: zeppelin_hits(client)), "the named folder is indexed"
    listed = (await execute(client, "memlens.sources"))["sources"]
    (folder,) = [s for s in listed if s["path"] == str(extra)]
    assert folder["named"] is True and folder["files"] == 1 and folder["kind"] == "transcripts"
    assert folder["addedFrom"] == "editor setting memlens.transcripts.paths"
    assert not client.told  # type: ignore[attr-defined]

    # the settings change: the folder is no longer named (as when it lived in the other settings scope)
    settings = {**client.base_settings}  # type: ignore[attr-defined]
    settings["transcripts"] = {**settings["transcripts"], "paths": settings["transcripts"]["paths"][:-1]}
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"memlens": settings}))

    async def told() -> list[Any]:
        return client.told  # type: ignore[attr-defined,no-any-return]

    assert await eventually(told), "the client is told which folder the settings no longer name"
    (notice,) = [plain(n) for n in client.told]  # type: ignore[attr-defined]
    (unnamed,) = notice["sources"]
    assert unnamed["path"] == str(extra) and unnamed["named"] is False and unnamed["files"] == 1
    assert unnamed["addedFrom"] == "editor setting memlens.transcripts.paths"

    async def settled() -> bool:
        stats = await execute(client, "memlens.stats")
        return not stats["indexing"]

    assert await eventually(settled)
    assert await zeppelin_hits(client), "the folder is neither removed nor hidden"
    listed = (await execute(client, "memlens.sources"))["sources"]
    assert [s["named"] for s in listed if s["path"] == str(extra)] == [False]

    with pytest.raises(JsonRpcInvalidParams, match="not a folder this index holds"):
        await execute(client, "memlens.removeSource", {"path": str(extra.parent)})
    removed = await execute(client, "memlens.removeSource", {"path": str(extra)})
    assert removed == {"path": str(extra), "displayPath": str(extra), "filesRemoved": 1}
    assert not await zeppelin_hits(client)
    listed = (await execute(client, "memlens.sources"))["sources"]
    assert str(extra) not in [s["path"] for s in listed]


async def test_a_folder_the_settings_name_cannot_be_removed(client: LanguageClient) -> None:
    listed = (await execute(client, "memlens.sources"))["sources"]
    named = next(s for s in listed if s["named"] and s["kind"] == "transcripts")
    with pytest.raises(JsonRpcInvalidParams, match="is named by this command's settings"):
        await execute(client, "memlens.removeSource", {"path": named["path"]})
