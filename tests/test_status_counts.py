"""The status line's figures and the backlog's cached count, read without counting the whole queue.

A status line asks after every batch of a build, and every search answer asks whether texts still wait for
vectors (`Engine.indexing`): counted afresh each time, with 300,000 messages waiting for vectors they cost 0.5–0.6 s
and 1.0–1.1 s of CPU (bench/RESULTS.md). These tests hold the cheap reads to what the full ones say, while the
backlog shrinks batch by batch, with the real bundled model.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memlens.engine.engine import Engine
from memlens.engine.indexing.ingest import MEMORY_FORMAT
from memlens.engine.vectors.embedder import Embedder
from test_search_features import keyword_settings, openclaw_session

WORDS = ["amber", "birch", "cobalt", "dune", "ember", "fjord", "garnet", "harbor", "iris", "juniper"]


def status_as_stats_says(engine: Engine) -> dict[str, object]:
    """The status's figures as the whole `stats` report gives them."""
    stats = engine.stats(count_unindexed=False)
    return {
        "indexing": stats["indexing"],
        "sessions": stats["sessions"],
        "messages": sum(stats["messages"].values()),
        "notes": stats["files"].get(MEMORY_FORMAT, 0),
        "totalChunks": stats["totalChunks"],
        "chunksNeedingEmbeddings": stats["chunksNeedingEmbeddings"],
        "pendingMessages": stats["pendingMessages"],
        "provider": stats["provider"],
        "lastSync": stats["lastSync"],
    }


@pytest.mark.slow  # embeds a corpus
def test_the_status_and_the_cached_backlog_follow_each_batch(tmp_path: Path, embedder: Embedder) -> None:
    """After each embedding batch the status equals what `stats` says, and the writer's cached count of texts
    waiting (kept by taking each batch's texts off it) equals a count of the queue made afresh."""
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    notes = [f"note {n}: the {WORDS[n % 10]} {WORDS[n // 10 % 10]} plan, step {n}" for n in range(600)]
    openclaw_session(transcripts / "many.jsonl", "cccc0000-0000-4000-8000-000000000004", notes)
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "MEMORY.md").write_text("# notes\nthe cobalt plan is kept here\n")
    with Engine([tmp_path / "ws"], keyword_settings(), [transcripts], tmp_path / "index", embedder=embedder) as engine:
        engine.sync(embed=False)
        writer = engine.indexer.embedding
        waiting = writer.pending()
        assert waiting > 500 and engine.embeddings_wait()
        assert engine.status() == status_as_stats_says(engine)
        batches = 0
        while engine.embed_pending(max_batches=1):
            batches += 1
            cached = writer.pending()
            writer.forget_counts()
            assert cached == writer.pending() < waiting, batches  # taken off as a count afresh says
            assert engine.embeddings_wait() == (cached > 0)
            status = engine.status()
            assert status == status_as_stats_says(engine), batches
            waiting = cached
        assert batches >= 2 and waiting == 0 and not engine.embeddings_wait()
        assert engine.status()["chunksNeedingEmbeddings"] == 0 and engine.status()["notes"] == 1
