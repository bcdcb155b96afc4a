"""A real `memlens mcp --http` process, spoken to with raw HTTP requests on loopback."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_server.helpers import REPO

INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    }
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def env(**extra: str) -> dict[str, str]:
    values = {k: v for k, v in os.environ.items() if k != "MEMLENS_MCP_TOKEN"}
    return dict(values, PYTHONPATH=str(REPO / "server"), **extra)


def mcp_command(bind: str, workspace: Path, index_dir: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "memlens", "mcp", "--http", bind, "--workspace", str(workspace)] + [
        "--index-dir",
        str(index_dir),
        "--no-embeddings",
        *extra,
    ]


class Served:
    def __init__(self, process: subprocess.Popen[str], port: int, stderr: Path) -> None:
        self.process, self.port, self.stderr = process, port, stderr

    def post(self, headers: dict[str, str]) -> int:
        """The status of an `initialize` POST with these headers (Host defaults to the one a client sends)."""
        return self.send(INITIALIZE.encode(), headers).status

    def send(self, body: bytes, headers: dict[str, str] | None = None) -> Answer:
        """A POST of these bytes as they are, and the answer (a client's usual headers, `headers` over them)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        base = {
            "Host": f"127.0.0.1:{self.port}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        try:
            connection.request("POST", "/mcp", body, headers={**base, **(headers or {})})
            response = connection.getresponse()
            return Answer(response.status, response.getheader("mcp-session-id"), response.read().decode())
        finally:
            connection.close()

    def initialized(self) -> dict[str, str]:
        """The headers of a session past the protocol's handshake."""
        session = self.send(INITIALIZE.encode()).session
        assert session is not None
        headers = {"mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}
        assert self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}', headers).status == 202
        return headers


@dataclass(frozen=True)
class Answer:
    status: int
    session: str | None  # the mcp-session-id header
    body: str

    def messages(self) -> list[dict[str, Any]]:
        """The JSON-RPC messages of a JSON body or of an event stream's `data:` lines."""
        if not self.body.startswith("event:"):
            return [json.loads(self.body)]
        return [json.loads(line[5:]) for line in self.body.splitlines() if line.startswith("data:")]


def serve(command: list[str], port: int, tmp_path: Path, environment: dict[str, str]) -> Iterator[Served]:
    stderr = tmp_path / f"server-{port}.err"
    with stderr.open("w") as sink:
        process = subprocess.Popen(command, env=environment, stderr=sink, stdout=subprocess.DEVNULL, text=True)
    try:
        deadline = time.monotonic() + 60
        while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
            assert time.monotonic() < deadline and process.poll() is None, stderr.read_text()
            time.sleep(0.2)
        yield Served(process, port, stderr)
    finally:
        process.terminate()
        process.wait(timeout=30)
