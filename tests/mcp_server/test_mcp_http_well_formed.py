"""`memlens mcp --http` reads a request's body as stdio reads a line (memlens.mcp.well_formed): a lone surrogate
escape (`\\ud83d`, as a JavaScript client that cuts an emoji writes it) or a byte that is not UTF-8 reads as U+FFFD,
and the call is answered; the server refused such a POST with a parse error (400, id null) before. Reading a body
whole to do so holds no more of it than the SDK's own bound: a body sent in chunks past it is refused (413) without
being held."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_server.helpers import memlens
from mcp_server.http_server import Served, env, free_port, mcp_command, serve
from memlens.requests import MAX_MESSAGE_BYTES
from peak_memory import peak_rss_kb
from planted_secrets import PLANTED, leaked_fragments

NOTE = "# Hangar\n\nThe zeppelin hangar has a copper roof.\n"


def _served_hangar(tmp_path: Path) -> Iterator[Served]:
    """A real `memlens mcp --http` over an index of one note, NOTE."""
    (tmp_path / "ws" / "memory").mkdir(parents=True)
    (tmp_path / "ws" / "memory" / "hangar.md").write_text(NOTE, encoding="utf-8")
    memlens("index", "--workspace", tmp_path / "ws", "--index-dir", tmp_path / "index", "--no-embeddings")
    port = free_port()
    yield from serve(mcp_command(f"127.0.0.1:{port}", tmp_path / "ws", tmp_path / "index"), port, tmp_path, env())


def _search(server: Served, headers: dict[str, str], call: int, query: bytes) -> dict[str, object]:
    """The result of a keyword search whose query's JSON text is `query`, sent as these bytes."""
    body = (
        b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":{"query":"%s",'
        b'"mode":"keyword"}}}' % (call, query)
    )
    answer = server.send(body, headers)
    assert answer.status == 200, answer.body
    [message] = answer.messages()
    assert message["id"] == call, message
    result: dict[str, object] = message["result"]
    return result


def test_a_body_with_half_an_emoji_or_a_bad_byte_is_answered(tmp_path: Path) -> None:
    for server in _served_hangar(tmp_path):
        headers = server.initialized()
        cut = {
            rb"copper roof \ud83d": "copper roof \ufffd",  # half an emoji at the end
            rb"\udc00 zeppelin": "\ufffd zeppelin",  # a low half alone
            b"zeppelin \xff roof": "zeppelin \ufffd roof",  # a byte no UTF-8 text holds
        }
        for call, (query, read) in enumerate(cut.items(), start=2):
            result = _search(server, headers, call, query)
            assert not result["isError"], result
            structured = result["structuredContent"]
            assert isinstance(structured, dict) and structured["query"] == read
            assert any(hit["relPath"].endswith("hangar.md") for hit in structured["results"]), structured
        # a pair escaped whole is still the character it makes
        whole = _search(server, headers, 9, rb"zeppelin \ud83d\ude80")["structuredContent"]
        assert isinstance(whole, dict) and whole["query"] == "zeppelin 🚀"
        # a body that is no JSON at all is still refused, as before
        refused = server.send(b'{"jsonrpc":"2.0","id":10,', headers)
        assert refused.status == 400 and json.loads(refused.body)["error"]["code"] == -32700
        assert "Traceback" not in server.stderr.read_text()


ACCEPTED = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _chunked_query(megabytes: int) -> Iterator[bytes]:
    yield b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"'
    for _ in range(megabytes):
        yield b"x" * (1 << 20)
    yield b'"}}}'


def test_a_body_sent_in_chunks_past_the_sdks_bound_is_refused_without_being_held(tmp_path: Path) -> None:
    for server in _served_hangar(tmp_path):
        headers = server.initialized()
        before = peak_rss_kb(server.process.pid)
        megabytes = 50 * MAX_MESSAGE_BYTES >> 20  # no Content-Length: the SDK cannot refuse it unread

        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
        try:
            connection.request(
                "POST",
                "/mcp",
                _chunked_query(megabytes),
                headers={
                    "Content-Type": "application/json",
                    "Accept": "application/json, text/event-stream",
                    **headers,
                },
                encode_chunked=True,
            )
            status = connection.getresponse().status
        except (BrokenPipeError, ConnectionResetError):
            status = 0  # refused while the client still sent: the answer was lost with the connection
        finally:
            connection.close()
        grown_mb = (peak_rss_kb(server.process.pid) - before) >> 10
        assert grown_mb < megabytes // 4, f"the server's peak grew {grown_mb} MB for a {megabytes} MB body"
        assert status in (413, 0), status
        answered = _search(server, headers, 3, b"copper roof")["structuredContent"]
        assert isinstance(answered, dict) and answered["results"], answered
        assert "Traceback" not in server.stderr.read_text()


@pytest.mark.slow  # an index and a server process
def test_a_body_that_is_no_message_is_refused_without_quoting_a_token_in_it(tmp_path: Path) -> None:
    """The SDK refuses a body that is no JSON-RPC message with pydantic's words, which quote the body: a token
    there comes back masked, as in every other error memlens answers."""
    token = next(p.secret for p in PLANTED if p.kind == "github-pat-classic")
    for server in _served_hangar(tmp_path):
        for body in ([token], {"jsonrpc": "2.0", "id": 1, "params": {"key": token}}):
            answer = server.send(json.dumps(body).encode())
            assert answer.status == 400, answer
            [message] = answer.messages()  # still one well-formed JSON-RPC error
            assert message["error"]["message"].startswith("Validation error"), message
            assert leaked_fragments(answer.body, planted=[p for p in PLANTED if p.secret == token]) == [], answer
