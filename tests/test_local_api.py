"""`memlens search` asks the `memlens serve` / `memlens mcp` that holds the index open, over a Unix socket in the
index folder: same answer as the engine's own, the owner's socket only, and every failure falls back to the CLI's
own engine (or, for a request the user got wrong, the same one-line error)."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from memlens.engine.engine import Engine
from memlens.local_api.client import ServerError, ask
from memlens.local_api.protocol import Request, socket_path
from memlens.local_api.server import LocalServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix sockets")

QUERY = "how did we fix the dead-letter queue backup?"


def search_request(query: str = QUERY, **params: Any) -> Request:
    return cast(Request, {"method": "search", "params": {"query": query, **params}})


def without_timing(response: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in response.items() if k != "searchTimeMs"}


@pytest.fixture
def served(example: Engine) -> Iterator[tuple[Engine, LocalServer]]:
    server = LocalServer(lambda: example)
    server.attach(example)
    try:
        yield example, server
    finally:
        server.close()


def test_the_server_answers_as_the_engine_does(served: tuple[Engine, LocalServer]) -> None:
    engine, server = served
    assert server.path == engine.index_dir / "search.sock"
    answer = ask(engine.index_dir, search_request(limit=5, mode="keyword", filters={"kind": "transcript"}))
    assert answer is not None and answer["results"]
    from memlens.engine.filters import filters_from_dict

    own = engine.search(QUERY, limit=5, mode="keyword", filters=filters_from_dict({"kind": "transcript"}))
    assert without_timing(answer) == without_timing(json.loads(json.dumps(own)))
    assert {r["kind"] for r in answer["results"]} == {"transcript"}


def test_the_socket_is_the_owners_alone(served: tuple[Engine, LocalServer]) -> None:
    engine, server = served
    assert server.path is not None
    mode = server.path.stat().st_mode
    assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600


def test_a_peer_of_another_user_is_refused(served: tuple[Engine, LocalServer], monkeypatch: pytest.MonkeyPatch) -> None:
    """The socket's mode keeps other users out; the server checks the peer's uid too (SO_PEERCRED), so a socket
    whose mode was loosened, or a peer that got past it, is still refused and never searched for."""
    engine, server = served
    assert server.path is not None
    searched: list[str] = []
    monkeypatch.setattr(engine, "search", lambda query, **_: searched.append(query))
    if sys.platform.startswith("linux") and os.getuid() == 0:  # a real peer of another uid: a forked child
        folder_mode = stat.S_IMODE(server.path.parent.stat().st_mode)
        os.chmod(server.path, 0o666)  # past the mode: only the uid check is left to refuse
        os.chmod(server.path.parent, folder_mode | 0o111)
        read, write = os.pipe()
        child = os.fork()
        if child == 0:  # pragma: no cover (the child reports through the pipe)
            try:
                os.chdir(server.path.parent)  # the folders above are root's alone: reached from inside
                os.setuid(65534)
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                    conn.connect(server.path.name)
                    with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # answered before it asks
                        conn.sendall(json.dumps(search_request()).encode() + b"\n")
                        conn.shutdown(socket.SHUT_WR)
                    os.write(write, conn.recv(4096))
            except BaseException as exc:
                os.write(write, repr(exc).encode())
            finally:
                os._exit(0)
        os.close(write)
        with os.fdopen(read, "rb") as answer:
            refused = json.loads(answer.read())
        os.waitpid(child, 0)
        os.chmod(server.path.parent, folder_mode)
        assert refused["error"]["message"] == "this socket answers its owner only"
    # this process's own connection, seen by a server that runs as someone else (read as the child reads: the
    # refusal comes before the request is read, so sending it may find the socket closed)
    monkeypatch.setattr("memlens.local_api.server.os.getuid", lambda: os.geteuid() + 1)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(str(server.path))
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            conn.sendall(json.dumps(search_request()).encode() + b"\n")
        refused = json.loads(conn.recv(4096))
    assert refused["error"]["message"] == "this socket answers its owner only"
    assert searched == []


def test_a_request_the_user_got_wrong_is_said_not_swallowed(served: tuple[Engine, LocalServer]) -> None:
    engine, server = served
    with pytest.raises(ServerError, match="unknown field"):
        ask(engine.index_dir, search_request(filters={"colour": "red"}))
    with pytest.raises(ServerError, match="empty"):
        ask(engine.index_dir, search_request("   "))
    assert server.answer(b"not json\n")["error"]["code"] == "invalid"
    assert server.answer(b'{"method": "delete"}\n')["error"]["code"] == "invalid"
    assert server.answer(b'{"method": "search", "params": {"query": "q", "limit": "ten"}}\n')["error"]["code"] == (
        "invalid"
    )


def test_a_server_without_an_open_index_sends_the_cli_to_its_own(example: Engine) -> None:
    server = LocalServer(lambda: None)  # reopening: the engine is being swapped
    server.attach(example)
    try:
        assert ask(example.index_dir, search_request()) is None
    finally:
        server.close()


def test_no_server_stale_socket_and_read_only_engines(example: Engine, tmp_path: Path) -> None:
    assert ask(example.index_dir, search_request()) is None  # nothing listens
    path = socket_path(example.index_dir)
    assert path is not None
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))
    dead.close()  # a socket file left by a server that died
    assert path.exists() and ask(example.index_dir, search_request()) is None
    server = LocalServer(lambda: example)
    server.attach(example)  # replaces the dead socket
    try:
        assert ask(example.index_dir, search_request()) is not None
        with Engine(example.workspaces, example.settings, index_dir=example.index_dir, embedder=False) as reader:
            assert not reader.writable
            other = LocalServer(lambda: reader)
            other.attach(reader)  # only the writer listens
            assert other.path is None
    finally:
        server.close()
    assert not path.exists()  # closing removes its socket


def memlens(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "memlens", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.slow  # CLI processes
def test_the_cli_asks_the_running_server_first(served: tuple[Engine, LocalServer]) -> None:
    engine, _ = served
    where = ["--workspace", str(engine.workspaces[0]), "--index-dir", str(engine.index_dir)]
    asked = memlens("-v", "search", QUERY, "--json", "--limit", "3", *where)
    assert asked.returncode == 0, asked.stderr
    assert "answered by the memlens server" in asked.stderr
    own = memlens("-v", "search", QUERY, "--json", "--limit", "3", "--no-server", *where)
    assert own.returncode == 0, own.stderr
    assert "answered by the memlens server" not in own.stderr
    assert without_timing(json.loads(asked.stdout))["results"] == without_timing(json.loads(own.stdout))["results"]
    # no model asked: a keyword search, which the server's index answers as the CLI's own would
    keyword_only = memlens("-v", "search", QUERY, "--no-embeddings", "--limit", "3", "--json", *where)
    assert "answered by the memlens server" in keyword_only.stderr, keyword_only.stderr
    own_keyword = memlens("search", QUERY, "--no-embeddings", "--limit", "3", "--json", "--no-server", *where)
    assert json.loads(keyword_only.stdout)["results"] == json.loads(own_keyword.stdout)["results"]
    # a flag that changes what is indexed: the server cannot answer for it, and one line says why
    other_scope = memlens("search", QUERY, "--scope", "all", "--limit", "3", "--json", *where)
    assert "answered by the memlens server" not in other_scope.stderr
    assert "memlens: searching here, not in the running server: the server runs with scope=" in other_scope.stderr
    bad = memlens("search", QUERY, "--since", "last tuesday-ish", *where)
    assert bad.returncode == 2 and bad.stderr.startswith("memlens: error:") and "Traceback" not in bad.stderr
    nothing = memlens("search", "zyxwvut qqqq", "--mode", "keyword", "--json", *where)
    assert nothing.returncode == 1 and json.loads(nothing.stdout)["results"] == []


@pytest.mark.slow  # a real MCP server
def test_a_real_mcp_server_answers_the_cli_and_removes_its_socket(cli_example: Engine) -> None:
    """`memlens mcp` (a real process over stdio) listens while it runs; the CLI beside it is answered by it."""
    where = ["--workspace", str(cli_example.workspaces[0]), "--index-dir", str(cli_example.index_dir)]
    path = cli_example.index_dir / "search.sock"
    env = {**os.environ, "MEMLENS_LIVE_INDEXING": "0"}
    server = subprocess.Popen(
        [sys.executable, "-m", "memlens", "mcp", *where],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        deadline = time.monotonic() + 120
        while not path.exists() and time.monotonic() < deadline and server.poll() is None:
            time.sleep(0.1)
        assert path.exists(), server.stderr.read().decode() if server.poll() is not None and server.stderr else ""
        asked = memlens("-v", "search", QUERY, "--json", "--mode", "keyword", *where)
        assert asked.returncode == 0 and "answered by the memlens server" in asked.stderr, asked.stderr
        assert json.loads(asked.stdout)["results"]
    finally:
        assert server.stdin is not None
        server.stdin.close()  # the client hangs up: the server ends
        server.wait(timeout=60)
    assert not path.exists()


@pytest.fixture
def cli_example(example: Engine) -> Engine:
    example.close()  # release the writer lock: the server process writes
    return example


def test_the_cli_reaches_the_server_without_loading_the_engine() -> None:
    """What `memlens search` imports before asking: no tantivy, SQLite, numpy or engine (≈ 0.1 s CPU a call)."""
    code = (
        "import sys, memlens.cli; "
        "print(sorted(m for m in ('tantivy', 'sqlite3', 'numpy', 'onnxruntime', 'memlens.engine.engine') "
        "if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


@pytest.mark.slow  # CLI processes
def test_the_server_answers_for_folders_its_index_holds(served: tuple[Engine, LocalServer], tmp_path: Path) -> None:
    """`--transcripts DIR` no longer sends the CLI to its own engine when the server's index holds DIR; a folder it
    does not hold does, with the reason on stderr."""
    engine, _ = served
    where = ["--workspace", str(engine.workspaces[0]), "--index-dir", str(engine.index_dir)]
    held = engine.workspaces[0] / "transcripts"
    assert str(held.resolve()) in {str(Path(f["path"]).resolve()) for f in engine.source_folders()["sources"]}
    asked = memlens("-v", "search", QUERY, "--transcripts", str(held), "--limit", "3", "--json", *where)
    assert asked.returncode == 0 and "answered by the memlens server" in asked.stderr, asked.stderr
    other = tmp_path / "other"
    other.mkdir()
    own = memlens("search", QUERY, "--transcripts", str(other), "--limit", "3", "--json", *where)
    assert "answered by the memlens server" not in own.stderr
    assert f"not in the running server: the server does not read {other.resolve()}" in own.stderr, own.stderr


def _another_zone() -> str:
    """A zone whose offset now is not this process's, so the two sides' days differ."""
    from datetime import datetime

    here = datetime.now().astimezone().utcoffset()
    return "Pacific/Kiritimati" if here is not None and here.total_seconds() != 14 * 3600 else "UTC"


@pytest.mark.slow  # CLI processes
def test_a_server_in_another_machine_zone_leaves_day_words_to_the_cli(served: tuple[Engine, LocalServer]) -> None:
    """With display.timeZone unset, "today" is a day of each process's own zone: a CLI whose TZ is not the server's
    is not answered by it (the server would read `--since today` as another day), and it says why."""
    engine, _ = served
    where = ["--workspace", str(engine.workspaces[0]), "--index-dir", str(engine.index_dir)]
    assert engine.settings.display.time_zone == ""
    command = [sys.executable, "-m", "memlens", "-v", "search", QUERY, "--since", "today", "--json", *where]
    env = {**os.environ, "TZ": _another_zone()}
    elsewhere = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False, env=env)
    assert "answered by the memlens server" not in elsewhere.stderr, elsewhere.stderr
    assert "not in the running server: the server runs with display.timeZone=\"the machine's zone (" in (
        elsewhere.stderr
    ), elsewhere.stderr
    here = memlens("-v", "search", QUERY, "--since", "today", "--json", *where)
    assert "answered by the memlens server" in here.stderr, here.stderr


def _raw_answer(path: Path, request: object) -> bytes:
    """What the server writes back to a client of its own socket, as bytes (no client's reading between)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(10)
        conn.connect(str(path))
        conn.sendall(json.dumps(request).encode() + b"\n")
        conn.shutdown(socket.SHUT_WR)
        return b"".join(iter(lambda: conn.recv(1 << 16), b""))


def test_every_refusal_the_socket_writes_is_masked(served: tuple[Engine, LocalServer]) -> None:
    """A refusal quotes what the client sent (a value out of bounds, a field's name, a folder or a setting it asked
    with): the server masks it as it writes it, not only the CLI that says it."""
    from memlens.local_api.same_index import terms
    from planted_secrets import PLANTED

    token = next(p.secret for p in PLANTED if p.kind == "github-pat-classic")
    engine, server = served
    assert server.path is not None
    served_terms = terms(engine.settings, engine.extra_transcripts)
    other_zone = {**served_terms, "settings": {**served_terms["settings"], "display.time_zone": token}}
    other_folder = {**served_terms, "transcripts": [f"/tmp/{token}/sessions"]}
    requests: list[tuple[object, str]] = [
        ({"method": "search", "params": {"query": "q", "limit": token}}, "invalid"),
        ({"method": "search", "params": {"query": "q", token: 1}}, "invalid"),
        ({"method": "search", "params": {"query": "q", "mode": f"x {token}"}}, "invalid"),
        ({"method": "search", "params": {"query": "q"}, "terms": other_zone}, "declined"),
        ({"method": "search", "params": {"query": "q"}, "terms": other_folder}, "declined"),
    ]
    for request, code in requests:
        wire = _raw_answer(server.path, request)
        failure = json.loads(wire)["error"]
        assert failure["code"] == code, failure
        assert token not in wire.decode() and "[REDACTED:github-token]" in failure["message"], failure
    with pytest.raises(ServerError) as refused:  # the CLI's own client reads the masked words
        ask(engine.index_dir, search_request(limit=token))
    assert token not in str(refused.value) and "[REDACTED:github-token]" in str(refused.value)
