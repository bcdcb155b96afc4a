"""Text laid out in terminal cells, as terminals draw it: measured, folded at word boundaries, cut and padded.

Cells are counted by wcwidth (its tables follow each Unicode release and are checked against real terminals): a wide
CJK character or an emoji takes two, an emoji sequence (a ZWJ family, a skin tone, a flag, a VS16 heart) one glyph of
two, combining marks and zero-width characters none, a tab runs to the next stop of 8. unicodedata's East Asian width
counts each code point of a sequence (a family emoji as 6 cells) and every mark that is not "combining" as 1; the
standard textwrap counts characters, folding CJK text past the terminal's edge. Printable ASCII, most of what is laid
out, is measured by its length, and wcwidth imported only for the rest (its import is a CLI start's 20-30 ms)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wcwidth.textwrap import SequenceTextWrapper


def cells(text: str) -> int:
    """How many terminal cells one line of `text` takes (see the module's docstring)."""
    if text.isascii() and text.isprintable():
        return len(text)
    import wcwidth

    return int(wcwidth.width(text))


def expanded(text: str) -> str:
    """One line with its tabs turned into the spaces a terminal shows (stops every 8 cells, a wide character two)."""
    if "\t" not in text:
        return text
    import wcwidth

    return str(wcwidth.clip(text, 0, propagate_sgr=False))


def cut(text: str, room: int) -> str:
    """As much of one line as fits in `room` cells, whole graphemes only (an emoji sequence is never split)."""
    text = expanded(text)
    if cells(text) <= room:
        return text
    if text.isascii() and text.isprintable():
        return text[: max(0, room)]
    import wcwidth

    out, used = [], 0
    for grapheme in wcwidth.iter_graphemes(text):
        size = cells(grapheme)
        if used + size > room:
            break
        out.append(grapheme)
        used += size
    return "".join(out)


def clip(text: str, room: int) -> str:
    """One line cut to at most `room` cells, ending in … when cut."""
    text = expanded(text)
    if cells(text) <= room:
        return text
    return cut(text, room - 1).rstrip() + "…"


def clip_styled(pieces: Sequence[tuple[str, Callable[[str], str]]], room: int) -> str:
    """One line of pieces, each with its style (a function that wraps it in its colour), cut as their plain text
    would be (`clip`), each piece kept shown in its style, the … in the style of the piece it cuts."""
    plain = "".join(text for text, _ in pieces)
    if cells(expanded(plain)) <= room:
        return "".join(style(text) for text, style in pieces)
    shown = clip(plain, room)
    if "\t" in plain:  # a tab's cells depend on where it stands: styled pieces cannot be cut apart from one another
        return shown
    left = len(shown) - 1  # shown is a prefix of plain and the …
    out: list[str] = []
    for text, style in pieces:
        if left <= 0:
            out.append(style("…"))
            break
        if len(text) > left:
            out.append(style(text[:left] + "…"))
            break
        out.append(style(text))
        left -= len(text)
    return "".join(out)


def column(text: str, room: int, *, right: bool = False) -> str:
    """A table's cell: `text` cut to `room` cells and padded to exactly `room` (on the left when `right`)."""
    shown = cut(text, room)
    padding = " " * (room - cells(shown))
    return padding + shown if right else shown + padding


def folded(line: str, columns: int, *, indent: str = "  ") -> str:
    """`line` folded at word boundaries to `columns` cells (continuations indented by `indent`; 0: as it is), its tabs
    spaced out to the stops a terminal would put them at. A word longer than the room is kept whole on its own line,
    to be copied (a URL, a path), unless it is a run of wide characters: CJK text puts no spaces between its words,
    and its lines break between characters. Lines break at spaces only (`line_break="ascii"`, as textwrap does):
    wcwidth's default, UAX #14, also breaks after each slash, and a path or URL folded there can no longer be copied."""
    if not columns:
        return line
    line = expanded(line)
    if cells(line) <= columns:
        return line
    folder = _folder_class()(
        width=columns,
        subsequent_indent=expanded(indent),
        break_long_words=False,
        break_on_hyphens=False,
        line_break="ascii",
    )
    return "\n".join(folder.wrap(line))


# the characters JIS X 4051 keeps from starting a line: closing marks, small kana, the long-vowel mark
_NO_LINE_START = "、。，．,.・：:；;？?！!ー）)」』】〕〉》”’ゝゞヽヾ々ぁぃぅぇぉっゃゅょァィゥェォッャュョ"


@functools.cache
def _folder_class() -> type[SequenceTextWrapper]:
    import wcwidth
    from wcwidth.textwrap import SequenceTextWrapper

    class Folder(SequenceTextWrapper):
        """wcwidth's folding in cells, a long word broken only when `breakable`."""

        def _handle_long_word(self, reversed_chunks: list[str], cur_line: list[str], cur_len: int, width: int) -> None:
            self.break_long_words = breakable(reversed_chunks[-1])
            super()._handle_long_word(reversed_chunks, cur_line, cur_len, width)
            if not (self.break_long_words and cur_line and reversed_chunks):
                return
            # a line never starts with a closing mark or a small kana (、。」ュー): the characters before it go down
            # with it, while the line keeps one
            head = list(wcwidth.iter_graphemes(cur_line[-1]))
            rest = reversed_chunks[-1]
            while len(head) > 1 and rest[:1] and rest[0] in _NO_LINE_START:
                rest = head.pop() + rest
            cur_line[-1], reversed_chunks[-1] = "".join(head), rest

    return Folder


def breakable(word: str) -> bool:
    """Whether a line may break inside `word`: it holds wide characters (CJK text, which puts no spaces between its
    words) and is not a path or URL (kept whole, to be copied)."""
    if word.isascii() or "/" in word or "\\" in word:
        return False
    import wcwidth

    return any(cells(grapheme) == 2 for grapheme in wcwidth.iter_graphemes(word))
