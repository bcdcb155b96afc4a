"""Notes and messages that quote an error and say how it was fixed, as answers of `memlens fixes` beside the tool
results that printed it (fixes.py): "Fixed `TypeError: x is not a function` by binding the handler", a MEMORY.md
bullet, an error in a code span or a fenced block beside the words of its fix. Such a note is often the only place
the fix was written down (a session's tool output is gone, or the fix came from elsewhere), and fixes.py reads tool
results only.

A piece of a text (a paragraph, a list item, a fenced block with the paragraphs around it) counts when it quotes the
error (a code span, a fenced block, or the piece itself holds one of the pasted error's lines as written, or most of
its words) and says, outside the quote, that it was fixed (FIX_WORDS)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

FIX_WORDS = re.compile(
    r"\b(?:fix(?:ed|es|ing)?|resolv(?:ed|es|ing)|solv(?:ed|es|ing)|solution|work(?:ed)?[- ]?around|"
    r"root cause|the cause|caused by|due to|turned out|because|cure[sd]?)\b|→|->|=>",
    re.IGNORECASE,
)
_CODE_SPAN = re.compile(r"`+([^`\n]+?)`+")
_FENCE = re.compile(r"^\s*(?:```|~~~)")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def pieces(text: str) -> list[str]:
    """`text` in the pieces a fix is said in: paragraphs and list items, a fenced block joined with the paragraph
    before it and the one after it (the words around a quoted block say what it was and how it went away)."""
    blocks: list[tuple[bool, list[str]]] = []  # (fenced, lines)
    current: list[str] = []
    fenced = False

    def close(is_fence: bool = False) -> None:
        nonlocal current
        if current:
            blocks.append((is_fence, current))
        current = []

    for line in text.splitlines():
        if _FENCE.match(line):
            if fenced:
                current.append(line)
                close(is_fence=True)
            else:
                close()
                current.append(line)
            fenced = not fenced
            continue
        if fenced:
            current.append(line)
        elif not line.strip():
            close()
        elif _ITEM.match(line):
            close()
            current.append(line)
        else:
            current.append(line)
    close(is_fence=fenced)
    joined: list[str] = []
    for index, (is_fence, lines) in enumerate(blocks):
        if not is_fence:
            joined.append("\n".join(lines))
            continue
        before = blocks[index - 1][1] if index and not blocks[index - 1][0] else []
        after = blocks[index + 1][1] if index + 1 < len(blocks) and not blocks[index + 1][0] else []
        joined.append("\n".join([*before, *lines, *after]))
    return joined


def _quotes(piece: str) -> tuple[list[str], str]:
    """The quoted texts of a piece (its code spans and fenced blocks' lines) and the piece without them."""
    quoted: list[str] = []
    prose: list[str] = []
    fenced = False
    block: list[str] = []
    for line in piece.splitlines():
        if _FENCE.match(line):
            if fenced:
                quoted.append("\n".join(block))
                block = []
            fenced = not fenced
            continue
        if fenced:
            block.append(line)
            continue
        quoted += [match[1] for match in _CODE_SPAN.finditer(line)]
        prose.append(_CODE_SPAN.sub(" ", line))
    if block:
        quoted.append("\n".join(block))
    return quoted, "\n".join(prose)


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def quoted_fix(
    text: str, *, lines: Sequence[str], covers: Callable[[str], float], share: float, pasted: bool
) -> str | None:
    """The first piece of `text` that quotes the error and says how it was fixed, else None. The error is quoted
    when a quote (or, for a pasted error, the piece itself) holds one of its `lines` as written (fixes.verbatim_lines:
    folded, lower case) or `share` of its words (`covers`); a question in prose (not `pasted`) is held only by a
    piece that quotes something and holds `share` of the question's words."""
    for piece in pieces(text):
        quoted, prose = _quotes(piece)
        if not FIX_WORDS.search(prose if quoted else _without_lines(piece, lines)):
            continue
        if not pasted:
            if quoted and covers(piece) >= share:
                return piece
            continue
        held_in = quoted or [piece]
        if any(line in _folded(quote) for quote in held_in for line in lines):
            return piece
        if any(covers(quote) >= share for quote in held_in):
            return piece
    return None


def _without_lines(piece: str, lines: Sequence[str]) -> str:
    """A piece without the error's lines it holds (so a fix word in the error itself says nothing of a fix)."""
    folded = _folded(piece)
    for line in lines:
        folded = folded.replace(line, " ")
    return folded
