"""Every front end says a count as people do: "1 result", "2 results", never "1 results" (one helper,
memlens/counted.py, used by the CLI and the MCP text alike)."""

from __future__ import annotations

from typing import Any

import pytest

from memlens.cli.output import describe_sync, print_sources
from memlens.cli.watch_tally import WatchTally
from memlens.counted import counted
from memlens.engine.indexing.indexer import SyncReport
from memlens.mcp import render
from memlens.wire.sources import SourceFolder, SourcesResponse


def test_counted_says_one_thing_and_many_things() -> None:
    assert counted(1, "result") == "1 result"
    assert counted(0, "result") == "0 results"
    assert counted(2, "summary", "summaries") == "2 summaries"
    assert counted(1, "summary", "summaries") == "1 summary"
    assert counted(12_345, "file", grouped=True) == "12,345 files"
    assert counted(None, "session") == "None sessions"  # a field an answer left out: shown as it is


def test_the_mcp_text_says_one_of_each_in_the_singular() -> None:
    search = render.render_search({"query": "q", "mode": "hybrid", "searchTimeMs": 3, "results": [_hit()]})
    assert search.startswith('1 result for "q"')
    fixes = render.render_fixes({"error": "boom", "fixes": [{**_hit(), "text": "boom", "after": []}]})
    assert fixes.startswith('1 past occurrence of "boom"')
    stats = render.render_stats({"sessions": 1, "totalChunks": 1, "badLines": 1, "filesWithErrors": 1, "aliases": 1})
    assert stats.startswith("1 session · 1 chunk ")
    assert "1 bad line skipped, 1 file with problems" in stats and "1 other name of indexed files" in stats
    grep = render.render_grep({"totalMatches": 1, "pattern": "x", "results": []})
    assert grep.startswith("1 summary matches /x/")
    assert render.render_grep({"totalMatches": 2, "pattern": "x", "results": []}).startswith("2 summaries match /x/")
    context = render.render_context({"items": [{}], "tokens": 40, "tokenBudget": 1, "markdown": ""})
    assert context.startswith("1 item, 40 of 1 token")


def test_the_cli_says_one_of_each_in_the_singular(capsys: pytest.CaptureFixture[str]) -> None:
    line = describe_sync(SyncReport(files_seen=1, files_parsed=1, chunks_added=1, messages_added=1, bad_lines=1))
    assert line.startswith("sync: +1 message, 1 file, 1 parsed,")
    assert "1 chunk," in line and "1 bad line skipped" in line
    assert describe_sync(SyncReport(files_seen=2)).startswith("sync: +0 messages, 2 files,")
    tally = WatchTally()
    tally.add(SyncReport(files_parsed=1, messages_added=1))
    assert tally.summary() == "1 file indexed, +1 message in 1 sync"
    tally.add(SyncReport(files_parsed=1, files_emptied=1))
    assert tally.summary() == "2 files indexed, 1 emptied (messages removed), +1 message in 2 syncs"
    assert "1 file emptied (messages removed)" in describe_sync(SyncReport(files_parsed=1, files_emptied=1), True)
    folder = SourceFolder(
        path="/n", displayPath="/n", kind="memory", files=1, units=1, addedFrom="memlens index", named=True
    )
    print_sources(SourcesResponse(sources=[folder]))
    assert "1 file, 1 unit" in capsys.readouterr().out


def _hit() -> dict[str, Any]:
    return {"kind": "transcript", "sessionKey": "claude-code:s", "messageId": "m", "score": 0.5, "text": "t"}
