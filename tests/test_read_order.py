"""A sync reads its changed files newest session first, in batches bounded by bytes, so the recent weeks of a heavy
user's disk are searchable within its first batches (a batch was 200 files whatever their size, read in name
order); what a build stores stays what a name-order build stores (a session's files read together in name order),
and a cancel stops within one file, not one batch."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import memlens.engine.indexing.read_order as read_order
from claude_lines import claude_line
from memlens.engine.engine import Engine
from memlens.engine.indexing.discovery import SourceFile
from memlens.engine.indexing.file_identity import Named
from memlens.engine.indexing.indexer import Indexer
from memlens.settings import Settings, merge

WORDS = ("aardvark", "bison", "cheetah", "dingo", "emu", "ferret")
DAY = 86_400
NOW = 1_780_000_000


def _lines(session: str, word: str, *, messages: int, first: int = 0, **extra: Any) -> list[str]:
    """Claude Code rows of `session` whose messages all name `word` (from message `first` on)."""
    lines = []
    for n in range(first, first + messages):
        kind = "user" if n % 2 == 0 else "assistant"
        text = f"message {n} about the {word} and the deployment pipeline of the service"
        content: object = text if kind == "user" else [{"type": "text", "text": text}]
        row = claude_line(
            kind, f"{session}-{word}-{n}", f"{session}-{word}-{n - 1}" if n else None, content, session=session,
            timestamp=f"2026-01-01T10:{n // 60 % 60:02d}:{n % 60:02d}Z",
        )  # fmt: skip
        lines.append(json.dumps(row | extra) + "\n")
    return lines


def _write(path: Path, lines: list[str], mtime: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(lines), encoding="utf-8")
    os.utime(path, (mtime, mtime))
    return path


def _session(path: Path, session: str, word: str, *, messages: int, mtime: int) -> Path:
    return _write(path, _lines(session, word, messages=messages), mtime)


def _settings(folder: Path) -> Settings:
    return merge(Settings(), {"transcripts": {"agentDefaults": False, "paths": [str(folder)]}})


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    (tmp_path / "ws").mkdir()
    with Engine([tmp_path / "ws"], _settings(tmp_path / "claude"), index_dir=tmp_path / "index", embedder=None) as e:
        yield e


def _finds(engine: Engine, word: str) -> bool:
    return bool(engine.keyword.search(engine.keyword.parse(word), 10, field="text"))


def _batches_read(monkeypatch: pytest.MonkeyPatch, after_each: Any = None) -> list[list[tuple[str, int]]]:
    """Each batch the indexer commits: its files' names and sizes (`after_each` called once it committed)."""
    seen: list[list[tuple[str, int]]] = []
    apply = Indexer._apply_batch

    def recorded(self: Indexer, batch: list[Any], *args: Any, **kwargs: Any) -> None:
        seen.append([(source.path.name, stat.st_size) for source, _, stat in batch])
        apply(self, batch, *args, **kwargs)
        if after_each is not None:
            after_each()

    monkeypatch.setattr(Indexer, "_apply_batch", recorded)
    return seen


def test_the_newest_session_is_searchable_after_the_first_batch(
    tmp_path: Path, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Names sort oldest first here: read in name order, the first batch held the oldest sessions. The newest
    session's subagent comes with it."""
    for i, word in enumerate(WORDS):  # a-0 the oldest, a-5 written today
        _session(tmp_path / "claude" / f"a-{i}.jsonl", f"s{i}", word, messages=40, mtime=NOW - (5 - i) * 7 * DAY)
    agent = _lines("s5", "gnu", messages=4, isSidechain=True)
    _write(tmp_path / "claude" / "a-5" / "subagents" / "agent-x.jsonl", agent, NOW - 1)  # older than its parent
    size = (tmp_path / "claude" / "a-0.jsonl").stat().st_size
    monkeypatch.setattr(read_order, "BATCH_BYTES", 2 * size + size // 2)  # two sessions a batch
    stop = threading.Event()
    batches = _batches_read(monkeypatch, after_each=stop.set)  # hold the build still after its first batch
    report = engine.sync(cancel=stop)
    assert report.cancelled and len(batches) == 1
    assert [name for name, _ in batches[0]] == ["a-5.jsonl", "agent-x.jsonl", "a-4.jsonl"]
    assert _finds(engine, "ferret") and _finds(engine, "gnu") and _finds(engine, "emu")
    assert not _finds(engine, "aardvark") and not _finds(engine, "dingo")
    engine.sync()  # the rest, at the next sync
    assert all(_finds(engine, word) for word in WORDS)


def test_a_batch_never_holds_more_bytes_than_its_budget_unless_one_file_does(
    tmp_path: Path, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first batch's budget, then twice the one before up to the most."""
    for i, (word, messages) in enumerate(zip(WORDS, (10, 30, 200, 20, 10, 60), strict=True)):
        _session(tmp_path / "claude" / f"b-{i}.jsonl", f"s{i}", word, messages=messages, mtime=NOW - i * DAY)
    sizes = {p.name: p.stat().st_size for p in (tmp_path / "claude").iterdir()}
    first = sizes["b-0.jsonl"] + sizes["b-1.jsonl"] // 2
    assert sizes["b-2.jsonl"] > 2 * first  # one file larger than any budget
    monkeypatch.setattr(read_order, "BATCH_BYTES", first)
    monkeypatch.setattr(read_order, "BATCH_BYTES_MOST", 2 * first)
    batches = _batches_read(monkeypatch)
    engine.sync()
    assert len(batches) > 2
    for batch, budget in zip(batches, (first, *[2 * first] * len(batches)), strict=False):
        assert sum(size for _, size in batch) <= budget or len(batch) == 1, batches
    assert [("b-2.jsonl", sizes["b-2.jsonl"])] in batches  # alone
    assert sorted(name for batch in batches for name, _ in batch) == sorted(sizes)
    assert all(_finds(engine, word) for word in WORDS)


def test_batches_grow_from_the_first_budget_to_the_most(tmp_path: Path) -> None:
    files = []
    for i in range(12):
        path = tmp_path / f"{i:02d}.jsonl"
        path.write_bytes(b"x" * 100)
        files.append((Named(SourceFile(path, "transcript", tmp_path), path.stat(), path.name), None))
    cut = read_order.batches(files, to_read=lambda item: item[0].stat.st_size, first_bytes=100, most_bytes=400)
    assert [len(batch) for batch in cut] == [1, 2, 4, 4, 1]


def test_a_session_s_files_stay_together_in_name_order_and_ties_keep_the_name_order(tmp_path: Path) -> None:
    """A session's files (by the id its path names, the ids its first line gives, its first line) at the place of
    the newest of them; sessions of one mtime, and a note, in their found order."""

    def named(name: str, text: str, mtime: int, kind: str = "transcript") -> tuple[Named, None]:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        os.utime(path, (mtime, mtime))
        return (Named(SourceFile(path, kind, tmp_path), path.stat(), name), None)

    found = [
        named("a/x.jsonl", '{"first": 1}\n', 1),
        named("a/y.jsonl", '{"other": 1}\n', 5),
        named("b/copy.jsonl", '{"first": 1}\nand on\n', 9),  # a copy of a/x continued since
        named("b/s1.jsonl", '{"sessionId": "s1"}\n', 2),
        named("b/s1/subagents/agent-q.jsonl", '{"sessionId": "s1", "isSidechain": true}\n', 8),
        named("b/t.jsonl", '{"sessionId": "s1", "agentId": "r"}\n', 3),  # an older agent file beside its parent
        named("c/u.jsonl", '{"sessionId": "u"}\n', 5),  # a tie with a/y: found after it
        named("d/y.jsonl", '{"sessionId": "v"}\n', 4),  # a name as a/y's, another session
        named("n.md", "# a note\n", 5, kind="memory"),
        named("z/w.jsonl", '{"sessionId": "w"}\n', 7),
    ]
    ordered = [n.key for n, _ in read_order.newest_first(found)]
    assert ordered == [
        *("a/x.jsonl", "b/copy.jsonl"),
        *("b/s1.jsonl", "b/s1/subagents/agent-q.jsonl", "b/t.jsonl"),
        *("z/w.jsonl", "a/y.jsonl", "c/u.jsonl", "n.md", "d/y.jsonl"),
    ]


def _build(tmp_path: Path, name: str, *, one_mtime: bool) -> dict[str, Any]:
    """A fresh build of a disk with a session, its subagent (newer than it) and an older-layout agent file sharing
    its id, copies of a session in two folders and one continued since (the later name newer): what it stored, by
    path and text, not by ids (which follow the reading order)."""
    root = tmp_path / name / "claude"

    def at(days: int) -> int:
        return NOW if one_mtime else NOW - days * DAY

    parent = "4d1f1a52-0c58-4d0b-9a55-6a0e8f1e9b01"
    _write(root / "proj" / f"{parent}.jsonl", _lines(parent, "bison", messages=6), at(30))
    subagent = _lines(parent, "cheetah", messages=4, isSidechain=True)
    _write(root / "proj" / parent / "subagents" / "agent-a77.jsonl", subagent, at(1))
    _write(root / "proj" / "agent-b12.jsonl", _lines(parent, "dingo", messages=4, isSidechain=True), at(2))
    copy = _lines("dup", "emu", messages=6)
    _write(root / "a" / "dup.jsonl", copy, at(20))
    _write(root / "z" / "dup.jsonl", copy, at(3))
    other = _lines("other", "ferret", messages=4)
    _write(root / "m" / "other.jsonl", other, at(10))
    _write(root / "n" / "other-more.jsonl", [*other, *_lines("other", "gnu", messages=4, first=4)], at(0))
    (tmp_path / name / "ws").mkdir()
    with Engine([tmp_path / name / "ws"], _settings(root), index_dir=tmp_path / name / "i", embedder=None) as engine:
        engine.sync()
        db = engine.catalog.db

        def relative(path: str) -> str:
            return str(Path(path).relative_to(root))

        files = {relative(p): key for p, key in db.execute("SELECT path, session_key FROM files")}
        sql = "SELECT key, session_id, parent_key, agent_id, path FROM sessions JOIN files ON files.id = file_id"
        sessions = sorted((k, s, p, a, relative(f)) for k, s, p, a, f in db.execute(sql))
        units = sorted(tuple(r) for r in db.execute("SELECT session_key, message_id, text FROM plain_units"))
        references = set()
        for word in ("bison", "cheetah", "dingo", "emu", "ferret", "gnu"):
            for hit in engine.search(word, mode="keyword", limit=50, min_score=0.0)["results"]:
                references.add((hit["reference"], hit["sessionKey"], hit["messageId"]))
        order = [relative(p) for (p,) in db.execute("SELECT path FROM files ORDER BY id")]
    return {"files": files, "sessions": sessions, "units": units, "references": references, "order": order}


def test_a_newest_first_build_stores_what_a_name_order_build_stores(tmp_path: Path) -> None:
    """Session keys (the first file of an id stored takes the plain key), subagents' parents and the references
    hits print: the same when a session's newer files (a subagent, a later copy) would be read before it."""
    by_name = _build(tmp_path, "by-name", one_mtime=True)
    newest = _build(tmp_path, "newest", one_mtime=False)
    assert newest["order"] != by_name["order"]  # read in another order
    parent = "proj/4d1f1a52-0c58-4d0b-9a55-6a0e8f1e9b01"
    assert newest["order"][:4] == [
        "m/other.jsonl",
        "n/other-more.jsonl",
        f"{parent}.jsonl",
        f"{parent}/subagents/agent-a77.jsonl",
    ]
    assert newest["files"] == by_name["files"]
    assert by_name["files"]["proj/agent-b12.jsonl"].startswith("claude-code:4d1f1a52-0c58-4d0b-9a55-6a0e8f1e9b01~")
    assert (
        by_name["files"]["a/dup.jsonl"] == "claude-code:dup"
        and by_name["files"]["m/other.jsonl"] == "claude-code:other"
    )
    assert newest["sessions"] == by_name["sessions"]
    assert newest["units"] == by_name["units"]
    assert newest["references"] == by_name["references"] and len(by_name["references"]) >= 6


def test_a_cancel_stops_within_one_file_of_a_batch(
    tmp_path: Path, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every file fits one batch: a cancel set while the first is read stops before the second (it waited for the
    whole batch, up to 64 MB of reading); what was read commits, and the next sync reads the rest."""
    for i, word in enumerate(WORDS):
        _session(tmp_path / "claude" / f"c-{i}.jsonl", f"s{i}", word, messages=10, mtime=NOW - i * DAY)
    cancel = threading.Event()
    read = Indexer._read

    def read_then_cancel(self: Indexer, *args: Any) -> Any:
        cancel.set()  # (a person pressing cancel while this file is read)
        return read(self, *args)

    batches = _batches_read(monkeypatch)
    with monkeypatch.context() as patch:
        patch.setattr(Indexer, "_read", read_then_cancel)
        report = engine.sync(cancel=cancel)
    assert report.cancelled and len(batches) == 1 and len(batches[0]) == len(WORDS)
    assert report.files_parsed == 1 and _finds(engine, "aardvark") and not _finds(engine, "bison")
    again = engine.sync()
    assert not again.cancelled and again.files_parsed == len(WORDS) - 1 and again.files_unchanged == 1
    assert all(_finds(engine, word) for word in WORDS)
