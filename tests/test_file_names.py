"""File names are bytes, and a file is its device and inode (issue 31, items 2 and 4): through the CLI and the real
watcher (`LiveIndexer`).

- Any name the OS allows is indexed with its neighbours, stored, and shown escaped (`file_names.escape_name`) on
  every face; a session key made from such a name opens in `history`, typed escaped or as the raw bytes.
- A rewrite keeping size and mtime is seen by a sync and by `reindex`; one file under two names (a hard link, a
  symlink to a sibling) is one source and the other names are counted as aliases, whichever name wins staying the
  same from one sync to the next.
- The watcher never dies on one file: a failure is logged, counted in `stats` (`watcherErrors`), and watching goes on.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memlens.engine import watcher
from memlens.engine.engine import Engine
from memlens.engine.file_names import disk_path, escape_name, stored_path, unescape_name
from memlens.engine.indexing import discovery
from memlens.engine.watcher import LiveIndexer
from memlens.settings import Settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.badcorpus.names import ODD_NAMES  # noqa: E402

SESSION = "0b5e6c1d-7a2f-4e3b-9c8d-1f2a3b4c5d6e"


# -- the escaped form ------------------------------------------------------------------------------------------


@given(st.binary(min_size=1, max_size=40))
def test_any_byte_name_round_trips_through_its_escaped_form(raw: bytes) -> None:
    name = os.fsdecode(raw.replace(b"/", b"_").replace(b"\0", b"_"))
    shown = escape_name(name)
    shown.encode("utf-8")  # storable and printable, whatever the bytes
    assert shown.isprintable() or "\u200c" in shown or "\u200d" in shown
    assert unescape_name(shown) == name
    assert os.fsencode(disk_path(stored_path(name))) == raw.replace(b"/", b"_").replace(b"\0", b"_")


@given(st.text(max_size=30), st.text(max_size=30))
def test_no_two_names_share_an_escaped_form(a: str, b: str) -> None:
    if a != b:
        assert escape_name(a) != escape_name(b)
    assert unescape_name(escape_name(a)) == a


def test_escaped_forms_read_as_their_bytes() -> None:
    assert escape_name(os.fsdecode(b"x\xff.jsonl")) == "x\\xff.jsonl"
    assert escape_name("a\nb\tc\x1b") == "a\\nb\\tc\\x1b"
    assert escape_name("back\\slash") == "back\\\\slash"
    assert escape_name("\u202egnp.md") == "\\u202egnp.md"
    assert escape_name("cafe\u0301.md") == "cafe\u0301.md"  # valid and visible: shown as it is (not normalised)
    assert escape_name("[a-z]*?.md") == "[a-z]*?.md"


# -- helpers ---------------------------------------------------------------------------------------------------


def _memlens(home: Path, *args: str | bytes) -> subprocess.CompletedProcess[bytes]:
    """The real CLI; bytes out, so what it prints is checked to be UTF-8."""
    env = {**os.environ, "HOME": str(home)}
    env.pop("MEMLENS_SETTINGS", None)
    argv: list[str | bytes] = [sys.executable, "-m", "memlens", *args]
    return subprocess.run(argv, capture_output=True, timeout=600, check=False, env=env)


def _ok(result: subprocess.CompletedProcess[bytes], codes: tuple[int, ...] = (0,)) -> str:
    stderr = result.stderr.decode("utf-8", "replace")
    assert result.returncode in codes, stderr
    assert "Traceback" not in stderr, stderr
    return result.stdout.decode("utf-8")  # strict: nothing unprintable reaches the terminal


def _line(n: int, text: str, parent: str | None, session: str = SESSION) -> str:
    return json.dumps(
        {
            "parentUuid": parent,
            "isSidechain": False,
            "type": "user" if n % 2 else "assistant",
            "sessionId": session,
            "uuid": f"u-{session[:4]}-{n}",
            "timestamp": f"2026-02-10T10:{n:02d}:00.000Z",
            "message": {"role": "user" if n % 2 else "assistant", "content": text},
        }
    )


def _transcript(words: list[str], session: str = SESSION) -> bytes:
    lines, parent = [], None
    for n, word in enumerate(words, 1):
        lines.append(_line(n, f"message about the {word} rollout plan", parent, session))
        parent = f"u-{session[:4]}-{n}"
    return ("\n".join(lines) + "\n").encode()


def _at(folder: Path, name: bytes) -> Path:
    return Path(os.fsdecode(bytes(folder) + b"/" + name))


@pytest.fixture
def place(tmp_path: Path) -> dict[str, Path]:
    places = {name: tmp_path / name for name in ("ws", "tr", "home", "idx")}
    for folder in places.values():
        folder.mkdir()
    (places["ws"] / "memory").mkdir()
    return places


def _flags(place: dict[str, Path]) -> list[str]:
    return [
        "--workspace",
        str(place["ws"]),
        "--transcripts",
        str(place["tr"]),
        "--index-dir",
        str(place["idx"]),
        "--no-embeddings",
    ]


def _search(place: dict[str, Path], word: str) -> list[dict[str, Any]]:
    found = _memlens(place["home"], "search", word, "--json", "--mode", "keyword", "--no-sync", *_flags(place))
    out = _ok(found, codes=(0, 1))  # 1: no results, as grep says it
    results: list[dict[str, Any]] = json.loads(out)["results"]
    return results


def _stats(place: dict[str, Path]) -> dict[str, Any]:
    stats: dict[str, Any] = json.loads(_ok(_memlens(place["home"], "stats", "--json", *_flags(place))))
    return stats


# -- names -----------------------------------------------------------------------------------------------------


def test_every_kind_of_name_is_indexed_with_its_neighbours_and_shown_escaped(place: dict[str, Path]) -> None:
    memory = place["ws"] / "memory"
    words = {}
    for n, (_slug, name) in enumerate(ODD_NAMES):
        word = f"quokka{chr(97 + n)}name"
        path = _at(memory, name)
        path.write_text(f"# Note\n\nthe {word} decision\n")
        words[word] = path
    (memory / "plain.md").write_text("# Plain\n\nthe wombatplain decision\n")
    odd = _at(place["tr"], b"x\xff\n.jsonl")
    odd.write_bytes(_transcript(["numbatodd", "numbatodd2"]))
    (place["tr"] / "good.jsonl").write_bytes(_transcript(["bilbygood"], session=SESSION.replace("0b", "1c")))
    _ok(_memlens(place["home"], "index", *_flags(place)))
    words |= {"wombatplain": memory / "plain.md", "numbatodd": odd, "bilbygood": place["tr"] / "good.jsonl"}
    for word, path in words.items():
        results = _search(place, word)
        assert [r["path"] for r in results] == [escape_name(str(path))], word
    human = _ok(
        _memlens(place["home"], "search", "numbatodd", "--mode", "keyword", "--no-sync", "--long", *_flags(place))
    )
    assert "x\\xff\\n.jsonl" in human
    stats = _stats(place)
    assert stats["filesWithErrors"] == 0 and stats["files"]["markdown"] == len(ODD_NAMES) + 1, stats


def test_a_session_key_made_from_an_odd_name_opens_in_history(place: dict[str, Path]) -> None:
    (place["tr"] / "first.jsonl").write_bytes(_transcript(["potoroofirst"]))
    # same session id: a `~` key; a message of its own, or it would be a whole copy, no session of its own
    _at(place["tr"], b"z\xff\tx.jsonl").write_bytes(_transcript(["potoroofirst", "potoroosecond"]))
    _ok(_memlens(place["home"], "index", *_flags(place)))
    listed = json.loads(_ok(_memlens(place["home"], "sessions", "--json", *_flags(place))))["sessions"]
    keys = sorted(s["sessionKey"] for s in listed)
    assert keys == [f"claude-code:{SESSION}", f"claude-code:{SESSION}~z\\xff\\tx"]
    typed = _ok(_memlens(place["home"], "history", keys[1], "--json", *_flags(place)))
    assert json.loads(typed)["path"] == escape_name(os.fsdecode(bytes(place["tr"]) + b"/z\xff\tx.jsonl"))
    raw_key = os.fsencode(f"claude-code:{SESSION}~") + b"z\xff\tx"  # the name's bytes, as a shell passes them
    raw = _ok(_memlens(place["home"], "history", raw_key, "--json", *_flags(place)))
    assert json.loads(raw)["sessionKey"] == keys[1]


def test_folders_with_odd_names_and_queries_with_raw_bytes(place: dict[str, Path], tmp_path: Path) -> None:
    """A workspace and a transcript folder whose names are not UTF-8 (the index folder named after the workspace
    then holds U+FFFD: the keyword index opens UTF-8 paths only); a query holding such bytes reads them as U+FFFD."""
    workspace = _at(tmp_path, b"w\xffs")
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "a.md").write_text("# A\n\nthe axolotlfolder plan\n")
    transcripts = _at(tmp_path, b"t\xff\nr")
    transcripts.mkdir()
    (transcripts / "s.jsonl").write_bytes(_transcript(["axolotltranscript"]))
    where = ["--workspace", str(workspace), "--transcripts", str(transcripts), "--no-embeddings"]
    _ok(_memlens(place["home"], "index", *where))
    for word, path in (
        ("axolotlfolder", workspace / "memory" / "a.md"),
        ("axolotltranscript", transcripts / "s.jsonl"),
    ):
        found = json.loads(_ok(_memlens(place["home"], "search", word, "--json", "--no-sync", *where)))["results"]
        assert [r["path"] for r in found] == [escape_name(str(path))]
    raw_query = _memlens(place["home"], "search", b"axolotlfolder \xff", "--json", "--no-sync", *where)
    assert json.loads(_ok(raw_query))["results"]
    stats = json.loads(_ok(_memlens(place["home"], "stats", "--json", *where)))
    assert "\ufffd" in stats["indexDir"] and stats["files"] == {"claude-code": 1, "markdown": 1}
    bad_index = _memlens(place["home"], "search", "x", "--index-dir", str(workspace / "idx"), *where)
    assert bad_index.returncode == 2 and b"Traceback" not in bad_index.stderr
    assert b"not UTF-8" in bad_index.stderr


# -- identity --------------------------------------------------------------------------------------------------


def _rewrite_keeping_size_and_mtime(path: Path, old: str, new: str) -> None:
    before = path.stat()
    data = path.read_bytes()
    assert len(old) == len(new) and old.encode() in data
    path.write_bytes(data.replace(old.encode(), new.encode()))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


@pytest.mark.parametrize("command", ["index", "reindex"])
def test_a_rewrite_keeping_size_and_mtime_is_seen(place: dict[str, Path], command: str) -> None:
    note = place["ws"] / "memory" / "note.md"
    note.write_text("# Note\n\nthe galahfirst decision\n")
    transcript = place["tr"] / "s.jsonl"
    transcript.write_bytes(_transcript(["kakapohead", "kakapohead2", "dingotail1"]))  # only its last line changes
    _ok(_memlens(place["home"], "index", *_flags(place)))
    assert _search(place, "galahfirst") and _search(place, "dingotail1")
    _rewrite_keeping_size_and_mtime(note, "galahfirst", "cockatoo11")
    _rewrite_keeping_size_and_mtime(transcript, "dingotail1", "emutail222")
    _ok(_memlens(place["home"], command, *_flags(place)))
    assert _search(place, "cockatoo11") and not _search(place, "galahfirst")
    assert _search(place, "emutail222") and not _search(place, "dingotail1")
    assert _search(place, "kakapohead")  # the rest of the transcript is still there, once
    assert len(_search(place, "kakapohead2")) == 1


def test_one_file_under_three_names_is_one_source_with_two_aliases(place: dict[str, Path]) -> None:
    tr = place["tr"]
    (tr / "b-session.jsonl").write_bytes(_transcript(["quollone", "quolltwo"]))
    os.link(tr / "b-session.jsonl", tr / "c-hard.jsonl")
    (tr / "a-link.jsonl").symlink_to("b-session.jsonl")  # first in byte order, yet a symlink: the file's name wins
    note = place["ws"] / "memory" / "n.md"
    note.write_text("# N\n\nthe bandicootnote decision\n")
    os.link(note, place["ws"] / "memory" / "m-hard.md")
    _ok(_memlens(place["home"], "index", *_flags(place)))
    for _ in range(2):  # stable: a second sync keeps the same name and reads nothing again
        listed = json.loads(_ok(_memlens(place["home"], "sessions", "--json", *_flags(place))))["sessions"]
        assert [s["sessionKey"] for s in listed] == [f"claude-code:{SESSION}"]
        hits = _search(place, "quollone")
        assert [h["path"] for h in hits] == [str(tr / "b-session.jsonl")]
        assert [h["path"] for h in _search(place, "bandicootnote")] == [str(place["ws"] / "memory" / "m-hard.md")]
        assert _stats(place)["aliases"] == 3
        report = _ok(_memlens(place["home"], "index", *_flags(place)))
        assert " 0 parsed" in report, report
    (tr / "b-session.jsonl").unlink()  # the indexed name goes: the hard link is indexed now, the symlink dangles
    _ok(_memlens(place["home"], "index", *_flags(place)))
    assert [h["path"] for h in _search(place, "quollone")] == [str(tr / "c-hard.jsonl")]
    assert _stats(place)["aliases"] == 1


def test_a_catalog_from_before_identities_is_not_read_again(place: dict[str, Path]) -> None:
    (place["ws"] / "memory" / "n.md").write_text("# N\n\nthe possumold decision\n")
    (place["ws"] / "memory" / "tab\tname.md").write_text("# T\n\nthe possumtab decision\n")
    (place["tr"] / "s.jsonl").write_bytes(_transcript(["possumtranscript"]))
    _ok(_memlens(place["home"], "index", *_flags(place)))
    with sqlite3.connect(place["idx"] / "catalog.sqlite3") as db:  # as an older memlens left it: no identities,
        db.execute("UPDATE files SET dev = NULL, ino = NULL, ctime_ns = NULL")  # and a path stored as it was
        db.execute("UPDATE files SET path = replace(path, '\\t', char(9))")
    report = _ok(_memlens(place["home"], "index", *_flags(place)))
    assert " 1 parsed" in report and " 2 unchanged" in report and " 1 removed" in report, report
    with sqlite3.connect(place["idx"] / "catalog.sqlite3") as db:
        assert db.execute("SELECT COUNT(*) FROM files WHERE ctime_ns IS NULL").fetchone()[0] == 0
    assert [r["path"] for r in _search(place, "possumtab")] == [
        escape_name(str(place["ws"] / "memory" / "tab\tname.md"))
    ]
    _rewrite_keeping_size_and_mtime(place["ws"] / "memory" / "n.md", "possumold", "possumnew")
    _ok(_memlens(place["home"], "reindex", *_flags(place)))
    assert _search(place, "possumnew")


# -- the watcher -----------------------------------------------------------------------------------------------


@pytest.fixture
def live(place: dict[str, Path]) -> Iterator[tuple[Engine, LiveIndexer]]:
    settings = Settings()
    settings.embedding.enabled = False
    settings.transcripts.agent_defaults = False
    engine = Engine([place["ws"]], settings, [place["tr"]], place["idx"], embedder=False)
    indexer = LiveIndexer(engine, debounce_ms=50)
    indexer.start()
    try:
        assert indexer.ready.wait(30)
        yield engine, indexer
    finally:
        indexer.stop()
        engine.close()


def _wait_for(check: Callable[[], bool], seconds: float = 30) -> bool:
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if check():
            return True
        time.sleep(0.05)
    return check()


def _found(engine: Engine, word: str) -> Callable[[], bool]:
    return lambda: bool(engine.search(word, mode="keyword")["results"])


def test_watcher_goes_on_after_a_name_it_cannot_decode(
    place: dict[str, Path], live: tuple[Engine, LiveIndexer]
) -> None:
    """watchfiles raises on a name that is not UTF-8 and delivers nothing more: the watch starts again, and a whole
    sync indexes what the lost events named."""
    engine, indexer = live
    _at(place["tr"], b"x\xff.jsonl").write_bytes(_transcript(["wallabyodd"]))
    (place["tr"] / "next.jsonl").write_bytes(_transcript(["wallabynext"], session=SESSION.replace("0b", "2d")))
    assert _wait_for(_found(engine, "wallabyodd")) and _wait_for(_found(engine, "wallabynext"))
    assert engine.stats()["watcherErrors"] >= 1
    later = SESSION.replace("0b", "3e")
    (place["ws"] / "memory" / "later.md").write_text("# Later\n\nthe wallabylater decision\n")
    (place["tr"] / "later.jsonl").write_bytes(_transcript(["wallabylate2"], session=later))
    assert _wait_for(_found(engine, "wallabylater")) and _wait_for(_found(engine, "wallabylate2"))
    assert all(thread.is_alive() for thread in indexer._threads)


def test_a_folder_whose_name_fails_every_watch_is_synced_every_little_while_instead(
    place: dict[str, Path], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A folder named so fails watchfiles whenever it is opened, and the whole sync after each failure opens it: a
    watch restarted on it failed again within a second, for ever. After a few quick failures the folders are synced
    every POLL_SECONDS instead, and what changes is still indexed."""
    monkeypatch.setattr(watcher, "POLL_SECONDS", 0.5)
    odd = _at(place["ws"] / "memory", b"odd\xff")
    odd.mkdir()
    (odd / "inside.md").write_text("# Inside\n\nthe quokkainside decision\n")
    settings = Settings()
    settings.embedding.enabled = False
    settings.transcripts.agent_defaults = False
    with Engine([place["ws"]], settings, [place["tr"]], place["idx"], embedder=False) as engine:
        indexer = LiveIndexer(engine, debounce_ms=50)
        indexer.start()
        try:
            assert indexer.ready.wait(30)
            assert _wait_for(lambda: "syncing every file every" in caplog.text)
            failures = engine.stats()["watcherErrors"]
            assert failures == watcher.WATCH_FAILURES_BEFORE_POLLING
            (place["ws"] / "memory" / "later.md").write_text("# Later\n\nthe quokkalater decision\n")
            assert _wait_for(_found(engine, "quokkalater")) and _wait_for(_found(engine, "quokkainside"))
            time.sleep(2 * watcher.POLL_SECONDS)  # syncs that open the folder again: no watch left to fail
            assert engine.stats()["watcherErrors"] == failures
            assert all(thread.is_alive() for thread in indexer._threads)
        finally:
            indexer.stop()


def test_watcher_keeps_indexing_after_a_file_that_raises(
    place: dict[str, Path], live: tuple[Engine, LiveIndexer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exception while handling one changed file (here from classifying it) is logged and counted; the files
    changed with it and after it are indexed."""
    engine, _indexer = live
    real = discovery.classify
    calls = threading.Event()

    def classify(path: Path, *args: Any, **kw: Any) -> Any:
        if path.name.startswith("boom"):
            calls.set()
            raise RuntimeError("a bug nobody foresaw")
        return real(path, *args, **kw)

    monkeypatch.setattr("memlens.engine.engine.classify", classify)
    memory = place["ws"] / "memory"
    (memory / "boom.md").write_text("# Boom\n\nthe dingoboom decision\n")
    (memory / "beside.md").write_text("# Beside\n\nthe dingobeside decision\n")
    assert _wait_for(_found(engine, "dingobeside")) and calls.is_set()
    assert _wait_for(lambda: engine.stats()["watcherErrors"] >= 1)
    (memory / "after.md").write_text("# After\n\nthe dingoafter decision\n")
    assert _wait_for(_found(engine, "dingoafter"))
    assert not engine.search("dingoboom", mode="keyword")["results"]


def test_watcher_records_a_new_hard_link_as_an_alias_and_promotes_it(
    place: dict[str, Path], live: tuple[Engine, LiveIndexer]
) -> None:
    engine, _indexer = live
    original = place["tr"] / "a.jsonl"
    original.write_bytes(_transcript(["echidnaone"]))
    assert _wait_for(_found(engine, "echidnaone"))
    os.link(original, place["tr"] / "b-hard.jsonl")
    assert _wait_for(lambda: engine.stats()["aliases"] == 1)
    with (place["tr"] / "b-hard.jsonl").open("ab") as handle:  # written through the alias: the source is read
        handle.write((_line(9, "message about the echidnatwo rollout plan", f"u-{SESSION[:4]}-1") + "\n").encode())
    assert _wait_for(_found(engine, "echidnatwo"))
    assert len(engine.sessions()["sessions"]) == 1
    results = engine.search("echidnaone", mode="keyword")["results"]  # (the next message's chunk by context too)
    assert {r["path"] for r in results} == {str(original)}
    assert len({r["messageId"] for r in results}) == len(results)
    original.unlink()
    hard = str(place["tr"] / "b-hard.jsonl")
    assert _wait_for(lambda: {r["path"] for r in engine.search("echidnaone", mode="keyword")["results"]} == {hard})
    assert engine.stats()["aliases"] == 0 and len(engine.sessions()["sessions"]) == 1


def test_a_sync_cancelled_before_it_looks_at_a_file_removes_nothing(place: dict[str, Path]) -> None:
    (place["ws"] / "memory" / "n.md").write_text("# N\n\nthe platypuskept decision\n")
    settings = Settings()
    settings.embedding.enabled = False
    with Engine([place["ws"]], settings, [place["tr"]], place["idx"], embedder=False) as engine:
        engine.sync()
        cancel = threading.Event()
        cancel.set()
        report = engine.sync(cancel=cancel)
        assert report.cancelled and report.files_deleted == 0
        assert engine.search("platypuskept", mode="keyword")["results"]
