"""What the terminal allows: colour (`--color`, NO_COLOR), its width in cells, and a pager for long output. Text is
laid out in its cells by cell_text.py (re-exported here).

Like ripgrep and git: colour and the pager only when stdout is a terminal (or `--color always`), never in a pipe, so
`memlens search … | head` and scripts read plain text."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal, TextIO, TypeVar

from memlens.cli.cell_text import breakable, cells, clip, clip_styled, column, cut, expanded, folded

# the layout, where callers look for it
__all__ = ["breakable", "cells", "clip", "clip_styled", "column", "cut", "expanded", "folded"]

ColorChoice = Literal["auto", "always", "never"]
DEFAULT_PAGER = "less -FRX"  # -F: no pager when it fits one screen; -R: keep the colours; -X: leave it on screen


def wants_color(choice: ColorChoice, *, stream: io.TextIOBase | None = None) -> bool:
    """`always` and `never` say it (no-color.org: a flag beats the variables); `auto` colours a terminal unless
    NO_COLOR is set or TERM is dumb, and colours a pipe too when CLICOLOR_FORCE is set to anything but 0
    (bixense.com/clicolors; NO_COLOR still wins, the cautious reading when a user's setup sets both)."""
    if choice != "auto":
        return choice == "always"
    out = stream or sys.stdout
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("CLICOLOR_FORCE", "0") not in ("", "0"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    return bool(out.isatty())


@dataclass(frozen=True)
class Style:
    """ANSI styles, or none at all when colour is off."""

    color: bool

    def _sgr(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color and text else text

    def match(self, text: str) -> str:
        return self._sgr("1;31", text)

    def reference(self, text: str) -> str:
        return self._sgr("35", text)

    def title(self, text: str) -> str:
        return self._sgr("1", text)

    def dim(self, text: str) -> str:
        return self._sgr("2", text)

    def score(self, text: str) -> str:
        return self._sgr("32", text)


def width() -> int:
    """The terminal's width in cells (COLUMNS first, then stdout's terminal, else 80); at least 20."""
    return max(20, shutil.get_terminal_size((80, 24)).columns)


def fitted(line: str, stream: TextIO, *, indent: str = "  ") -> str:
    """`line` folded at word boundaries to the terminal's width (continuations indented by `indent`) when `stream`
    is a terminal; as it is for a pipe, where scripts read it whole."""
    return folded(line, width() if stream.isatty() else 0, indent=indent)


# Every control character but tab and line feed, shown as its picture (ESC as ␛, CR as ␍, DEL as ␡; C1 as U+FFFD).
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_PICTURES = (
    {c: chr(0x2400 + c) for c in range(0x20) if c not in (0x09, 0x0A)}
    | {0x7F: "\u2421"}
    | {c: "\ufffd" for c in range(0x80, 0xA0)}
)
Shown = TypeVar("Shown")


def printable(text: str) -> str:
    """`text` with its control characters made visible, so what an index holds cannot move the cursor, retitle the
    window or set the clipboard of the terminal that shows it. The parsers leave such codes out of what they store;
    this guards what they did not make (an index of an older version, a team index, an error message)."""
    return text.translate(_PICTURES) if _CONTROLS.search(text) else text


def for_terminal(answer: Shown) -> Shown:
    """An answer with every string in it `printable`, before the CLI lays it out for people (`--json` escapes them)."""
    if isinstance(answer, str):
        return printable(answer)  # type: ignore[return-value]
    if isinstance(answer, dict):
        return {key: for_terminal(value) for key, value in answer.items()}  # type: ignore[return-value]
    if isinstance(answer, list | tuple):
        return type(answer)(for_terminal(value) for value in answer)
    return answer


def pager_setting() -> str | None:
    """The pager the environment names, as git reads GIT_PAGER before PAGER: MEMLENS_PAGER, else PAGER (None: both
    unset). A MEMLENS_PAGER set empty is no pager even where PAGER names one."""
    own = os.environ.get("MEMLENS_PAGER")
    return own if own is not None else os.environ.get("PAGER")


def _pager_command(setting: str | None) -> list[str]:
    """The pager `setting` names, as git reads it: unset is `less -FRX`, set but empty or `cat` is none; a value the
    shell could not split either (an unclosed quote) is none too, and the answer is printed, not lost to an error."""
    try:
        command = shlex.split(DEFAULT_PAGER if setting is None else setting)
    except ValueError:
        return []
    return [] if command == ["cat"] else command


@contextlib.contextmanager
def paged(enabled: bool) -> Iterator[None]:
    """Send what the block prints to the pager (`pager_setting`, else `less -FRX`) when `enabled` and stdout is a
    terminal; in a pipe, or when the pager cannot start, print it as it is."""
    if not enabled or not sys.stdout.isatty():
        yield
        return
    buffer = io.StringIO()
    real = sys.stdout
    sys.stdout = buffer
    try:
        yield
    finally:
        sys.stdout = real
        _show(buffer.getvalue())


def _show(text: str) -> None:
    lines = text.count("\n")
    command = _pager_command(pager_setting())
    if not command or lines < shutil.get_terminal_size((80, 24)).lines - 1:
        sys.stdout.write(text)
        return
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    try:
        pager = subprocess.Popen(command, stdin=subprocess.PIPE, env=env, encoding="utf-8", errors="replace")
    except OSError:
        sys.stdout.write(text)
        return
    assert pager.stdin is not None
    with contextlib.suppress(BrokenPipeError):  # the reader quit the pager early
        pager.stdin.write(text)
        pager.stdin.close()
    with contextlib.suppress(KeyboardInterrupt):
        pager.wait()
