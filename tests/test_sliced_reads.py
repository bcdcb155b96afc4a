"""A huge transcript is read a slice at a time (file_reader.SLICE_BYTES), each slice committed before the next is read
(indexer.Indexer._apply_batch), so a cancel waits for one slice at most and keeps what was read.

Read in slices to its end, a file indexes exactly what one read of it does (messages, ids, texts, order, session
facts, bad lines), in every append-wise format; a cancel between slices keeps the messages of the file cut where the
read stopped (as if the file had been that long, nothing of the slice after it) and says so in the report, and the
next sync reads the rest as an append and ends with the index one uninterrupted build makes. A SpecStory export (not
read append-wise) and a file whose lines name no session are read whole. The cancel comes from inside the reader's
own call, at the slice it names: no timing decides where it lands. The slices are made small (bytes, not MB) so the
committed fixtures are cut many times; `MAX_CARRY_BLOCKS` is lifted as `test_incremental_property` lifts it, so a
record is never split for the blocks' size."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from memlens.engine.engine import Engine
from memlens.engine.indexing import file_reader, ingest
from memlens.engine.indexing.file_reader import FileReader
from memlens.engine.indexing.indexer import SyncReport
from memlens.engine.sources import parse_file, split_branches
from memlens.settings import Settings

HERE = Path(__file__).resolve().parent
SYNTHETIC = HERE / "fixtures" / "transcripts"
EXTRA = HERE / "fixtures" / "extra"
APPEND_WISE = sorted(
    [p for p in SYNTHETIC.rglob("*.jsonl") if p.is_file()] + [p for p in EXTRA.rglob("*.jsonl") if p.is_file()]
)
SPECSTORY = next(SYNTHETIC.rglob("*.md"))
SLICES = (1, 600, 2500)  # bytes: every appended line a slice of its own, a few lines, most of a file

Messages = list[tuple[str, str, str, str, str]]


def _rel(path: Path) -> str:
    root = SYNTHETIC if SYNTHETIC in path.parents else EXTRA
    return str(path.relative_to(root))


LONGEST = max(len(line) + 1 for p in [*APPEND_WISE, SPECSTORY] for line in p.read_bytes().splitlines())


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole-file read's blocks as small as the longest line (its first slice ends with the first block past
    SLICE_BYTES), and never a record split for their size (`MAX_CARRY_BLOCKS` such blocks would)."""
    monkeypatch.setattr(ingest, "STREAM_BLOCK", LONGEST)
    monkeypatch.setattr(ingest, "MAX_CARRY_BLOCKS", 1 << 30)


def _engine(folder: Path) -> Engine:
    settings = Settings()
    settings.transcripts.agent_defaults = False
    (folder / "ws").mkdir(parents=True, exist_ok=True)
    return Engine([folder / "ws"], settings, [folder / "transcripts"], folder / "index", embedder=False)


def _place(folder: Path, rel: str, data: bytes) -> Path:
    target = folder / "transcripts" / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    when = 1_700_000_000  # quiet: an unterminated last line is read as the file's end
    os.utime(target, (when, when))
    return target


def _index(engine: Engine) -> dict[str, Any]:
    """What a user finds: every message (session, id, role, kind, text, in order), the sessions' facts, bad lines."""
    db = engine.catalog.db
    messages = db.execute(
        "SELECT session_key, message_id, role, kind, text FROM plain_units WHERE kind != 'memory'"
        " ORDER BY session_key, seq, part"
    ).fetchall()
    sessions = db.execute(
        "SELECT key, session_id, format, parent_key, agent_id, cwd, title FROM sessions ORDER BY key"
    ).fetchall()
    bad = db.execute("SELECT COALESCE(SUM(bad_lines), 0) FROM files").fetchone()[0]
    return {"messages": [tuple(m) for m in messages], "sessions": [tuple(s) for s in sessions], "bad": bad}


def _built(folder: Path, rel: str, data: bytes) -> dict[str, Any]:
    """The index one read of `data` makes, and the messages its report counts."""
    _place(folder, rel, data)
    engine = _engine(folder)
    try:
        report = engine.sync()
        return {**_index(engine), "added": report.messages_added}
    finally:
        engine.close()


def _without_report(built: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in built.items() if key != "added"}


class CountedReads:
    """FileReader.read, counted; with `cancel_at`, the cancel set as the read of that slice (1-based) returns."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, cancel: threading.Event, cancel_at: int | None) -> None:
        self.calls = 0
        read = FileReader.read

        def counted(reader: FileReader, *args: Any, **kwargs: Any) -> Any:
            outcome = read(reader, *args, **kwargs)
            self.calls += 1
            if self.calls == cancel_at:
                cancel.set()
            return outcome

        monkeypatch.setattr(FileReader, "read", counted)


@pytest.mark.parametrize("size", SLICES)
@pytest.mark.parametrize("path", APPEND_WISE, ids=_rel)
def test_a_file_read_in_slices_indexes_what_one_read_does(
    path: Path, size: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = path.read_bytes()
    whole = _built(tmp_path / "whole", _rel(path), data)
    monkeypatch.setattr(file_reader, "SLICE_BYTES", size)
    reads = CountedReads(monkeypatch, threading.Event(), None)
    folder = tmp_path / "sliced"
    _place(folder, _rel(path), data)
    engine = _engine(folder)
    try:
        report = engine.sync()
        assert _index(engine) == _without_report(whole)
        assert (report.files_parsed, report.files_appended, report.files_partly) == (1, 0, 0)
        assert report.messages_added == whole["added"], "counted once, as one read counts them"
        if size < len(data) // 2:
            assert reads.calls > 1, "the file was read in slices"
    finally:
        engine.close()


def _stopped_and_resumed(
    rel: str, data: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, cancel_at: int
) -> tuple[SyncReport, dict[str, Any], int, SyncReport, dict[str, Any]]:
    """A sync cancelled as it reads slice `cancel_at` (every line a slice): its report, its index and how far it
    read; then the next sync's report and index."""
    monkeypatch.setattr(file_reader, "SLICE_BYTES", 1)
    cancel = threading.Event()
    CountedReads(monkeypatch, cancel, cancel_at)
    folder = tmp_path / "stopped"
    _place(folder, rel, data)
    engine = _engine(folder)
    try:
        stopped = engine.sync(cancel=cancel)
        kept = _index(engine)
        (row,) = engine.catalog.db.execute("SELECT parsed_bytes FROM files").fetchall()
        resumed = engine.sync()
        return stopped, kept, int(row[0]), resumed, _index(engine)
    finally:
        engine.close()


@pytest.mark.parametrize("cancel_at", [1, 2, 3])
@pytest.mark.parametrize("path", APPEND_WISE, ids=_rel)
def test_a_cancel_between_slices_keeps_the_file_as_far_as_it_was_read(
    path: Path, cancel_at: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every line a slice: the cancel lands after the first, second or third line's slice; what is kept is the
    index of the file cut there, and the next sync makes the index of the whole file, reading only the rest."""
    data = path.read_bytes()
    whole = _built(tmp_path / "whole", _rel(path), data)
    stopped, kept, read, resumed, final = _stopped_and_resumed(
        _rel(path), data, tmp_path, monkeypatch, cancel_at=cancel_at
    )
    assert final == _without_report(whole), "the next sync ends with the index of one uninterrupted read"
    parsed = parse_file(path)
    assert parsed is not None
    branches = split_branches(parsed.records)
    # else read whole as it grows: a bad line, an orphan, or a branch an appended record may start from an earlier
    # record than the branch's end (continues_branch)
    appends = not (parsed.bad_lines or branches.orphaned or branches.abandoned)
    if read == len(data) and not appends:  # its second slice did not continue the first: it was read whole
        assert not stopped.files_partly
        return
    assert 0 < read < len(data) and data[read - 1 : read] == b"\n"
    assert stopped.cancelled and (stopped.files_partly, stopped.files_left) == (1, 0)
    assert (stopped.partly_read_bytes, stopped.partly_size_bytes) == (read, len(data))
    cut = _built(tmp_path / "cut", _rel(path), data[:read])
    assert kept == _without_report(cut), "kept: the file as if it ended there"
    assert stopped.messages_added == cut["added"]
    assert resumed.files_parsed + resumed.files_appended == 1
    if appends:
        assert resumed.files_appended == 1, "the rest read as an append"
    assert stopped.messages_added + resumed.messages_added == whole["added"], "no message counted twice or lost"


def test_a_specstory_export_is_read_whole_before_a_cancel_is_looked_at(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not read append-wise (a change is read from the start): slicing it would only read its start twice."""
    rel = str(SPECSTORY.relative_to(SYNTHETIC))
    whole = _without_report(_built(tmp_path / "whole", rel, SPECSTORY.read_bytes()))
    monkeypatch.setattr(file_reader, "SLICE_BYTES", 1)
    cancel = threading.Event()
    CountedReads(monkeypatch, cancel, 1)
    folder = tmp_path / "stopped"
    _place(folder, rel, SPECSTORY.read_bytes())
    engine = _engine(folder)
    try:
        report = engine.sync(cancel=cancel)
        assert report.cancelled and report.files_partly == 0 and report.files_parsed == 1
        assert _index(engine) == whole and whole["messages"]
    finally:
        engine.close()


def test_a_file_whose_lines_name_no_session_is_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its session id is its name's until a line names one, which a later line may: its resume point stays its start,
    so it has no record boundary to be continued from, and is read to its end."""
    path = next(p for p in sorted(SYNTHETIC.rglob("*.jsonl")) if "claude-code" in str(p) and "subagents" not in str(p))
    rows = [{"type": "file-history-snapshot", "snapshot": {}}]  # (what says it is Claude Code's without a session)
    rows += [{k: v for k, v in json.loads(line).items() if k != "sessionId"} for line in path.read_bytes().splitlines()]
    data = "".join(json.dumps(row) + "\n" for row in rows).encode()
    rel = "claude-code/no-session.jsonl"
    whole = _without_report(_built(tmp_path / "whole", rel, data))
    assert whole["messages"]
    stopped, kept, read, _, final = _stopped_and_resumed(rel, data, tmp_path, monkeypatch, cancel_at=1)
    assert (read, stopped.files_partly) == (len(data), 0)
    assert kept == final == whole
