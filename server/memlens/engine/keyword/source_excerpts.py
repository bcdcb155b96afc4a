"""A pasted compiler error or test failure read for its diagnostics, not for the source lines it quotes.

rustc, gcc, clang and pytest print the lines of code a failure is about under its message: rustc and gcc in a gutter
(`12 |     let server = Server::new(config);`, `   |  ^^^^^^ value moved here`), pytest as the failing test's body
(`    def test_refund_rounding():`, `>       assert refund == Decimal("10.00")`), each between rulers
(`===== FAILURES =====`, `____ test_refund_rounding ____`). That code is the user's, its words a topic no note
holds: a note about `error[E0382]: borrow of moved value: config` was not found from rustc's 24 lines of it, nor one
about a failed test from pytest's report. The diagnostic lines stay (`error[E0382]: …`, its `--> src/main.rs:14:22`
place, `E   AssertionError: …`, the `FAILED …` summary); the quoted code, the rulers, the notes and help under a
diagnostic and the closing lines (`For more information about this error, try rustc --explain E0382`, `error: could
not compile …`, make's `*** [Makefile:12: util.o] Error 1`) go. A paste joined on one line (VS Code's Search Memory
box) is broken again before the gutter when it holds a diagnostic's place (rustc's `-->`, gcc's `util.c:3:5:
error:`, Elixir's `└─`), and pytest's report at its rulers, its marks (`>`, `E`), its summary and places, and before
each line of the test's body (still indented: the join put a space before a line's own indentation).
"""

from __future__ import annotations

import re

# rustc's, gcc's and Elixir's gutter (`|`, Elixir's `│`): a quoted line (`12 |     code`), a marker line under it
# (`   |   ^^^^ label`), an elision
_GUTTER = re.compile(r"^\s*(?:\d+\s*)?[|│](?:\s.*)?$|^\s*\.\.\.\s*$")
# pytest: its rulers, and the test's body it quotes (the failing line marked with `>`)
_RULER = re.compile(r"^\s*(?:={3,}|_{3,}|-{3,})(?:\s(?P<title>.*?)\s(?:={3,}|_{3,}|-{3,}))?\s*$")
_PYTEST_REPORT = re.compile(r"^={3,} (?:FAILURES|ERRORS) ={3,}\s*$", re.MULTILINE)
# pytest's report on one line: its rulers (the title between two), and where its lines started: a mark (`>` before
# the failing line, `E` before what failed), a test's body (its indentation kept after the join's space), the
# summary's `FAILED`, a failure's place (`tests/test_x.py:14: AssertionError`)
_PYTEST_IN_LINE = re.compile(r"={3,} (?:FAILURES|ERRORS) ={3,}")
_RULER_IN_LINE = re.compile(r"(?:={3,}|_{3,}) \S.*? (?:={3,}|_{3,})|(?:={3,}|_{3,})")
_PYTEST_LINE_START = re.compile(
    r"(?<![\s>])(?<!\bE)\s(?=\s{4,}\S)|\s+(?=[>E]\s{2,}\S)|\s+(?=(?:FAILED|ERROR)\s)|\s+(?=[\w./-]+:\d+:\s[A-Z]\w*(?:\s|$))"
)
_PYTEST_SOURCE = re.compile(r"^(?:>\s|\s{4,}\S)")
# the compilers' closing lines, the same after every error, and make's report of the recipe that failed; the notes
# and help under a diagnostic, which say how the language works (the same for every E0382), not what failed
_CLOSING = re.compile(
    r"^\s*(?:(?:=\s*)?(?:note|help):.*|make(?:\[\d+\])?: \*\*\* .*"
    r"|For more information about (?:this|an) error, try `rustc --explain E\d+`\.?"
    r"|error: could not compile `[^`]+`.*|error: aborting due to .*|cc1\w*: (?:some )?warnings being treated as errors"
    r"|Some errors have detailed explanations: .*|\d+ (?:warnings?|errors?) generated\.)\s*$"
)
# a diagnostic's place: rustc's `--> src/main.rs:14:22`, gcc's and clang's `util.c:3:5: error:`, Elixir's
# `└─ lib/x.ex:12: Mod.f/2` (its line and column, or its line alone)
_DIAGNOSTIC_PLACE = re.compile(
    r"(?:^|\s)-->\s\S+:\d+:\d+|\S+:\d+:\d+: (?:fatal )?(?:error|warning|note):|(?:^|\s)└─\s\S+:\d+"
)
_GUTTER_IN_LINE = re.compile(
    r"\s+(?=\d+\s+[|│]\s)|(?<![\d\s])\s+(?=[|│](?:\s|$))|\s+(?=(?:-->|└─)\s)"
    r"|\s+(?=(?:note|help|warning|error)(?:\[\w+\])?:\s)"
)
MIN_QUOTED = 2  # one `|` line may be a table's or a shell's pipe; two under a diagnostic are an excerpt


def without_source_excerpts(text: str) -> str:
    """``text`` without the source lines a compiler or pytest quotes under its diagnostics, nor their rulers and
    closing lines; ``text`` itself when it names no diagnostic's place and is no pytest report (a markdown table, a
    shell pipeline) or quotes fewer than two."""
    lines = [piece for line in text.splitlines() for piece in _gutter_in_line(line) for piece in _pytest_in_line(piece)]
    pytest = any(_PYTEST_REPORT.match(line) for line in lines)
    if not pytest and _DIAGNOSTIC_PLACE.search(text) is None:
        return text
    quoted = [bool(_GUTTER.match(line)) or (pytest and bool(_PYTEST_SOURCE.match(line))) for line in lines]
    if sum(quoted) < MIN_QUOTED:
        return text
    kept = [
        _title(line)
        for line, is_quoted in zip(lines, quoted, strict=True)
        if not is_quoted and not _CLOSING.match(line) and _title(line)
    ]
    return "\n".join(kept)


def _title(line: str) -> str:
    """``line``, or of a ruler the test it names (`____ test_refund_rounding ____`); pytest's own sections
    (`==== FAILURES ====`, `==== 1 failed in 0.58s ====`) and a bare ruler are no words of the failure."""
    ruler = _RULER.match(line)
    if ruler is None:
        return line
    return ruler["title"] or "" if line.lstrip().startswith("_") else ""


def _gutter_in_line(line: str) -> list[str]:
    """``line`` broken before a compiler's gutter and its notes when it holds a diagnostic's place (a paste whose
    line breaks were lost); else ``line`` alone."""
    if _DIAGNOSTIC_PLACE.search(line) is None:
        return [line]
    return [piece for piece in _GUTTER_IN_LINE.split(line) if piece]


def _pytest_in_line(line: str) -> list[str]:
    """``line`` broken where pytest's report started its lines when it holds the report's header (a paste whose line
    breaks were lost); else ``line`` alone."""
    if _PYTEST_IN_LINE.search(line) is None:
        return [line]
    pieces: list[str] = []
    start = 0
    for ruler in _RULER_IN_LINE.finditer(line):
        pieces += [*_PYTEST_LINE_START.split(line[start : ruler.start()]), ruler[0]]
        start = ruler.end()
    pieces += _PYTEST_LINE_START.split(line[start:])
    return [piece.rstrip() for piece in pieces if piece.strip()]
