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
"""

from __future__ import annotations

import logging
from collections.abc import Generator, Iterator
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

log = logging.getLogger(__name__)


class MemlensProtocol(LanguageServerProtocol):
    """pygls's protocol, with changes to documents that are not open dropped (see the module's docstring)."""

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
