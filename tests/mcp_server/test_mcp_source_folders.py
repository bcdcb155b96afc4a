"""`memlens mcp` started the way README shows (no `--transcripts`) on an index built with `--transcripts DIR`: its
start-up sync keeps DIR's files, its searches find them, and it says on stderr which folders the index also holds."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from mcp_server.helpers import EXAMPLE_WORKSPACE, call, mcp_client, memlens, wait_until_indexed


async def test_mcp_without_the_flag_keeps_the_folder(tmp_path: Path) -> None:
    workspace, transcripts, index_dir = tmp_path / "ws", tmp_path / "agent-logs", tmp_path / "index"
    workspace.mkdir()
    shutil.copyfile(EXAMPLE_WORKSPACE / "MEMORY.md", workspace / "MEMORY.md")
    shutil.copytree(EXAMPLE_WORKSPACE / "transcripts", transcripts)
    flags: list[str | Path] = ["--workspace", workspace, "--index-dir", index_dir, "--no-embeddings"]
    memlens("index", *flags, "--transcripts", transcripts)
    before = json.loads(memlens("stats", "--json", *flags).stdout)

    async with mcp_client(flags) as session:
        stats = await wait_until_indexed(session)
        assert sum(stats["files"].values()) == 6, stats["files"]  # MEMORY.md and the five transcripts
        result = await call(session, "search", {"query": "dead-letter queue backing up", "limit": 10})
        data = result.structured_content
        assert not result.is_error and isinstance(data, dict)
        assert any(hit["path"].startswith(f"{transcripts}/") for hit in data["results"])
    after = json.loads(memlens("stats", "--json", *flags).stdout)
    assert (after["files"], after["totalChunks"]) == (before["files"], before["totalChunks"])

    told = memlens("sessions", "--no-sync", *flags).stderr
    assert f"this index also holds {transcripts} (memlens sources lists them)" in told
