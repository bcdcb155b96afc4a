"""The CLI contract: JSON fields other tools build on, history anchoring, one-line errors with non-zero exits."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import ctrl_c_reaches
from memlens.engine.engine import Engine

DLQ_SESSION = "claude-code:5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9"


def memlens(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "memlens", *args], capture_output=True, text=True, timeout=600, check=False
    )
    if check and result.returncode != 0:
        raise AssertionError(f"memlens {' '.join(args)} failed: {result.stderr}")
    return result


def locations(engine: Engine) -> list[str]:
    return ["--workspace", str(engine.workspaces[0]), "--index-dir", str(engine.index_dir)]


def search_json(engine: Engine, *args: str) -> dict[str, Any]:
    return json.loads(memlens("search", *args, "--json", *locations(engine)).stdout)  # type: ignore[no-any-return]


@pytest.fixture
def cli_example(example: Engine) -> Engine:
    example.close()  # release the writer lock: the CLI process writes
    return example


@pytest.mark.slow  # CLI processes
def test_search_json_contract(cli_example: Engine) -> None:
    response = search_json(cli_example, "how did we fix the dead-letter queue backup?", "--explain")
    assert set(response) >= {"query", "mode", "results", "totalResults", "searchTimeMs", "indexing"}
    assert response["mode"] == "hybrid" and response["indexing"] is False
    assert response["totalResults"] == len(response["results"]) > 0
    kinds = {r["kind"] for r in response["results"]}
    assert kinds <= {"memory", "transcript", "summary"}
    for result in response["results"]:
        assert 0.0 <= result["score"] <= 1.0
        assert {"id", "kind", "score", "path", "relPath", "excerpt", "explain"} <= result.keys()
        if result["kind"] == "memory":
            assert result["lineStart"] >= 1 and result["lineEnd"] >= result["lineStart"]
        else:
            assert {"sessionKey", "sessionId", "messageId", "role", "timestamp", "messageCount", "format"} <= (
                result.keys()
            )
    scores = [r["score"] for r in response["results"]]
    assert scores == sorted(scores, reverse=True)


def test_search_filters_and_keyword_mode(cli_example: Engine) -> None:
    response = search_json(cli_example, "DLQ", "--mode", "keyword", "--kind", "transcript", "--role", "user")
    assert response["mode"] == "keyword" and response["results"]
    assert all(r["kind"] == "transcript" and r["role"] == "user" for r in response["results"])


def test_human_output_headers(cli_example: Engine) -> None:
    out = memlens("search", "blue-green deploy rollback", "--limit", "5", *locations(cli_example)).stdout
    lines = [line for line in out.splitlines() if line and not line.startswith(" ")]
    assert any(line.startswith("memory/") or line.startswith("MEMORY.md:") for line in lines)
    assert any(" · " in line and re.search(r" · (strong|possible|weak)$", line) for line in lines)
    long = memlens("search", "dead-letter queue redrive", "--limit", "5", "--long", *locations(cli_example)).stdout
    assert any(" · " in line and line.endswith(("(strong)", "(possible)", "(weak)")) for line in long.splitlines())
    assert any(line.startswith("  session claude-code:") for line in long.splitlines())
    # every detail includes what the short form shows: the session's title, the note's heading
    as_json = search_json(cli_example, "dead-letter queue redrive", "--limit", "5")["results"]
    for result in as_json:
        named = result["heading"] if result["kind"] == "memory" else result["title"]
        assert named and f"  {'heading' if result['kind'] == 'memory' else 'title'}: {named}" in long.splitlines()


def test_stats_json(cli_example: Engine) -> None:
    stats = json.loads(memlens("stats", "--json", *locations(cli_example)).stdout)
    for key in (
        "totalChunks",
        "chunksWithEmbeddings",
        "chunksNeedingEmbeddings",
        "pendingMessages",
        "lastSync",
        "provider",
        "files",
        "messages",
        "badLines",
    ):
        assert key in stats
    assert stats["provider"] == "memlens/all-MiniLM-L6-v2-int8"
    assert stats["chunksWithEmbeddings"] == stats["totalChunks"] > 0
    assert set(stats["messages"]) == {"claude-code", "codex", "openclaw", "specstory"}


def test_stats_text_reads_as_the_json_says(cli_example: Engine) -> None:
    """`memlens stats` words the index's state for people (as the editor's report does): every figure the JSON
    gives, no Python literal (None, True, False) and no camelCase key."""
    stats = json.loads(memlens("stats", "--json", *locations(cli_example)).stdout)
    out = memlens("stats", *locations(cli_example)).stdout
    lines = out.splitlines()
    assert lines[0] == "memlens index: up to date"
    table = [line for line in lines[1:] if line.startswith("  ") and re.search(r"\S\s{2,}\S", line)]
    rows = dict(re.split(r"\s{2,}", line.strip(), maxsplit=1) for line in table)
    assert rows["chunks"] == f"{stats['totalChunks']:,}" and rows["sessions"] == f"{stats['sessions']:,}"
    assert rows["chunks with embeddings"] == f"{stats['chunksWithEmbeddings']:,} (100%)"
    assert rows["embedding provider"] == stats["provider"] and rows["index folder"] == stats["indexDir"]
    assert rows["files not indexed yet"] == f"{stats['filesNotIndexed']:,}" == "0"
    assert rows["invalid bytes read as U+FFFD"] == f"{stats['replaced']:,}"
    assert rows["last sync"] == stats["lastSync"].replace("T", " ").replace("Z", " UTC")
    assert "files: " + " · ".join(f"{k} {v}" for k, v in sorted(stats["files"].items())) in lines
    assert not re.search(r"\b(None|True|False)\b|totalChunks|chunksWith", out)


@pytest.mark.slow  # CLI processes
def test_stats_text_lists_the_files_it_could_not_read(tmp_path: Path) -> None:
    transcripts = tmp_path / "agent"
    transcripts.mkdir()
    good = '{"type":"session","version":3,"id":"s1","timestamp":"2026-02-01T10:00:00.000Z","cwd":"/"}\n'
    (transcripts / "broken.jsonl").write_text(good + "{not json\n")
    (transcripts / "README.md").write_text("# Not a transcript\n")
    where = ["--workspace", str(tmp_path / "ws"), "--transcripts", str(transcripts), "--index-dir", str(tmp_path / "i")]
    (tmp_path / "ws").mkdir()
    memlens("index", "--no-embeddings", *where)
    out = memlens("stats", "--no-embeddings", *where).stdout
    # the longest label sets the width the values start at
    assert re.search(r"^  embedding provider +none \(keyword search only\)$", out, re.M), out
    problems = out.split("files with problems:\n", 1)[1].splitlines()
    assert problems[0].startswith(f"  {transcripts / 'broken.jsonl'} · 1 bad line · line 2: ")
    assert f"files in no format memlens reads (nothing of them is searchable):\n  {transcripts / 'README.md'}" in out
    assert "unrecognised 1" in out


@pytest.mark.slow  # CLI processes
def test_stats_says_an_index_waiting_for_its_vectors_is_not_being_indexed(tmp_path: Path) -> None:
    """An index left with texts waiting for vectors (built with --no-embeddings, or an index stopped by Ctrl-C) is
    not said to be "indexing…" by a process that holds its writer and syncs nothing: it says the next index goes on."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "MEMORY.md").write_text("# Notes\n\nThe orders queue is redriven by hand after a deploy.\n")
    where = ["--workspace", str(tmp_path / "ws"), "--index-dir", str(tmp_path / "i")]
    memlens("index", "--no-embeddings", *where)
    waiting = memlens("stats", *where).stdout.splitlines()[0]
    assert waiting == "memlens index: not finished: what waits below is done by the next memlens index (or search)"
    memlens("index", *where)
    assert memlens("stats", *where).stdout.splitlines()[0] == "memlens index: up to date"


@pytest.mark.slow  # CLI processes
def test_history_anchor_and_errors(cli_example: Engine) -> None:
    anchor = search_json(cli_example, "start-message-move-task redrive", "--kind", "transcript")["results"][0]
    history = json.loads(
        memlens(
            "history",
            anchor["sessionKey"],
            "--message",
            anchor["messageId"],
            "--limit",
            "5",
            "--json",
            *locations(cli_example),
        ).stdout
    )
    ids = [m["messageId"] for m in history["messages"]]
    assert anchor["messageId"] in ids and len(ids) <= 5
    assert history["anchor"] == anchor["messageId"]
    tail = json.loads(memlens("history", DLQ_SESSION, "--limit", "3", "--json", *locations(cli_example)).stdout)
    assert tail["hasMoreAfter"] is False and len(tail["messages"]) == 3

    unknown = memlens("history", "claude-code:nope", *locations(cli_example), check=False)
    assert unknown.returncode == 2 and unknown.stderr.strip().count("\n") == 0
    assert "unknown session" in unknown.stderr
    foreign = memlens("history", DLQ_SESSION, "--message", "L7", *locations(cli_example), check=False)
    assert foreign.returncode == 2 and "is not in session" in foreign.stderr


def test_errors_are_one_line(tmp_path: Path) -> None:
    missing = memlens("search", "x", "--workspace", str(tmp_path / "absent"), check=False)
    assert missing.returncode == 2
    assert missing.stderr.strip() == f"memlens: error: --workspace {tmp_path / 'absent'}: no such folder"
    bad_date = memlens("search", "x", "--since", "someday", "--workspace", str(tmp_path), check=False)
    assert bad_date.returncode == 2 and "since" in bad_date.stderr and "Traceback" not in bad_date.stderr


def test_reindex_full_reparses_everything(cli_example: Engine) -> None:
    out = memlens("reindex", "--full", *locations(cli_example)).stdout
    assert "0 unchanged" in out and "0 chunks embedded" in out  # every file re-parsed, every vector reused


def test_watch_prints_a_line_per_sync(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "MEMORY.md").write_text("# Memory\n\nStart.\n")
    command = [
        sys.executable,
        "-m",
        "memlens",
        "watch",
        "--no-embeddings",
        "--workspace",
        str(workspace),
        "--index-dir",
        str(tmp_path / "index"),
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert re.fullmatch(r"sync: .*1 parsed.*, \d+\.\d\d s\n", first), first
        (workspace / "memory" / "2026-02-11.md").write_text("# Today\n\nWatched note.\n")
        second = process.stdout.readline()
        assert re.fullmatch(r"sync: .*1 parsed.*, \d+\.\d\d s\n", second), second
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.slow  # CLI processes
def test_no_sync_searches_the_index_as_it_is(cli_example: Engine) -> None:
    """A note written after the last sync is found by `search` (which syncs first) but not by `search --no-sync`."""
    note = cli_example.workspaces[0] / "memory" / "2026-03-30.md"
    note.write_text("# 2026-03-30\n\nThe quokka migration finished; the quokka cluster is retired.\n")
    args = ["quokka cluster", "--mode", "keyword", "--json", *locations(cli_example)]
    stale = memlens("search", *args, "--no-sync", check=False)
    assert stale.returncode == 1 and json.loads(stale.stdout)["results"] == []
    fresh = json.loads(memlens("search", *args).stdout)
    assert [r["relPath"] for r in fresh["results"]][:1] == ["memory/2026-03-30.md"]
    again = json.loads(memlens("search", *args, "--no-sync").stdout)
    assert [r["relPath"] for r in again["results"]][:1] == ["memory/2026-03-30.md"]  # now it is in the index


@pytest.mark.slow  # CLI processes
def test_min_score_bounds_the_results(cli_example: Engine) -> None:
    """--min-score 0 answers; a bound no score reaches answers nothing (exit 1), though the default answers."""
    query = ["deploy runbook pgbouncer", "--limit", "30", "--no-sync", "--json", *locations(cli_example)]
    everything = json.loads(memlens("search", *query, "--min-score", "0").stdout)["results"]
    default = json.loads(memlens("search", *query).stdout)["results"]
    assert len(everything) >= len(default) > 0
    assert all(r["score"] < 1.0 for r in everything)
    unreachable = memlens("search", *query, "--min-score", "1", check=False)
    assert unreachable.returncode == 1 and json.loads(unreachable.stdout)["results"] == []


def test_a_settings_warning_is_said_once(tmp_path: Path) -> None:
    """`search` reads the settings once, whether a running server answers it or the CLI opens the index itself."""
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "a.md").write_text("# Note\n\nThe queue drained overnight.\n")
    (workspace / ".memlens.json").write_text(json.dumps({"search": {"bogusKey": 1}}))
    where = ["--workspace", str(workspace), "--index-dir", str(tmp_path / "index")]
    result = memlens("search", "queue", "--mode", "keyword", *where, check=False)
    assert result.stderr.count("bogusKey") == 1, result.stderr


def _at_most_2_gb() -> None:
    """A child process's `preexec_fn`: a reader that never stops fails with MemoryError instead of taking the host."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


@pytest.mark.parametrize("kind", ["fifo", "endless device", "folder", "nested too deeply", "a gigabyte"])
def test_a_settings_file_that_is_no_settings_file_is_one_error_line(tmp_path: Path, kind: str) -> None:
    """`--settings FILE` reads a regular file of JSON only: a FIFO blocked the read for ever, `/dev/zero` filled
    memory until the kernel killed the process, and JSON nested too deeply was an internal error."""
    (tmp_path / "ws").mkdir()
    settings = tmp_path / "settings.json"
    if kind == "fifo":
        os.mkfifo(settings)
    elif kind == "endless device":
        settings.symlink_to(os.devnull.replace("null", "zero"))
    elif kind == "folder":
        settings.mkdir()
    elif kind == "nested too deeply":
        settings.write_text("[" * 100_000 + "]" * 100_000)
    else:
        with settings.open("wb") as handle:  # sparse: no disk taken
            handle.truncate(1 << 30)
    command = [sys.executable, "-m", "memlens", "stats", "--workspace", str(tmp_path / "ws")]
    command += ["--index-dir", str(tmp_path / "index"), "--no-embeddings", "--settings", str(settings)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, preexec_fn=_at_most_2_gb)
    assert result.returncode == 2 and result.stdout == "", result
    assert result.stderr.startswith(f"memlens: error: cannot read settings file {settings}: "), result.stderr
    assert result.stderr.count("\n") == 1 and "internal error" not in result.stderr, result.stderr


def _notes_workspace(tmp_path: Path) -> list[str]:
    """A workspace of one memory note, indexed by keyword alone (no model), as flags for the CLI."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "MEMORY.md").write_text(
        "# Gauges\n\nThe wibble gauge read zero because its sensor cable was loose.\n\n"
        "# Database\n\nThe login failed with password authentication failed for user admin.\n",
        encoding="utf-8",
    )
    return ["--workspace", str(workspace), "--index-dir", str(tmp_path / "index"), "--no-embeddings"]


@pytest.mark.slow  # CLI processes
def test_a_query_of_unquoted_words_is_one_query(tmp_path: Path) -> None:
    """`memlens search wibble gauge` searches for "wibble gauge", as `memlens search "wibble gauge"` does: a query
    is text, never a pattern followed by paths, so the words after the first were only an `unrecognized arguments`
    error. A pasted error's words are one error for `fixes` alike."""
    where = _notes_workspace(tmp_path)
    unquoted = json.loads(memlens("search", "wibble", "gauge", "--json", *where).stdout)
    quoted = json.loads(memlens("search", "wibble gauge", "--json", *where).stdout)
    assert unquoted["query"] == quoted["query"] == "wibble gauge"
    assert [r["id"] for r in unquoted["results"]] == [r["id"] for r in quoted["results"]] != []

    flags_after = json.loads(memlens("search", "wibble", "gauge", *where, "--json", "--limit", "1").stdout)
    assert flags_after["query"] == "wibble gauge" and len(flags_after["results"]) == 1

    fixes = memlens("fixes", "password", "authentication", "failed", "--json", *where, check=False)
    assert fixes.returncode in (0, 1) and fixes.stderr == "", fixes.stderr
    assert json.loads(fixes.stdout)["error"] == "password authentication failed"

    usage = memlens("search", "--help").stdout
    assert "QUERY [QUERY ...]" not in usage and "QUERY" in usage  # one text, named once


def test_a_settings_file_that_cannot_be_read_is_named_once_with_the_reason_in_words(tmp_path: Path) -> None:
    """A `--settings` path that does not exist: one line naming the file once and why, in words, not Python's
    `[Errno 2] No such file or directory: '…'` repeating it."""
    (tmp_path / "ws").mkdir()
    missing = tmp_path / "no-such-settings.json"
    where = ["--workspace", str(tmp_path / "ws"), "--index-dir", str(tmp_path / "index")]
    result = memlens("stats", *where, "--settings", str(missing), check=False)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"memlens: error: cannot read settings file {missing}: No such file or directory\n"


def test_memlens_alone_shows_what_it_can_do() -> None:
    """A bare `memlens` is a question, not a mistake: it shows the commands (as a bare `git` or `rg` shows its
    usage), on stderr with status 2 (no command ran), where it only said `the following arguments are required`."""
    result = memlens(check=False)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("usage: memlens ") and "error" not in result.stderr.splitlines()[0]
    for command in ("search", "history", "sessions", "index"):
        assert re.search(rf"^ +{command} +\S", result.stderr, re.MULTILINE), result.stderr


@pytest.mark.slow  # a CLI process
def test_index_while_another_process_writes_says_that_one_keeps_it_up_to_date(tmp_path: Path) -> None:
    """A second `memlens index` beside a running writer (another `index`, or the editor's server) ends with one
    line that says the other one brings the index up to date; it said this one "serves searches read-only", a
    server's words that told a command-line user nothing. A writer that does not name itself (an older memlens) is
    not waited for (test_readers_beside_a_writer.py: one that names itself)."""
    from memlens.engine.indexing.writer_lock import WriterLock

    where = _notes_workspace(tmp_path)
    assert memlens("index", *where).returncode == 0  # an index to read (a first one beside its writer: not ready)
    writer = WriterLock(tmp_path / "index" / "writer.lock")
    assert writer.acquire()  # this test's process is the writer: deterministic, no race with a real one
    try:
        result = memlens("index", *where, check=False)
    finally:
        writer.release()
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("memlens: error: another memlens process"), result.stderr
    assert "brings it up to date; this one opens it read-only" in result.stderr and "serves" not in result.stderr
    assert memlens("index", *where).returncode == 0  # once it is gone, this one writes


def test_sources_usage_names_its_folder_dir_as_its_description_and_errors_do() -> None:
    """`memlens sources --help` said `[folder]` (argparse's lower-case field name) in a usage whose description, and
    whose error for a misplaced folder, say `memlens sources remove DIR`."""
    usage = memlens("sources", "--help").stdout
    assert "[{list,remove}] [DIR]" in usage and "[folder]" not in usage
    assert "`sources remove DIR`" in usage
    said = memlens("sources", "list", "/tmp", check=False).stderr
    assert "memlens sources remove DIR" in said, said


def test_sources_given_a_folder_for_its_action_names_the_two_ways_to_write_it(tmp_path: Path) -> None:
    """`memlens sources /tmp` said argparse's `argument action: invalid choice: '/tmp' (choose from 'list',
    'remove')`: a folder where the action goes is told, in one line, what `sources` takes."""
    said = memlens("sources", str(tmp_path), check=False)
    assert said.returncode == 2 and said.stderr.count("\n") == 1, said.stderr
    assert f"{tmp_path} is a folder, not an action" in said.stderr, said.stderr
    assert "memlens sources lists the folders; memlens sources remove DIR forgets one" in said.stderr
    assert "invalid choice" not in said.stderr and "argument action" not in said.stderr
    misspelt = memlens("sources", "remvoe", check=False)
    assert misspelt.returncode == 2 and "did you mean 'remove'?" in misspelt.stderr, misspelt.stderr
    assert "[{list,remove}] [DIR]" in memlens("sources", "--help").stdout  # the usage still names both


@pytest.mark.slow  # CLI processes
def test_a_bound_outside_the_index_time_span_is_not_said_to_have_narrowed_it(tmp_path: Path) -> None:
    """`memlens search X --since 99999d` (a duration reaching before any message) said `--since 99999d narrowed it:
    drop it to search everything` when it left nothing out; a bound inside the span still says so."""
    workspace, transcripts = tmp_path / "ws", tmp_path / "transcripts"
    workspace.mkdir()  # no memory notes: every unit has a time
    shutil.copytree(Path(__file__).parent / "fixtures" / "transcripts" / "codex", transcripts)
    where = ["--workspace", str(workspace), "--transcripts", str(transcripts), "--index-dir", str(tmp_path / "i")]
    where += ["--no-embeddings", "--no-pager"]
    memlens("index", *where[:-1])
    unseen = "zqxjkvw"  # a word no transcript holds
    wide = memlens("search", unseen, "--since", "99999d", "--until", "2999-01-01", *where, check=False)
    assert wide.returncode == 1 and "narrowed" not in wide.stdout + wide.stderr, wide.stdout
    inside = memlens("search", unseen, "--until", "1990-01-01", *where, check=False)
    assert "memlens: --until 1990-01-01 narrowed it" in inside.stderr and not inside.stdout, inside.stderr
    sessions = memlens("sessions", "--query", unseen, "--since", "99999d", *where, check=False)
    assert sessions.returncode == 1 and "--query zqxjkvw narrowed it" in sessions.stderr, sessions.stderr
    assert "--since" not in sessions.stderr and not sessions.stdout, sessions.stderr


def _many_transcripts(folder: Path, files: int, messages: int) -> None:
    """`files` Claude Code transcripts of `messages` made-up messages each: enough to embed for a minute."""
    words = [
        "queue",
        "retry",
        "gauge",
        "sensor",
        "cable",
        "login",
        "export",
        "column",
        "ledger",
        "worker",
        "timeout",
        "cache",
        "shard",
        "vector",
    ]
    for number in range(files):
        session = f"00000000-0000-4000-8000-{number:012d}"
        lines, parent = [], None
        for seq in range(messages):
            role = "user" if seq % 2 == 0 else "assistant"
            text = " ".join(words[(number * 7 + seq * 3 + i) % len(words)] for i in range(60)) + f" n{number}m{seq}"
            uuid = f"{session}-{seq}"
            lines.append(
                json.dumps(
                    {
                        "parentUuid": parent,
                        "cwd": "/home/dev/p",
                        "sessionId": session,
                        "type": role,
                        "message": {
                            "role": role,
                            "content": text if role == "user" else [{"type": "text", "text": text}],
                        },
                        "uuid": uuid,
                        "timestamp": f"2026-03-{1 + number % 28:02d}T{seq % 24:02d}:00:00.000Z",
                    }
                )
            )
            parent = uuid
        (folder / f"{session}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _files_committed(catalog: Path) -> int:
    """How many files a running writer has committed, read as a plain SQLite reader: a `memlens stats` beside a
    writer would contend for its writer lock."""
    with contextlib.closing(sqlite3.connect(f"file:{catalog}?mode=ro", uri=True)) as db:
        return int(db.execute("SELECT COUNT(*) FROM files").fetchone()[0])


@pytest.mark.slow  # CLI processes, a real model embedding
def test_an_interrupted_index_says_what_it_kept_and_the_next_run_reads_only_the_rest(tmp_path: Path) -> None:
    """Ctrl-C during `memlens index` said only `memlens: interrupted`: it now says how many files it kept and how many
    are left for the next run, which reads only those (the files read before the interruption are unchanged to it)."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "transcripts").mkdir()
    where = ["--workspace", str(tmp_path / "ws"), "--transcripts", str(tmp_path / "transcripts")]
    where += ["--index-dir", str(tmp_path / "index")]
    memlens("index", *where)  # the index exists before the reads beside its writer below
    _many_transcripts(tmp_path / "transcripts", files=150, messages=40)
    command = [sys.executable, "-m", "memlens", "index", *where]
    running = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_reaches
    )
    try:
        kept = 0
        while not kept:  # files are read and committed before any is embedded; embedding them takes a minute more
            assert running.poll() is None, running.communicate()
            kept = _files_committed(tmp_path / "index" / "catalog.sqlite3")
        running.send_signal(signal.SIGINT)
        _, said = running.communicate(timeout=600)
    finally:
        running.kill()
    assert running.returncode == 130, said
    line = re.fullmatch(  # the files this run kept, and those left (none once it was embedding)
        r"memlens: interrupted; kept ([\d,]+) files?(?: \([\d,]+ messages?\))?"
        r"(?:, ([\d,]+) left for memlens index|; memlens index finishes the rest)\n",
        said,
    )
    assert line is not None, said
    kept = sum(json.loads(memlens("stats", "--json", *where).stdout)["files"].values())
    assert kept > 0 and int(line[1].replace(",", "")) == kept
    assert int((line[2] or "0").replace(",", "")) == 150 - kept
    again = memlens("index", *where, "--no-embeddings").stdout
    assert f" 150 files, {150 - kept} parsed, " in again and f", {kept} unchanged, " in again, again
