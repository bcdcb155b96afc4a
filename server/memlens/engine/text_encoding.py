"""Which encoding a text file is in: memory notes and SpecStory exports written by Windows editors arrive as UTF-16
(with or without a byte-order mark), UTF-32 or UTF-8 with a BOM, and notes from older editors in Latin-1 or
Windows-1252. One sniffer for every reader of text files."""

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


# what a byte of 0x80 and above stands for in a Windows-1252 (or Latin-1) note, besides letters
_LEGACY_SYMBOLS = frozenset(
    "\u20ac\u201a\u201e\u2026\u2020\u2021\u2030\u2039\u2018\u2019\u201c\u201d\u2022\u2013\u2014"
    "\u2122\u203a\xa0\xa1\xa2\xa3\xa5\xa7\xa9\xab\xae\xb0\xb1\xb2\xb3\xb4\xb5\xb7\xb9\xbb\xbc\xbd\xbe\xbf\xd7\xf7"
)


def is_legacy_8bit(data: bytes) -> bool:
    """Whether text that is not valid UTF-8 reads as Windows-1252 (a superset of Latin-1's printable characters):
    it holds no UTF-8 sequence of two bytes or more at all, each byte of 0x80 and above is a letter, punctuation mark
    or symbol of that code page, and most of those letters stand in a word (beside an ASCII letter; French's lone
    "à" is a word of its own, and "ÿþ", a UTF-16 mark read as Windows-1252, stands in none). Stray bytes in a UTF-8
    note (a binary paste, a cut emoji) fail that test and are replaced and counted as before."""
    if data.isascii() or not data.decode("utf-8", "ignore").isascii():
        return False
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:  # 0x81, 0x8D, 0x8F, 0x90 or 0x9D: no character of Windows-1252
        return False
    letters = in_words = 0
    for n, char in enumerate(text):
        if char.isascii() or char in _LEGACY_SYMBOLS:
            continue
        if not char.isalpha():
            return False
        letters += 1
        in_words += _ascii_letter(text[n - 1 : n]) or _ascii_letter(text[n + 1 : n + 2])
    return in_words * 2 >= letters


def _ascii_letter(char: str) -> bool:
    return char.isascii() and char.isalpha()


@dataclass(frozen=True, slots=True)
class DecodedText:
    """Text decoded from bytes, and how many characters of it are U+FFFD standing for invalid bytes or NULs."""

    text: str
    replaced: int


def decode_counted(data: bytes, *, cut: bool = False) -> DecodedText:
    """Text in any encoding `sniff_encoding` knows, or in Windows-1252 when it is not UTF-8 and reads as that
    (`is_legacy_8bit`): undecodable bytes and NULs become U+FFFD, counted (a NUL is what SQLite, tantivy and
    terminals cannot take). With `cut` (the data was cut short), a character split by the cut is dropped rather than
    shown as U+FFFD."""
    encoding, bom = sniff_encoding(data)
    body = data[bom:]
    decoder = codecs.getincrementaldecoder(encoding)
    try:
        text = decoder(errors="strict").decode(body, final=not cut)
        replaced = 0
    except UnicodeDecodeError:
        if encoding == "utf-8" and not bom and is_legacy_8bit(body):
            text, replaced = body.decode("cp1252"), 0
        else:
            text = decoder(errors="replace").decode(body, final=not cut)
            replaced = text.count("\ufffd") - decoder(errors="ignore").decode(body, final=not cut).count("\ufffd")
    if "\x00" in text:
        replaced += text.count("\x00")
        text = text.replace("\x00", "\ufffd")
    return DecodedText(text, replaced)


def decode_text(data: bytes, *, cut: bool = False) -> str:
    """`decode_counted`'s text."""
    return decode_counted(data, cut=cut).text
