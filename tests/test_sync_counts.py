"""The figures a sync reports (`memlens index`'s line, the editor's progress) count what `memlens stats` then shows:
its "+N messages" counted tool outputs too, 336 for a session of which stats then showed 157, as if half were lost."""

from __future__ import annotations

import errno
import functools
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from claude_lines import claude_line
from memlens.engine.engine import Engine
from memlens.engine.vectors.embedder import Embedder
from memlens.errors import IndexWriteFailed
from memlens.settings import Settings, merge


def _line(session: str, n: int, text: str, *, prefix: str, day: str) -> str:
    """The nth row of a session that alternates user and assistant, one minute apart, as a JSONL line."""
    kind = "user" if n % 2 == 0 else "assistant"
    content = text if kind == "user" else [{"type": "text", "text": text}]
    parent = f"{prefix}{n - 1}" if n else None
    row = claude_line(kind, f"{prefix}{n}", parent, content, session=session, timestamp=f"{day}T10:0{n}:00Z")
    return json.dumps(row) + "\n"


def _cli_session(
    tmp_path: Path, session: str, *, prefix: str, day: str
) -> tuple[Path, list[str], Callable[[int, str], str]]:
    """A session's file in a transcripts folder of its own, the CLI flags that index that folder alone, and the
    session's nth row (`_line`)."""
    folder = tmp_path / "claude"
    folder.mkdir()
    where = ["--transcripts", str(folder), "--index-dir", str(tmp_path / "index"), "--no-embeddings", "--scope", "all"]
    return folder / f"{session}.jsonl", where, functools.partial(_line, session, prefix=prefix, day=day)


def _memlens(where: list[str], *args: str) -> str:
    """What `memlens ARGS WHERE` printed (both streams); it must succeed."""
    done = subprocess.run([sys.executable, "-m", "memlens", *args, *where], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def _added(where: list[str], *args: str) -> int:
    """The N of the "+N messages" a sync command reports."""
    said = _memlens(where, *args)
    found = re.search(r"\+(\d+) messages?", said)
    assert found, said
    return int(found.group(1))


def test_a_sync_reports_the_messages_stats_then_counts(tmp_path: Path) -> None:
    transcripts = Path(__file__).parent / "fixtures" / "transcripts"
    settings = merge(Settings(), {"transcripts": {"agentDefaults": False, "paths": [str(transcripts)]}})
    (tmp_path / "ws").mkdir()
    with Engine([tmp_path / "ws"], settings, index_dir=tmp_path / "index", embedder=None) as engine:
        report = engine.sync()
        counted = sum(engine.stats()["messages"].values())
    assert report.messages_added == counted > 0


def test_an_append_reports_only_the_messages_it_added(tmp_path: Path) -> None:
    """An append is parsed again from the message the new lines might continue (an agent's reply still streaming):
    "+N messages" counted that message again, and a new message stored in parts once per part: one long question
    appended said "+5 messages"."""
    path, where, line = _cli_session(tmp_path, "0d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a", prefix="a", day="2026-03-05")

    def index() -> int:
        return _added(where, "index")

    path.write_text(line(0, "where do the webhook retries back off") + line(1, "In the dispatcher, exponentially."))
    assert index() == 2
    with path.open("a") as handle:
        handle.write(line(2, "and this stack trace? " + "at dispatcher.retry(backoff.py:41) " * 1500))  # 4 parts
    assert index() == 1
    with path.open("a") as handle:
        handle.write(line(3, "The backoff overflows past the tenth retry."))
    assert index() == 1
    sessions = json.loads(
        subprocess.run(
            [sys.executable, "-m", "memlens", "sessions", "--json", "--no-sync", *where],
            capture_output=True,
            text=True,
            timeout=300,
        ).stdout
    )["sessions"]
    assert [s["messageCount"] for s in sessions] == [4]


def test_a_file_read_again_whole_reports_only_what_it_added(tmp_path: Path) -> None:
    """`reindex --full` reads every file again from its first byte: "+N messages" counted every message read again
    (+2 for a session that held 2 before and 2 after), as if they were new."""
    path, where, line = _cli_session(tmp_path, "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b", prefix="b", day="2026-03-06")

    def memlens(*args: str) -> str:
        return _memlens(where, *args)

    def added(*args: str) -> int:
        return _added(where, *args)

    path.write_text(line(0, "why does the cron job run twice") + line(1, "Two schedulers share one lock key."))
    assert added("index") == 2
    assert added("reindex", "--full") == 0
    with path.open("a") as handle:  # grown since the last sync, then read whole
        handle.write(line(2, "and the fix?") + line(3, "A lock key per scheduler."))
    assert added("reindex", "--full") == 2
    path.write_text(line(0, "why does the cron job run twice"))  # cut short and written again: nothing new
    assert added("index") == 0
    path.rename(path.parent / "cron.jsonl")  # read whole under its new name, its session the same: nothing new
    assert added("index") == 0
    sessions = json.loads(memlens("sessions", "--json", "--no-sync"))["sessions"]
    assert [s["messageCount"] for s in sessions] == [1]
    history = json.loads(memlens("history", sessions[0]["sessionKey"], "--json", "--no-sync"))["messages"]
    assert [m["kind"] for m in history] == ["message"]


def test_a_file_moved_between_two_watcher_events_adds_no_messages(tmp_path: Path) -> None:
    """A rename the watcher reports (the old name deleted, the new one changed) reads the file whole under its new
    name: "+N messages" counted all of them, though the session held them all before; a copy adds only the message it
    alone holds (the others the session holds already: catalog/copies.py)."""
    folder = tmp_path / "claude"
    folder.mkdir()
    session = "6f7a8b9c-0d1e-4f2a-8b3c-4d5e6f7a8b9c"
    rows = [
        claude_line(
            "user", "c0", None, "which port does the admin api use", session=session, timestamp="2026-03-07T08:00:00Z"
        ),
        claude_line(
            "assistant",
            "c1",
            "c0",
            [{"type": "text", "text": "Port 9443."}],
            session=session,
            timestamp="2026-03-07T08:01:00Z",
        ),
    ]
    old = folder / f"{session}.jsonl"
    old.write_text("".join(json.dumps(row) + "\n" for row in rows))
    settings = merge(Settings(), {"transcripts": {"agentDefaults": False, "paths": [str(folder)]}, "scope": "all"})
    (tmp_path / "ws").mkdir()
    with Engine([tmp_path / "ws"], settings, index_dir=tmp_path / "index", embedder=None) as engine:
        assert engine.sync_paths([old]).messages_added == 2
        new = folder / "admin-port.jsonl"
        old.rename(new)
        moved = engine.sync_paths([new], [old])
        assert (moved.files_deleted, moved.files_parsed, moved.messages_added) == (1, 1, 0)
        copy = folder / "copy.jsonl"
        at = "2026-03-07T08:02:00Z"
        more = claude_line("user", "c2", "c1", "and the metrics port", session=session, timestamp=at)
        copy.write_bytes(new.read_bytes() + json.dumps(more).encode() + b"\n")
        assert engine.sync_paths([copy]).messages_added == 1
        held = copy.read_bytes()
        copy.unlink()
        assert engine.sync_paths([], [copy]).files_deleted == 1
        assert engine.sync().files_deleted == 0  # a whole sync read every file: the copy did not move
        copy.write_bytes(held)  # back after that: the index no longer held its own message
        assert engine.sync_paths([copy]).messages_added == 1
        sessions = engine.sessions(limit=10)["sessions"]
        counted = {s["sessionKey"]: s["messageCount"] for s in sessions}
        shown = {key: len(engine.history(key, limit=50)["messages"]) for key in counted}
        assert sum(counted.values()) == sum(engine.stats()["messages"].values()) == 3
        # each file's history shows what it holds: the copy's two the other file keeps and counts, and its own
        assert sorted(counted.values()) == [1, 2] and sorted(shown.values()) == [2, 3]


def test_a_file_moved_across_two_watcher_syncs_adds_no_messages(tmp_path: Path) -> None:
    """The watcher may report a rename's removal and its new name in two syncs (its events straddle a batch): the
    removal's messages were forgotten at the end of the first, and the new name counted "+2 messages" of a session
    that held both. A whole sync between the two forgets them: it read every file, so the file did not move."""
    folder = tmp_path / "claude"
    folder.mkdir()
    session = "7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d"
    old = folder / f"{session}.jsonl"
    first_two = "".join(_line(session, n, f"step {n} of the timetable", prefix="f", day="2026-03-08") for n in range(2))
    old.write_text(first_two)
    settings = merge(Settings(), {"transcripts": {"agentDefaults": False, "paths": [str(folder)]}, "scope": "all"})
    (tmp_path / "ws").mkdir()
    with Engine([tmp_path / "ws"], settings, index_dir=tmp_path / "index", embedder=None) as engine:
        assert engine.sync_paths([old]).messages_added == 2
        new = folder / "ferry.jsonl"
        old.rename(new)
        removed = engine.sync_paths([], [old])
        assert (removed.files_deleted, removed.messages_added) == (1, 0)
        read = engine.sync_paths([new])
        assert (read.files_parsed, read.messages_added) == (1, 0)
        with new.open("a") as grown:  # moved again, and grown on the way: only the new message is added
            grown.write(_line(session, 2, "and the last ferry leaves at ten", prefix="f", day="2026-03-08"))
        last = folder / "ferry-final.jsonl"
        new.rename(last)
        assert engine.sync_paths([], [new]).files_deleted == 1
        assert engine.sync_paths([last]).messages_added == 1
        last.unlink()
        assert engine.sync_paths([], [last]).files_deleted == 1
        assert engine.sync().messages_added == 0  # every file read: the removed one moved nowhere
        last.write_text(first_two)
        assert engine.sync_paths([last]).messages_added == 2  # back after that: new to the index
        assert sum(engine.stats()["messages"].values()) == 2


def test_a_file_moved_across_two_watcher_syncs_keeps_its_vectors(tmp_path: Path, embedder: Embedder) -> None:
    """The vectors of a moved file's rows were forgotten at the end of the sync that removed it: the new name, read in
    the watcher's next sync, waited to be embedded again. They are kept as its counts are (recently_removed.py); a
    whole sync forgets them (every file was read), and a file back after that is embedded anew."""
    folder = tmp_path / "claude"
    folder.mkdir()
    session = "9c0d1e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f"
    old = folder / f"{session}.jsonl"
    texts = ["the ferry timetable moved to the harbour office", "and the night boat now leaves from pier four"]
    old.write_text("".join(_line(session, n, text, prefix="v", day="2026-03-10") for n, text in enumerate(texts)))
    settings = merge(Settings(), {"transcripts": {"agentDefaults": False, "paths": [str(folder)]}, "scope": "all"})
    (tmp_path / "ws").mkdir()
    with Engine([tmp_path / "ws"], settings, index_dir=tmp_path / "index", embedder=embedder) as engine:
        assert engine.sync_paths([old]).units_embedded == 2
        new = folder / "harbour.jsonl"
        old.rename(new)
        assert engine.sync_paths([], [old]).files_deleted == 1
        read = engine.sync_paths([new])
        assert (read.files_parsed, read.units_embedded, engine.pending_embeddings()) == (1, 0, 0)
        new.unlink()
        assert engine.sync_paths([], [new]).files_deleted == 1
        engine.sync()  # every file read: the removed one moved nowhere
        new.write_text("".join(_line(session, n, t, prefix="v", day="2026-03-10") for n, t in enumerate(texts)))
        assert engine.sync_paths([new]).units_embedded == 2


def test_a_folder_moved_between_two_runs_keeps_its_vectors(tmp_path: Path, embedder: Embedder) -> None:
    """A whole sync in a fresh process (`memlens index` after a folder was moved or renamed) removes the old names in
    a commit of their own before it reads the new ones. The vector rows, loaded at their first use, were loaded
    after that commit and matched to the units left, so the removed rows were gone before they could be kept for a
    file that moved: every moved message was embedded again (a renamed folder of 2,000 sessions, 4,000 texts)."""
    folder = tmp_path / "claude"
    (folder / "project").mkdir(parents=True)
    session = "7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b"
    texts = ["the glaze kiln needs a new thermocouple", "ordered one from the pottery supplier on Tuesday"]
    rows = "".join(_line(session, n, text, prefix="m", day="2026-03-11") for n, text in enumerate(texts))
    (folder / "project" / f"{session}.jsonl").write_text(rows)
    settings = merge(Settings(), {"transcripts": {"agentDefaults": False, "paths": [str(folder)]}, "scope": "all"})
    (tmp_path / "ws").mkdir()

    def fresh_sync() -> tuple[int, int, int, int]:
        with Engine([tmp_path / "ws"], settings, index_dir=tmp_path / "index", embedder=embedder) as engine:
            report = engine.sync()
            return report.files_parsed, report.files_deleted, report.units_embedded, engine.pending_embeddings()

    assert fresh_sync() == (1, 0, 2, 0)
    (folder / "project").rename(folder / "renamed-project")
    assert fresh_sync() == (1, 1, 0, 0), "the moved file's rows give its units their vectors"
    with Engine([tmp_path / "ws"], settings, index_dir=tmp_path / "index", embedder=embedder) as engine:
        hits = engine.search("thermocouple for the kiln", mode="vector", limit=5)["results"]
        assert hits and hits[0]["path"].startswith(str(folder / "renamed-project"))


def test_the_chunks_a_sync_reports_are_the_chunks_the_index_gained(tmp_path: Path) -> None:
    """ "N chunks" in a sync's line counted every chunk written: an append writes the chunk its new messages join
    again, `reindex --full` and a rename write every chunk anew, so "1 chunk" stood beside a count of chunks that had
    not grown. Each line now says what `stats` then counts more."""
    path, where, line = _cli_session(tmp_path, "8b9c0d1e-2f3a-4b4c-8d5e-6f7a8b9c0d1e", prefix="k", day="2026-03-09")

    def total() -> int:
        return int(json.loads(_memlens(where, "stats", "--json"))["totalChunks"])

    def chunks_said(*args: str) -> int:
        said = _memlens(where, *args)
        found = re.search(r"\b(\d+) chunks?\b", said)
        assert found, said
        return int(found.group(1))

    def grown_as_said(*args: str) -> int:
        before = total()
        said = chunks_said(*args)
        assert said == max(0, total() - before), args
        return said

    path.write_text("".join(line(n, f"question {n} about the kiln's thermocouple drift") for n in range(4)))
    assert grown_as_said("index") > 0
    with path.open("a") as handle:  # joins the last chunk, which is written again
        handle.write(line(4, "and the fix was a new thermocouple"))
    grown_as_said("index")
    assert grown_as_said("reindex", "--full") == 0
    path.rename(path.parent / "kiln.jsonl")  # read whole under its new name
    assert grown_as_said("index") == 0
    with (path.parent / "kiln.jsonl").open("a") as handle:  # many long messages: chunks of their own
        handle.writelines(
            line(n, f"step {n}: " + "the kiln log reads 1,200 degrees again. " * 60) for n in range(5, 12)
        )
    assert grown_as_said("index") > 0


NOTE = (
    "# Kiln\n\nThe kiln's thermocouple drifts after about three hundred firings, and the readings run hot by twenty "
    "degrees.\n\n## Fix\n\nReplace the thermocouple every spring, before the first glaze firing, and log the offset "
    "it showed in the kiln book.\n"
)


def _chunks_said(said: str) -> int:
    found = re.search(r"\b(\d+) chunks?\b", said)
    assert found, said
    return int(found.group(1))


def test_a_memory_note_moved_adds_no_chunks(tmp_path: Path) -> None:
    """A note has no session for its move to be matched on: a note moved to another folder of the workspace said
    "+2 chunks" beside a `stats` that did not grow. Its chunks are matched by their texts now; a note moved and
    grown adds its new chunk, a copy adds its chunks again."""
    memory = tmp_path / "ws" / "memory"
    memory.mkdir(parents=True)
    where = ["--workspace", str(tmp_path / "ws"), "--index-dir", str(tmp_path / "index"), "--no-embeddings"]
    (memory / "kiln.md").write_text(NOTE)
    assert _chunks_said(_memlens(where, "index")) == 2
    (memory / "archive").mkdir()
    (memory / "kiln.md").rename(memory / "archive" / "kiln.md")
    assert _chunks_said(_memlens(where, "index")) == 0
    moved = memory / "archive" / "kiln-2025.md"
    (memory / "archive" / "kiln.md").rename(moved)
    with moved.open("a") as grown:
        grown.write(
            "\n## Supplier\n\nThermocouples come from the supplier in Leeds, type K, two at a time, ordered in "
            "February so they arrive before spring.\n"
        )
    assert _chunks_said(_memlens(where, "index")) == 1
    (memory / "copy.md").write_text(NOTE)
    assert _chunks_said(_memlens(where, "index")) == 2
    assert json.loads(_memlens(where, "stats", "--json"))["totalChunks"] == 5


def test_a_memory_note_moved_across_two_watcher_syncs_adds_no_chunks_and_keeps_its_vectors(
    tmp_path: Path, embedder: Embedder
) -> None:
    memory = tmp_path / "ws" / "memory"
    memory.mkdir(parents=True)
    old = memory / "kiln.md"
    old.write_text(NOTE)
    settings = merge(Settings(), {"transcripts": {"agentDefaults": False}})
    with Engine([tmp_path / "ws"], settings, index_dir=tmp_path / "index", embedder=embedder) as engine:
        first = engine.sync_paths([old])
        assert (first.chunks_added, first.units_embedded) == (2, 2)
        new = memory / "kiln-notes.md"
        old.rename(new)
        assert engine.sync_paths([], [old]).files_deleted == 1
        read = engine.sync_paths([new])
        assert (read.files_parsed, read.chunks_added, read.units_embedded, engine.pending_embeddings()) == (1, 0, 0, 0)
        new.unlink()
        assert engine.sync_paths([], [new]).files_deleted == 1
        engine.sync()  # every file read: the removed note moved nowhere
        new.write_text(NOTE)
        assert engine.sync_paths([new]).chunks_added == 2  # back after that: new to the index


def test_a_move_whose_write_failed_is_still_a_move_the_next_time(tmp_path: Path) -> None:
    """What a moved file's old name held was taken as the new name was written, before that write committed: a
    full disk at the commit rolled the write back, and the next sync counted the file as new ("+2 messages",
    "+2 chunks"). It is taken once the write commits."""
    folder = tmp_path / "claude"
    memory = tmp_path / "ws" / "memory"
    folder.mkdir()
    memory.mkdir(parents=True)
    session = "0d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4b"
    old = folder / f"{session}.jsonl"
    old.write_text(
        "".join(_line(session, n, f"step {n} of the kiln log", prefix="d", day="2026-03-11") for n in range(2))
    )
    old_note = memory / "kiln.md"
    old_note.write_text(NOTE)
    settings = merge(Settings(), {"transcripts": {"agentDefaults": False, "paths": [str(folder)]}, "scope": "all"})
    with Engine([tmp_path / "ws"], settings, index_dir=tmp_path / "index", embedder=None) as engine:
        first = engine.sync_paths([old, old_note])
        assert (first.messages_added, first.chunks_added) == (2, 3)
        new, new_note = folder / "kiln.jsonl", memory / "kiln-notes.md"
        old.rename(new)
        old_note.rename(new_note)
        assert engine.sync_paths([], [old, old_note]).files_deleted == 2
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(engine.catalog, "bump_generation", _full_disk)
            with pytest.raises(IndexWriteFailed, match="no space left on device"):
                engine.sync_paths([new, new_note])
        read = engine.sync_paths([new, new_note])
        assert (read.files_parsed, read.messages_added, read.chunks_added) == (2, 0, 0)


def _full_disk(*_: object, **__: object) -> int:
    raise OSError(errno.ENOSPC, "No space left on device")
