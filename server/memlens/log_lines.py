"""Where memlens's log lines go, and what they may show: each line is redacted as it is written.

A log line is text a user sees (a terminal, VS Code's Output panel, an MCP client's log) and it names paths,
settings and errors, any of which may hold a token (a folder named after a key, an error quoting a line). Masking
at each call site left some unmasked; masking in the handler's formatter covers every line, ours and our
libraries', and an exception's traceback with it.
"""

from __future__ import annotations

import logging
import sys


class RedactingFormatter(logging.Formatter):
    """A formatter whose every line, traceback included, has its secrets masked."""

    def format(self, record: logging.LogRecord) -> str:
        from memlens.engine.redact import redact  # here: a process that logs nothing never loads the detectors

        return redact(super().format(record))


def send_logs_to_stderr(*, level: int, line_format: str = logging.BASIC_FORMAT) -> None:
    """As `logging.basicConfig(level=…, stream=sys.stderr, format=…)`, with each line redacted: nothing is changed
    when the root logger has a handler already (a host process's, or an earlier call's)."""
    root = logging.getLogger()
    if root.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(RedactingFormatter(line_format))
    root.addHandler(handler)
    root.setLevel(level)
