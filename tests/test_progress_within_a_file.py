"""The progress of a sync moves while one huge transcript is read a slice at a time (file_reader.SLICE_BYTES): the
bar is measured in the bytes to read and each slice says how far into the file the reading is, so a 300 MB session
shows motion and a percentage, not a bar standing still until the file is done.

Real processes: `memlens index` with its stderr on a terminal (the bar draws only there), and `memlens serve`, whose
work-done reports the test collects; each reads one long session (tests/memlens_runs.py) in slices of 16 KB, set as
the other slice tests set it. The server's throttle of reports is lifted so every slice's report reaches the client
(no report is left to when it happens to be sent)."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.lsp.client import LanguageClient

from lsp.helpers import claude_folder_params, stop_client
from memlens_runs import LONG, claude_folder_flags, on_a_terminal, write_long_session

pytestmark = pytest.mark.slow  # real processes

SLICE = 16 * 1024

SLICED = """
import sys
from memlens.engine.indexing import file_reader, ingest
file_reader.SLICE_BYTES = ingest.STREAM_BLOCK = int(sys.argv[1])
ingest.MAX_CARRY_BLOCKS = 1 << 30
import memlens.lsp.progress
memlens.lsp.progress.REPORT_INTERVAL = 0.0
from memlens.cli import main
raise SystemExit(main(sys.argv[2:]))
"""

WITHIN = re.compile(r"reading files 0/1 · (\d+)% of a 0\.\d MB file")


def _long_session(tmp_path: Path) -> int:
    """The long session alone in `tmp_path/claude`; returns its size."""
    folder = tmp_path / "claude"
    folder.mkdir()
    write_long_session(folder / f"{LONG}.jsonl")
    return (folder / f"{LONG}.jsonl").stat().st_size


def _rising(shares: list[int]) -> bool:
    return len(shares) >= 3 and shares == sorted(shares) and len(set(shares)) == len(shares) and shares[-1] < 100


def test_the_bar_of_memlens_index_moves_within_one_huge_file(tmp_path: Path) -> None:
    size = _long_session(tmp_path)
    assert size > 5 * SLICE
    command = [sys.executable, "-c", SLICED, str(SLICE), "index", *claude_folder_flags(tmp_path)]
    env = {**os.environ, "TERM": "xterm", "HOME": str(tmp_path / "home")}
    status, written = on_a_terminal(command, env=env, stdout=False, stderr=True, cwd=tmp_path)
    assert status == 0, written
    shown = re.split(r"[\r\n]", written)
    within = [line for line in shown if WITHIN.search(line)]
    shares = [int(WITHIN.search(line)[1]) for line in within]  # type: ignore[index]
    assert _rising(shares), shown
    bars = [line[1:21].count("#") for line in within]
    assert bars == sorted(bars) and bars[-1] > bars[0], within  # the bar itself moves, not only the words


@pytest.mark.asyncio(loop_scope="function")
async def test_the_editors_progress_moves_within_one_huge_file(tmp_path: Path) -> None:
    _long_session(tmp_path)
    params = claude_folder_params(tmp_path)
    client = LanguageClient("memlens-test", "1")
    progress: list[Any] = []
    client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)(lambda params: None)
    client.feature(types.PROGRESS)(lambda params: progress.append(params.value))
    client.feature("memlens/indexStatus")(lambda params: None)
    await client.start_io(sys.executable, "-c", SLICED, str(SLICE), "serve")
    try:
        await client.initialize_async(params)
        client.initialized(types.InitializedParams())
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 120
        while not any(_field(value, "kind") == "end" for value in progress):
            assert loop.time() < deadline, progress
            await asyncio.sleep(0.05)
    finally:
        await asyncio.wait_for(client.shutdown_async(None), 30)
        client.exit(None)
        await stop_client(client)
    within = [value for value in progress if WITHIN.search(_field(value, "message") or "")]
    shares = [int(WITHIN.search(_field(value, "message"))[1]) for value in within]  # type: ignore[index]
    assert _rising(shares), progress
    percentages = [_field(value, "percentage") for value in within]
    assert percentages == sorted(percentages) and percentages[-1] > percentages[0] > 0, percentages


def _field(value: Any, name: str) -> Any:
    return value.get(name) if isinstance(value, dict) else getattr(value, name, None)
