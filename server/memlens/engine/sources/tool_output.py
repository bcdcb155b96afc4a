"""A tool call's output as a search unit: trimmed to what a person looks for weeks later (error lines, stack traces,
compiler and linter diagnostics, and a head and tail window) and marked when it is an error.

Why trim: a test run or a build log can be megabytes, and what anyone searches it for is the few lines that say what
went wrong; the whole log would drown the messages around it and cost the index its size. Every parser hands the raw
output here (`tool_record`), so the four formats trim and mark alike.
"""

from __future__ import annotations

import re

import re2

from memlens.engine.terminal_codes import without_terminal_codes
from memlens.redaction import clear_cut

from .base import TranscriptRecord

TOOL_OUTPUT_MAX_CHARS = 2_000  # what one tool result keeps: its telling lines and a head/tail window
HEAD_CHARS = 300  # the start of the output kept whatever else it holds (the command's first words)
TAIL_CHARS = 500  # the end kept too (a summary line, the final exception, an exit status)
HEAD_LINES = 6
TAIL_LINES = 10
LINE_MAX_CHARS = 300  # one kept line longer than this is cut (a minified bundle in a stack trace)
SCAN_MAX_CHARS = 8_000_000  # past this the output is not scanned for telling lines (its head and tail still are)

# Lines that say what went wrong: kept before anything else.
_ERROR_LINE = re.compile(
    r"""
      ^\s*Traceback\ \(most\ recent\ call\ last\)
    | ^\s*(?:[\w.]+\.)?\w*(?:Error|Exception|Warning|Interrupt|Exit)\b(?::|$)   # Python/JS: ValueError: …
    | ^\s*(?:error|fatal|panic|FAILED|FAIL|ERROR|E\ {2,}|E\ )\b                  # pytest E lines, FAILED, go panic
    | thread\ '[^']*'\ panicked\ at                                               # Rust panic
    | \berror(?:\[E\d+\]|\sTS\d+)?:                                                 # rustc / tsc / generic error:
    | ^[^\s:]+(?::\d+){1,2}:?\s+(?:error|warning|[A-Z]{1,4}\d{2,4}\b)              # file:line:col: error / ruff code
    | ^[^\s(]+\(\d+,\d+\):\ (?:error|warning)                                       # tsc file.ts(1,2): error
    | ^\s+\d+:\d+\s+(?:error|warning)\s                                              # eslint's indented findings
    | \b(?:exit\ (?:code|status)|exited\ with)\ *:?\ *[1-9]\d*                       # a non-zero exit
    | \bnpm\ ERR!
    | \*\*\ \(\w+                                                                 # Elixir/Erlang: ** (RuntimeError)
    | ^\s*\d+\)\ test\b                                                             # an ExUnit failure's header
    | (?-i:\b[A-Z]\w*(?:Error|Exception)\b)                                       # an exception named anywhere
    | \bfailed\b
    | \b(?:No\ such\ file|Permission\ denied|command\ not\ found|not\ found|Segmentation\ fault)\b
    """,
    re.VERBOSE | re.IGNORECASE,
)
# Lines of a stack trace: kept once the error lines are in, while room remains.
_FRAME_LINE = re.compile(
    r"""
      ^\s*File\ "[^"]+",\ line\ \d+                  # Python
    | ^\s+at\ \S.*(?::\d+:\d+\)?|\(native\))$        # JavaScript
    | ^\s*\d+:\s+0x[0-9a-f]+\ -\                      # Rust backtrace
    | ^\s+[\w./-]+\.go:\d+                           # Go
    | ^goroutine\ \d+\ \[
    | ^\s*-->\ [^\s]+:\d+:\d+                        # rustc's pointer to the spot
    """,
    re.VERBOSE,
)
# What makes an output an error although its tool said nothing: a traceback or a panic.
_ERROR_OUTPUT = re.compile(
    r"Traceback \(most recent call last\)|thread '[^']*' panicked at|^panic: |^\w*Error: .*\n\s+at \S"
    r"|^\s*(?:exit (?:code|status)|process exited with code) *:? *[1-9]\d*\s*$|^npm ERR!|^FAILED |^error(?:\[E\d+\])?: "
    r"|^[^\s:]+:\d+(?::\d+)?: error\b|^[^\s(]+\(\d+,\d+\): error TS\d+|^Found \d+ errors?\b|^=+ .*\b\d+ failed\b",
    re.MULTILINE | re.IGNORECASE,
)


# A line can match _ERROR_LINE or _FRAME_LINE only if it holds one of these (a word either needs, case aside, or one
# of their line starts): one RE2 pass over an output finds the few lines worth those two regexes, instead of both
# being tried on every line of a long log. RE2 spelled as Python's re reads the two: `\s` is every character
# Python counts as whitespace (but the newline the lines were split at), `\d` any decimal digit, and `i` also
# matches the dotted and dotless i, as re's IGNORECASE has it.
_SPACE = r"[\t\x0b\x0c\r\x1c-\x1f \x85\xa0\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]"
_WORDS = [
    "traceback",
    "error",
    "exception",
    "warning",
    "interrupt",
    "exit",
    "fatal",
    "panic",
    "fail",
    "npm.err",
    "not.found",
    "no.such.file",
    "permission.denied",
    "segmentation.fault",
    "goroutine",
]
_MAY_TELL = re2.compile(
    "(?im)"
    + "|".join(w.replace(".", " ").replace("i", "[i\\x{130}\\x{131}]") for w in _WORDS)
    + rf"|:\p{{Nd}}|\*\* \(|\) test|file \"|0x|\.go:|-->|^{_SPACE}*e |^{_SPACE}+at "
)


def _lines_that_may_tell(lines: list[str], start: int, end: int) -> set[int] | None:
    """Indices in [start, end) of the lines `_MAY_TELL` finds something in; None when RE2 cannot read the text
    (a lone surrogate): then every line is a candidate."""
    region = "\n".join(lines[start:end])
    try:
        matches = list(_MAY_TELL.finditer(region))
    except UnicodeError:
        return None
    found: set[int] = set()
    line, last = start, 0
    for match in matches:  # a match never spans lines: each line holding one has at least one
        line += region.count("\n", last, match.start())
        last = match.start()
        found.add(line)
    return found


def looks_like_error(text: str) -> bool:
    """True when an output carries a traceback, a panic, a failed test or a non-zero exit status."""
    return _ERROR_OUTPUT.search(text[:SCAN_MAX_CHARS]) is not None


def _cut(line: str) -> str:
    return line if len(line) <= LINE_MAX_CHARS else line[: clear_cut(line, LINE_MAX_CHARS - 1)] + "…"


def _telling_lines(lines: list[str], start: int, end: int) -> tuple[list[int], list[int]]:
    """Indices in [start, end) of error lines and of stack-trace lines. A Python traceback's exception line is an
    error line whatever the exception is called (the first unindented line after the frames), and the source line
    under each frame belongs to the trace."""
    errors: list[int] = []
    frames: list[int] = []
    in_traceback = False
    candidates = _lines_that_may_tell(lines, start, end)
    for index in range(start, end):
        line = lines[index]
        may_tell = candidates is None or index in candidates
        if in_traceback and line[:1] not in (" ", "\t", ""):
            errors.append(index)  # `decimal.InvalidOperation: …`
            in_traceback = False
        elif may_tell and _ERROR_LINE.search(line):
            errors.append(index)
            in_traceback = in_traceback or line.lstrip().startswith("Traceback (most recent call last)")
        elif may_tell and _FRAME_LINE.search(line):
            frames.append(index)
            if line.lstrip().startswith("File ") and index + 1 < end:
                frames.append(index + 1)
    return errors, frames


def without_blank_edges(text: str) -> str:
    """`text` without its leading blank lines and trailing white space, its first line's indent kept: a Read tool's
    numbered lines (`     1→import os`) and an indented listing lose nothing of their alignment, where `strip()`
    took the first line's indent alone."""
    text = text.rstrip()
    first = len(text) - len(text.lstrip())
    return text[text.rfind("\n", 0, first) + 1 :]


def trim_output(text: str, max_chars: int = TOOL_OUTPUT_MAX_CHARS) -> str:
    """`text` whole when it fits in `max_chars`; else its first and last lines, and between them its error lines
    then its stack-trace lines in their order, as many as fit, with "…" where lines were left out."""
    text = without_blank_edges(text)
    if len(text) <= max_chars:
        return text
    lines = text[:SCAN_MAX_CHARS].split("\n")
    chosen: dict[int, str] = {}
    used = 0

    def take(index: int, budget: int) -> bool:
        nonlocal used
        line = _cut(lines[index].rstrip())
        if used + len(line) + 1 > budget:
            return False
        chosen[index] = line
        used += len(line) + 1
        return True

    index = 0
    while index < min(len(lines), HEAD_LINES) and take(index, HEAD_CHARS):
        index += 1
    head_end = index
    tail_start = len(lines)
    while tail_start - 1 >= max(head_end, len(lines) - TAIL_LINES) and take(tail_start - 1, HEAD_CHARS + TAIL_CHARS):
        tail_start -= 1
    errors, frames = _telling_lines(lines, head_end, tail_start)
    seen = {line.strip() for line in chosen.values()}
    for wanted in (errors, frames):
        for index in wanted:
            line = lines[index].strip()
            if index in chosen or line in seen:
                continue  # a repeated line (the same error for every failing test) says nothing new
            if not take(index, max_chars - 40):
                break
            seen.add(line)
    return _joined(lines, chosen, max_chars)


def _joined(lines: list[str], chosen: dict[int, str], max_chars: int) -> str:
    kept: list[str] = []
    last = -1
    for index in sorted(chosen):
        if index != last + 1:
            kept.append("…")
        kept.append(chosen[index])
        last = index
    if last != len(lines) - 1:
        kept.append("…")
    joined = "\n".join(kept)
    return joined[: clear_cut(joined, max_chars)]


# A tool output's header as tool_record writes it, with the call it names after it: `[Bash output · error] $ ls`.
_HEADER_CALL = re.compile(r"\A(\[[^\n]*? output(?: · error)?(?: · exit -?\d+)?\]) ([^\n]+)")


def split_call(text: str, kind: str) -> tuple[str, str]:
    """A unit's text as ranking reads it, and the call its header names ("" for none, and for any unit but a tool
    output): `[Bash output] $ git status\n…` gives `[Bash output]\n…` and `$ git status`. The call's words are kept
    out of what is scored (the message field, the facts the ranking passes read, the vector): the call message above
    the output holds the same words, and scored twice they out-ranked the messages a question is about. They are
    searched in a field of their own when a question asks what a command printed (keyword_query.py)."""
    if kind != "tool":
        return text, ""
    found = _HEADER_CALL.match(text)
    if found is None:
        return text, ""
    return found.group(1) + text[found.end() :], found.group(2)


def joined_call(text: str, call: str | None) -> str:
    """`split_call` undone: a unit's scored text with its call back in its header, as the unit is shown."""
    if not call:
        return text
    header, newline, body = text.partition("\n")
    return f"{header} {call}{newline}{body}"


def scored_text(text: str, kind: str) -> str:
    """`split_call`'s text alone: what the keyword index, the ranking passes and the vectors read of a unit."""
    return split_call(text, kind)[0]


def tool_record(
    *,
    output: str,
    tool_name: str | None,
    call_id: str | None,
    message_id: str,
    timestamp: float | None,
    position: int,
    is_error: bool = False,
    exit_code: int | None = None,
    uuid: str | None = None,
    parent_uuid: str | None = None,
    is_sidechain: bool = False,
    call: str | None = None,
) -> TranscriptRecord | None:
    """The record of one tool result (None for an empty output): its first line names the tool, says whether it
    failed and what was called (`call`: common.tool_call_summary), `[Bash output · error] $ git status`, so all three
    are searchable and shown (the output alone rarely names the file it came from or the command that printed it);
    the rest is the trimmed output."""
    body = trim_output(without_terminal_codes(output))  # a colour code would take the trimmed output's room
    if not body:
        return None
    error = is_error or (exit_code is not None and exit_code != 0) or looks_like_error(body)
    status = " · error" if error else ""
    exit_note = f" · exit {exit_code}" if exit_code not in (None, 0) else ""
    header = f"[{tool_name or 'tool'} output{status}{exit_note}]"
    if call:
        header = f"{header} {call}"
    return TranscriptRecord(
        message_id=message_id,
        role="assistant",
        text=f"{header}\n{body}",
        timestamp=timestamp,
        position=position,
        kind="tool",
        uuid=uuid,
        parent_uuid=parent_uuid,
        is_sidechain=is_sidechain,
        error=error,
        call_id=call_id,
    )


def blocks_text(content: object) -> str:
    """The text of a tool result's content: a string, or the text blocks of a list (images and the like left out)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str) and b["text"]
        )
    return ""
