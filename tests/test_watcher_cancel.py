"""Cancelling the live indexer's embedding backlog stops it until there is new work (the LSP's cancellable
initial-indexing progress calls this): before, the cancel stopped one batch and the next began 0.2 s later."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from memlens.engine.engine import Engine
from memlens.engine.vectors.embedder import Embedder
from memlens.engine.watcher import LiveIndexer
from memlens.settings import Settings

WORDS = ["amber", "birch", "cobalt", "dune", "ember", "fjord", "garnet", "harbor", "iris", "juniper"]


def many_notes(path: Path, count: int, tag: str) -> None:
    """An OpenClaw session of `count` distinct messages (more than one embedding batch of 256)."""
    lines = [json.dumps({"type": "session", "version": 3, "id": f"dddd0000-0000-4000-8000-{tag:0>12}", "cwd": "/w"})]
    parent = None
    for n in range(count):
        text = f"{tag} note {n}: the {WORDS[n % 10]} {WORDS[n // 10 % 10]} plan, step {n}"
        message = {"role": "user" if n % 2 == 0 else "assistant", "content": [{"type": "text", "text": text}]}
        when = f"2026-03-01T10:{n // 60 % 60:02d}:{n % 60:02d}Z"
        entry = {"type": "message", "id": f"{tag}-{n}", "parentId": parent, "timestamp": when, "message": message}
        lines.append(json.dumps(entry))
        parent = f"{tag}-{n}"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def wait_for(predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


@pytest.mark.slow  # embeds, then watches the backlog stay
def test_cancel_pauses_the_backlog_until_new_work(tmp_path: Path, embedder: Embedder) -> None:
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    many_notes(transcripts / "many.jsonl", 300, "1")
    (tmp_path / "ws").mkdir()
    settings = Settings()
    settings.transcripts.agent_defaults = False
    with Engine([tmp_path / "ws"], settings, [transcripts], tmp_path / "index", embedder=embedder) as engine:
        first_batch = threading.Event()
        live: LiveIndexer

        def progress(done: int, total: int, message: str) -> None:
            if message.startswith("embedding ") and not first_batch.is_set():
                live.cancel()  # the client cancelled the indexing progress during the first batch
                first_batch.set()

        live = LiveIndexer(engine, on_progress=progress)
        live.start()
        try:
            assert first_batch.wait(120), "no embedding batch finished"
            assert wait_for(lambda: not live.busy.is_set(), 60)
            pending = engine.pending_embeddings()
            assert pending == 300 - 256
            time.sleep(2.0)  # a backlog that ignored the cancel would be embedded by now (one batch of 44)
            assert not wait_for(lambda: engine.pending_embeddings() < pending, 3.0), "the cancelled backlog went on"
            # new work resumes the backlog: the new file and the rest of the old one get their vectors
            many_notes(transcripts / "more.jsonl", 3, "2")
            live.notify(changed=[transcripts / "more.jsonl"])
            assert wait_for(lambda: engine.pending_embeddings() == 0, 120), engine.pending_embeddings()
        finally:
            live.stop()


def test_a_ctrl_c_while_watch_starts_stops_its_threads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`memlens watch` on one Ctrl-C: the first sync can be reported before the threads have all started, and a Ctrl-C
    then (what a user who saw the line presses) must stop them, not leave them running under a closing engine."""
    from memlens.engine import watcher

    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "MEMORY.md").write_text("# Memory\n\nStart.\n")
    settings = Settings()
    settings.transcripts.agent_defaults = False
    started: list[LiveIndexer] = []
    real_start = LiveIndexer.start

    def start_then_interrupted(self: LiveIndexer) -> None:
        real_start(self)
        started.append(self)
        raise KeyboardInterrupt  # as if the signal landed in Thread.start's wait

    monkeypatch.setattr(LiveIndexer, "start", start_then_interrupted)
    with Engine([tmp_path / "ws"], settings, [], tmp_path / "index", embedder=False) as engine:
        assert watcher.run_foreground(engine, 100, lambda report: None) == 0
        (live,) = started
        assert not any(thread.is_alive() for thread in live._threads)
