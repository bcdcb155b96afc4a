"""`memlens mcp --http`: a non-loopback bind needs a bearer token; with a token every request must carry it; Host and
Origin are checked on every bind. Real server processes, spoken to on loopback only (the one 0.0.0.0 server binds an
ephemeral port briefly and is reached through 127.0.0.1)."""

from __future__ import annotations

import asyncio
import secrets
import subprocess
from pathlib import Path

import pytest

from mcp_server.http_server import env, free_port, mcp_command, serve


@pytest.fixture
def token_file(tmp_path: Path) -> tuple[Path, str]:
    token = secrets.token_hex(32)
    path = tmp_path / "token"
    path.write_text(token + "\n")
    return path, token


def test_a_network_bind_without_a_token_is_refused(example_copy: tuple[Path, Path], tmp_path: Path) -> None:
    workspace, index_dir = example_copy
    refused = subprocess.run(
        mcp_command("0.0.0.0:8765", workspace, index_dir), env=env(), capture_output=True, text=True, timeout=120
    )
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    [line] = refused.stderr.splitlines()
    assert line.startswith("memlens: error: --http 0.0.0.0:8765 would serve every transcript to the network")
    assert "--token-file" in line and "MEMLENS_MCP_TOKEN" in line
    short = subprocess.run(
        mcp_command("0.0.0.0:8765", workspace, index_dir),
        env=env(MEMLENS_MCP_TOKEN="hunter2"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert short.returncode == 2 and "at least 16 printable characters" in short.stderr
    missing = subprocess.run(
        mcp_command("0.0.0.0:8765", workspace, index_dir, "--token-file", str(tmp_path / "absent")),
        env=env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert missing.returncode == 2 and f"cannot read the token file {tmp_path / 'absent'}" in missing.stderr


def test_a_token_on_loopback_guards_every_request(
    example_copy: tuple[Path, Path], tmp_path: Path, token_file: tuple[Path, str]
) -> None:
    workspace, index_dir = example_copy
    path, token = token_file
    port = free_port()
    command = mcp_command(f"127.0.0.1:{port}", workspace, index_dir, "--token-file", str(path))
    for server in serve(command, port, tmp_path, env()):
        assert server.post({}) == 401
        assert server.post({"Authorization": "Bearer " + "0" * 64}) == 401
        assert server.post({"Authorization": f"Bearer {token[:-1]}"}) == 401
        assert server.post({"Authorization": token}) == 401  # the scheme is part of it
        good = {"Authorization": f"Bearer {token}"}
        assert server.post(good) == 200
        assert server.post({**good, "Host": f"evil.example:{port}"}) == 421  # DNS rebinding: a foreign name
        assert server.post({**good, "Origin": "http://evil.example"}) == 403  # a web page elsewhere
        assert server.post({**good, "Origin": f"http://localhost:{port}"}) == 200
        asyncio.run(search_with_the_sdk(port, token))


async def search_with_the_sdk(port: int, token: str) -> None:
    """The official client, given the token, reaches the tools (and the transcripts)."""
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    url = f"http://127.0.0.1:{port}/mcp"
    transport = streamable_http_client(url, http_client=client)
    async with client, transport as (read, write, *_), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("search", {"query": "pgbouncer"})
        assert not result.is_error and result.structured_content is not None
        assert result.structured_content["results"]


def test_without_a_token_loopback_still_checks_host_and_origin(example_copy: tuple[Path, Path], tmp_path: Path) -> None:
    workspace, index_dir = example_copy
    port = free_port()
    command = mcp_command(f"127.0.0.1:{port}", workspace, index_dir, "--allow-host", f"memlens.test:{port}")
    for server in serve(command, port, tmp_path, env()):
        assert server.post({}) == 200
        assert server.post({"Host": f"localhost:{port}"}) == 200
        assert server.post({"Host": f"memlens.test:{port}"}) == 200  # the configured extra
        assert server.post({"Host": f"memlens.test:{port + 1}"}) == 421
        assert server.post({"Host": f"attacker.example:{port}"}) == 421
        assert server.post({"Origin": "https://attacker.example"}) == 403
        assert server.post({"Origin": f"http://memlens.test:{port}"}) == 200


def test_a_network_bind_with_a_token_warns_and_requires_it(
    example_copy: tuple[Path, Path], tmp_path: Path, token_file: tuple[Path, str]
) -> None:
    workspace, index_dir = example_copy
    _, token = token_file
    port = free_port()
    command = mcp_command(f"0.0.0.0:{port}", workspace, index_dir)
    for server in serve(command, port, tmp_path, env(MEMLENS_MCP_TOKEN=token)):
        assert server.post({}) == 401
        assert server.post({"Authorization": "Bearer wrong-token-of-some-length"}) == 401
        assert server.post({"Authorization": f"Bearer {token}"}) == 200
        assert server.post({"Authorization": f"Bearer {token}", "Host": f"attacker.example:{port}"}) == 421
        warning = server.stderr.read_text()
        assert f"memlens MCP server on 0.0.0.0:{port} is reachable from the network" in warning
        assert token not in warning
