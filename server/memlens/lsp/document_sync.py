"""The editor's open documents as the server keeps them (pygls's workspace), kept whole when an editor's messages
about one arrive out of the usual order; and `shutdown` while requests are in flight.

VS Code may send a change for a document it has just told the server is closed: changing an untitled file's
language closes and reopens it while a change is still on its way, and "Revert and Close" reverts after closing.
pygls applies every change to the document it holds and, holding none, raised KeyError, which the user saw as
"Error in server: KeyError: 'untitled:Untitled-1'". A change to a document that is not open is dropped here: the
next open carries the whole text again, and a closed document needs none.

pygls's `shutdown` cancels every request still in flight by iterating over its dict of them, and a cancelled
request's callback removes it from that dict: an editor closed while a command ran (a reindex, a search waiting for
the index) got "RuntimeError: dictionary changed size during iteration" as the answer to `shutdown`. The same steps
run here over a copy.

A request whose params do not fit their LSP type (a hover at line -1, a position given as text) failed in pygls's
reading of the message: it logged three tracebacks and never answered, so the client waited for ever. Such a
request is answered here as invalid params, naming the field.
"""

from __future__ import annotations

import logging
from collections.abc import Generator, Iterator
from typing import Any
from urllib.parse import unquote

import cattrs
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

log = logging.getLogger(__name__)

# What `structure_message` gives for a request it has already answered: `handle_message` passes it by.
_ANSWERED = object()


class MemlensProtocol(LanguageServerProtocol):
    """pygls's protocol, with changes to documents that are not open dropped and requests with ill-typed params
    answered (see the module's docstring)."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        request_type = self.get_message_type(data["method"]) if _is_request(data) else None
        if request_type is None:
            return super().structure_message(data)
        try:
            return self._converter.structure(data, request_type)
        except Exception as exc:  # cattrs's validation error, holding lsprotocol's ValueError or TypeError
            where = "; ".join(cattrs.transform_error(exc, path="$")[:3])  # "invalid value @ $.params.position"
            error = JsonRpcInvalidParams(message=f"{data['method']}: invalid params: {where}")
            self._send_response(data["id"], error=error.to_response_error())
            return _ANSWERED

    def handle_message(self, message: Any) -> None:
        if message is not _ANSWERED:
            super().handle_message(message)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Iterator[Any]:
        if unquote(params.text_document.uri) not in self.workspace.text_documents:
            log.debug("a change to %s, which is not open: dropped", params.text_document.uri)
            return
        yield from super().lsp_text_document__did_change(params)

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        if (user_handler := self.fm.features.get(types.SHUTDOWN)) is not None:
            yield user_handler, args, None
        current = self.msg_id  # the shutdown request itself is answered
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current and not future.done():
                future.cancel()
        self._shutdown = True


def _is_request(data: dict[str, Any]) -> bool:
    """A JSON-RPC request from the client (not a notification, a response, or a nested object of a message)."""
    return "jsonrpc" in data and "id" in data and isinstance(data.get("method"), str) and "error" not in data
