"""A request whose params do not fit their LSP type is answered as invalid params, naming the field; pygls logged
three tracebacks for it and never answered, so the client waited for ever."""

from __future__ import annotations

import json
from typing import Any

import pytest

from memlens.lsp.server import MemlensServer


class Captured:
    """The server's output stream: what it writes, kept."""

    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data

    def close(self) -> None:
        pass

    def messages(self) -> list[dict[str, Any]]:
        return [json.loads(part) for part in self.data.split(b"\r\n\r\n")[1:] if part]


@pytest.mark.parametrize("position", [{"line": -1, "character": 0}, {"line": "one", "character": 0}, {"character": 0}])
def test_a_request_with_ill_typed_params_is_answered_as_invalid(position: dict[str, Any]) -> None:
    protocol = MemlensServer(live_indexing=False).protocol
    out = Captured()
    protocol.set_writer(out)
    params = {"textDocument": {"uri": "file:///notes.md"}, "position": position}
    body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": params})
    protocol.handle_message(json.loads(body, object_hook=protocol.structure_message))
    [answer] = out.messages()
    assert answer["id"] == 7 and answer["error"]["code"] == -32602
    assert (
        answer["error"]["message"].startswith("textDocument/hover: invalid params")
        and "position" in answer["error"]["message"]
    )
