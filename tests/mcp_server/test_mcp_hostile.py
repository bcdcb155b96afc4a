"""A real `memlens mcp` over raw stdio, fed what no SDK client would send: a request nested 100,000 deep, numbers
past every bound, a query of a megabyte. Each bad call is refused (or, for the unparseable line, dropped by the
SDK) and the server keeps answering."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, Any

import pytest

from mcp_server.helpers import _env, memlens
from memlens.requests import MAX_MESSAGE_BYTES
from peak_memory import peak_rss_kb
from planted_secrets import PLANTED

NOTE = "# Hangar\n\nThe zeppelin hangar has a copper roof.\n"


class RawClient:
    """JSON-RPC lines on a `memlens mcp` process's stdin and stdout."""

    def __init__(self, workspace: Path, index_dir: Path, stderr: IO[bytes] | None = None) -> None:
        command = [sys.executable, "-m", "memlens", "mcp", "--workspace", str(workspace), "--index-dir", str(index_dir)]
        self.process = subprocess.Popen(
            [*command, "--no-embeddings"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL if stderr is None else stderr,
            env=_env(),
        )
        self.next_id = 0

    def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        self.send(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}).encode())
        assert self.process.stdout is not None
        while True:
            answer: dict[str, Any] = json.loads(self.process.stdout.readline())
            if answer.get("id") == self.next_id:
                return answer

    def tool(self, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
        result = self.request("tools/call", {"name": name, "arguments": arguments})["result"]
        return bool(result.get("isError")), result["content"][0]["text"]

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=60)


def _initialized_client(tmp_path: Path, name: str, stderr: IO[bytes] | None = None) -> RawClient:
    """A raw client of `memlens mcp` over an index of one note, past the protocol's handshake."""
    (tmp_path / "ws" / "memory").mkdir(parents=True)
    (tmp_path / "ws" / "memory" / "hangar.md").write_text(NOTE, encoding="utf-8")
    memlens("index", "--workspace", tmp_path / "ws", "--index-dir", tmp_path / "index", "--no-embeddings")
    client = RawClient(tmp_path / "ws", tmp_path / "index", stderr)
    client.request(
        "initialize",
        {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": name, "version": "1"}},
    )
    client.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    return client


def test_hostile_calls_are_refused_and_the_server_keeps_answering(tmp_path: Path) -> None:
    client = _initialized_client(tmp_path, "hostile")
    try:
        deep = b"[" * 100_000 + b"]" * 100_000
        client.send(
            b'{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"search","arguments":{"query":'
            + deep
            + b"}}}"
        )
        refused: dict[str, tuple[str, dict[str, Any]]] = {
            "limit must be 1..100, got 1000000000000": ("search", {"query": "zeppelin", "limit": 10**12}),
            "query must be at most 1,000,000 characters, got 1,000,001": ("search", {"query": "q" * 1_000_001}),
            "since must be a day that exists, got '2026-02-30'": ("search", {"query": "q", "since": "2026-02-30"}),
            "must not be after until": ("search", {"query": "q", "since": "2026-02-02", "until": "2026-02-01"}),
            "tokenBudget must be 50..200000, got 1000000000": ("context", {"question": "q", "tokenBudget": 10**9}),
            "limit must be 1..500, got -5": ("sessions", {"limit": -5}),
            "query must be a string, got a list of 1 item": ("search", {"query": [[[["q"]]]]}),
        }
        for message, (tool, arguments) in refused.items():
            is_error, text = client.tool(tool, arguments)
            assert is_error and message in text, text
        is_error, text = client.tool("search", {"query": "zeppelin copper roof", "mode": "keyword"})
        assert not is_error and "hangar.md" in text, text
    finally:
        assert client.close() == 0


ANSWER_SECONDS = 120.0  # a guard against waiting forever, not a speed bound: the old server never answered at all


def test_a_query_with_half_an_emoji_is_answered(tmp_path: Path) -> None:
    """A JavaScript client that cuts a query inside an emoji sends a lone surrogate escape (`\\ud83d`); the SDK
    dropped that line unanswered, and the client waited for ever. Now it reads as U+FFFD and is answered."""
    client = _initialized_client(tmp_path, "cut")
    try:
        with ThreadPoolExecutor(1) as pool:
            for query in ("copper roof \ud83d", "\udc00 zeppelin", "zeppelin \ud83d\ude80 roof"):
                answer = pool.submit(client.tool, "search", {"query": query, "mode": "keyword"})
                try:
                    is_error, text = answer.result(timeout=ANSWER_SECONDS)
                except TimeoutError:
                    client.process.kill()  # ends the read the worker waits in
                    raise AssertionError(f"no answer to a query of {query!r}") from None
                assert not is_error and "hangar.md" in text, text
        # a pair escaped whole is still the character it makes
        assert "🚀" in client.tool("search", {"query": "zeppelin \ud83d\ude80", "mode": "keyword"})[1]
    finally:
        assert client.close() == 0


def test_a_line_past_the_bound_is_let_go_as_it_is_read_and_its_request_refused(tmp_path: Path) -> None:
    """A line is held whole before the SDK parses it: a 200 MB one (a pasted selection, a client writing without
    newlines) grew the server by as much, several times over. A line over the bound on one message is read to its
    end and let go as it is read; the request is refused with an error where its id is found (the TypeScript SDK
    writes it after the params, at the line's end), else the server logs a line; the next call is answered."""
    with (tmp_path / "stderr").open("wb") as stderr:
        client = _initialized_client(tmp_path, "long line", stderr)
        assert client.process.stdin is not None and client.process.stdout is not None
        try:
            before = peak_rss_kb(client.process.pid)
            megabytes = 50 * MAX_MESSAGE_BYTES >> 20
            client.process.stdin.write(b'{"method":"tools/call","params":{"name":"search","arguments":{"query":"')
            for _ in range(megabytes):
                client.process.stdin.write(b"x" * (1 << 20))
            client.send(b'"}},"jsonrpc":"2.0","id":"long"}')
            refused = json.loads(client.process.stdout.readline())
            grown_mb = (peak_rss_kb(client.process.pid) - before) >> 10
            assert grown_mb < megabytes // 4, f"the server's peak grew {grown_mb} MB for a {megabytes} MB line"
            assert refused["id"] == "long" and refused["error"]["code"] == -32600, refused
            assert f"a message of {megabytes} MB is over the 4 MB bound" in refused["error"]["message"], refused
            client.send(b"y" * (MAX_MESSAGE_BYTES + 1))  # no id to answer: logged
            is_error, text = client.tool("search", {"query": "zeppelin copper roof", "mode": "keyword"})
            assert not is_error and "hangar.md" in text, text
        finally:
            assert client.close() == 0
    logged = (tmp_path / "stderr").read_text()
    said = "a message of 4,194,305 bytes is over the 4 MB bound on one message; it was not read (no request id"
    assert said in logged, logged
    assert "Traceback" not in logged


@pytest.mark.slow  # an index and a server process: about 3 s
def test_an_error_answer_quoting_what_the_client_sent_masks_a_token(tmp_path: Path) -> None:
    """The SDK answers an unknown method with its name as the error's data: a token sent there comes back masked,
    as a tool's arguments quoted in an error do."""
    token = next(p.secret for p in PLANTED if p.kind == "github-pat-classic")
    client = _initialized_client(tmp_path, "echo")
    try:
        for method in (token, f"tools/{token}"):
            answer = client.request(method, {})
            assert answer["error"]["code"] == -32601, answer
            assert token not in json.dumps(answer) and "[REDACTED:github-token]" in json.dumps(answer), answer
        assert client.tool("stats", {})[0] is False  # and it keeps answering
    finally:
        client.close()
