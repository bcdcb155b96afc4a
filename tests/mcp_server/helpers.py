"""Helpers for the MCP tests: a real `memlens mcp` subprocess driven by the official SDK's stdio client."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from conftest import FIXTURES

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_WORKSPACE = REPO / "examples" / "workspace"
SHARED_TRANSCRIPTS = FIXTURES  # the real transcripts in ../shared, when present
MEMLENS = [sys.executable, "-m", "memlens"]
READY_SECONDS = 60.0


def memlens(*args: str | Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run the CLI (index, sessions, history, …) to completion."""
    return subprocess.run(
        [*MEMLENS, *map(str, args)], capture_output=True, text=True, check=check, timeout=300, env=_env()
    )


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "server") + os.pathsep + env.get("PYTHONPATH", "")
    return env


@asynccontextmanager
async def mcp_client(args: Sequence[str | Path], cwd: Path | None = None) -> AsyncIterator[ClientSession]:
    """An initialized SDK client session on a fresh `memlens mcp ARGS` process (stderr goes to the test log)."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memlens", "mcp", *map(str, args)], env=_env(), cwd=cwd
    )
    async with stdio_client(params, errlog=_stderr_fd()) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def _stderr_fd() -> TextIO:
    """The process's file descriptor 2, where pytest captures each test's output (`-s`: the terminal).

    Never the SDK's default: that is whatever `sys.stderr` was when `mcp` was first imported, a `capsys` buffer
    with no file descriptor if a test using `capsys` imported it first, and then no server can start."""
    stderr = sys.__stderr__
    assert stderr is not None, "the tests run with a standard error"
    return stderr


async def call(session: ClientSession, tool: str, arguments: dict[str, Any] | None = None) -> types.CallToolResult:
    result = await session.call_tool(tool, arguments or {})
    assert isinstance(result, types.CallToolResult)
    return result


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def wire(result: types.CallToolResult) -> str:
    """Everything the answer carries, as one string (for "never appears" checks)."""
    return text_of(result) + json.dumps(result.structured_content, ensure_ascii=False)


async def wait_until_indexed(session: ClientSession) -> dict[str, Any]:
    """Poll `stats` until the server's start-up sync and embedding are done."""
    deadline = time.monotonic() + READY_SECONDS
    while True:
        result = await call(session, "stats")
        stats = result.structured_content
        assert isinstance(stats, dict) and not result.is_error
        if not stats["indexing"] or time.monotonic() > deadline:
            return stats
        await asyncio.sleep(0.2)
