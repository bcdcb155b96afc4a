"""Every count on the sync's line counts one thing, named as what it counts: the chunks it added and the chunks it
embedded are chunks, as `memlens stats` counts them ("chunks", "chunks with embeddings"), not the chunks beside the
unit texts the embedding made vectors of (a long message split into parts is several texts in one chunk: the line
said "4 chunks, 9 embedded" and a user read the two as one thing that disagreed). `--json` keeps `unitsEmbedded`
(the texts) and adds `chunksEmbedded`.

A real `memlens index` with the bundled model, over one session whose long messages are split into parts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from claude_lines import claude_line
from memlens.cli.output import describe_sync
from memlens.engine.indexing.indexer import SyncReport
from memlens.lsp.state import synced_status
from memlens_runs import memlens_with_own_home

SESSION = "3a1f0c2e-5b6d-4e7f-8a9b-0c1d2e3f4a5b"


def _session_with_long_messages(folder: Path) -> None:
    """Six messages a minute apart (neighbours: a few chunks), every other one long enough to be split in parts."""
    rows = []
    for m in range(6):
        kind = "user" if m % 2 == 0 else "assistant"
        words = " ".join(f"capybara ledger step {m} word {w}" for w in range(1200 if m % 2 else 10))
        row = claude_line(
            kind, f"c{m}", f"c{m - 1}" if m else None, words, session=SESSION, timestamp=f"2026-03-01T10:0{m}:00Z"
        )
        rows.append(json.dumps(row) + "\n")
    folder.mkdir(parents=True)
    (folder / f"{SESSION}.jsonl").write_text("".join(rows))


@pytest.mark.slow  # a CLI process that loads the model
def test_the_sync_line_counts_chunks_as_stats_does(tmp_path: Path) -> None:
    _session_with_long_messages(tmp_path / "claude")
    flags = ["--transcripts", str(tmp_path / "claude"), "--index-dir", str(tmp_path / "index"), "--scope", "all"]
    indexed = memlens_with_own_home("index", *flags, cwd=tmp_path)
    assert indexed.returncode == 0, indexed.stderr
    line = indexed.stdout.strip()
    counts = re.search(r", (\d+) chunks?, (\d+) chunks? embedded,", line)
    assert counts is not None, line
    stats = json.loads(memlens_with_own_home("stats", "--json", *flags, cwd=tmp_path).stdout)
    assert int(counts[1]) == int(counts[2]) == stats["totalChunks"] == stats["chunksWithEmbeddings"], (line, stats)
    (tmp_path / "claude" / f"{SESSION}.jsonl").unlink()
    _session_with_long_messages(tmp_path / "again" / "claude")
    flags[1] = str(tmp_path / "again" / "claude")
    flags[3] = str(tmp_path / "again" / "index")
    report = json.loads(memlens_with_own_home("index", "--json", *flags, cwd=tmp_path).stdout)
    assert report["chunksEmbedded"] == report["chunksAdded"] == stats["totalChunks"], report
    assert report["unitsEmbedded"] > report["chunksEmbedded"], report  # the texts: another count, kept as it was


def test_each_count_of_the_line_and_the_editors_status_names_what_it_counts() -> None:
    report = SyncReport(files_seen=1, files_parsed=1, chunks_added=2, units_embedded=9, chunks_embedded=2)
    line = describe_sync(report)
    assert ", 2 chunks, 2 chunks embedded," in line and "9" not in line, line
    assert synced_status(report) == "synced 1 file, 2 chunks embedded"
    assert synced_status(SyncReport(units_embedded=5)) is None  # texts embedded, no chunk whole yet: no count to say
