"""The local socket against hostile clients: a real LocalServer over a real index, and clients that trickle, nest,
flood, send garbage, half-close or crowd it. None of them kills the listener or holds it: a normal search beside
them still gets the engine's answer, and a crowded server says "busy" at once, so the CLI answers itself."""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from memlens.engine.engine import Engine
from memlens.local_api import server as server_module
from memlens.local_api.client import ServerDeclined, ServerError, ask
from memlens.local_api.protocol import Request, encode
from memlens.local_api.same_index import terms
from memlens.local_api.server import MAX_CLIENTS, LocalServer
from memlens.requests import MAX_MESSAGE_BYTES

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix sockets")

QUERY = "how did we fix the dead-letter queue backup?"


def search_request(**params: Any) -> Request:
    return cast(Request, {"method": "search", "params": {"query": QUERY, "mode": "keyword", **params}})


def served(engine: Engine) -> Iterator[LocalServer]:
    server = LocalServer(lambda: engine)
    server.attach(engine)
    assert server.path is not None
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def server(example: Engine) -> Iterator[LocalServer]:
    yield from served(example)


def connect(path: Path) -> socket.socket:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(30)
    conn.connect(str(path))
    return conn


def exchange(path: Path, payload: bytes, *, half_close: bool = True) -> dict[str, Any] | None:
    """Send raw bytes, read the one answer line (None if the server closed without one)."""
    with connect(path) as conn:
        try:
            conn.sendall(payload)
            if half_close:
                conn.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server stopped reading (a request past the cap): its answer may still be there
        data = b""
        while not data.endswith(b"\n"):
            try:
                block = conn.recv(1 << 16)
            except ConnectionResetError:
                break
            if not block:
                break
            data += block
    return json.loads(data) if data else None


def a_normal_search_answers(engine: Engine) -> None:
    answer = ask(engine.index_dir, search_request(limit=3))
    assert answer is not None and answer["results"], answer
    assert answer["results"][0]["id"] == engine.search(QUERY, limit=3, mode="keyword")["results"][0]["id"]


def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.05)


def test_bad_requests_get_one_error_each_and_the_listener_lives(example: Engine, server: LocalServer) -> None:
    assert server.path is not None
    cases: list[tuple[bytes, str]] = [
        (b'{"method":"search","params":' + b"[" * 50_000 + b"\n", "nested deeper than"),
        (b'{"method":"search","params":' + b"[" * (MAX_MESSAGE_BYTES + 1) + b"\n", "larger than"),
        (b'{"method":"search","params":{"query":"' + b"a" * (2 * MAX_MESSAGE_BYTES) + b'"}}\n', "larger than"),
        (b"\xff\xfe\x00\x01garbage\x9c\n", "not UTF-8"),
        (b"}}}]]]\n", "not JSON"),
        (b'{"method":"search","params":{"query":"q","limit":1000000000000}}\n', "limit must be 1..100"),
        (b'{"method":"search","params":{"query":"q","minScore":1e400}}\n', "minScore must be a finite number"),
        (b'{"method":"search","params":{"query":"q","minScore":NaN}}\n', "minScore must be a finite number"),
        (b'{"method":"search","params":{"query":"q","filters":{"since":"2026-02-30"}}}\n', "a day that exists"),
        (
            b'{"method":"search","params":{"query":"q","filters":{"since":"2026-02-02","until":"2026-02-01"}}}\n',
            "must not be after until",
        ),
        (b'{"method":"shutdown"}\n', 'the only method is "search"'),
    ]
    for payload, message in cases:
        answer = exchange(server.path, payload)
        if answer is not None:  # a request past the cap may be cut off unanswered; any answer is an error
            assert answer["error"]["code"] == "invalid" and message in answer["error"]["message"], answer
        else:
            assert message == "larger than", payload[:60]
    empty = exchange(server.path, b"")  # connected, said nothing, closed its half
    assert empty is not None and empty["error"]["code"] == "invalid"
    with connect(server.path):
        pass  # a client that connects and leaves at once
    with pytest.raises(ServerError, match=r"limit must be 1\.\.100, got 1000000000000"):
        ask(example.index_dir, search_request(limit=10**12))
    assert server._thread is not None and server._thread.is_alive()
    a_normal_search_answers(example)


def test_every_request_a_client_may_send_is_answered_or_kept_for_the_asker(
    example: Engine, server: LocalServer
) -> None:
    """The bound is the schema's one message bound: a valid request longer than the socket's old 64 KB line (many
    transcript folders) is answered, and one the server would refuse is not sent: the asker answers it itself."""
    folders = [f"/home/someone/projects/client-{n:04d}/.claude/projects/a-long-project-folder-name" for n in range(900)]
    asked = cast(Request, {**search_request(limit=3), "terms": {**terms(example.settings, []), "transcripts": folders}})
    assert 64 << 10 < len(encode(asked)) < MAX_MESSAGE_BYTES
    with pytest.raises(ServerDeclined, match="does not read /home/someone/projects/client-0000"):
        ask(example.index_dir, asked)  # read whole, and its folders compared: not refused for its length
    pasted = "Traceback (most recent call last):\n" + '  File "x.py", line 1, in f\n' * 200_000 + "KeyError: 'dlq'"
    assert len(encode(search_request(query=pasted))) > MAX_MESSAGE_BYTES
    assert ask(example.index_dir, search_request(query=pasted)) is None
    # a folder or query holding bytes that are not UTF-8 (read as surrogates) makes no JSON: the asker answers it
    assert ask(example.index_dir, search_request(query="axolotl\udcff folder")) is None
    a_normal_search_answers(example)


def test_a_half_closed_request_without_a_newline_is_answered(example: Engine, server: LocalServer) -> None:
    assert server.path is not None
    answer = exchange(server.path, json.dumps(search_request(limit=2)).encode())  # no "\n": EOF ends the line
    assert answer is not None and len(answer["result"]["results"]) == 2


def test_a_trickling_client_neither_holds_the_listener_nor_outstays_the_deadline(
    example: Engine, server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client sending a byte at a time, far more often than any per-read timeout, never completing a line: the
    server drops it once READ_SECONDS have passed in all, and searches beside it are answered meanwhile (one listener
    thread used to serve them one after another)."""
    path = server.path
    assert path is not None
    monkeypatch.setattr(server_module, "READ_SECONDS", 1.0)
    dropped = threading.Event()
    sent: list[int] = []

    def trickle() -> None:
        with connect(path) as conn:
            try:
                for _ in range(3000):  # leading whitespace: valid JSON so far, and never a whole line
                    conn.sendall(b" ")
                    sent.append(1)
                    time.sleep(0.1)
            except OSError:  # the server closed it
                dropped.set()

    threads = [threading.Thread(target=trickle, daemon=True) for _ in range(3)]
    for thread in threads:
        thread.start()
    wait_for(lambda: len(sent) >= 3, "the tricklers started")
    a_normal_search_answers(example)  # while three clients trickle
    wait_for(dropped.is_set, "the server dropped a trickling client")
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads), "a trickling client was never dropped"
    a_normal_search_answers(example)


def test_a_crowd_of_idle_clients_is_told_busy_and_the_server_recovers(
    example: Engine, server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past MAX_CLIENTS connections at once, a client gets "busy" at once (the CLI then opens its own engine)
    instead of waiting behind them; when they go, searches are answered again."""
    assert server.path is not None
    monkeypatch.setattr(server_module, "READ_SECONDS", 120.0)  # the idle clients hold their slots until they leave
    idle = [connect(server.path) for _ in range(MAX_CLIENTS)]
    try:
        extra = [connect(server.path) for _ in range(4)]
        for conn in extra:
            answer = json.loads(conn.recv(1 << 16))
            assert answer == {"error": {"message": "the server is busy", "code": "unavailable"}}
            conn.close()
        assert ask(example.index_dir, search_request()) is None  # busy: the caller answers itself
    finally:
        for conn in idle:
            conn.close()
    wait_for(lambda: ask(example.index_dir, search_request()) is not None, "the server answers again")
    assert server._thread is not None and server._thread.is_alive()
    a_normal_search_answers(example)
