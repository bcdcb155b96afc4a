"""SIGTERM (what `kill`, systemd and `docker stop` send) stops `memlens index`, `watch`, `mcp` and `serve` as the first
Ctrl-C does (stop_signal.py): the step under way ends or is rolled back, what was committed stays, one line on
stderr says so. `index` exits 143 (128 + SIGTERM; 130 on Ctrl-C), the servers 0. Each test waits for a line that
says the process is at work before it signals, and a transcript folder's catalog held by another connection
(BEGIN EXCLUSIVE) keeps `index` from finishing before the signal has come."""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from memlens_runs import claude_folder_flags, release_fifo, run_memlens, wait_for_marker, write_claude_session

pytestmark = pytest.mark.slow  # real processes


# (the signal sent, what SIGINT is in the process): SIGINT as a terminal gives it (a test run in the background of a
# script ignores it, and its children with it), and SIGTERM where SIGINT is ignored, as in a `cmd &` of a script
STOPS = {
    "sigterm": (signal.SIGTERM, signal.SIG_DFL),
    "sigterm-sigint-ignored": (signal.SIGTERM, signal.SIG_IGN),
    "ctrl-c": (signal.SIGINT, signal.SIG_DFL),
}


def _start(*args: str, cwd: Path, stop: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "memlens", *args]
    sigint = STOPS[stop][1]
    return subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),
    )


def _lines_until(stream: IO[str], wanted: str) -> Iterator[str]:
    for line in stream:
        yield line
        if wanted in line:
            return
    raise AssertionError(f"the stream ended before a line with {wanted!r}")


def _messages(tmp_path: Path) -> int:
    stats = run_memlens("stats", "--json", *claude_folder_flags(tmp_path), cwd=tmp_path)
    assert stats.returncode == 0, stats.stderr
    return sum(json.loads(stats.stdout)["messages"].values())


@pytest.fixture
def indexed(tmp_path: Path) -> Path:
    """Three sessions indexed (12 messages), and three more written since."""
    folder = tmp_path / "claude"
    folder.mkdir()
    for n in range(3):
        write_claude_session(folder, n)
    assert run_memlens("index", *claude_folder_flags(tmp_path), cwd=tmp_path).returncode == 0
    assert _messages(tmp_path) == 12
    for n in range(3, 6):
        write_claude_session(folder, n)
    return tmp_path


@pytest.mark.parametrize("stop", STOPS)
def test_index_stops_on_sigterm_as_on_ctrl_c_and_keeps_the_index(indexed: Path, stop: str) -> None:
    status, said = (143, "stopped by SIGTERM") if STOPS[stop][0] == signal.SIGTERM else (130, "interrupted")
    said += "; what was indexed is kept, and the next memlens index continues from there"
    tmp_path = indexed
    held = sqlite3.connect(tmp_path / "index" / "catalog.sqlite3", isolation_level=None)
    held.execute("BEGIN EXCLUSIVE")  # the sync cannot write (nor finish) until the signal has been sent
    process = _start("-vv", "index", *claude_folder_flags(tmp_path), cwd=tmp_path, stop=stop)
    assert process.stderr is not None
    before = list(_lines_until(process.stderr, "opening the index"))
    process.send_signal(STOPS[stop][0])
    held.execute("COMMIT")
    held.close()
    out, err = process.communicate(timeout=120)
    lines = [line for line in "".join(before).splitlines() + err.splitlines() if not line.startswith("DEBUG")]
    assert process.returncode == status, err
    assert lines[-1] == f"memlens: {said}", lines
    assert "Traceback" not in err and "sync:" not in out  # stopped before the end, and said so in one line
    assert _messages(tmp_path) == 12  # what the first run committed is there, and nothing half-written
    again = run_memlens("index", *claude_folder_flags(tmp_path), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert _messages(tmp_path) == 24


@pytest.mark.parametrize("stop", STOPS)
def test_watch_stops_on_sigterm_after_its_sync_and_keeps_it(indexed: Path, stop: str) -> None:
    tmp_path = indexed
    process = _start("watch", *claude_folder_flags(tmp_path), cwd=tmp_path, stop=stop)
    assert process.stdout is not None and process.stderr is not None
    first = list(_lines_until(process.stdout, "sync:"))  # the first sync: the three new sessions, committed
    assert "+12 messages" in first[-1], first
    process.send_signal(STOPS[stop][0])
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    said = err.splitlines()
    again = "SIGTERM or Ctrl-C again quits now" if STOPS[stop][0] == signal.SIGTERM else "Ctrl-C again quits now"
    assert said[-2] == f"memlens: stopping after the current step ({again})", said
    assert said[-1].startswith("memlens: stopped watching; "), said
    assert "Traceback" not in err
    assert _messages(tmp_path) == 24


def _mcp_ready(process: subprocess.Popen[str]) -> None:
    assert process.stdin is not None and process.stdout is not None
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}
    process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}) + "\n")
    process.stdin.flush()
    answer = json.loads(process.stdout.readline())
    assert answer["id"] == 1 and "serverInfo" in answer["result"], answer


def _lsp_ready(process: subprocess.Popen[str]) -> None:
    assert process.stdin is not None and process.stdout is not None
    _lsp_initialize(process.stdin, process.stdout)


def _lsp_initialize(send: IO[str], answers: IO[str]) -> None:
    params: dict[str, object] = {"processId": None, "rootUri": None, "capabilities": {}}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    send.write(f"Content-Length: {len(body.encode())}\r\n\r\n{body}")
    send.flush()
    length = 0
    for line in answers:
        if line.lower().startswith("content-length:"):
            length = int(line.split(":")[1])
        if line in ("\r\n", "\n"):
            break
    answer = json.loads(answers.read(length))
    assert answer["id"] == 1 and "capabilities" in answer["result"], answer


def _stopped_by_the_signal(process: subprocess.Popen[str], signum: int) -> str:
    """Send the signal to a server whose client still holds its input open, and return its stderr once it has exited
    with status 0 (only the signal can end it)."""
    process.send_signal(signum)
    try:
        process.wait(timeout=120)
    finally:
        process.kill()
    _, err = process.communicate()
    assert process.returncode == 0, err
    return err


@pytest.mark.parametrize("stop", STOPS)
def test_mcp_server_stops_on_sigterm_with_a_line(indexed: Path, stop: str) -> None:
    """It stops while the client still holds its stdin open (a client that sends the signal need not close it)."""
    tmp_path = indexed
    process = _start("mcp", *claude_folder_flags(tmp_path), cwd=tmp_path, stop=stop)
    _mcp_ready(process)
    err = _stopped_by_the_signal(process, STOPS[stop][0])
    name = "SIGTERM" if STOPS[stop][0] == signal.SIGTERM else "Ctrl-C"
    assert err.splitlines()[-1] == f"memlens: MCP server stopped ({name})", err
    assert "Traceback" not in err
    kept = _messages(tmp_path)  # the index opens, and its live sync committed whole files (of 4 messages) or none
    assert 12 <= kept <= 24 and kept % 4 == 0, kept
    assert run_memlens("index", *claude_folder_flags(tmp_path), cwd=tmp_path).returncode == 0
    assert _messages(tmp_path) == 24


@pytest.mark.parametrize("stop", STOPS)
def test_language_server_stops_on_sigterm_with_a_line(tmp_path: Path, stop: str) -> None:
    """It stops while the client still holds its stdin open (a client that sends the signal need not close it)."""
    process = _start("serve", cwd=tmp_path, stop=stop)
    _lsp_ready(process)
    err = _stopped_by_the_signal(process, STOPS[stop][0])
    why = " by SIGTERM" if STOPS[stop][0] == signal.SIGTERM else ""
    assert err.splitlines()[-1] == f"memlens: language server stopped{why}", err
    assert "Traceback" not in err


@pytest.mark.parametrize("stop", STOPS)
def test_language_server_on_tcp_stops_on_sigterm_with_a_line(tmp_path: Path, stop: str) -> None:
    """Its client still connected: the server ends the connection, closes the index, says so and exits 0."""
    process = _start("serve", "--tcp", "127.0.0.1:0", cwd=tmp_path, stop=stop)
    assert process.stderr is not None
    never_ready = threading.Timer(120, process.kill)  # then the stream ends, and the wait below fails
    never_ready.start()
    try:
        said = list(_lines_until(process.stderr, "listening on"))
    finally:
        never_ready.cancel()
    port = int(said[-1].rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port)) as client, client.makefile("rw") as wire:
        _lsp_initialize(wire, wire)
        err = _stopped_by_the_signal(process, STOPS[stop][0])
    why = " by SIGTERM" if STOPS[stop][0] == signal.SIGTERM else ""
    assert err.splitlines()[-1] == f"memlens: language server stopped{why}", err
    assert "Traceback" not in err


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _mcp_http_listening(process: subprocess.Popen[str]) -> None:
    """Read stderr up to the line that says the server listens (said once its socket is bound)."""
    assert process.stderr is not None
    never_ready = threading.Timer(120, process.kill)  # then the stream ends, and the wait fails
    never_ready.start()
    try:
        list(_lines_until(process.stderr, "listening on"))
    finally:
        never_ready.cancel()


@pytest.mark.parametrize("stop", STOPS)
def test_mcp_http_server_stops_on_sigterm_with_a_line(indexed: Path, stop: str) -> None:
    """As on stdio: one line, exit 0, no traceback, the index whole. uvicorn took the signal for its own graceful
    stop and raised it again once stopped, and a signal that came before its handlers were in, or while it started,
    printed the traceback of a task it interrupted."""
    tmp_path = indexed
    process = _start(
        "mcp", "--http", f"127.0.0.1:{_free_port()}", *claude_folder_flags(tmp_path), cwd=tmp_path, stop=stop
    )
    _mcp_http_listening(process)
    err = _stopped_by_the_signal(process, STOPS[stop][0])
    name = "SIGTERM" if STOPS[stop][0] == signal.SIGTERM else "Ctrl-C"
    assert err.splitlines()[-1] == f"memlens: MCP server stopped ({name})", err
    assert "Traceback" not in err
    assert run_memlens("index", *claude_folder_flags(tmp_path), cwd=tmp_path).returncode == 0
    assert _messages(tmp_path) == 24


@pytest.mark.parametrize("stop", ["sigterm", "ctrl-c"])
def test_a_second_signal_quits_the_mcp_http_server_waiting_for_a_request(indexed: Path, stop: str) -> None:
    """The first signal stops the server once its open requests end; a request whose body never comes keeps it
    waiting (its "100 Continue" says the server reads it). A second signal quits at once, as a second Ctrl-C does,
    with the signal's status: uvicorn ignored a second SIGTERM (it waited on) and took a second Ctrl-C for a forced
    stop that still exited 0."""
    tmp_path = indexed
    port = _free_port()
    process = _start("mcp", "--http", f"127.0.0.1:{port}", *claude_folder_flags(tmp_path), cwd=tmp_path, stop=stop)
    assert process.stderr is not None
    signum = STOPS[stop][0]
    never_done = threading.Timer(120, process.kill)  # then its stream ends or the wait returns, and the test fails
    never_done.start()
    try:
        list(_lines_until(process.stderr, "listening on"))
        with socket.create_connection(("127.0.0.1", port)) as client, client.makefile("rb") as answers:
            head = (
                f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                "Accept: application/json, text/event-stream\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n"
            )
            client.sendall(head.encode())
            assert answers.readline().startswith(b"HTTP/1.1 100"), "the server must be reading the request's body"
            process.send_signal(signum)
            list(_lines_until(process.stderr, "stopping once 1 open request ends"))
            process.send_signal(signum)
            process.wait()
    finally:
        never_done.cancel()
        process.kill()
    _, err = process.communicate()
    assert process.returncode == 128 + signum, err
    assert err.splitlines()[-1] == "memlens: stopped at once", err
    assert "Traceback" not in err
    assert run_memlens("index", *claude_folder_flags(tmp_path), cwd=tmp_path).returncode == 0  # the index opens
    assert _messages(tmp_path) == 24


def test_an_mcp_http_address_in_use_is_one_error_line(tmp_path: Path) -> None:
    """uvicorn said "listening on" first, logged the bind error, then exited 3 (not an error status of EXIT_STATUS)."""
    (tmp_path / "claude").mkdir()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_memlens("mcp", "--http", f"127.0.0.1:{port}", *claude_folder_flags(tmp_path), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [f"memlens: error: cannot listen on 127.0.0.1:{port}: address already in use"]


def test_an_interrupt_raised_inside_one_of_anyios_tasks_stops_the_mcp_server_with_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where the signal lands decides how it arrives: inside one of the stdio server's tasks, anyio hands the
    KeyboardInterrupt on wrapped in a BaseExceptionGroup. The server stops as on a bare one (its line, exit 0), with
    no traceback. anyio.run, the neighbour, is made to raise it so: a real signal lands there only by chance."""
    import anyio

    from memlens.engine.engine import Engine
    from memlens.mcp import server as mcp_server
    from memlens.settings import Settings

    def interrupted_in_a_task(*args: object) -> None:
        raise BaseExceptionGroup("unhandled errors in a TaskGroup", [KeyboardInterrupt()])

    monkeypatch.setattr(anyio, "run", interrupted_in_a_task)
    settings = Settings()
    settings.transcripts.agent_defaults = False
    (tmp_path / "ws").mkdir()
    with Engine([tmp_path / "ws"], settings, index_dir=tmp_path / "index", embedder=None) as engine:
        assert mcp_server.run(engine, live_indexing=False) == 0
    assert capsys.readouterr().err.strip().endswith("memlens: MCP server stopped (Ctrl-C)")


def test_a_sigterm_landing_inside_one_of_the_mcp_servers_tasks_stops_it_with_its_line_alone(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """With SIGINT ignored (`memlens mcp &` in a script) the interrupt used to be raised wherever SIGTERM landed; in
    one of anyio's tasks, asyncio printed that task's traceback ("unhandled exception during asyncio.run()
    shutdown") before the server's line. Here it lands there every time: the SDK's serving loop, the neighbour, is
    made to send it from inside a task. The real server, stop handler and transport do the rest."""
    import anyio
    from mcp.server.lowlevel.server import Server

    from memlens import stop_signal
    from memlens.engine.engine import Engine
    from memlens.mcp import server as mcp_server
    from memlens.settings import Settings

    async def signalled_inside_a_task(self: object, read_stream: Any, write_stream: Any, *args: object) -> None:
        async def at_work() -> None:
            signal.raise_signal(signal.SIGTERM)  # delivered here, in the task, before the next line runs
            await anyio.sleep_forever()

        async with read_stream, write_stream, anyio.create_task_group() as tasks:  # closed, as the SDK's run does
            tasks.start_soon(at_work)

    monkeypatch.setattr(Server, "run", signalled_inside_a_task)
    monkeypatch.setattr(stop_signal, "_received", threading.Event())
    settings = Settings()
    settings.transcripts.agent_defaults = False
    (tmp_path / "ws").mkdir()
    stdin, null = os.dup(0), os.open(os.devnull, os.O_RDONLY)  # the server's input: nothing, and no terminal
    sigint, sigterm = signal.signal(signal.SIGINT, signal.SIG_IGN), signal.getsignal(signal.SIGTERM)
    try:
        os.dup2(null, 0)
        stop_signal.treat_sigterm_as_ctrl_c()
        with Engine([tmp_path / "ws"], settings, index_dir=tmp_path / "index", embedder=None) as engine:
            assert mcp_server.run(engine, live_indexing=False) == 0
    finally:
        signal.signal(signal.SIGTERM, sigterm)
        signal.signal(signal.SIGINT, sigint)
        os.dup2(stdin, 0)
        os.close(stdin)
        os.close(null)
    assert capsys.readouterr().err.strip() == "memlens: MCP server stopped (SIGTERM)"
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR] == []


SECOND_SIGNAL_WHILE_STOPPING = """
import asyncio, os, signal
from memlens.stop_signal import stopping_through_the_loop, treat_sigterm_as_ctrl_c

async def serve() -> None:
    asked_to_stop = asyncio.Event()
    with stopping_through_the_loop(asked_to_stop.set):  # a server whose stop has begun and not ended
        os.kill(os.getpid(), signal.SIGTERM)
        await asked_to_stop.wait()
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.Event().wait()

treat_sigterm_as_ctrl_c()
asyncio.run(serve())
"""


def test_a_second_signal_while_a_server_stops_quits_at_once_with_a_line() -> None:
    """The second signal comes while the loop runs a task (here, always): it quits at once, as a second Ctrl-C does,
    with one line and the signal's status, not an interrupt raised inside the task (a traceback)."""
    done = subprocess.run(
        [sys.executable, "-c", SECOND_SIGNAL_WHILE_STOPPING], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert done.stderr == "memlens: stopped at once\n"


# `memlens ARGV[3:]` through the script's entry, held (after creating the marker argv[1]) where the command line's
# modules load, until the FIFO argv[2] is opened: a Ctrl-C that comes then lands inside an import
HELD_WHILE_LOADING = """
import os, sys
class HeldImport:
    def find_spec(self, name, path=None, target=None):
        if name == "memlens.cli.commands":
            open(sys.argv[1], "w").close()
            os.close(os.open(sys.argv[2], os.O_RDONLY))
        return None
sys.meta_path.insert(0, HeldImport())
from memlens.script import main
raise SystemExit(main(sys.argv[3:]))
"""


def test_ctrl_c_while_the_command_line_loads_is_one_line(tmp_path: Path) -> None:
    marker, fifo = tmp_path / "loading", tmp_path / "release"
    os.mkfifo(fifo)
    process = subprocess.Popen(
        [sys.executable, "-c", HELD_WHILE_LOADING, str(marker), str(fifo), "search", "quokka", "--no-sync"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        wait_for_marker(marker, process)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        release_fifo(fifo, process)
        process.kill()
        process.wait(timeout=60)
    assert (process.returncode, out, err) == (130, "", "memlens: interrupted\n")
