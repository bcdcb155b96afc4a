"""File names as memlens stores and shows them: one escaped form, printable and valid UTF-8, that maps back to the
name on disk.

A POSIX file name is bytes: it may hold bytes that are not UTF-8, newlines, tabs and other control characters.
Python hands such a name over as a `str` holding lone surrogates (`os.fsdecode`, surrogateescape), which SQLite, JSON
encoders and a UTF-8 terminal all refuse. `escape_name` turns any name into text every face can carry and show:
a byte that is not UTF-8 becomes `\\xff`, a control or invisible formatting character `\\n`, `\\t`, `\\x1b`,
`\\u202e`, and the backslash itself `\\\\`, so no two names share an escaped form and `unescape_name` gives the name
back. The catalog stores paths in this form, so every answer that shows a path shows it escaped, and a session key
made from a name is text a user can type.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

_SHORT = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\"}
_KEPT_FORMATS = frozenset("\u200c\u200d")  # joiners inside emoji and Indic words are part of how a name reads
_ESCAPE = re.compile(r"\\(?:x([0-9a-f]{2})|u([0-9a-f]{4})|U([0-9a-f]{8})|([ntr\\]))")
_UNSHORT = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\"}


def _escaped(char: str) -> str:
    code = ord(char)
    if char in _SHORT:
        return _SHORT[char]
    if 0xDC80 <= code <= 0xDCFF:  # a byte os.fsdecode could not decode: shown as that byte
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x80:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _needs_escape(char: str) -> bool:
    if char in _SHORT:
        return True
    # what Python cannot print (controls, formats, surrogates, separators other than the space, private-use and
    # unassigned code points) is escaped, all of it: a name shows the same on every terminal, font or not
    return not (char.isprintable() or char in _KEPT_FORMATS)


@functools.lru_cache(maxsize=16384)  # result pages and syncs repeat the same names
def escape_name(name: str) -> str:
    """`name` (a path or a part of one, as Python holds it) as printable UTF-8 text, losslessly (see the module)."""
    if name.isprintable() and "\\" not in name:
        return name
    return "".join(_escaped(c) if _needs_escape(c) else c for c in name)


def unescape_name(text: str) -> str:
    """The name `escape_name` made `text` from (surrogate-escaped where its bytes are not UTF-8)."""
    if "\\" not in text:
        return text

    def one(match: re.Match[str]) -> str:
        short = match.group(4)
        if short is not None:
            return _UNSHORT[short]
        hex_byte = match.group(1)
        if hex_byte is not None:
            code = int(hex_byte, 16)
            return chr(0xDC00 + code) if code >= 0x80 else chr(code)  # C1 controls are \\u00XX
        return chr(int(match.group(2) or match.group(3), 16))

    return _ESCAPE.sub(one, text)


def stored_path(path: str | os.PathLike[str]) -> str:
    """How the catalog keys and every answer shows a file's path."""
    name = os.fspath(path)
    # most names need no escaping: answered here, so a sync of every file does not churn escape_name's cache
    if name.isprintable() and "\\" not in name:
        return name
    return escape_name(name)


def disk_path(stored: str) -> Path:
    """The path on disk of a path as the catalog holds it."""
    return Path(unescape_name(stored))
