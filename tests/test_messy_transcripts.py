"""Transcripts as a messy real folder holds them, indexed through the real Engine (tantivy, the catalog): each variant
of every committed synthetic transcript (Claude Code with a subagent, Codex CLI, OpenClaw) must give exactly the
messages of its original, so a file is never lost for how its bytes are laid out.

The variants: the file saved again by a Windows tool (PowerShell 5's `>` writes UTF-16 LE with a byte-order mark;
others UTF-16 BE, UTF-16 without a mark, UTF-32), first lines that name no format (bad lines, lines of a kind no
parser knows yet), a first line longer than the sniffer's head (a long first prompt), and the regressions beside
them (a UTF-8 byte-order mark, CRLF line ends, a first line corrupted into what looks like a UTF-16 mark).
"""

from __future__ import annotations

import codecs
import io
import json
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from memlens.engine.engine import Engine
from memlens.engine.indexing.ingest import MAX_CARRY_BLOCKS, parse_transcript_stream
from memlens.settings import Settings

SYNTHETIC = Path(__file__).resolve().parent / "fixtures" / "transcripts"

# lines no parser takes as a message, and none takes as the sign of its format: more than the sniffer's first five
JUNK_HEAD = (
    b"[]\n"
    b"null\n"
    b"42\n"
    b'"a line of text"\n'
    b'{"type": "a-line-kind-from-a-later-version", "data": {"x": [1, 2, 3]}}\n'
    b'{"unexpected": {"shape": null}}\n'
    b'{"type": "user", "message": {"content": "cut off mid-wri\n'
)


def first_line_padded(data: bytes, chars: int) -> bytes:
    """The first JSON-object line with one more key, holding `chars` characters, written first (parsers ignore
    unknown keys); a line before it that is not JSON stays as it is."""
    lines = data.split(b"\n")
    first = next(n for n, line in enumerate(lines) if line.startswith(b"{"))
    lines[first] = json.dumps({"padding": "p" * chars, **json.loads(lines[first])}).encode()
    return b"\n".join(lines)


VARIANTS: dict[str, Callable[[bytes], bytes]] = {
    "utf-16 le with a byte-order mark": lambda data: data.decode().encode("utf-16-le").join([codecs.BOM_UTF16_LE, b""]),
    "utf-16 be with a byte-order mark": lambda data: codecs.BOM_UTF16_BE + data.decode().encode("utf-16-be"),
    "utf-16 le without a mark": lambda data: data.decode().encode("utf-16-le"),
    "utf-16 le, CRLF line ends": lambda data: (
        codecs.BOM_UTF16_LE + data.decode().replace("\n", "\r\n").encode("utf-16-le")
    ),
    "utf-32 with a byte-order mark": lambda data: data.decode().encode("utf-32"),
    "seven first lines that name no format": lambda data: JUNK_HEAD + data,
    "a first line of 300 KB": lambda data: first_line_padded(data, 300_000),
    "utf-8 with a byte-order mark and CRLF": lambda data: codecs.BOM_UTF8 + data.replace(b"\n", b"\r\n"),
    "a first line corrupted into a UTF-16 mark": lambda data: b"\xff\xfe\xfd garbage\n" + data,
}


def settings() -> Settings:
    value = Settings()
    value.transcripts.agent_defaults = False
    return value


def indexed_messages(
    tmp_path: Path, name: str, change: Callable[[bytes], bytes] | None, *, grown: bool = False
) -> Counter[tuple[str, ...]]:
    """(file relative to its folder, role, text) of every message indexed from a copy of the synthetic transcripts,
    each JSONL file passed through `change`; no file may be left unrecognised. `grown`: each file is synced first
    with only its first half of lines, then again whole (a session that went on between two syncs)."""
    folder = tmp_path / name / "transcripts"
    shutil.copytree(SYNTHETIC, folder, ignore=shutil.ignore_patterns("*.md"))
    whole = {path: path.read_bytes() for path in folder.rglob("*.jsonl")}
    workspace = tmp_path / name / "ws"
    workspace.mkdir()
    with Engine([workspace], settings(), [folder], tmp_path / name / "index", embedder=False) as engine:
        for step in ("half", "whole") if grown else ("whole",):
            for path, data in whole.items():
                lines = data.splitlines(keepends=True)
                data = b"".join(lines[: len(lines) // 2]) if step == "half" else data
                path.write_bytes(data if change is None else change(data))
            engine.sync()
        stats = engine.stats()
        assert stats["unrecognisedFiles"] == [], stats["unrecognisedFiles"]
        rows = engine.catalog.db.execute(
            "SELECT f.path, u.role, u.text FROM units u JOIN files f ON f.id = u.file_id"
        ).fetchall()
    return Counter((str(Path(path).relative_to(folder)), role, text) for path, role, text in rows)


@pytest.fixture(scope="module")
def originals(tmp_path_factory: pytest.TempPathFactory) -> Counter[tuple[str, ...]]:
    messages = indexed_messages(tmp_path_factory.mktemp("originals"), "original", None)
    assert len({path for path, _, _ in messages}) >= 6 and len(messages) >= 30  # every JSONL format, with messages
    return messages


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_message_of_a_transcript_survives_how_its_file_is_laid_out(
    variant: str, originals: Counter[tuple[str, ...]], tmp_path: Path
) -> None:
    messages = indexed_messages(tmp_path, "variant", VARIANTS[variant])
    assert messages == originals, f"lost: {originals - messages}; gained: {messages - originals}"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_transcript_that_grew_between_two_syncs_has_every_message_once(
    variant: str, originals: Counter[tuple[str, ...]], tmp_path: Path
) -> None:
    messages = indexed_messages(tmp_path, "variant", VARIANTS[variant], grown=True)
    assert messages == originals, f"lost: {originals - messages}; gained: {messages - originals}"


@pytest.mark.parametrize("source", sorted(p.name for p in SYNTHETIC.rglob("*.jsonl")))
def test_a_first_line_longer_than_a_read_block_is_sniffed_once_whole(source: str) -> None:
    """The stream reads a file in blocks; a first line longer than one is read on until it ends, then sniffed."""
    path = next(SYNTHETIC.rglob(source))
    data = first_line_padded(path.read_bytes(), 200_000)
    whole = parse_transcript_stream(io.BytesIO(data), path)
    in_blocks = parse_transcript_stream(io.BytesIO(data), path, block_bytes=64 * 1024)
    assert whole is not None and whole.result.records
    assert in_blocks is not None, "a first line of four blocks left the file unrecognised"
    assert [r.text for r in in_blocks.result.records] == [r.text for r in whole.result.records]


@pytest.mark.parametrize("source", sorted(p.name for p in SYNTHETIC.rglob("*.jsonl")))
def test_a_first_line_longer_than_a_sniff_holds_leaves_no_message_unread(source: str) -> None:
    """A first line longer than MAX_CARRY_BLOCKS blocks (64 MB at the real block size): the lines after it name the
    format, and every message is read, the long line's own too."""
    path = next(SYNTHETIC.rglob(source))
    block = 64 * 1024
    data = first_line_padded(path.read_bytes(), (MAX_CARRY_BLOCKS + 1) * block)
    whole = parse_transcript_stream(io.BytesIO(data), path)
    in_blocks = parse_transcript_stream(io.BytesIO(data), path, block_bytes=block)
    assert whole is not None and whole.result.records
    assert in_blocks is not None, "a first line longer than the sniff holds left the file unrecognised"
    assert [r.text for r in in_blocks.result.records] == [r.text for r in whole.result.records]
    assert in_blocks.result.bad_lines == whole.result.bad_lines


@pytest.mark.parametrize("source", sorted(p.name for p in SYNTHETIC.rglob("*.jsonl")))
@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le"])
def test_a_utf16_transcript_longer_than_a_block_keeps_every_message_and_line_number(source: str, encoding: str) -> None:
    """Past the first block (16 MB at the real size) a block has no byte-order mark, and a character such as U+010A
    or U+0A0A holds a newline byte: neither may move a message's line or lose it. Cut short, the file is read to
    the start of its unterminated last line, in the file's own bytes."""
    path = next(SYNTHETIC.rglob(source))
    text = path.read_text("utf-8").replace("the ", "the \u010a\u0a0a ")
    expected = parse_transcript_stream(io.BytesIO(text.encode()), path)
    data = "\ufeff".encode(encoding) + text.encode(encoding)  # a byte-order mark, in the first block only
    parsed = parse_transcript_stream(io.BytesIO(data), path, block_bytes=2048)
    assert expected is not None and parsed is not None
    assert [(r.position, r.text) for r in parsed.result.records] == [
        (r.position, r.text) for r in expected.result.records
    ]
    assert (parsed.lines, parsed.result.consumed_bytes) == (expected.lines, len(data))
    width = len("\n".encode(encoding))
    cut = parse_transcript_stream(io.BytesIO(data[:-width]), path, block_bytes=2048)
    assert cut is not None
    line_start = data.rfind("\n".encode(encoding), 0, len(data) - width) + width
    assert cut.result.consumed_bytes == line_start
