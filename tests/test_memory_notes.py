"""Memory notes in any encoding an editor saves (UTF-8 with or without BOM, UTF-16/32, Latin-1 and Windows-1252), and
notes too big to keep."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from memlens.engine.engine import Engine
from memlens.engine.indexing import file_reader
from memlens.engine.indexing.ingest import read_memory
from memlens.engine.indexing.stored_text import redact_content
from memlens.engine.text_encoding import decode_text, sniff_encoding
from memlens.settings import ChunkingSettings, Settings, merge

NOTE = "# Café Nordlys\n\nThe offsite agenda: smørrebrød at noon, then the 🚀 launch review.\n"
ENCODED = {
    "utf-8 + BOM": codecs.BOM_UTF8 + NOTE.encode("utf-8"),
    "utf-16-le + BOM": codecs.BOM_UTF16_LE + NOTE.encode("utf-16-le"),
    "utf-16-be + BOM": codecs.BOM_UTF16_BE + NOTE.encode("utf-16-be"),
    "utf-32-le + BOM": codecs.BOM_UTF32_LE + NOTE.encode("utf-32-le"),
    "utf-16-le, no BOM": NOTE.encode("utf-16-le"),
    "utf-16-be, no BOM": NOTE.encode("utf-16-be"),
    "utf-8": NOTE.encode("utf-8"),
}


@pytest.mark.parametrize("name", list(ENCODED))
def test_every_encoding_decodes_to_the_same_note(name: str) -> None:
    content = read_memory(ENCODED[name], ChunkingSettings())
    assert not content.errors
    [chunk] = content.chunks
    assert chunk.heading == "Café Nordlys"  # the first heading is a heading: no BOM or NUL in front of it
    assert chunk.units[0].text == "Café Nordlys\n" + NOTE.strip()
    assert "\ufeff" not in chunk.units[0].text and "\x00" not in chunk.units[0].text


# notes an older editor saved in a Windows code page: no byte-order mark, not UTF-8
LEGACY = {
    "latin-1": "# Café Nordlys\n\nThe offsite agenda: smørrebrød at noon, à la carte; Grüße aus Zürich.\n",
    "cp1252": "# Café Nordlys\n\nThe “offsite” agenda — smørrebrød at noon, 20 € each… à la carte.\n",
}


@pytest.mark.parametrize("encoding", list(LEGACY))
def test_a_latin1_or_windows_1252_note_keeps_its_letters(encoding: str) -> None:
    content = read_memory(LEGACY[encoding].encode(encoding), ChunkingSettings())
    assert not content.errors and content.replaced == 0
    [chunk] = content.chunks
    assert chunk.heading == "Café Nordlys"
    assert chunk.units[0].text == "Café Nordlys\n" + LEGACY[encoding].strip()


@pytest.mark.parametrize(
    "data",
    [
        b"# Note\n\nThe deploy key \xff\x00 rotates weekly.\n",  # a lone letter byte beside no letter
        b"# caf\xe9\n\nbad bytes \xff\xfe about the rollout\n",  # a word in Latin-1, and a UTF-16 mark's bytes
        b"# Note\n\nbinary paste: \x81\x8d\xe9t\xe9 end\n",  # bytes Windows-1252 has no character for
        "# Note\n\nsmørrebrød, then a cut emoji: ".encode() + b"\xf0\x9f\x9a end\n",  # UTF-8 beside the stray bytes
        b"# Note\n\na control byte \x85\x99\xa4 in a caf\xe9 line\n",  # U+2026 and U+2122 fine, U+00A4 is no symbol
    ],
)
def test_stray_bytes_in_a_utf8_note_are_still_replaced_and_counted(data: bytes) -> None:
    content = read_memory(data, ChunkingSettings())
    assert content.replaced > 0 and content.errors == [f"invalid bytes replaced ({content.replaced})"]


def test_sniffing_leaves_utf8_alone() -> None:
    assert sniff_encoding("plain ascii and ünïcödé".encode()) == ("utf-8", 0)
    assert sniff_encoding(b"") == ("utf-8", 0)
    assert sniff_encoding(b"one NUL\x00 in a long line of ordinary text") == ("utf-8", 0)
    assert decode_text(b"bad \xff byte") == "bad \ufffd byte"


def test_a_note_over_the_limit_is_cut_and_says_so() -> None:
    data = ("# Log\n\n" + "x" * 90 + "\n\n") * 100 + "# Tail\n\nthe very last words\n"
    content = read_memory(data.encode(), ChunkingSettings(), max_bytes=5000)
    assert content.errors == ["note cut: only its first 5,000 bytes are indexed (the limit for one note)"]
    assert content.parsed_bytes == 5000
    assert "the very last words" not in "".join(u.text for c in content.chunks for u in c.units)
    whole = read_memory(data.encode(), ChunkingSettings(), max_bytes=len(data.encode()))
    assert not whole.errors and "the very last words" in whole.chunks[-1].units[0].text


@pytest.mark.parametrize(("encoding", "bom"), [("utf-8", b""), ("utf-16-le", codecs.BOM_UTF16_LE)])
def test_a_cut_inside_a_character_drops_the_half_character(encoding: str, bom: bytes) -> None:
    data = bom + ("# Notes\n\n" + "ø" * 40 + "🚀" * 40).encode(encoding)
    for limit in range(len(data) - 12, len(data) - 1):
        content = read_memory(data, ChunkingSettings(), max_bytes=limit)
        text = content.chunks[-1].units[0].text
        assert content.errors and "\ufffd" not in text, (limit, text[-5:])


def test_engine_indexes_utf16_notes_and_reports_a_cut(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "MEMORY.md").write_bytes(ENCODED["utf-16-le + BOM"])
    (workspace / "memory" / "windows.md").write_bytes(
        ("# Pager\n\nRotate the zookeeper on-call weekly.\n").encode("utf-16-be")
    )
    (workspace / "memory" / "legacy.md").write_bytes("# Legacy\n\nGrüße aus Zürich.\n".encode("latin-1"))
    big = "# Big\n\n" + "filler words here.\n\n" * 200 + "# End\n\nquasar tail marker\n"
    (workspace / "memory" / "big.md").write_text(big)
    monkeypatch.setattr(file_reader, "MAX_MEMORY_BYTES", 2000)
    settings = merge(Settings(), {"transcripts": {"agentDefaults": False}})
    with Engine([workspace], settings, index_dir=tmp_path / "index", embedder=None) as engine:
        engine.sync()
        assert [r["relPath"] for r in engine.search("smørrebrød", mode="keyword")["results"]] == ["MEMORY.md"]
        assert [r["relPath"] for r in engine.search("zookeeper", mode="keyword")["results"]] == ["memory/windows.md"]
        assert engine.search("quasar", mode="keyword")["results"] == []  # beyond the cut
        assert [r["relPath"] for r in engine.search("Grüße Zürich", mode="keyword")["results"]] == ["memory/legacy.md"]
        problems = {Path(p["path"]).name: p["reasons"] for p in engine.stats()["fileErrors"]}
    assert list(problems) == ["big.md"] and "note cut" in problems["big.md"][0]


def test_the_limit_fits_large_notes() -> None:
    assert file_reader.MAX_MEMORY_BYTES >= 64 * 1024 * 1024


def test_a_token_ending_a_chunk_leaves_the_next_chunks_heading_whole() -> None:
    token = "hf_" + "rJtp7j483RabDafevQaBDVRKORwSzb3CM7"
    section = "- step: log in to the hub and pull the weights for the evaluation run\n"
    note = f"# Setup\n\n{section * 3}- huggingface-cli login --token {token}\n\n# Zebrafish\n\n{section * 3}"
    chunking = merge(Settings(), {"chunking": {"markdownMinChars": 100, "markdownMaxChars": 300}}).chunking
    content = read_memory(note.encode(), chunking)
    redact_content(content, enabled=True)
    texts = [unit.text for chunk in content.chunks for unit in chunk.units]
    assert len(texts) == 2 and texts[1].startswith("Zebrafish")
    assert token not in "".join(texts)
