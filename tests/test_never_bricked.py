"""Never crash, never bricked: exit codes, a closed pipe, one failing file, damaged catalogs, a removed writer lock,
a full disk. Real tantivy and SQLite throughout; keyword-only engines keep it quick."""

from __future__ import annotations

import errno
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memlens.engine.catalog import Catalog
from memlens.engine.engine import Engine
from memlens.engine.sources.claude_code import ClaudeCodeParser
from memlens.errors import IndexUnavailable, IndexWriteFailed, environmental_cause
from memlens.settings import Settings
from note_index import NOTE, as_nobody, folder_others_may_enter, note_workspace


def settings() -> Settings:
    value = Settings()
    value.transcripts.agent_defaults = False
    return value


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memlens", *args], capture_output=True, text=True, timeout=300, input=stdin
    )


def claude_line(uuid: str, parent: str | None, role: str, text: str) -> str:
    message: dict[str, object] = {"role": role, "content": text}
    if role == "assistant":
        message = {"id": f"msg-{uuid}", "role": role, "content": [{"type": "text", "text": text}]}
    return json.dumps(
        {
            "type": role,
            "uuid": uuid,
            "parentUuid": parent,
            "sessionId": "s-" + uuid[:4],
            "timestamp": "2026-03-01T10:00:00Z",
            "message": message,
        }
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return note_workspace(tmp_path / "ws")


def locations(workspace: Path, index_dir: Path) -> list[str]:
    return ["--workspace", str(workspace), "--index-dir", str(index_dir), "--no-embeddings"]


# -- the CLI ------------------------------------------------------------------------------------------------------


@pytest.mark.slow  # CLI processes
def test_exit_codes_follow_ripgrep(workspace: Path, tmp_path: Path) -> None:
    where = locations(workspace, tmp_path / "index")
    found = cli("search", "pager rotation", "--mode", "keyword", *where)
    assert found.returncode == 0 and "memory/a.md" in found.stdout
    nothing = cli("search", "zeppelin", "--mode", "keyword", *where)
    assert nothing.returncode == 1 and nothing.stdout == ""  # nothing found: said on stderr, as rg says it
    assert nothing.stderr == "memlens: no results for 'zeppelin'\n"
    error = cli("history", "claude-code:absent", *where)
    assert error.returncode == 2
    assert error.stderr.strip() == "memlens: error: unknown session 'claude-code:absent'"


def test_closed_pipe_ends_quietly(workspace: Path, tmp_path: Path) -> None:
    for i in range(40):
        (workspace / "memory" / f"n{i}.md").write_text(f"# Note {i}\n\nThe pager rotation note number {i}.\n" * 3)
    where = " ".join(locations(workspace, tmp_path / "index"))
    command = f"{sys.executable} -m memlens search 'pager rotation' --limit 40 --mode keyword {where} | head -1"
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=300)
    assert done.stdout.count("\n") == 1
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr


# -- one failing file ---------------------------------------------------------------------------------------------


def test_a_file_that_breaks_its_parser_is_recorded_and_the_others_commit(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parser is the neighbour here: made to fail on one file, the indexer must isolate that file."""
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    good = transcripts / "good.jsonl"
    good.write_text(claude_line("aaaa-1", None, "user", "how do we rotate the pager keys") + "\n")
    bad = transcripts / "bad.jsonl"
    bad.write_text(claude_line("bbbb-1", None, "user", "this file trips the parser") + "\n")
    real_parse = ClaudeCodeParser.parse

    def parse(self: ClaudeCodeParser, data: bytes, path: Path, start_line: int = 1, *, final: bool = False) -> object:
        if path.name == "bad.jsonl":
            raise OverflowError("timestamp out of range")
        return real_parse(self, data, path, start_line, final=final)

    monkeypatch.setattr(ClaudeCodeParser, "parse", parse)
    with Engine([workspace], settings(), [transcripts], tmp_path / "index", embedder=False) as engine:
        report = engine.sync()
        assert report.files_failed == 1 and report.files_parsed == 2
        assert engine.search("rotate pager keys", mode="keyword")["results"]
        stats = engine.stats()
        assert stats["filesWithErrors"] == 1
        [problem] = stats["fileErrors"]
        assert problem["path"] == str(bad) and "OverflowError" in problem["reasons"][0]
        again = engine.sync()  # unchanged: not retried until it changes
        assert again.files_failed == 0 and again.files_unchanged == 3
        monkeypatch.setattr(ClaudeCodeParser, "parse", real_parse)
        bad.write_text(claude_line("bbbb-1", None, "user", "this file parses now") + "\n")
        engine.sync()
        assert engine.stats()["filesWithErrors"] == 0
        assert engine.search("parses now", mode="keyword")["results"]


def test_bad_lines_are_listed_per_file(workspace: Path, tmp_path: Path) -> None:
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    lines = [claude_line("cccc-1", None, "user", "first question about pgbouncer"), "{not json", "[1, 2]"]
    (transcripts / "s.jsonl").write_text("\n".join(lines) + "\n")
    with Engine([workspace], settings(), [transcripts], tmp_path / "index", embedder=False) as engine:
        engine.sync()
        [problem] = engine.stats()["fileErrors"]
        assert problem["badLines"] == 2 and len(problem["reasons"]) == 2
        assert problem["reasons"][0].startswith("line 2")


def test_files_in_no_known_format_are_listed(workspace: Path, tmp_path: Path) -> None:
    """A transcript no parser recognises (here JSON lines of a schema no agent writes, as a new tool version might)
    holds nothing searchable; stats must say so by path, not only count it under an empty format name."""
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    (transcripts / "known.jsonl").write_text(claude_line("dddd-1", None, "user", "how do we page the dba") + "\n")
    unknown = transcripts / "future.jsonl"
    unknown.write_text('{"v": 9, "turn": {"speaker": "human", "body": "rotate the kafka certs"}}\n')
    with Engine([workspace], settings(), [transcripts], tmp_path / "index", embedder=False) as engine:
        engine.sync()
        stats = engine.stats()
        assert (stats["filesUnrecognised"], stats["unrecognisedFiles"]) == (1, [str(unknown)])
        assert stats["filesWithErrors"] == 0  # not an error: nothing in it was read wrongly
        unknown.write_text(claude_line("dddd-2", None, "user", "rotate the kafka certs") + "\n")  # now it is known
        engine.sync()
        assert (engine.stats()["filesUnrecognised"], engine.stats()["unrecognisedFiles"]) == (0, [])
        assert engine.search("kafka certs", mode="keyword")["results"]


# -- damaged catalogs ---------------------------------------------------------------------------------------------


@pytest.mark.slow  # rebuilds an index
def test_a_damaged_catalog_is_set_aside_and_rebuilt(workspace: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    with Engine([workspace], settings(), index_dir=index_dir, embedder=False) as engine:
        engine.sync()
    catalog = index_dir / "catalog.sqlite3"
    for suffix in ("-wal", "-shm"):
        Path(f"{catalog}{suffix}").unlink(missing_ok=True)
    catalog.write_bytes(b"this is not a database" * 100)
    stats = cli("stats", "--json", *locations(workspace, index_dir))
    assert stats.returncode == 0, stats.stderr
    found = cli("search", "pager rotation", "--mode", "keyword", "--json", *locations(workspace, index_dir))
    assert found.returncode == 0 and json.loads(found.stdout)["results"]
    assert list(index_dir.glob("catalog.sqlite3.damaged-*"))


def test_a_catalog_of_another_schema_is_rebuilt(workspace: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    with Engine([workspace], settings(), index_dir=index_dir, embedder=False) as engine:
        engine.sync()
    db = sqlite3.connect(index_dir / "catalog.sqlite3")
    db.execute("UPDATE meta SET value = '0' WHERE key = 'schema_version'")
    db.commit()
    db.close()
    full = cli("reindex", "--full", *locations(workspace, index_dir))
    assert full.returncode == 0, full.stderr
    with Engine([workspace], settings(), index_dir=index_dir, embedder=False) as engine:
        assert engine.search("pager rotation", mode="keyword")["results"]


def test_out_of_range_times_in_an_old_index_never_fail_a_search(workspace: Path, tmp_path: Path) -> None:
    """An index written before times were bounded may hold any float: answers show no time instead of failing."""
    index_dir = tmp_path / "index"
    with Engine([workspace], settings(), index_dir=index_dir, embedder=False) as engine:
        engine.sync()
        with engine.catalog.transaction() as db:
            db.execute("UPDATE units SET ts = 1e300")
        engine.indexer.rebuild_keyword_index()
        [hit] = engine.search("pager rotation", mode="keyword")["results"]
        assert hit["relPath"] == "memory/a.md"


# -- one writer ---------------------------------------------------------------------------------------------------


def test_removing_the_writer_lock_never_lets_two_writers_in(workspace: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    first = Engine([workspace], settings(), index_dir=index_dir, embedder=False)
    try:
        first.sync()
        (index_dir / "writer.lock").unlink()
        second = Engine([workspace], settings(), index_dir=index_dir, embedder=False)
        try:
            assert second.writable
            (workspace / "memory" / "b.md").write_text("# Oncall\n\nEscalate to the duty manager after 15 minutes.\n")
            with pytest.raises(IndexUnavailable, match="read-only"):
                first.sync()
            assert not first.writable
            second.sync()
        finally:
            second.close()
    finally:
        first.close()
    db = sqlite3.connect(index_dir / "catalog.sqlite3")
    texts = [row[0] for row in db.execute("SELECT text FROM units")]
    db.close()
    assert len(texts) == len(set(texts)) == 2


# -- a full disk --------------------------------------------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 1 MB file system (tmpfs), for a real ENOSPC; skipped where mounting is not allowed."""
    mount_point = tmp_path / "small"
    mount_point.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount_point)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


@pytest.mark.slow  # mounts a small disk
def test_a_full_disk_is_one_clear_error_and_recovers(workspace: Path, small_disk: Path) -> None:
    index_dir = small_disk / "index"
    with Engine([workspace], settings(), index_dir=index_dir, embedder=False) as engine:
        engine.sync()
        for i in range(300):  # far more text than the 1 MB disk holds
            words = " ".join(f"w{i}x{j}" for j in range(300))
            (workspace / "memory" / f"big{i}.md").write_text(f"# Big {i}\n\n{words}\n")
        with pytest.raises(IndexWriteFailed, match=f"index at {index_dir}: no space left on device") as caught:
            engine.sync()
        assert "\n" not in str(caught.value)
        assert engine.search("pager rotation", mode="keyword")["results"]  # the last commit still answers
        where = locations(workspace, index_dir)
        engine.close()
        # a plain search (it syncs first) answers from the last commit, with one line saying why it is not newer
        found = cli("search", "pager rotation", "--mode", "keyword", "--json", *where)
        assert found.returncode == 0, found.stderr
        assert json.loads(found.stdout)["results"][0]["relPath"] == "memory/a.md"
        assert found.stderr == (
            "memlens: could not update the index: no space left on device; answering from the last update\n"
        )
        stats = json.loads(cli("stats", "--json", *where).stdout)  # another process: it reads what the sync left
        assert stats["filesNotIndexed"] >= 1  # batches that fitted may have committed; the rest wait
        assert stats["notIndexedReason"] == "could not update the index: no space left on device"
        assert "not indexed: could not update the index: no space left" in cli("stats", *where).stdout
        full = cli("index", *where)
        assert full.returncode == 2 and "Traceback" not in full.stderr and "no space left on device" in full.stderr
        subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)
        recovered = cli("index", *where)
        assert recovered.returncode == 0, recovered.stderr
        after = json.loads(cli("stats", "--json", *where).stdout)
        assert (after["filesNotIndexed"], after["notIndexedReason"]) == (0, None)
    with Engine([workspace], settings(), index_dir=index_dir, embedder=False) as engine:
        assert engine.stats()["files"]["markdown"] == 301
        assert engine.search("w299x299", mode="keyword")["results"]


def _file_size_limit(limit: int) -> Callable[[], None]:
    def set_limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    return set_limit


@pytest.mark.slow  # CLI processes
@pytest.mark.skipif(sys.platform == "win32", reason="no ulimit -f")
def test_a_file_size_limit_is_one_clear_error_and_recovers(workspace: Path, tmp_path: Path) -> None:
    """A disk that fills, as any user can make one: a file size limit (`ulimit -f`; Python ignores SIGXFSZ, so a
    write past it fails with EFBIG). SQLite says it as "disk I/O error", which is not what to tell the user."""
    for i in range(200):  # a catalog far over the limit
        words = " ".join(f"w{i}x{j}" for j in range(400))
        (workspace / "memory" / f"big{i}.md").write_text(f"# Big {i}\n\n{words}\n")
    where = locations(workspace, tmp_path / "index")
    command = [sys.executable, "-m", "memlens", "index", *where]
    limited = subprocess.run(command, capture_output=True, text=True, timeout=300, preexec_fn=_file_size_limit(600_000))
    assert limited.returncode == 2 and "Traceback" not in limited.stderr
    said = limited.stderr.splitlines()[-1]
    assert said.startswith("memlens: error: could not update the index at "), said
    advice = "raise the file size limit memlens runs under (`ulimit -f`)"
    assert said.endswith(f": file too large; {advice}; searches answer from the last update"), said
    assert "file too large" in json.loads(cli("stats", "--json", *where).stdout)["notIndexedReason"]
    recovered = cli("index", *where)
    assert recovered.returncode == 0, recovered.stderr
    assert "memory/big199.md" in cli("search", "w199x399", "--mode", "keyword", *where).stdout


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    with folder_others_may_enter("memlens-other-user-") as folder:
        yield folder


def test_an_index_this_user_may_not_write_is_one_line_and_nothing_is_wiped(shared_tmp: Path) -> None:
    tmp_path = shared_tmp
    workspace, index_dir = tmp_path / "ws", tmp_path / "index"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "a.md").write_text(NOTE)
    index_dir.mkdir()
    shutil.chown(index_dir, "nobody")
    where = locations(workspace, index_dir)
    assert as_nobody("index", *where, home=tmp_path).returncode == 0
    keyword = index_dir / "keyword"
    before = sorted(p.name for p in keyword.iterdir())
    for path in [keyword, *keyword.iterdir()]:  # now root's, and closed to others
        shutil.chown(path, "root")
        path.chmod(0o700 if path.is_dir() else 0o600)
    for command in (["search", "pager rotation"], ["stats"], ["index"]):
        done = as_nobody(*command, *where, home=tmp_path)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert done.stderr.strip() == (
            f"memlens: error: cannot open the index at {keyword}: permission denied; give this user write access "
            "to it (or point memlens.indexDir elsewhere)"
        )
    assert sorted(p.name for p in keyword.iterdir()) == before  # a permission problem never wipes the index
    lock = index_dir / "writer.lock"  # a lock file of another user's, closed to this one
    for path in [keyword, *keyword.iterdir()]:
        shutil.chown(path, "nobody")
    shutil.chown(lock, "root")
    lock.chmod(0o600)
    search = as_nobody("search", "pager rotation", *where, home=tmp_path)
    assert search.returncode == 0 and "memory/a.md" in search.stdout
    assert search.stderr.startswith(f"memlens: the writer lock {lock} is a file this user may not open for writing")


def test_stats_counts_the_files_changed_since_the_last_sync(workspace: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    where = locations(workspace, index_dir)
    assert cli("index", *where).returncode == 0
    (workspace / "memory" / "b.md").write_text("# Oncall\n\nEscalate to the duty manager after 15 minutes.\n")
    found = cli("search", "pager rotation", "--mode", "keyword", "--no-sync", *where)
    assert found.returncode == 0
    after = json.loads(cli("stats", "--json", *where).stdout)
    assert after["filesNotIndexed"] == 1 and "next search" in after["notIndexedReason"]
    assert cli("search", "duty manager", "--mode", "keyword", *where).returncode == 0  # it syncs first
    assert json.loads(cli("stats", "--json", *where).stdout)["filesNotIndexed"] == 0


def test_the_causes_outside_memlens_are_named(tmp_path: Path) -> None:
    """Each way the OS, SQLite and tantivy say a write failed for a reason outside memlens; anything else is None
    (a bug, reported as one)."""
    db = sqlite3.connect(tmp_path / "x.sqlite3")
    db.execute("CREATE TABLE t (x)")
    db.commit()
    db.close()
    read_only = sqlite3.connect(f"file:{tmp_path / 'x.sqlite3'}?mode=ro", uri=True)
    with pytest.raises(sqlite3.OperationalError) as refused:
        read_only.execute("INSERT INTO t VALUES (1)")
    read_only.close()
    assert environmental_cause(refused.value) == "read-only file system"
    assert environmental_cause(OSError(errno.ENOSPC, "No space left on device")) == "no space left on device"
    assert environmental_cause(OSError(errno.EDQUOT, "Disk quota exceeded")) == "disk quota exceeded"
    assert environmental_cause(OSError(errno.EIO, "Input/output error")) == "input/output error"
    assert environmental_cause(PermissionError(errno.EPERM, "Operation not permitted")) == "permission denied"
    assert environmental_cause(sqlite3.OperationalError("database or disk is full")) == "no space left on device"
    assert environmental_cause(sqlite3.OperationalError("disk I/O error")) == "input/output error"
    tantivy = ValueError("Failed to commit: IoError(No space left on device (os error 28))")
    assert environmental_cause(tantivy) == "no space left on device"
    debug = ValueError("Failed to open file for write: 'IoError { io_error: Os { code: 30, kind: ReadOnlyFilesystem }'")
    assert environmental_cause(debug) == "read-only file system"
    index_dir = tmp_path / "index"
    assert environmental_cause(PermissionError(errno.EACCES, "denied", str(index_dir / "keyword"))) == (
        "permission denied"
    )
    source = PermissionError(errno.EACCES, "denied", str(tmp_path / "transcripts"))  # a source folder, not the index
    assert environmental_cause(source, index_dir) is None
    wrapped = RuntimeError("commit failed")
    wrapped.__cause__ = OSError(errno.EROFS, "Read-only file system")
    assert environmental_cause(wrapped) == "read-only file system"
    assert environmental_cause(ValueError("invalid literal for int()")) is None
    assert environmental_cause(OSError(errno.ENOENT, "No such file")) is None


# -- the catalog is the source of truth, and SQL stays in it ------------------------------------------------------


def test_catalog_lists_problems_most_bad_lines_first(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite3")
    with catalog.transaction() as db:
        catalog.upsert_file(db, "/a", "transcript", bad_lines=1, error="line 3: invalid JSON")
        catalog.record_file_failure(
            db, "/b", "transcript", size=-1, identity={"mtime_ns": 0}, reason="cannot read: denied"
        )
        catalog.upsert_file(db, "/c", "transcript", bad_lines=0)
    problems = catalog.file_problems(10)
    assert [p["path"] for p in problems] == ["/a", "/b"]
    assert problems[1]["reasons"] == ["cannot read: denied"] and catalog.count_file_problems() == 2
    catalog.close()


def test_dangling_links_are_counted_and_long_messages_read_whole(workspace: Path, tmp_path: Path) -> None:
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    long_text = "\n\n".join(f"Paragraph {i} about the ledger migration, step {i} of many." for i in range(600))
    lines = [
        claude_line("dddd-1", None, "user", "first question before the broken link"),
        claude_line("dddd-2", "missing-parent", "assistant", long_text),
    ]
    (transcripts / "s.jsonl").write_text("\n".join(lines) + "\n")
    with Engine([workspace], settings(), [transcripts], tmp_path / "index", embedder=False) as engine:
        engine.sync()
        stats = engine.stats()
        assert stats["orphanedMessages"] >= 1
        key = engine.search("broken link", mode="keyword")["results"][0]["sessionKey"]
        assert key is not None, "a transcript hit names its session"
        messages = engine.history(key, limit=50)["messages"]
        assert [m["messageId"] for m in messages] == ["dddd-1", "dddd-2"]  # the parts of one message, shown as one
        assert "Paragraph 0 " in messages[1]["text"] and "Paragraph 599 " in messages[1]["text"]
        assert engine.search("Paragraph 599", mode="keyword")["results"]  # every part is searchable


def _deep_folders(parent: Path, levels: int) -> None:
    """Folders of 250-byte names nested `levels` deep, made through descriptors (no path to them may be opened
    whole), with a note in the deepest."""
    descriptor = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(levels):
            os.mkdir("d" * 250, dir_fd=descriptor)
            deeper = os.open("d" * 250, os.O_RDONLY | os.O_DIRECTORY, dir_fd=descriptor)
            os.close(descriptor)
            descriptor = deeper
        note = os.open("deep.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=descriptor)
        os.write(note, b"# Deep\n\nThe quokka census lives down here.\n")
        os.close(note)
    finally:
        os.close(descriptor)


@pytest.mark.slow  # CLI processes
def test_a_folder_whose_path_is_too_long_to_open_is_reported_with_why(workspace: Path, tmp_path: Path) -> None:
    """A path longer than the system opens (4,096 bytes on Linux): the folder's files cannot be found, and `stats`
    says which folder and why, until it is gone."""
    _deep_folders(workspace / "memory", 18)
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    _deep_folders(transcripts, 18)
    where = [*locations(workspace, tmp_path / "index"), "--transcripts", str(transcripts)]
    assert cli("index", *where).returncode == 0
    stats = json.loads(cli("stats", "--json", *where).stdout)
    for folder in (workspace / "memory", transcripts):
        [problem] = [e for e in stats["fileErrors"] if e["path"].startswith(str(folder / ("d" * 250)))]
        assert "too long" in problem["reasons"][0] and len(os.fsencode(problem["path"])) > 4000
    assert stats["filesUnrecognised"] == 0  # a folder not read is a problem, not a file in an unknown format
    assert "memory/a.md" in cli("search", "pager rotation", "--mode", "keyword", *where).stdout  # its neighbours are
    shutil.rmtree(workspace / "memory" / ("d" * 250))
    shutil.rmtree(transcripts / ("d" * 250))
    assert cli("index", *where).returncode == 0
    assert json.loads(cli("stats", "--json", *where).stdout)["fileErrors"] == []
