"""A first build reads the newest files first and commits them in batches bounded by bytes, so the recent weeks of a
heavy user's disk are searchable within its first batches: a batch was 200 files whatever their size (21 files of
200k messages were one batch, nothing searchable for ~90 s), read in name order."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import memlens.engine.indexing.read_batches as read_batches
from claude_lines import claude_line
from memlens.engine.engine import Engine
from memlens.engine.indexing.discovery import SourceFile
from memlens.engine.indexing.file_identity import Named
from memlens.engine.indexing.indexer import Indexer
from memlens.settings import Settings, merge

WORDS = ("aardvark", "bison", "cheetah", "dingo", "emu", "ferret")
DAY = 86_400


def _session(path: Path, session: str, word: str, *, messages: int, mtime: int) -> None:
    """A Claude Code session whose messages all name `word`, last written at `mtime`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for n in range(messages):
        kind = "user" if n % 2 == 0 else "assistant"
        text = f"message {n} about the {word} and the deployment pipeline of the service"
        content: object = text if kind == "user" else [{"type": "text", "text": text}]
        row = claude_line(
            kind, f"{session}-{n}", f"{session}-{n - 1}" if n else None, content, session=session,
            timestamp=f"2026-01-01T10:{n // 60 % 60:02d}:{n % 60:02d}Z",
        )  # fmt: skip
        lines.append(json.dumps(row) + "\n")
    path.write_text("".join(lines), encoding="utf-8")
    os.utime(path, (mtime, mtime))


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    settings = merge(Settings(), {"transcripts": {"agentDefaults": False, "paths": [str(tmp_path / "claude")]}})
    (tmp_path / "ws").mkdir()
    with Engine([tmp_path / "ws"], settings, index_dir=tmp_path / "index", embedder=None) as opened:
        yield opened


def _finds(engine: Engine, word: str) -> bool:
    return bool(engine.keyword.search(engine.keyword.parse(word), 10, field="text"))


def _batches_read(monkeypatch: pytest.MonkeyPatch, after_each: Any = None) -> list[list[tuple[str, int]]]:
    """Each batch the indexer commits: its files' names and sizes (`after_each` called once it committed)."""
    seen: list[list[tuple[str, int]]] = []
    apply = Indexer._apply_batch

    def recorded(self: Indexer, batch: list[Any], report: Any) -> None:
        seen.append([(source.path.name, stat.st_size) for source, _, stat in batch])
        apply(self, batch, report)
        if after_each is not None:
            after_each()

    monkeypatch.setattr(Indexer, "_apply_batch", recorded)
    return seen


def test_the_newest_file_is_searchable_after_the_first_batch(
    tmp_path: Path, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Names sort oldest first here: read in name order, the first batch held the oldest sessions."""
    now = 1_780_000_000
    for i, word in enumerate(WORDS):  # a-0 the oldest, a-5 written today
        _session(tmp_path / "claude" / f"a-{i}.jsonl", f"s{i}", word, messages=40, mtime=now - (5 - i) * 7 * DAY)
    size = (tmp_path / "claude" / "a-0.jsonl").stat().st_size
    monkeypatch.setattr(read_batches, "BATCH_BYTES", 2 * size + size // 2)  # two files a batch
    stop = threading.Event()
    batches = _batches_read(monkeypatch, after_each=stop.set)  # hold the build still after its first batch
    report = engine.sync(cancel=stop)
    assert report.cancelled and len(batches) == 1
    assert [name for name, _ in batches[0]] == ["a-5.jsonl", "a-4.jsonl"]
    assert _finds(engine, "ferret") and _finds(engine, "emu")
    assert not _finds(engine, "aardvark")
    engine.sync()  # the rest, at the next sync
    assert all(_finds(engine, word) for word in WORDS)


def test_a_batch_never_holds_more_bytes_than_its_budget_unless_one_file_does(
    tmp_path: Path, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first batch's budget, then twice the one before up to the most."""
    now = 1_780_000_000
    for i, (word, messages) in enumerate(zip(WORDS, (10, 30, 200, 20, 10, 60), strict=True)):
        _session(tmp_path / "claude" / f"b-{i}.jsonl", f"s{i}", word, messages=messages, mtime=now - i * DAY)
    sizes = {p.name: p.stat().st_size for p in (tmp_path / "claude").iterdir()}
    first = sizes["b-0.jsonl"] + sizes["b-1.jsonl"] // 2
    assert sizes["b-2.jsonl"] > 2 * first  # one file larger than any budget
    monkeypatch.setattr(read_batches, "BATCH_BYTES", first)
    monkeypatch.setattr(read_batches, "BATCH_BYTES_MOST", 2 * first)
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
    cut = read_batches.batches(files, to_read=lambda item: item[0].stat.st_size, first_bytes=100, most_bytes=400)
    assert [len(batch) for batch in cut] == [1, 2, 4, 4, 1]


def test_copies_of_one_transcript_keep_their_session_keys_in_name_order(tmp_path: Path, engine: Engine) -> None:
    """The first copy stored takes the session's plain key, the others `~name` ones: newest first must not hand
    the plain key to a newer copy in a folder that sorts later (it stays the copy it was by name)."""
    now = 1_780_000_000
    _session(tmp_path / "claude" / "a" / "same.jsonl", "dup", "bison", messages=6, mtime=now - 9 * DAY)
    _session(tmp_path / "claude" / "m" / "other.jsonl", "other", "emu", messages=6, mtime=now - 5 * DAY)
    _session(tmp_path / "claude" / "z" / "same.jsonl", "dup", "bison", messages=6, mtime=now)
    engine.sync()
    keys = dict(engine.catalog.db.execute("SELECT path, session_key FROM files").fetchall())
    by_folder = {Path(path).parent.name: key for path, key in keys.items()}
    assert by_folder["a"] == "claude-code:dup"
    assert by_folder["z"] is not None and by_folder["z"].startswith("claude-code:dup~")


def test_newest_first_keeps_the_copies_of_a_transcript_together_at_the_newest_of_them(tmp_path: Path) -> None:
    """Copies begin with the same line: a copy in another folder, a copy continued since."""

    def named(name: str, text: str, mtime: int) -> tuple[Named, None]:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        os.utime(path, (mtime, mtime))
        return (Named(SourceFile(path, "transcript", tmp_path), path.stat(), name), None)

    found = [
        named("a/x.jsonl", "first\n", 1),
        named("a/y.jsonl", "other\n", 5),
        named("b/copy.jsonl", "first\nand on\n", 9),
        named("b/z.jsonl", "third\n", 7),
    ]
    ordered = [n.key for n, _ in read_batches.newest_first(found)]
    assert ordered == ["a/x.jsonl", "b/copy.jsonl", "b/z.jsonl", "a/y.jsonl"]
