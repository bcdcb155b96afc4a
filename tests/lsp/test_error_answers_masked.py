"""What the language server says to the client about an error passes the detector, whoever wrote it: pygls's own
answers quote what the client sent (an unknown command's name, an unknown method), and its "Error in server" message
quotes an exception, any of which may hold a token (a key pasted into the command palette's argument, a path)."""

from __future__ import annotations

import json
from typing import Any

from lsprotocol import types
from pygls.exceptions import FeatureNotificationError

from lsp.test_ill_typed_params import Captured
from memlens.lsp.server import MemlensServer
from planted_secrets import PLANTED

TOKEN = next(p.secret for p in PLANTED if p.kind == "github-pat-classic")


def _each(data: bytes) -> list[dict[str, Any]]:
    """The messages written, one after another, each after its Content-Length header."""
    messages = []
    while data:
        header, _, rest = data.partition(b"\r\n\r\n")
        length = int(header.split(b"Content-Length: ")[1].split(b"\r\n")[0])
        messages.append(json.loads(rest[:length]))
        data = rest[length:]
    return messages


def _answers(message: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    server = MemlensServer(live_indexing=False)
    out = Captured()
    server.protocol.set_writer(out)
    server.protocol.handle_message(json.loads(json.dumps(message), object_hook=server.protocol.structure_message))
    return out.messages(), out.data.decode()


def test_an_unknown_commands_name_is_masked_in_the_answer() -> None:
    params = {"command": TOKEN, "arguments": [{}]}
    [answer], wire = _answers({"jsonrpc": "2.0", "id": 3, "method": "workspace/executeCommand", "params": params})
    assert answer["id"] == 3 and answer["error"]["code"] == -32602
    assert TOKEN not in wire and "[REDACTED:github-token]" in answer["error"]["message"]


def test_an_unknown_methods_name_is_masked_in_the_answer() -> None:
    [answer], wire = _answers({"jsonrpc": "2.0", "id": 4, "method": f"memlens/{TOKEN}", "params": {}})
    assert answer["id"] == 4 and answer["error"]["code"] == -32601
    assert TOKEN not in wire and "[REDACTED:github-token]" in answer["error"]["message"]


def test_an_error_the_server_reports_on_its_own_is_masked() -> None:
    server = MemlensServer(live_indexing=False)
    out = Captured()
    server.protocol.set_writer(out)
    server.report_server_error(KeyError(f"file:///work/{TOKEN}/notes.md"), FeatureNotificationError)
    [shown] = out.messages()
    assert shown["method"] == "window/showMessage"
    assert TOKEN not in out.data.decode() and "[REDACTED:github-token]" in shown["params"]["message"]


def test_a_log_line_and_a_progress_message_sent_to_the_client_are_masked() -> None:
    server = MemlensServer(live_indexing=False)
    out = Captured()
    server.protocol.set_writer(out)
    said = f"reindex failed: cannot read /work/{TOKEN}/notes.md"
    server.window_log_message(types.LogMessageParams(type=types.MessageType.Error, message=said))
    server.work_done_progress.end("memlens-1", types.WorkDoneProgressEnd(message=said))
    logged, ended = _each(out.data)
    assert (logged["method"], ended["method"]) == ("window/logMessage", "$/progress")
    assert TOKEN not in out.data.decode()
    assert "[REDACTED:github-token]" in logged["params"]["message"]
    assert "[REDACTED:github-token]" in ended["params"]["value"]["message"]


def test_the_status_lines_message_is_masked() -> None:
    """The status line's message says why the index is read-only (a lock path that is no file, named) or what a
    progress step reads: memlens's own notification, masked as the window's messages are."""
    from memlens.lsp.progress import INDEX_STATUS

    server = MemlensServer(live_indexing=False)
    out = Captured()
    server.protocol.set_writer(out)
    said = f"/work/{TOKEN}/index/writer.lock is a directory, not a lock file: memlens reindex --full moves it aside"
    server.protocol.notify(INDEX_STATUS, {"indexing": False, "sessions": 3, "message": said})
    [status] = out.messages()
    assert status["method"] == INDEX_STATUS and status["params"]["sessions"] == 3
    assert TOKEN not in out.data.decode() and "[REDACTED:github-token]" in status["params"]["message"]
