"""Where memlens's log lines go, and what they may show: each line is redacted as it is written.

A log line is text a user sees (a terminal, VS Code's Output panel, an MCP client's log) and it names paths,
settings and errors, any of which may hold a token (a folder named after a key, an error quoting a line). Masking
at each call site left some unmasked; masking in the handler's formatter covers every line, ours and our
libraries', and an exception's traceback with it. A process that has its own handlers (an application using the
engine, a test runner's capture) formats lines its own way: there memlens's own records are masked as they are
made (`mask_own_records`), whatever handler then writes them.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

_OWN = "memlens"


class RedactingFormatter(logging.Formatter):
    """A formatter whose every line, traceback included, has its secrets masked."""

    def format(self, record: logging.LogRecord) -> str:
        from memlens.redaction import redact  # here: a process that logs nothing never loads the detectors

        return redact(super().format(record))


def _mask(record: logging.LogRecord) -> None:
    """Replace a record's message (its arguments filled in) and its traceback's text by their masked forms."""
    from memlens.redaction import redact

    try:
        message = record.getMessage()
    except Exception:  # arguments that do not fit the message: left for the handler to report, as logging does
        return
    record.msg, record.args = redact(message), None
    if record.exc_info and not record.exc_text:
        record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
    if record.stack_info:
        record.stack_info = redact(record.stack_info)


class _MaskingFactory:
    """The record factory that was in place, with memlens's own records masked as they are made."""

    def __init__(self, previous: Any) -> None:
        self.previous = previous

    def __call__(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        record: logging.LogRecord = self.previous(*args, **kwargs)
        if record.name == _OWN or record.name.startswith(_OWN + "."):
            _mask(record)
        return record


def mask_own_records() -> None:
    """Mask every log record of memlens's loggers when it is made (once per process): a handler that is not ours
    (a host application's, a test runner's) then writes them masked too. Records are made only at levels a logger
    is enabled for, so a quiet logger costs nothing."""
    if not isinstance(logging.getLogRecordFactory(), _MaskingFactory):
        logging.setLogRecordFactory(_MaskingFactory(logging.getLogRecordFactory()))


def send_logs_to_stderr(*, level: int, line_format: str = logging.BASIC_FORMAT) -> None:
    """As `logging.basicConfig(level=…, stream=sys.stderr, format=…)`, with each line redacted. When the root logger
    has a handler already (a host process's, or an earlier call's), its handlers are kept and memlens's own records
    are masked as they are made instead."""
    root = logging.getLogger()
    if root.handlers:
        mask_own_records()
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(RedactingFormatter(line_format))
    root.addHandler(handler)
    root.setLevel(level)
