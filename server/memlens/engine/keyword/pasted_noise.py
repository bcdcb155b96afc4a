"""A pasted error or log line read for what it says, not for what the terminal and the logger added around it.

An error copied out of a terminal carries its colours (`ESC[31m`) and a logger's time stamp (`2026-03-04T10:00:01Z
ERROR …`, `[10:00:01.123]`). Stored texts have no terminal codes (terminal_codes.py), so a query's `31m` is a word no
message holds; a stamp's digits are words no message holds either (the output the error was copied from was printed at
another time), and its day read as the question's date: "2026-02-11 20:56:20 fatal: no upstream branch" was answered
as a question about that day (its sessions, not the error), and a stamp of a day the index has no session on answered
"no results". `memlens fixes` held the paste's words against each output, so the stamp's words alone kept the very
output it was copied from below the share an occurrence needs. The stamps are left out only of a text that reads as
an error or a log line (error_query.py): "what did we do on 2026-02-11" keeps its date.

A run's own ids are in no other run's output either: a request's or a trace's id (`request_id=7f3c…`, a UUID), a
memory address (`0x7ffd5a3b1e60`); nor is the name of whoever ran it, in a home folder (`/Users/bob/…` where the
transcripts hold `/home/alice/…`). A log line's request id alone kept `memlens fixes` from the example's very error
(its words held by the output, the id's not: below the share an occurrence needs). Ids and home folders' names are
left out of an error as its stamps are.

npm frames a failed script's error in its own report: each line behind `npm ERR!` (`npm error` since npm 10), with
its bookkeeping (`code 1`, `path /Users/bob/app`, `command failed`, `command sh -c node migrate.js`, where its log
was written) around the message. That report is in no session about the error, and its eight lines of words drowned
the message's: the example's Postgres error pasted inside one answered "no results". The report's own lines are left
out, on lines or on one line (a paste joined by VS Code's Search Memory box); its prefix stays, which says an error
is pasted.
"""

from __future__ import annotations

import re

from memlens.engine.keyword.error_query import looks_like_error
from memlens.engine.keyword.tool_reports import without_tool_reports
from memlens.engine.terminal_codes import without_terminal_codes

_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
_CLOCK = r"\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?"  # seconds make a clock a stamp: "at 10:30" may be asked about
_ZONE = r"(?:\s?Z|[+-]\d{2}:?\d{2}|\s?UTC)?"
# A day with a clock time (ISO, with a T or a space, seconds optional once a day is given; Go's slashes; syslog's
# "Mar  2"), or a clock time with seconds alone; in brackets or parentheses when the logger put it in them.
_STAMP = re.compile(
    rf"""
    [\[(]?
    (?:
        \d{{4}}[-/]\d{{2}}[-/]\d{{2}}[T\ ]\d{{1,2}}:\d{{2}}(?::\d{{2}}(?:[.,]\d+)?)?
      | \b{_MONTH}\s+\d{{1,2}}\s+{_CLOCK}
      | \b{_CLOCK}
    ){_ZONE}\b
    [\])]?
    """,
    re.VERBOSE,
)
# A run's ids: one named so (request_id=…, traceId: …), a UUID, a memory address
_RUN_ID = re.compile(
    r"""
    \b[\w.-]*(?:request|req|trace|span|correlation|session|message|event|job|run)[_.-]?id\b["']?\s*[=:]\s*["']?[\w.-]+["']?
    | \b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b
    | \b0x[0-9a-fA-F]{6,}\b
    """,
    re.VERBOSE | re.IGNORECASE,
)
_FRAME_NUMBER = re.compile(r"#\d+\s+$")
_HOME = re.compile(r"(?:/Users|/home)/[^/\s]+(?=/)|\b[A-Za-z]:\\Users\\[^\\\s]+(?=\\)")
_NPM_PREFIX = re.compile(r"(?:^|\s+)(npm (?:ERR!|error))(?= |$)", re.MULTILINE)
# The lines of npm's report that say what npm did, not what failed
_NPM_OWN = re.compile(
    r"""^\s*(?:
        (?:code|errno)\ \d+
      | path\ \S+
      | command\ failed
      | command\ \S*(?:sh|cmd(?:\.exe)?)\ (?:-c|/d\ /s\ /c)\ .*
      | A\ complete\ log\ of\ this\ run\ can\ be\ found\ in:?(?:\ \S+)?
      | \S+[/\\]_logs[/\\]\S+\.log
      | This\ is\ probably\ not\ a\ problem\ with\ npm\.\ There\ is\ likely\ additional\ logging\ output\ above\.
    )\s*$""",
    re.VERBOSE,
)


def without_pasted_noise(text: str) -> str:
    """`text` without terminal codes, npm's own report lines and those of a build, deploy or CI tool's report
    (tool_reports.py) and, when it reads as an error or a log line, without its time stamps, its run's ids and the
    names in its home folders."""
    text = without_terminal_codes(text)
    text = without_tool_reports(_without_npm_report(text))
    if not looks_like_error(text):
        return text
    stripped = _HOME.sub("~", _RUN_ID.sub(_unless_a_frame_s, _STAMP.sub(" ", text)))
    return stripped if stripped.strip() else text


def _unless_a_frame_s(match: re.Match[str]) -> str:
    """A run's id left out, but the address that starts a frame of gdb's or a sanitizer's (`#3 0x4c6b2d in f`),
    which says it is one (stack_frames.py leaves the frames out)."""
    return match[0] if _FRAME_NUMBER.search(match.string, max(0, match.start() - 16), match.start()) else " "


def _without_npm_report(text: str) -> str:
    """``text`` without the lines of npm's report around a failed script's error that say what npm did, each line
    kept behind its ``npm ERR!``; ``text`` itself when npm did not frame it."""
    pieces = _NPM_PREFIX.split(text)
    if len(pieces) == 1:
        return text
    before, lines = pieces[0], zip(pieces[1::2], pieces[2::2], strict=True)
    kept = [f"{prefix}{line}" for prefix, line in lines if line.strip() and not _NPM_OWN.match(line)]
    return "\n".join([before, *kept] if before.strip() else kept)
