"""The editor's cancel of an indexing stops inside one huge transcript at the next slice's end
(file_reader.SLICE_BYTES) and keeps it as far as it was read; the report says so (`filesPartly`, `partlyReadBytes` of
`partlySizeBytes`), and the next reindex reads the rest as an append, ending with the index one uninterrupted build
makes.

A real `memlens serve` (keyword-only) indexes a folder holding one long session, in slices of 16 KB; its reader is held
still as it starts the second slice, wrapped to wait on a FIFO, so the cancel always comes inside that file's read and
the slice being read is the last one kept. No sleep races the server."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.lsp.client import LanguageClient

from lsp.helpers import claude_folder_params, execute, stop_client
from memlens_runs import (
    HELD_IN_ITS_SECOND_SLICE,
    LONG,
    claude_folder_flags,
    index_contents,
    release_fifo,
    run_memlens,
    write_long_session,
)

pytestmark = [pytest.mark.asyncio(loop_scope="function"), pytest.mark.slow]  # a real server process

SLICE = 16 * 1024

HOLDING_SERVER = HELD_IN_ITS_SECOND_SLICE + 'raise SystemExit(main(["serve"]))\n'


async def _until(ready: Any, what: str, timeout: float = 120) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not ready():
        assert loop.time() < deadline, what
        await asyncio.sleep(0.05)


def _message(value: Any) -> Any:
    return value.get("message") if isinstance(value, dict) else getattr(value, "message", None)


def _kind(value: Any) -> Any:
    return value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)


async def test_cancelling_inside_a_huge_transcript_keeps_it_as_far_as_it_was_read(tmp_path: Path) -> None:
    folder = tmp_path / "claude"
    folder.mkdir()
    long_file = folder / f"{LONG}.jsonl"
    write_long_session(long_file)
    os.utime(long_file, (1_700_000_000,) * 2)
    data = long_file.read_bytes()
    reached, release = tmp_path / "reached", tmp_path / "release"
    os.mkfifo(release)

    client = LanguageClient("memlens-test", "1")
    progress: dict[str, list[Any]] = {}
    client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)(lambda params: None)
    client.feature(types.PROGRESS)(lambda params: progress.setdefault(str(params.token), []).append(params.value))
    client.feature("memlens/indexStatus")(lambda params: None)
    await client.start_io(sys.executable, "-c", HOLDING_SERVER, str(SLICE), long_file.name, str(reached), str(release))
    try:
        await client.initialize_async(claude_folder_params(tmp_path))
        client.initialized(types.InitializedParams())
        await _until(reached.exists, "the server never reached the long file's second slice")
        await _until(lambda: bool(progress), "the indexing reported no progress")
        (token,) = progress
        client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
        await asyncio.sleep(0)  # (the notification is written before the reader goes on)
        release_fifo(release, None)
        await _until(lambda: any(_kind(v) == "end" for v in progress[token]), "the cancelled progress never ended")
        assert _message(progress[token][-1]) == "cancelled", progress[token]

        with sqlite3.connect(tmp_path / "index" / "catalog.sqlite3") as db:
            read, size = db.execute("SELECT parsed_bytes, size FROM files").fetchone()
        assert SLICE < read < 3 * SLICE and size == read < len(data), "two slices kept, recorded as that long a file"
        cut = tmp_path / "cut"
        (cut / "claude").mkdir(parents=True)
        (cut / "claude" / long_file.name).write_bytes(data[:read])
        assert run_memlens("index", *claude_folder_flags(cut), cwd=tmp_path).returncode == 0
        assert index_contents(tmp_path / "index") == index_contents(cut / "index"), "what was read before the cancel"

        report = await execute(client, "memlens.reindex", {})
        assert (report["filesParsed"], report["filesAppended"], report["filesPartly"]) == (0, 1, 0), report
        assert not report["cancelled"]
    finally:
        await asyncio.wait_for(client.shutdown_async(None), 30)
        client.exit(None)
        await stop_client(client)
    whole = tmp_path / "whole"
    (whole / "claude").mkdir(parents=True)
    (whole / "claude" / long_file.name).write_bytes(data)
    assert run_memlens("index", *claude_folder_flags(whole), cwd=tmp_path).returncode == 0
    assert index_contents(tmp_path / "index") == index_contents(whole / "index"), "as one uninterrupted build"
