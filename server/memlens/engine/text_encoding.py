"""Which encoding a text file is in: memory notes and SpecStory exports written by Windows editors arrive as UTF-16
(with or without a byte-order mark), UTF-32 or UTF-8 with a BOM. One sniffer for every reader of text files."""

from __future__ import annotations

import codecs
from dataclasses import dataclass

# byte-order marks, longest first (a UTF-32 LE mark begins like the UTF-16 LE one)
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_SNIFF_BYTES = 4096


def sniff_encoding(data: bytes) -> tuple[str, int]:
    """(encoding, BOM length) of a text file: its byte-order mark, else UTF-16 when NUL bytes fill every other
    position of its head (mostly-ASCII text saved without a BOM), else UTF-8."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding, len(bom)
    sample = data[: _SNIFF_BYTES - _SNIFF_BYTES % 2]
    even, odd, half = sample[0::2].count(0), sample[1::2].count(0), len(sample) // 2
    if half and odd >= half / 4 and even * 16 <= odd:
        return "utf-16-le", 0
    if half and even >= half / 4 and odd * 16 <= even:
        return "utf-16-be", 0
    return "utf-8", 0


def sniff_json_encoding(data: bytes) -> tuple[str, int]:
    """`sniff_encoding` for JSON lines, whose keys and punctuation are ASCII: in UTF-16 or UTF-32 NUL bytes fill
    their high bytes, so a byte-order mark counts only with NULs after it. A UTF-8 file whose first bytes merely
    look like a mark (a line corrupted there) stays UTF-8, and its other lines are read."""
    encoding, bom = sniff_encoding(data)
    sample = data[bom : bom + _SNIFF_BYTES]
    if encoding != "utf-8" and sample.count(0) * 8 < len(sample):
        return "utf-8", 0
    return encoding, bom


@dataclass(frozen=True, slots=True)
class DecodedText:
    """Text decoded from bytes, and how many characters of it are U+FFFD standing for invalid bytes or NULs."""

    text: str
    replaced: int


def decode_counted(data: bytes, *, cut: bool = False) -> DecodedText:
    """Text in any encoding `sniff_encoding` knows: undecodable bytes and NULs become U+FFFD, counted (a NUL is
    what SQLite, tantivy and terminals cannot take). With `cut` (the data was cut short), a character split by the
    cut is dropped rather than shown as U+FFFD."""
    encoding, bom = sniff_encoding(data)
    body = data[bom:]
    decoder = codecs.getincrementaldecoder(encoding)
    try:
        text = decoder(errors="strict").decode(body, final=not cut)
        replaced = 0
    except UnicodeDecodeError:
        text = decoder(errors="replace").decode(body, final=not cut)
        replaced = text.count("\ufffd") - decoder(errors="ignore").decode(body, final=not cut).count("\ufffd")
    if "\x00" in text:
        replaced += text.count("\x00")
        text = text.replace("\x00", "\ufffd")
    return DecodedText(text, replaced)


def decode_text(data: bytes, *, cut: bool = False) -> str:
    """`decode_counted`'s text."""
    return decode_counted(data, cut=cut).text
