"""The units' texts and analysed words as the catalog stores them: compressed with a dictionary trained on the
catalog's own texts, once it holds enough of them.

A message is a few hundred bytes: alone it compresses poorly (zlib at level 9: 379 → 240 bytes on average, 20,000
messages of the realistic-text corpus), but against a dictionary of what such messages hold (zstd's dictionary
training, the `zstandard` package) its text came to 29 % (418 → 120 bytes on average at 980,000 messages) and its
analysed words to 42 % (236 → 99). Each value says how it is stored by its SQLite type: TEXT is the plain text (a
catalog from before, a row written before its catalog had a dictionary, a value too short to gain), a BLOB is one
byte naming the dictionary, then a zstd frame without its magic number, checksum or dictionary id (seven bytes a
value saved against a standard frame that names its dictionary). Decoding one costs about a microsecond: a search
decodes the hundred or so units it re-scores.

Reads see plain text through the temporary view `plain_units` (the units with `plain(text)` and `plain(words)`),
which every catalog connection defines with the function `plain`; writes encode with `TextCodec.encode`.
Dictionaries are never changed or removed once stored: a value can always be read back.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from memlens.engine.lazy import lazy_module

if TYPE_CHECKING:
    import zstandard as zstd
else:
    zstd = lazy_module("zstandard")

DICTIONARY_BYTES = 112_640  # zstd's own default size: a 64 KB one left texts 10 % larger (20,000 sampled)
LEVEL = 3  # 2.4 µs a message; level 9 made them 9 % smaller for four times the CPU
SHORTEST = 32  # bytes: below this a frame's few bytes of header rarely pay
TRAIN_AFTER = 2_000  # units: a dictionary is trained once the catalog holds this many
TRAIN_SAMPLE = 20_000  # texts and as many analysed words (at most) it is trained on

Value = str | bytes | None


class TextCodec:
    """The catalog's dictionaries, by number; the newest encodes. Thread-safe: zstd's compressors and decompressors
    may not be used by two threads at once, so each thread makes its own from the dictionaries' bytes, once. `load`
    reads the stored dictionaries (number, bytes) when a value names one not seen yet (stored by another process)."""

    def __init__(self, load: Callable[[], Iterable[tuple[int, bytes]]]) -> None:
        self._load = load
        self._lock = threading.Lock()
        self._dictionaries: dict[int, bytes] = {}
        self._newest: int | None = None
        self._local = threading.local()  # .decoders {number: ZstdDecompressor}, .encoder (number, ZstdCompressor)

    @property
    def newest(self) -> int | None:
        """The number of the dictionary new values are encoded with (None: none yet, values stay plain)."""
        return self._newest

    def refresh(self, stored: Iterable[tuple[int, bytes]] | None = None) -> None:
        """Take in every stored dictionary not known yet (`stored`: (number, bytes) rows read already)."""
        for number, data in self._load() if stored is None else stored:
            self.add(number, data)

    def add(self, number: int, data: bytes) -> None:
        """Know dictionary `number` (1–255); the newest one encodes from now on."""
        with self._lock:
            self._dictionaries.setdefault(number, bytes(data))
            if self._newest is None or number > self._newest:
                self._newest = number

    def encode(self, text: str | None) -> Value:
        """`text` as it is stored: compressed when a dictionary exists and that makes it shorter, else as is."""
        number = self._newest
        if text is None or number is None:
            return text
        raw = text.encode("utf-8", "surrogatepass")
        if len(raw) < SHORTEST:
            return text
        encoder: tuple[int, zstd.ZstdCompressor] | None = getattr(self._local, "encoder", None)
        if encoder is None or encoder[0] != number:
            params = zstd.ZstdCompressionParameters.from_level(
                LEVEL, format=zstd.FORMAT_ZSTD1_MAGICLESS, write_checksum=0, write_dict_id=0, write_content_size=1
            )
            dictionary = zstd.ZstdCompressionDict(self._dictionaries[number])
            encoder = (number, zstd.ZstdCompressor(dict_data=dictionary, compression_params=params))
            self._local.encoder = encoder
        packed = bytes((number,)) + encoder[1].compress(raw)
        return packed if len(packed) < len(raw) else text

    def decode(self, value: Value) -> str | None:
        """A stored value as text (`encode`'s inverse)."""
        if not isinstance(value, bytes):
            return value
        decoders: dict[int, zstd.ZstdDecompressor] | None = getattr(self._local, "decoders", None)
        if decoders is None:
            decoders = self._local.decoders = {}
        decoder = decoders.get(value[0])
        if decoder is None:
            decoder = decoders[value[0]] = self._decoder(value[0])
        text: str = decoder.decompress(memoryview(value)[1:]).decode("utf-8", "surrogatepass")
        return text

    def _decoder(self, number: int) -> zstd.ZstdDecompressor:
        data = self._dictionaries.get(number)
        if data is None:  # stored by another process after this one read the dictionaries
            self.refresh()
            data = self._dictionaries.get(number)
            if data is None:
                raise sqlite3.DatabaseError(f"a stored text names dictionary {number}, which the catalog lacks")
        return zstd.ZstdDecompressor(dict_data=zstd.ZstdCompressionDict(data), format=zstd.FORMAT_ZSTD1_MAGICLESS)


def train(samples: Iterable[bytes]) -> bytes | None:
    """A dictionary for values like `samples` (texts and analysed words); None when they are too few to learn from."""
    chunks: list[bytes | bytearray | memoryview] = list(samples)
    try:
        return bytes(zstd.train_dictionary(DICTIONARY_BYTES, chunks, level=LEVEL).as_bytes())
    except zstd.ZstdError:
        return None


# the writer's own bookkeeping on a unit, no part of what a unit is read as (catalog/copies.py reads it from `units`)
WRITER_ONLY_COLUMNS = frozenset({"copy_identity"})


def plain_units_view(columns: Iterable[str]) -> str:
    """The temporary view of the units with their texts and words decoded (`columns`: the units table's), less the
    writer's bookkeeping (WRITER_ONLY_COLUMNS)."""
    shown = [f"plain({c}) AS {c}" if c in ("text", "words") else c for c in columns if c not in WRITER_ONLY_COLUMNS]
    return f"CREATE TEMP VIEW IF NOT EXISTS plain_units AS SELECT {', '.join(shown)} FROM main.units"
