"""`memlens serve` over raw stdio, sent LSP messages past the bound on one message (requests.MAX_MESSAGE_BYTES). A
body was read whole at the length its header declared, so a 200 MB body, a header line without its end or a
`Content-Length: 99999999999` made the server hold as much as the client sent. Each is now read to its end and let
go as it is read: the request is refused with an error where its id is found, else the server logs a line, and the
next message is served."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import pytest

from mcp_server.helpers import _env
from memlens.requests import MAX_MESSAGE_BYTES
from peak_memory import peak_rss_kb

pytestmark = pytest.mark.slow  # a real server process


def _send(stdin: IO[bytes], message: dict[str, Any]) -> None:
    body = json.dumps(message).encode()
    stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    stdin.flush()


def _answer(stdout: IO[bytes], request_id: object) -> dict[str, Any]:
    """The next answer to `request_id` (the server's notifications read past)."""
    while True:
        length = 0
        while (header := stdout.readline()) not in (b"\r\n", b""):
            if header.lower().startswith(b"content-length:"):
                length = int(header.split(b":")[1])
        assert header, "the server closed its output"
        message: dict[str, Any] = json.loads(stdout.read(length))
        if message.get("id") == request_id and "method" not in message:
            return message


def test_a_message_past_the_bound_is_let_go_as_it_is_read_and_its_request_refused(tmp_path: Path) -> None:
    with (tmp_path / "stderr").open("wb") as stderr:
        server = subprocess.Popen(
            [sys.executable, "-m", "memlens", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=tmp_path,
            env=_env(),
        )
        assert server.stdin is not None and server.stdout is not None
        try:
            _send(server.stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
            assert "capabilities" in _answer(server.stdout, 1)["result"]
            before = peak_rss_kb(server.pid)

            # a body of 200 MB whose id comes after its params, as vscode-languageclient writes it
            megabytes = 50 * MAX_MESSAGE_BYTES >> 20
            start = b'{"method":"workspace/executeCommand","params":{"command":"memlens.search","arguments":["'
            end = b'"]},"jsonrpc":"2.0","id":2}'
            server.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(start) + (megabytes << 20) + len(end), start))
            for _ in range(megabytes):
                server.stdin.write(b"x" * (1 << 20))
            server.stdin.write(end)
            server.stdin.flush()
            refused = _answer(server.stdout, 2)
            grown_mb = (peak_rss_kb(server.pid) - before) >> 10
            assert grown_mb < megabytes // 4, f"the server's peak grew {grown_mb} MB for a {megabytes} MB body"
            assert refused["error"]["code"] == -32600, refused
            assert f"a message of {megabytes} MB is over the 4 MB bound" in refused["error"]["message"]

            # a header line that never ends within the bound: let go up to its end, logged
            server.stdin.write(b"X-Pasted: " + b"y" * MAX_MESSAGE_BYTES + b"\r\n")
            _send(server.stdin, {"jsonrpc": "2.0", "id": 3, "method": "shutdown"})
            assert _answer(server.stdout, 3) == {"jsonrpc": "2.0", "id": 3, "result": None}

            # a length no client means, and the client gone before sending it: read to the end of the input
            server.stdin.write(b"Content-Length: 99999999999\r\n\r\n")
            for _ in range(megabytes):
                server.stdin.write(b"z" * (1 << 20))
            server.stdin.flush()  # all but what the pipe holds has been read
            grown_mb = (peak_rss_kb(server.pid) - before) >> 10
            assert grown_mb < megabytes // 4, f"the server's peak grew {grown_mb} MB for a {megabytes} MB body"
            server.stdin.close()
            assert server.wait(timeout=120) == 0
        finally:
            server.kill()
            server.wait()
    logged = (tmp_path / "stderr").read_text()
    header = len(b"X-Pasted: ") + MAX_MESSAGE_BYTES + len(b"\r")
    assert f"a message of {header:,} bytes is over the 4 MB bound on one message; it was not read" in logged, logged
    assert "Traceback" not in logged, logged
