"""What a user's folder of transcripts does to them besides growing: a transcript truncated to nothing (or holding only
blank space, or only the start of its first line) is empty, not of a format memlens cannot read, and a file emptied
between two syncs says that its messages went; a transcript rotated (`session.jsonl` renamed `session.jsonl.1`,
`session.jsonl~` or `session.jsonl.bak` while a new `session.jsonl` starts, or copied there and truncated) loses no
message, counts none twice, and leaves its session's plain key to what a rebuild would give it once the other file
goes; a folder whose permission is taken away keeps its sessions as last read. The real engine, keyword-only, over
a folder the test writes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from claude_lines import claude_line
from memlens.engine.engine import Engine
from memlens.settings import Settings
from memlens_runs import memlens_process

SESSION = "6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a01"
KEY = f"claude-code:{SESSION}"


def write_messages(path: Path, first: int, count: int, *, mode: str = "w") -> None:
    """Messages `first`… of SESSION, each naming its number and "the quokka ledger", one line each."""
    with path.open(mode) as handle:
        for m in range(first, first + count):
            kind = "user" if m % 2 == 0 else "assistant"
            text = f"message{m} about the quokka ledger"
            row = claude_line(
                kind, f"u{m}", f"u{m - 1}" if m else None, text, session=SESSION, timestamp=f"2026-03-01T10:{m:02d}:00Z"
            )
            handle.write(json.dumps(row) + "\n")


def open_engine(folder: Path, index: Path) -> Engine:
    settings = Settings()
    settings.transcripts.agent_defaults = False
    settings.scope = "all"
    return Engine([], settings, [folder], index, embedder=False)


@contextmanager
def synced_session(tmp_path: Path) -> Iterator[tuple[Path, Path, Engine]]:
    """(the transcripts folder, SESSION's file of four messages in it, an engine that has read it), closed after."""
    folder = tmp_path / "claude"
    folder.mkdir()
    path = folder / f"{SESSION}.jsonl"
    write_messages(path, 0, 4)
    engine = open_engine(folder, tmp_path / "index")
    try:
        engine.sync()
        yield folder, path, engine
    finally:
        engine.close()


def sessions_held(engine: Engine) -> dict[str, tuple[str, int]]:
    """Each session's key: its file's name and its message count."""
    listed = engine.sessions(limit=100)["sessions"]
    return {s["sessionKey"]: (Path(s["path"]).name, s["messageCount"]) for s in listed}


def messages_found(engine: Engine) -> list[str]:
    """The ids of the messages the index holds, each as often as it holds it."""
    rows = engine.catalog.db.execute("SELECT message_id FROM plain_units WHERE kind = 'transcript' AND part = 0")
    return sorted(str(row[0]) for row in rows)


def sessions_shown(engine: Engine, word: str) -> set[str]:
    """The sessions a search for `word` shows a hit of."""
    return {str(hit["sessionKey"]) for hit in engine.search(word, mode="keyword", limit=100)["results"]}


@pytest.mark.parametrize(
    "content",
    [b"", b"  \n\n\t\n", b'{"type":"user","message":{"ro', b"\xef\xbb\xbf\n"],
    ids=["zero-bytes", "blank", "partial-first-line", "byte-order-mark"],
)
def test_a_transcript_with_nothing_in_it_is_empty_not_of_an_unknown_format(tmp_path: Path, content: bytes) -> None:
    folder = tmp_path / "claude"
    folder.mkdir()
    (folder / "nothing.jsonl").write_bytes(content)
    (folder / "other.jsonl").write_text('{"kind": "a tool memlens does not know"}\n')
    engine = open_engine(folder, tmp_path / "index")
    try:
        engine.sync()
        stats = engine.stats()
    finally:
        engine.close()
    assert (stats["filesEmpty"], [Path(p).name for p in stats["emptyFiles"]]) == (1, ["nothing.jsonl"])
    assert (stats["filesUnrecognised"], [Path(p).name for p in stats["unrecognisedFiles"]]) == (1, ["other.jsonl"])


def test_stats_says_empty_files_in_its_text_and_its_json(tmp_path: Path) -> None:
    folder = tmp_path / "claude"
    folder.mkdir()
    write_messages(folder / f"{SESSION}.jsonl", 0, 2)
    (folder / "truncated.jsonl").write_bytes(b"")
    flags = ["--transcripts", str(folder), "--index-dir", str(tmp_path / "index"), "--no-embeddings", "--scope", "all"]
    env = {**os.environ, "HOME": str(tmp_path / "home"), "COLUMNS": "200"}
    assert memlens_process("index", *flags, env=env).returncode == 0
    text = memlens_process("stats", *flags, env=env)
    as_json = json.loads(memlens_process("stats", "--json", *flags, env=env).stdout)
    assert text.returncode == 0 and "Traceback" not in text.stderr
    assert "empty files (nothing to read yet)" in text.stdout and "truncated.jsonl" in text.stdout, text.stdout
    unknown = next(line for line in text.stdout.splitlines() if "files in no format memlens reads" in line)
    assert unknown.split()[-1] == "0" and "files: claude-code 1 · empty 1" in text.stdout, text.stdout
    assert as_json["filesEmpty"] == 1 and as_json["filesUnrecognised"] == 0


def test_a_transcript_emptied_between_two_syncs_says_its_messages_went(tmp_path: Path) -> None:
    with synced_session(tmp_path) as (folder, path, engine):
        path.write_bytes(b"")
        report = engine.sync()
        assert (report.files_emptied, report.to_wire()["filesEmptied"]) == (1, 1)
        assert sessions_held(engine) == {} and messages_found(engine) == []
        stats = engine.stats()
        assert stats["filesEmpty"] == 1 and stats["sessions"] == 0
        again = engine.sync()  # said once: still empty is not emptied again
        assert again.files_emptied == 0


@pytest.mark.parametrize("seen_by", ["sync", "watcher"])
@pytest.mark.parametrize("rotated", ["~", ".1", ".bak"])
def test_a_rotated_transcript_keeps_every_message_once(tmp_path: Path, rotated: str, seen_by: str) -> None:
    with synced_session(tmp_path) as (folder, path, engine):
        path.rename(f"{path}{rotated}")
        write_messages(path, 4, 2)
        if seen_by == "sync":
            engine.sync()
        else:  # the names a watcher's events give, the rotated one first
            engine.sync_paths([Path(f"{path}{rotated}"), path])
        assert sessions_held(engine)[KEY] == (path.name, 2)  # the live name's, as a rebuild gives it
        assert messages_found(engine) == sorted(f"u{m}" for m in range(6))  # none lost, none twice
        assert sum(count for _, count in sessions_held(engine).values()) == 6
        assert engine.stats()["filesUnrecognised"] == 0
        assert len(sessions_shown(engine, "message1")) == 1 and len(sessions_shown(engine, "message5")) == 1
        Path(f"{path}{rotated}").unlink()  # the rotated file goes: the new one is the session, as a rebuild says
        engine.sync()
        assert sessions_held(engine) == {KEY: (path.name, 2)}
        assert messages_found(engine) == ["u4", "u5"]


@pytest.mark.parametrize("seen_by", ["sync", "watcher"])
def test_the_file_left_of_a_session_takes_its_plain_key_when_the_other_goes(tmp_path: Path, seen_by: str) -> None:
    with synced_session(tmp_path) as (folder, path, engine):
        rotated = folder / f"{SESSION}.jsonl.1"
        path.rename(rotated)
        write_messages(path, 4, 2)
        engine.sync()
        assert sessions_held(engine)[KEY] == (path.name, 2)  # the live name's, as a rebuild gives it
        path.unlink()  # the live file goes: what is left of the session is the rotated one
        if seen_by == "sync":
            engine.sync()
        else:
            engine.sync_paths([], [path])
        assert sessions_held(engine) == {KEY: (rotated.name, 4)}
        assert messages_found(engine) == sorted(f"u{m}" for m in range(4))
        assert sessions_shown(engine, "message2") == {KEY}
        assert engine.history(KEY)["messages"]  # the key a user types finds the session


def test_a_transcript_copied_aside_and_truncated_keeps_its_messages_under_its_plain_key(tmp_path: Path) -> None:
    with synced_session(tmp_path) as (folder, path, engine):
        shutil.copy(path, f"{path}.1")  # logrotate's copytruncate
        path.write_bytes(b"")
        report = engine.sync()
        assert sessions_held(engine) == {KEY: (f"{path.name}.1", 4)}
        assert messages_found(engine) == sorted(f"u{m}" for m in range(4))
        assert report.files_emptied == 1
        rebuilt = open_engine(folder, tmp_path / "rebuilt")
        try:
            rebuilt.sync()
            assert sessions_held(rebuilt) == sessions_held(engine)
        finally:
            rebuilt.close()


def test_a_blank_transcript_an_older_index_called_of_no_format_is_said_empty_after_its_next_sync(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "claude"
    folder.mkdir()
    (folder / "blank.jsonl").write_bytes(b"\n \n")
    engine = open_engine(folder, tmp_path / "index")
    try:
        engine.sync()
        with engine.catalog.transaction() as db:  # as a memlens from before the column left it
            db.execute("ALTER TABLE files DROP COLUMN empty")
    finally:
        engine.close()
    engine = open_engine(folder, tmp_path / "index")
    try:
        engine.sync()
        assert (engine.stats()["filesEmpty"], engine.stats()["filesUnrecognised"]) == (1, 0)
    finally:
        engine.close()


def memlens_without_override(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """`memlens ARGS` as a user whom permissions bind: root without the capabilities that let it read and enter any
    file and folder (the interpreter stays reachable, as it would not be for another user)."""
    drop = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("root without its override needs setpriv")
        drop = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]
    env = {**os.environ, "HOME": str(home), "COLUMNS": "200"}
    command = [*drop, sys.executable, "-m", "memlens", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=env, check=False)


@pytest.mark.slow  # (four memlens processes)
def test_a_folder_that_cannot_be_listed_any_more_keeps_its_sessions_as_last_read(tmp_path: Path) -> None:
    folder = tmp_path / "claude"
    (folder / "project").mkdir(parents=True)
    write_messages(folder / "project" / f"{SESSION}.jsonl", 0, 4)
    flags = ["--transcripts", str(folder), "--index-dir", str(tmp_path / "index"), "--no-embeddings", "--scope", "all"]
    home = tmp_path / "home"
    assert memlens_without_override("index", *flags, home=home).returncode == 0
    (folder / "project").chmod(0)
    try:
        synced = memlens_without_override("index", "--json", *flags, home=home)
        found = memlens_without_override("search", "quokka", "--json", "--no-sync", *flags, home=home)
        stats = json.loads(memlens_without_override("stats", "--json", *flags, home=home).stdout)
    finally:
        (folder / "project").chmod(0o755)
    assert synced.returncode == 0 and "Traceback" not in synced.stderr + found.stderr
    assert json.loads(synced.stdout)["filesDeleted"] == 0  # unlisted is not deleted
    assert "cannot list the folder" in synced.stderr
    assert {hit["sessionKey"] for hit in json.loads(found.stdout)["results"]} == {KEY}
    assert stats["sessions"] == 1 and stats["messages"] == {"claude-code": 4}
    assert [problem["path"] for problem in stats["fileErrors"]] == [str(folder / "project")]


def test_a_transcript_replaced_by_a_folder_is_removed_when_a_watcher_reports_its_name(tmp_path: Path) -> None:
    with synced_session(tmp_path) as (folder, path, engine):
        path.unlink()
        path.mkdir()  # a watcher sees the name change, not the file go: the name is still there
        report = engine.sync_paths([path])
        assert report.files_deleted == 1 and sessions_held(engine) == {}
        assert engine.sync().files_deleted == 0  # as a whole sync, which walks into the folder, finds


def test_a_transcript_replaced_by_a_link_in_a_loop_keeps_its_messages_as_last_read_and_says_why(
    tmp_path: Path,
) -> None:
    with synced_session(tmp_path) as (folder, path, engine):
        path.unlink()
        path.symlink_to(path.name)
        engine.sync_paths([path])
        assert sessions_held(engine) == {KEY: (path.name, 4)}
        report = engine.sync()
        assert report.files_deleted == 0 and sessions_held(engine) == {KEY: (path.name, 4)}
        assert [error["reasons"] for error in engine.stats()["fileErrors"]] == [
            ["not indexed: a symbolic link in a loop of links"]
        ]


@pytest.mark.slow  # (five memlens processes)
def test_odd_names_of_empty_and_rotated_transcripts_are_shown_escaped_and_open_in_history(tmp_path: Path) -> None:
    folder = tmp_path / "claude"
    folder.mkdir()
    odd = bytes(folder) + b"/z\x1b]0;title\x07 %s\n\xff"  # (after the session's first file in name order)
    os.mkdir(odd)
    write_messages(folder / f"{SESSION}.jsonl", 0, 2)
    shutil.copy(bytes(folder / f"{SESSION}.jsonl"), odd + b"/-'\"\t\x1b[2J.jsonl.1")  # the session's second file
    write_messages(Path(os.fsdecode(odd + b"/-'\"\t\x1b[2J.jsonl.1")), 2, 1, mode="a")  # with a message of its own
    open(odd + b"/\x1b[31m\n" + b"e" * 242 + b".jsonl~", "wb").close()  # empty, rotated, 255 bytes
    flags = ["--transcripts", str(folder), "--index-dir", str(tmp_path / "index"), "--no-embeddings", "--scope", "all"]
    env = {**os.environ, "HOME": str(tmp_path / "home"), "COLUMNS": "300"}
    assert memlens_process("index", *flags, env=env).returncode == 0
    runs = {
        "stats": memlens_process("stats", *flags, env=env),
        "stats --json": memlens_process("stats", "--json", *flags, env=env),
        "sessions --json": memlens_process("sessions", "--json", *flags, env=env),
    }
    for name, run in runs.items():
        assert run.returncode == 0 and "Traceback" not in run.stderr, (name, run.stderr)
        assert not any(ord(c) < 32 and c != "\n" for c in run.stdout), name  # no raw control byte
    empty = json.loads(runs["stats --json"].stdout)["emptyFiles"]
    escaped = str(folder) + "/z\\x1b]0;title\\x07 %s\\n\\xff"
    assert empty == [escaped + "/\\x1b[31m\\n" + "e" * 242 + ".jsonl~"]
    assert escaped + "/\\x1b[31m\\n" in runs["stats"].stdout
    keys = {s["sessionKey"] for s in json.loads(runs["sessions --json"].stdout)["sessions"]}
    second = next(key for key in keys if key != KEY)
    assert second == f"{KEY}~-'\"\\t\\x1b[2J.jsonl"
    history = memlens_process("history", second, "--json", *flags, env=env)
    shown = [m["messageId"] for m in json.loads(history.stdout)["messages"]]
    assert history.returncode == 0 and shown == ["u0", "u1", "u2"]  # the file as it reads (answers/history.py)
