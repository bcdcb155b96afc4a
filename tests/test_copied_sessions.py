"""A message that two files of one session hold (a hand copy `s.jsonl.bak`, a rotation whose new file starts with
earlier messages, a Claude Code session resumed into a file that replays them) is counted and shown once: in `stats`,
the status line, the session list, a session's history, a search and a question about a day. Deleting one of the files
loses nothing the other holds; deleting both removes the messages. Of two texts under one message id, the file that
holds the session's plain key keeps its own. The real engine, keyword-only, over folders the test writes."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from claude_lines import claude_line
from memlens.engine.engine import Engine
from memlens.settings import Settings
from test_files_that_change import KEY, SESSION, open_engine, sessions_held, write_messages


def counted(engine: Engine) -> tuple[int, int, int]:
    """(messages `stats` counts, sessions it counts, messages the status line counts)."""
    stats, status = engine.stats(), engine.status()
    return sum(stats["messages"].values()), stats["sessions"], status["messages"]


def history_ids(engine: Engine, key: str) -> list[str]:
    """The message ids a session's history shows, in order."""
    return [str(m["messageId"]) for m in engine.history(key, limit=100)["messages"]]


def shown(engine: Engine, question: str) -> list[tuple[str | None, str | None]]:
    """(session key, message id) of every message a search or a question about days shows, as often as shown."""
    return [(r["sessionKey"], r["messageId"]) for r in engine.search(question, mode="keyword", limit=100)["results"]]


def test_a_hand_copy_beside_the_live_transcript_counts_each_message_once(tmp_path: Path) -> None:
    folder = tmp_path / "claude"
    folder.mkdir()
    path = folder / f"{SESSION}.jsonl"
    write_messages(path, 0, 4)
    with open_engine(folder, tmp_path / "index") as engine:
        engine.sync()
        shutil.copy(path, f"{path}.bak")
        assert engine.sync().messages_added == 0  # the index held them all: "+0 messages"
        assert counted(engine) == (4, 1, 4)
        assert sessions_held(engine) == {KEY: (path.name, 4)}  # the copy is not a second session
        assert history_ids(engine, KEY) == ["u0", "u1", "u2", "u3"]
        day = shown(engine, "what did we do on March 1 2026")
        assert day and len(day) == len(set(day)) and {key for key, _ in day} == {KEY}
        assert {key for key, _ in shown(engine, "message2 quokka")} == {KEY}
        # the copy is no session of the list, but opened by its key (a path's, a link's) it shows what it holds
        copy_key = str(engine.catalog.db.execute("SELECT key FROM sessions WHERE key != ?", (KEY,)).fetchone()[0])
        assert history_ids(engine, copy_key) == ["u0", "u1", "u2", "u3"]
        anchored = engine.history(copy_key, message_id="u2", limit=3)
        assert [m["messageId"] for m in anchored["messages"]] == ["u1", "u2", "u3"] and anchored["hasMoreBefore"]
        write_messages(path, 4, 2, mode="a")  # the live file grows past its copy
        assert engine.sync().messages_added == 2
        assert counted(engine) == (6, 1, 6)
        assert history_ids(engine, KEY) == [f"u{m}" for m in range(6)]


def test_a_rotation_whose_new_file_starts_with_earlier_messages_counts_them_once(tmp_path: Path) -> None:
    folder = tmp_path / "claude"
    folder.mkdir()
    path = folder / f"{SESSION}.jsonl"
    rotated = folder / f"{SESSION}.jsonl.1"
    write_messages(path, 0, 4)
    with open_engine(folder, tmp_path / "index") as engine:
        engine.sync()
        path.rename(rotated)
        write_messages(path, 2, 4)  # the new file repeats messages 2 and 3, then goes on
        engine.sync()
        assert counted(engine) == (6, 2, 6)
        copy_key = next(key for key in sessions_held(engine) if key != KEY)
        assert sessions_held(engine) == {KEY: (path.name, 4), copy_key: (rotated.name, 2)}
        assert history_ids(engine, KEY) == ["u2", "u3", "u4", "u5"]
        # the file's four: whoever opens that file's session sees what it holds, the two the live file keeps too
        assert history_ids(engine, copy_key) == ["u0", "u1", "u2", "u3"]
        day = shown(engine, "what did we do on March 1 2026")
        assert len(day) == len(set(day)) and len({message for _, message in day}) == len(day)


def test_a_resumed_session_that_replays_earlier_messages_counts_only_its_new_ones(tmp_path: Path) -> None:
    folder = tmp_path / "claude"
    folder.mkdir()
    write_messages(folder / f"{SESSION}.jsonl", 0, 4)
    resumed = folder / "9a9b8c7d-1e2f-4a3b-8c4d-5e6f7a8b9c0d.jsonl"  # read after the first: KEY~…
    write_messages(resumed, 0, 6)  # Claude Code's resumed file: the earlier messages again, then the new ones
    with open_engine(folder, tmp_path / "index") as engine:
        engine.sync()
        assert counted(engine) == (6, 2, 6)
        copy_key = next(key for key in sessions_held(engine) if key != KEY)
        assert sessions_held(engine) == {KEY: (f"{SESSION}.jsonl", 4), copy_key: (resumed.name, 2)}
        assert history_ids(engine, copy_key) == [f"u{m}" for m in range(6)]  # the resumed file as it reads
        hits = shown(engine, "quokka ledger")  # every message says it: a hit of each chunk, where it is counted
        assert hits and len(hits) == len({message for _, message in hits})
        assert all(key == (copy_key if message in ("u4", "u5") else KEY) for key, message in hits)


@pytest.mark.parametrize("seen_by", ["sync", "watcher"])
@pytest.mark.parametrize("deleted", ["live", "copy"])
def test_deleting_one_copy_loses_nothing_and_deleting_both_removes_them(
    tmp_path: Path, deleted: str, seen_by: str
) -> None:
    folder = tmp_path / "claude"
    folder.mkdir()
    live = folder / f"{SESSION}.jsonl"
    write_messages(live, 0, 4)
    copy = folder / f"{SESSION}.jsonl.bak"
    shutil.copy(live, copy)
    with open_engine(folder, tmp_path / "index") as engine:

        def delete(path: Path) -> None:
            path.unlink()
            if seen_by == "sync":
                engine.sync()
            else:
                engine.sync_paths([], [path])

        engine.sync()
        assert counted(engine) == (4, 1, 4)
        gone, left = (live, copy) if deleted == "live" else (copy, live)
        delete(gone)
        assert counted(engine) == (4, 1, 4)
        assert [count for _, count in sessions_held(engine).values()] == [4]
        key = next(iter(sessions_held(engine)))
        assert history_ids(engine, key) == ["u0", "u1", "u2", "u3"]
        delete(left)
        assert counted(engine) == (0, 0, 0)
        assert sessions_held(engine) == {}


def _rewrite_message(path: Path, number: int, text: str) -> None:
    """Give message `number` of SESSION's file at `path` another text, its id and time the same."""
    lines = path.read_text().splitlines()
    row = json.loads(lines[number])
    row["message"]["content"] = text
    lines[number] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n")


def test_of_two_texts_under_one_id_the_file_holding_the_plain_key_keeps_its_own(tmp_path: Path) -> None:
    second, first = tmp_path / "p2", tmp_path / "p1"  # the plain key's holder sorts after the other file
    second.mkdir()
    write_messages(second / f"{SESSION}.jsonl", 0, 4)
    _rewrite_message(second / f"{SESSION}.jsonl", 3, "message3 the kept wording of the quokka ledger")
    settings = Settings()
    settings.transcripts.agent_defaults = False
    settings.scope = "all"
    with Engine([], settings, [first, second], tmp_path / "index", embedder=False) as engine:
        engine.sync()  # only p2 holds the session yet: it takes the plain key
        first.mkdir()
        write_messages(first / f"{SESSION}.jsonl", 0, 4)
        _rewrite_message(first / f"{SESSION}.jsonl", 3, "message3 the dropped wording of the pangolin ledger")
        engine.sync()
        assert counted(engine) == (4, 1, 4)
        assert sessions_held(engine) == {KEY: (f"{SESSION}.jsonl", 4)}
        last = engine.history(KEY, limit=100)["messages"][-1]
        assert last["messageId"] == "u3" and "kept wording" in last["text"]
        assert shown(engine, "pangolin") == []  # the other file's text under that id is not shown
        assert engine.sessions(limit=10)["sessions"][0]["path"].startswith(str(second))


def test_an_index_from_before_the_copies_were_told_apart_counts_them_once_after_its_next_sync(tmp_path: Path) -> None:
    folder = tmp_path / "claude"
    folder.mkdir()
    path = folder / f"{SESSION}.jsonl"
    write_messages(path, 0, 4)
    shutil.copy(path, f"{path}.bak")
    with open_engine(folder, tmp_path / "index") as engine:
        engine.sync()
        catalog = engine.catalog.path
    with sqlite3.connect(catalog) as db:  # as an older memlens left it: no column, every copy counted
        db.execute("DROP INDEX units_shadowed")
        db.execute("ALTER TABLE units DROP COLUMN shadowed")
        db.execute("UPDATE sessions SET messages = 4")
    with open_engine(folder, tmp_path / "index") as engine:
        engine.sync()
        assert counted(engine) == (4, 1, 4)
        assert sessions_held(engine) == {KEY: (path.name, 4)}


def test_an_index_from_before_the_copies_identities_chooses_whole_at_its_first_append(tmp_path: Path) -> None:
    """In a catalog whose units carry no copy identity (`units.copy_identity`), an append to a copy finds the message
    the live file keeps all the same (the whole session is chosen again, marking them): no file is read again."""
    folder = tmp_path / "claude"
    folder.mkdir()
    path, copy = folder / f"{SESSION}.jsonl", folder / f"{SESSION}.jsonl.bak"
    write_messages(path, 0, 5)
    write_messages(copy, 0, 4)
    with open_engine(folder, tmp_path / "index") as engine:
        engine.sync()
        catalog = engine.catalog.path
    with sqlite3.connect(catalog) as db:  # as an older memlens left it: no column
        db.execute("DROP INDEX units_copy_identity")
        db.execute("ALTER TABLE units DROP COLUMN copy_identity")
    with open_engine(folder, tmp_path / "index") as engine:
        assert engine.sync().files_parsed == 0
        with copy.open("a") as handle:
            handle.write(line_of(4, 3))
        engine.sync_paths([copy])
        assert counted(engine) == (5, 1, 5)
        held = "SELECT COUNT(*) FROM units WHERE copy_identity IS NULL"
        assert engine.catalog.db.execute(held).fetchone()[0] == 0


def test_messages_without_ids_are_the_same_message_by_role_time_and_text(tmp_path: Path) -> None:
    """Codex names a message by its line: a copy is told by role, time and text, and a new first line is no copy."""
    folder = tmp_path / "codex"
    folder.mkdir()
    session = "019c0000-0000-7000-8000-000000000001"
    meta = {"type": "session_meta", "timestamp": "2026-03-01T10:00:00Z", "payload": {"id": session, "cwd": "/w"}}

    def turn(minute: int, role: str, text: str) -> dict[str, object]:
        kind = "input_text" if role == "user" else "output_text"
        payload = {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}
        return {"type": "response_item", "timestamp": f"2026-03-01T10:{minute:02d}:00Z", "payload": payload}

    turns = [turn(m, "user" if m % 2 == 0 else "assistant", f"turn{m} of the wombat audit") for m in range(1, 5)]
    rollout = folder / f"rollout-2026-03-01T10-00-00-{session}.jsonl"
    rollout.write_text("".join(json.dumps(row) + "\n" for row in [meta, *turns]))
    shutil.copy(rollout, f"{rollout}.bak")
    # a later file of the session whose lines sit where the others' did but say other things
    other = folder / f"rollout-2026-03-02T10-00-00-{session}.jsonl"
    later = [turn(m, "user" if m % 2 == 0 else "assistant", f"turn{m} of the echidna review") for m in range(1, 5)]
    other.write_text("".join(json.dumps(row) + "\n" for row in [meta, *later]))
    with open_engine(folder, tmp_path / "index") as engine:
        engine.sync()
        messages, _, _ = counted(engine)
        assert messages == 8  # the copy's four once, the later file's four of its own
        assert len(shown(engine, "wombat")) == len({m for _, m in shown(engine, "wombat")})


def test_a_watcher_that_sees_the_copy_appear_counts_it_once(tmp_path: Path) -> None:
    folder = tmp_path / "claude"
    folder.mkdir()
    path = folder / f"{SESSION}.jsonl"
    write_messages(path, 0, 4)
    with open_engine(folder, tmp_path / "index") as engine:
        engine.sync()
        copy = folder / f"{SESSION}.jsonl~"
        shutil.copy(path, copy)
        engine.sync_paths([copy])
        assert counted(engine) == (4, 1, 4)
        row = claude_line(
            "user", "u9", "u3", "message9 after the copy", session=SESSION, timestamp="2026-03-01T11:00:00Z"
        )
        with copy.open("a") as handle:  # the copy grows on its own: that message is its, counted once
            handle.write(json.dumps(row) + "\n")
        engine.sync_paths([copy])
        assert counted(engine) == (5, 2, 5)
        assert history_ids(engine, KEY) == ["u0", "u1", "u2", "u3"]
        with path.open("a") as handle:  # the live file gets it too: it keeps it, and the copy is a whole copy again
            handle.write(json.dumps(row) + "\n")
        assert engine.sync_paths([path]).messages_added == 0  # its own again, and the copy's no longer
        assert counted(engine) == (5, 1, 5)
        assert history_ids(engine, KEY) == ["u0", "u1", "u2", "u3", "u9"]


@pytest.mark.parametrize("seen_by", ["sync", "watcher"])
def test_deleting_the_file_that_kept_a_message_hands_it_to_another_copy(tmp_path: Path, seen_by: str) -> None:
    """The live file keeps the session's plain key and none of the first messages: of two rotated copies holding them,
    the first keeps them until it goes, then the second counts them (no file is read again for it)."""
    folder = tmp_path / "claude"
    folder.mkdir()
    live = folder / f"{SESSION}.jsonl"
    write_messages(live, 0, 4)
    with open_engine(folder, tmp_path / "index") as engine:
        engine.sync()
        first, second = folder / f"{SESSION}.jsonl.1", folder / f"{SESSION}.jsonl.2"
        live.rename(first)
        shutil.copy(first, second)
        write_messages(live, 4, 2)
        engine.sync()
        assert counted(engine) == (6, 2, 6)
        first.unlink()
        if seen_by == "sync":
            engine.sync()
        else:
            engine.sync_paths([], [first])
        assert counted(engine) == (6, 2, 6)
        held = sessions_held(engine)
        assert sorted(held.values()) == [(live.name, 2), (second.name, 4)]


def line_of(m: int, parent: int | None) -> str:
    """Message `m` of SESSION (as write_messages writes it) as one line, its parent `parent`."""
    kind = "user" if m % 2 == 0 else "assistant"
    row = claude_line(
        kind,
        f"u{m}",
        f"u{parent}" if parent is not None else None,
        f"message{m} about the quokka ledger",
        session=SESSION,
        timestamp=f"2026-03-01T10:{m:02d}:00Z",
    )
    return json.dumps(row) + "\n"


def test_an_append_chooses_as_the_whole_session_would_reading_only_its_own_messages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Appends to each of three files of a session (new messages, and messages another file holds or keeps) leave
    each message kept by the file a choice over every unit of the session gives, and counted once; no append reads
    the session's units whole (catalog/copies.py `settle_appended`)."""
    folder = tmp_path / "claude"
    folder.mkdir()
    live, copy, rotated = folder / f"{SESSION}.jsonl", folder / f"{SESSION}.jsonl.bak", folder / f"{SESSION}.jsonl.1"
    write_messages(live, 0, 6)
    shutil.copy(live, copy)
    write_messages(rotated, 0, 3)
    appends = [  # (the file, the message, its parent); of the other two, `.1` sorts first and keeps
        (live, 6, 5),  # new to the session
        (copy, 6, 5),  # the live file holds it: the copy's is shadowed
        (rotated, 3, 2),  # held by both others: the live file keeps it
        (copy, 7, 6),  # new: the copy keeps it
        (rotated, 7, 3),  # the rotation takes it from the copy
        (live, 7, 6),  # the live file takes it from both
        (copy, 8, 7),  # new: the copy keeps it
        (rotated, 8, 7),  # the rotation takes it
        (rotated, 9, 8),  # new: the rotation keeps it
        (copy, 9, 8),  # held by the rotation, which keeps it
    ]
    with open_engine(folder, tmp_path / "index") as engine:
        engine.sync()
        chosen_whole: list[object] = []
        whole = engine.catalog._choose

        def choose(*args: Any) -> Any:
            chosen_whole.append(args)
            return whole(*args)

        monkeypatch.setattr(engine.catalog, "_choose", choose)
        for path, m, parent in appends:
            with path.open("a") as handle:
                handle.write(line_of(m, parent))
            engine.sync_paths([path])
            assert chosen_whole == [], path.name
            with engine.catalog.transaction() as db:
                again = engine.catalog.settle_copies(db, engine.catalog.key_families(db, [KEY]))
                assert (again.keys, again.messages) == ([], 0), (path.name, m)
            chosen_whole.clear()  # the check's own choice
            held = {int(r[0][1:]) for r in engine.catalog.db.execute("SELECT message_id FROM units")}
            assert counted(engine)[0] == len(held)
        assert history_ids(engine, KEY) == [f"u{m}" for m in range(8)]
        assert sorted(sessions_held(engine).values()) == [(live.name, 8), (rotated.name, 2)]  # the copy: none


def test_an_append_of_messages_told_by_their_text_chooses_as_the_whole_session_would(tmp_path: Path) -> None:
    """Codex names a message by its line: appends to a rollout and to its copy (the same turns, and turns of their
    own) count each turn once, as a choice over every unit of the session does."""
    folder = tmp_path / "codex"
    folder.mkdir()
    session = "019c0000-0000-7000-8000-000000000002"
    meta = {"type": "session_meta", "timestamp": "2026-03-01T10:00:00Z", "payload": {"id": session, "cwd": "/w"}}

    def turn(minute: int, text: str | None = None) -> str:
        role = "user" if minute % 2 == 0 else "assistant"
        kind = "input_text" if role == "user" else "output_text"
        said = text or f"turn{minute} of the wombat audit"
        payload = {"type": "message", "role": role, "content": [{"type": kind, "text": said}]}
        row = {"type": "response_item", "timestamp": f"2026-03-01T10:{minute:02d}:00Z", "payload": payload}
        return json.dumps(row) + "\n"

    rollout = folder / f"rollout-2026-03-01T10-00-00-{session}.jsonl"
    rollout.write_text(json.dumps(meta) + "\n" + "".join(turn(m) for m in range(1, 5)))
    copy = folder / f"{rollout.name}.bak"
    shutil.copy(rollout, copy)
    appends = [(rollout, turn(5)), (copy, turn(5)), (copy, turn(6)), (rollout, turn(6, "turn6 said otherwise"))]
    with open_engine(folder, tmp_path / "index") as engine:
        engine.sync()
        for path, line in appends:
            with path.open("a") as handle:
                handle.write(line)
            engine.sync_paths([path])
            with engine.catalog.transaction() as db:
                again = engine.catalog.settle_copies(db, engine.catalog.key_families(db, [f"codex:{session}"]))
                assert (again.keys, again.messages) == ([], 0), (path.name, line)
        assert counted(engine)[0] == 7  # turns 1-5 once, and turn 6 as each file says it
