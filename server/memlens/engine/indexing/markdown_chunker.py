"""Split Markdown memory notes into heading-scoped, size-bounded chunks so each can be indexed on its own.

Rules (``min_chars`` = 100 and ``max_chars`` = 800 by default):

* **Lines.** CRLF and lone CR are normalised to LF and a leading BOM is dropped; line numbers are 1-based
  and count the file's lines. ``MarkdownChunk.text`` is the chunk's lines joined with ``"\\n"``, exactly as
  in the file otherwise (indentation and trailing spaces kept).
* **Sections.** An ATX heading is a line of at most 3 leading spaces, 1-3 ``#``, then a space or tab and a
  non-empty title (an optional closing ``#`` run is dropped). ``####`` and deeper, ``#tag`` and setext
  headings are body text. A heading opens a section that runs up to the next heading; text before the
  first heading is a section with an empty heading path. A heading's path is its own title after the
  titles of the nearest enclosing shallower headings: ``# A`` / ``## B`` / ``### C`` / ``## D`` gives
  ``("A", "D")`` for D.
* **Fences.** A fence opens at a line (any indentation) of 3+ backticks or 3+ tildes, optionally followed
  by an info string (which, for backticks, contains no backtick), and closes at a line of the same
  character, at least as long, with nothing else; an unclosed fence runs to the end of the file. Nothing
  inside a fence is a heading or a paragraph boundary.
* **Trimming and size.** Blank (whitespace-only) lines at the edges of every section and chunk are
  trimmed, both from the text and from the line range. A section's size is ``len()`` of its trimmed text,
  *including* its heading line and the newlines between its lines. Sections with no non-blank line (only
  a blank preamble can be one) produce no chunk.
* **Merging.** A section shorter than ``min_chars`` is merged with the next one; merging repeats while the
  merged run is still short. A short run left at the end of the file is merged into the previous chunk
  (or stands alone if it is the whole file). A merged chunk spans all its sections' lines and takes the
  heading path of its first section that has a non-empty path (``()`` if none has).
* **Splitting.** A merged run longer than ``max_chars`` is cut into blocks: paragraphs (separated by blank
  lines outside fences, and by section starts); a paragraph that alone is longer than ``max_chars`` is
  further cut between lines, a fenced block always staying whole. Blocks are packed greedily, in order,
  into sub-chunks of at most ``max_chars`` (a single block bigger than that, e.g. a huge fence, is a
  sub-chunk of its own). Each sub-chunk takes the heading path of the first section, among those it
  overlaps, that has a non-empty path — for a single section, that section's path. Splitting may leave
  a final sub-chunk shorter than ``min_chars``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

HEADING_SEPARATOR = " › "

_HEADING_RE = re.compile(r"^ {0,3}(#{1,3})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE_OPEN_RE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")
_FENCE_CLOSE_RE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*$")

Span = tuple[int, int]
"""An inclusive range of 0-based line indexes."""


@dataclass(frozen=True, slots=True)
class MarkdownChunk:
    """One indexable piece of a Markdown file."""

    text: str
    heading_path: tuple[str, ...]
    line_start: int
    line_end: int

    @property
    def index_text(self) -> str:
        """The text to index: the heading path as context line, then the body."""
        if not self.heading_path:
            return self.text
        return f"{HEADING_SEPARATOR.join(self.heading_path)}\n{self.text}"


@dataclass(frozen=True, slots=True)
class _Section:
    start: int
    end: int
    path: tuple[str, ...]


class _Doc:
    """The file's lines, with O(1) length of any line span."""

    __slots__ = ("lines", "_offsets")

    def __init__(self, text: str) -> None:
        text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
        self.lines = text.split("\n")
        self._offsets: list[int] = []
        offset = 0
        for line in self.lines:
            self._offsets.append(offset)
            offset += len(line) + 1

    def span_len(self, start: int, end: int) -> int:
        return self._offsets[end] + len(self.lines[end]) - self._offsets[start]

    def span_text(self, start: int, end: int) -> str:
        return "\n".join(self.lines[start : end + 1])

    def is_blank(self, index: int) -> bool:
        return not self.lines[index].strip()

    def trim(self, start: int, end: int) -> Span | None:
        while start <= end and self.is_blank(start):
            start += 1
        while end >= start and self.is_blank(end):
            end -= 1
        return (start, end) if start <= end else None


def chunk_markdown(text: str, min_chars: int = 100, max_chars: int = 800) -> list[MarkdownChunk]:
    """Split ``text`` into chunks following the rules in this module's docstring."""
    if max_chars < 1 or min_chars < 0 or min_chars > max_chars:
        raise ValueError(f"need 0 <= min_chars <= max_chars and max_chars >= 1, got {min_chars}, {max_chars}")
    doc = _Doc(text)
    fences = _fence_ids(doc.lines)
    sections = _sections(doc, fences)
    chunks: list[MarkdownChunk] = []
    for group in _merge_short(doc, sections, min_chars):
        for start, end in _split_group(doc, fences, group, max_chars):
            chunk = MarkdownChunk(doc.span_text(start, end), _path_for(group, start, end), start + 1, end + 1)
            chunks.append(chunk)
    return chunks


def _fence_ids(lines: list[str]) -> list[int | None]:
    """For each line, the number of the fenced block it belongs to (fence lines included), else None."""
    ids: list[int | None] = [None] * len(lines)
    fence: tuple[str, int] | None = None
    count = 0
    for index, line in enumerate(lines):
        if fence is None:
            fence = _fence_opening(line)
            if fence is not None:
                count += 1
                ids[index] = count
        else:
            ids[index] = count
            if _closes_fence(line, fence):
                fence = None
    return ids


def _fence_opening(line: str) -> tuple[str, int] | None:
    match = _FENCE_OPEN_RE.match(line)
    if match is None:
        return None
    marker, info = match.group(1), match.group(2)
    if marker[0] == "`" and "`" in info:
        return None
    return marker[0], len(marker)


def _closes_fence(line: str, fence: tuple[str, int]) -> bool:
    match = _FENCE_CLOSE_RE.match(line)
    if match is None:
        return False
    marker = match.group(1)
    return marker[0] == fence[0] and len(marker) >= fence[1]


def _parse_heading(line: str) -> tuple[int, str] | None:
    match = _HEADING_RE.match(line)
    if match is None or not match.group(2):
        return None
    return len(match.group(1)), match.group(2)


def _sections(doc: _Doc, fences: list[int | None]) -> list[_Section]:
    """The non-empty sections of the file, trimmed, in order."""
    starts: list[tuple[int, tuple[str, ...]]] = [(0, ())]
    stack: list[tuple[int, str]] = []
    for index, line in enumerate(doc.lines):
        heading = None if fences[index] is not None else _parse_heading(line)
        if heading is None:
            continue
        while stack and stack[-1][0] >= heading[0]:
            stack.pop()
        stack.append(heading)
        starts.append((index, tuple(title for _, title in stack)))
    sections: list[_Section] = []
    for position, (start, path) in enumerate(starts):
        end = starts[position + 1][0] - 1 if position + 1 < len(starts) else len(doc.lines) - 1
        span = doc.trim(start, end)
        if span is not None:
            sections.append(_Section(span[0], span[1], path))
    return sections


def _merge_short(doc: _Doc, sections: list[_Section], min_chars: int) -> list[list[_Section]]:
    """Group sections so that every group except a lone whole-file one reaches ``min_chars``."""
    groups: list[list[_Section]] = []
    current: list[_Section] = []
    for section in sections:
        current.append(section)
        if doc.span_len(current[0].start, current[-1].end) >= min_chars:
            groups.append(current)
            current = []
    if current:
        if groups:
            groups[-1].extend(current)
        else:
            groups.append(current)
    return groups


def _split_group(doc: _Doc, fences: list[int | None], group: list[_Section], max_chars: int) -> list[Span]:
    start, end = group[0].start, group[-1].end
    if doc.span_len(start, end) <= max_chars:
        return [(start, end)]
    pieces: list[Span] = []
    for section in group:
        for block in _paragraphs(doc, fences, section.start, section.end):
            if doc.span_len(*block) > max_chars:
                pieces.extend(_line_units(fences, *block))
            else:
                pieces.append(block)
    return _pack(doc, pieces, max_chars)


def _paragraphs(doc: _Doc, fences: list[int | None], start: int, end: int) -> list[Span]:
    """Runs of lines separated by blank lines that are outside fences."""
    blocks: list[Span] = []
    block_start: int | None = None
    for index in range(start, end + 1):
        if fences[index] is None and doc.is_blank(index):
            if block_start is not None:
                blocks.append((block_start, index - 1))
                block_start = None
        elif block_start is None:
            block_start = index
    if block_start is not None:
        blocks.append((block_start, end))
    return blocks


def _line_units(fences: list[int | None], start: int, end: int) -> list[Span]:
    """Single lines, except that the lines of one fenced block form a single unit."""
    units: list[Span] = []
    index = start
    while index <= end:
        last = index
        fence = fences[index]
        while fence is not None and last + 1 <= end and fences[last + 1] == fence:
            last += 1
        units.append((index, last))
        index = last + 1
    return units


def _pack(doc: _Doc, pieces: list[Span], max_chars: int) -> list[Span]:
    """Greedily join consecutive pieces while the joined span stays within ``max_chars``."""
    spans: list[Span] = []
    current_start, current_end = pieces[0]
    for start, end in pieces[1:]:
        if doc.span_len(current_start, end) <= max_chars:
            current_end = end
        else:
            spans.append((current_start, current_end))
            current_start, current_end = start, end
    spans.append((current_start, current_end))
    return spans


def _path_for(group: list[_Section], start: int, end: int) -> tuple[str, ...]:
    """The path of the first section overlapping ``start..end`` that has a non-empty path."""
    for section in group:
        if section.path and section.start <= end and section.end >= start:
            return section.path
    return ()
