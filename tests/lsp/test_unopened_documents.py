"""A hover on a document the editor never opened: the server answers from the editor's documents only, and never
reads the file itself (pygls would read it whole, on the event loop: a FIFO stalled every request after it,
/dev/zero grew the server until the kernel killed it)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp.helpers import SERVER_COMMAND, Prebuilt, copy_index, execute, init_params, lsp_fixture

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]  # real server processes

ANSWER_SECONDS = 60.0  # a stalled server never answers; a working one answers in well under this


@lsp_fixture(scope="module", config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, lsp_prebuilt: Prebuilt) -> AsyncIterator[None]:
    await lsp_client.initialize_session(init_params(lsp_prebuilt, copy_index(lsp_prebuilt, "unopened")))
    await execute(lsp_client, "memlens.stats")  # the engine is open: hovers have something to say
    yield
    await lsp_client.shutdown_session()


async def hover(client: LanguageClient, uri: str) -> types.Hover | None:
    params = types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=2)
    )
    return await asyncio.wait_for(client.text_document_hover_async(params), ANSWER_SECONDS)


async def test_a_hover_on_an_unopened_file_reads_nothing_from_disk(client: LanguageClient, tmp_path: Path) -> None:
    pipe = tmp_path / "pipe.md"
    os.mkfifo(pipe)
    try:
        assert await hover(client, pipe.as_uri()) is None
        assert (await asyncio.wait_for(execute(client, "memlens.stats"), ANSWER_SECONDS))["totalChunks"] > 0
        # a word the index knows (in the example's notes), in a file on disk that the editor never opened
        on_disk = tmp_path / "notes.md"
        on_disk.write_text("pgbouncer\n", encoding="utf-8")
        assert await hover(client, on_disk.as_uri()) is None
    finally:  # a server stuck opening the pipe for reading gets its end of file
        writer = os.open(pipe, os.O_WRONLY | os.O_NONBLOCK) if _has_reader(pipe) else None
        if writer is not None:
            os.close(writer)


def _has_reader(pipe: Path) -> bool:
    try:
        os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:  # ENXIO: nobody has it open for reading
        return False
    return True


async def test_an_opened_document_still_gets_its_hover(client: LanguageClient, tmp_path: Path) -> None:
    uri = (tmp_path / "open.md").as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text="pgbouncer\n")
        )
    )
    result = await hover(client, uri)
    assert result is not None and "pgbouncer" in str(result.contents).lower()
