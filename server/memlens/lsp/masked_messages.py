"""The language server's words to its client about errors and events pass the detector, whoever wrote them.

Answers pass the engine's door (`redact_response`), but pygls writes messages of its own: an unknown command's or
method's name quoted back ("Command name '…' is not defined"), an unexpected exception's text as an internal error,
"Error in server: …" for a notification that failed. A client puts anything in a command's name or a method, and
the editor shows these in its notifications and its output panel. Every error answer, every window message
(`window/showMessage`, `window/logMessage`), every progress message (a failed reindex says why) and the status
line's message (`memlens/indexStatus`: why the index is read-only may name a path, which may hold a key) is masked
here, as it is written, so neither pygls nor a call site of ours can say a token. Results are not: the engine's
door masked them, and a search's answer is not scanned twice.
"""

from __future__ import annotations

from typing import Any

import attrs
from lsprotocol import types

from memlens.lsp.document_sync import MemlensProtocol
from memlens.lsp.progress import INDEX_STATUS
from memlens.redaction import redact, redact_strings

_WINDOW_MESSAGES = frozenset({types.WINDOW_SHOW_MESSAGE, types.WINDOW_LOG_MESSAGE})
_PROGRESS_VALUES = (types.WorkDoneProgressBegin, types.WorkDoneProgressReport, types.WorkDoneProgressEnd)


class MaskedMessagesProtocol(MemlensProtocol):
    """pygls's protocol as memlens runs it, with every error answer and window message masked."""

    def _send_response(self, msg_id: Any, result: Any | None = None, error: types.ResponseError | None = None) -> None:
        if error is not None:
            error = types.ResponseError(code=error.code, message=redact(error.message), data=redact_strings(error.data))
        super()._send_response(msg_id, result, error)

    def notify(self, method: str, params: Any | None = None) -> None:
        if method in _WINDOW_MESSAGES and isinstance(params, types.ShowMessageParams | types.LogMessageParams):
            params = attrs.evolve(params, message=redact(params.message))
        elif method == types.PROGRESS and isinstance(params, types.ProgressParams):
            value = params.value
            if isinstance(value, _PROGRESS_VALUES) and value.message:  # a count of files, or why it stopped
                params = attrs.evolve(params, value=attrs.evolve(value, message=redact(value.message)))
        elif method == INDEX_STATUS and isinstance(params, dict) and isinstance(params.get("message"), str):
            params = {**params, "message": redact(params["message"])}  # the counts beside it are numbers
        super().notify(method, params)
