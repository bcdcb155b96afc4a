"""pygls logs every request it answers with an error together with its traceback ("Exception occurred for message
…"), a request with a bad argument too: the editor's log for memlens filled with a traceback per typo in a search
filter. The client already holds that answer (invalid params, its message says what was wrong), and a cancelled
request is the client's own doing: neither is logged. Every other error keeps its traceback."""

from __future__ import annotations

import logging

from pygls.exceptions import JsonRpcInvalidParams, JsonRpcRequestCancelled

_ANSWERED = (JsonRpcInvalidParams, JsonRpcRequestCancelled)


class AnsweredRequestErrors(logging.Filter):
    """Drops pygls's log records of requests answered as invalid or cancelled."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, _ANSWERED)


def quiet_answered_request_errors() -> None:
    """Install the filter on the logger pygls reports request errors with."""
    logging.getLogger("pygls.protocol.json_rpc").addFilter(AnsweredRequestErrors())
