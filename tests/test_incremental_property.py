"""Incremental indexing equals a rebuild: for every fixture transcript, index a prefix, append the rest, sync, and
the catalog holds exactly the messages (session, id, role, kind, text, in order) of one index of the whole file.

Splits fall at many line boundaries, and for the small synthetic fixtures inside lines too (a partial last line
waits for the next sync). Real fixtures in ../shared are used when present; the committed synthetic ones always.

Streamed messages (issue 31, item 5): a Claude Code file (real when ../shared is present, else the committed
synthetic ones) cut at a line inside a streamed assistant message
(lines sharing `message.id`, tool results between them), the rest of the message and then a user line appended
after its last piece: the catalog holds the messages, ids and counts of `reindex --full` of the same file, and the
message's id is its first line's. The whole-file read, block by block, never splits such a message at a block
boundary either.
"""

from __future__ import annotations

import io
import json
import os
import random
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES
from memlens.engine.engine import Engine
from memlens.engine.indexing import ingest
from memlens.engine.sources import parse_file, split_branches
from memlens.settings import Settings

HERE = Path(__file__).resolve().parent
SYNTHETIC = HERE / "fixtures" / "transcripts"
EXTRA = HERE / "fixtures" / "extra"  # committed: sessions outside the main synthetic tree (streamed pieces, a fix)
SHARED = FIXTURES  # the real transcripts in ../shared, when present
MAX_SPLITS = 16  # line boundaries per real file (chosen at random, fixed seed); synthetic ones: every line
MID_LINE_SPLITS = 4  # synthetic files only


def _fixtures(root: Path, label: str) -> list[tuple[str, Path, str]]:
    if not root.is_dir():
        return []
    files = sorted(p for p in root.rglob("*.jsonl") if p.is_file())
    return [(label, root, str(p.relative_to(root))) for p in files]


FIXTURE_FILES = _fixtures(SHARED, "shared") + _fixtures(SYNTHETIC, "synthetic") + _fixtures(EXTRA, "synthetic")
CASES = [  # a real file takes seconds: those are slow
    pytest.param(*case, id=f"{case[0]}:{case[2]}", marks=[pytest.mark.slow] if case[0] == "shared" else [])
    for case in FIXTURE_FILES
]


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    """A folder in memory when the machine has one: every sync commits the keyword index, and an fsync on disk
    costs ~0.2 s, which would dominate this test."""
    shm = Path("/dev/shm")
    if not shm.is_dir():
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="memlens-incremental-", dir=shm))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _engine(folder: Path) -> Engine:
    settings = Settings()
    settings.transcripts.agent_defaults = False
    (folder / "ws").mkdir()
    return Engine([folder / "ws"], settings, [folder / "transcripts"], folder / "index", embedder=False)


def _messages(engine: Engine) -> list[tuple[str, str, str, str, str]]:
    rows = engine.catalog.db.execute(
        "SELECT session_key, message_id, role, kind, text FROM plain_units WHERE kind != 'memory'"
        " ORDER BY session_key, seq"
    )
    return [(str(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4])) for r in rows]


def _bad_lines(engine: Engine) -> int:
    return int(engine.catalog.db.execute("SELECT COALESCE(SUM(bad_lines), 0) FROM files").fetchone()[0])


def _split_points(data: bytes, label: str) -> list[int]:
    """Offsets just after a newline (line boundaries), plus, for synthetic files, some inside a line."""
    boundaries = [i + 1 for i, byte in enumerate(data[:-1]) if byte == 0x0A]
    rng = random.Random(len(data))  # deterministic per file
    if label == "shared" and len(boundaries) > MAX_SPLITS:
        boundaries = sorted(rng.sample(boundaries, MAX_SPLITS))
    if label == "synthetic":
        boundaries += sorted(rng.sample(range(1, len(data) - 1), MID_LINE_SPLITS))
    return boundaries


@pytest.mark.skipif(not CASES, reason="no fixture transcripts")
@pytest.mark.parametrize(("label", "root", "rel"), CASES)
def test_append_equals_rebuild(label: str, root: Path, rel: str, scratch: Path) -> None:
    data = (root / rel).read_bytes()
    target = scratch / "transcripts" / rel
    target.parent.mkdir(parents=True)
    engine = _engine(scratch)
    try:
        target.write_bytes(data)
        engine.sync()
        reference, bad = _messages(engine), _bad_lines(engine)
        assert reference, "the whole file indexes some messages"
        appended = 0
        for cut in _split_points(data, label):
            target.write_bytes(data[:cut])  # a shorter file: parsed whole
            engine.sync()
            with target.open("ab") as handle:
                handle.write(data[cut:])
            report = engine.sync()
            appended += report.files_appended
            assert _messages(engine) == reference, f"split at byte {cut}"
            assert _bad_lines(engine) == bad, f"split at byte {cut}"
        whole = parse_file(target)
        assert whole is not None
        # a file with a broken link, a bad line or no session id of its own is parsed whole at each append, by
        # design (sources.branches, FileReader._can_append); every other file must have taken the append path
        if not (whole.session_from_path or whole.bad_lines or split_branches(whole.records).orphaned):
            assert appended > 0, "the append path was exercised"
    finally:
        engine.close()


SYNTHETIC_CASES = [case for case in FIXTURE_FILES if case[0] == "synthetic"]


@pytest.mark.parametrize(("label", "root", "rel"), SYNTHETIC_CASES, ids=[c[2] for c in SYNTHETIC_CASES])
def test_two_appends_equal_rebuild(label: str, root: Path, rel: str, scratch: Path) -> None:
    """Appends in three steps: what one append left as its resume point must serve the next one."""
    data = (root / rel).read_bytes()
    target = scratch / "transcripts" / rel
    target.parent.mkdir(parents=True)
    engine = _engine(scratch)
    try:
        target.write_bytes(data)
        engine.sync()
        reference = _messages(engine)
        boundaries = _split_points(data, "shared")  # line boundaries only
        rng = random.Random(len(data))
        pairs = {tuple(sorted(rng.sample(boundaries, 2))) for _ in range(12)}
        for first, second in sorted(pairs):
            target.write_bytes(data[:first])
            engine.sync()
            for start, end in ((first, second), (second, len(data))):
                with target.open("ab") as handle:
                    handle.write(data[start:end])
                engine.sync()
            assert _messages(engine) == reference, f"split at bytes {first} and {second}"
    finally:
        engine.close()


def _cc(kind: str, uuid: str, parent: str | None, text: str, message_id: str = "") -> bytes:
    message: dict[str, object] = {"role": kind, "content": [{"type": "text", "text": text}]}
    if message_id:
        message["id"] = message_id
    line = {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s1", "message": message}
    return json.dumps({**line, "timestamp": "2026-03-02T09:00:00Z"}).encode() + b"\n"


def test_an_edit_after_a_streamed_append_drops_the_old_branch(scratch: Path) -> None:
    """The second append's resume point lies inside the first append: its anchor must still guard the branch."""
    steps = [
        _cc("user", "u0", None, "question")
        + _cc("assistant", "a0", "u0", "answer", "m0")
        + _cc("user", "u1", "a0", "follow-up")
        + _cc("assistant", "a1", "u1", "streamed part one", "m1"),
        _cc("assistant", "a1b", "a1", "streamed part two", "m1"),  # continues m1: re-parsed from a1's line
        _cc("user", "u1e", "a0", "follow-up, edited") + _cc("assistant", "a2", "u1e", "new answer", "m2"),
    ]
    target = scratch / "transcripts" / "s1.jsonl"
    target.parent.mkdir(parents=True)
    engine = _engine(scratch)
    try:
        target.write_bytes(b"")
        for step in steps:
            with target.open("ab") as handle:
                handle.write(step)
            engine.sync()
        appended = _messages(engine)
        target.write_bytes(b"".join(steps) + b"\n")  # the same lines, rewritten: parsed whole
        engine.sync()
        assert appended == _messages(engine)
        assert [m[4] for m in appended] == ["question", "answer", "follow-up, edited", "new answer"]
    finally:
        engine.close()


def test_a_bad_line_parsed_again_is_counted_once(scratch: Path) -> None:
    """A malformed line inside a streamed message lies after the resume point: the append parses it again."""
    first = _cc("user", "u1", None, "question") + _cc("assistant", "a1", "u1", "part one", "m1") + b"{cut\n"
    second = _cc("assistant", "a1b", "a1", "part two", "m1") + _cc("user", "u2", "a1b", "thanks")
    target = scratch / "transcripts" / "s1.jsonl"
    target.parent.mkdir(parents=True)
    engine = _engine(scratch)
    try:
        target.write_bytes(first)
        engine.sync()
        with target.open("ab") as handle:
            handle.write(second)
        assert engine.sync().files_appended == 1
        assert _bad_lines(engine) == 1
        assert [m[4] for m in _messages(engine)] == ["question", "part one\n\npart two", "thanks"]
        [problem] = engine.catalog.db.execute("SELECT error FROM files").fetchall()
        assert problem[0].count("line 3:") == 1
    finally:
        engine.close()


# -- streamed messages (lines sharing message.id) in Claude Code files ------------------------------------------


@dataclass(frozen=True)
class Streamed:
    """A streamed assistant message of a fixture file: its lines (0-based) from the first piece to the last."""

    root: Path
    rel: str
    first: int
    last: int


def _streamed(root: Path, rel: str) -> list[Streamed]:
    lines = (root / rel).read_bytes().splitlines()
    pieces: dict[str, list[int]] = {}
    for i, raw in enumerate(lines):
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError:  # the synthetic fixtures hold a damaged line on purpose
            continue
        message = obj.get("message")
        if obj.get("type") == "assistant" and isinstance(message, dict) and isinstance(message.get("id"), str):
            pieces.setdefault(message["id"], []).append(i)
    return [Streamed(root, rel, found[0], found[-1]) for found in pieces.values() if len(found) > 1]


# the real Claude Code files when ../shared is present, else the committed synthetic ones
REAL = any(label == "shared" for label, _, _ in FIXTURE_FILES)
CC_FILES = [
    (root, rel) for label, root, rel in FIXTURE_FILES if (label == "shared") == REAL and rel.startswith("claude-code/")
]
STREAMED = {f"{root}/{rel}": found for root, rel in CC_FILES if (found := _streamed(root, rel))}
SMALL = ("claude-code/tool_heavy.jsonl", "claude-code/short.jsonl")  # of the real ones: every cut of these
SMALL_STREAMED = [m for found in STREAMED.values() for m in found if not REAL or m.rel in SMALL]


def _user_after(piece: dict[str, Any]) -> bytes:
    """The user line Claude Code writes after an assistant piece: its child, same session and sidechain flag."""
    line = {
        "parentUuid": piece["uuid"],
        "isSidechain": piece.get("isSidechain", False),
        "userType": "external",
        "cwd": piece.get("cwd"),
        "sessionId": piece.get("sessionId"),
        "version": piece.get("version"),
        "type": "user",
        "message": {"role": "user", "content": "appended follow-up: does it still hold?"},
        "uuid": "00000000-0000-4000-8000-00000000f00d",
        "timestamp": piece.get("timestamp"),
    }
    return json.dumps(line).encode() + b"\n"


def _stream_case(
    engine: Engine, folder: Path, message: Streamed, cut: int, *, steps: int, unterminated: bool = False
) -> None:
    """Index the file cut after line `cut` (inside the message), append up to its last piece and a user line (in
    one append or two), and compare with `reindex --full` of the same file. `unterminated`: the cut file's last
    line has no newline yet and its file is quiet, so it is read; the append then begins with that newline."""
    lines = (message.root / message.rel).read_bytes().splitlines(keepends=True)
    target = folder / "transcripts" / message.rel
    target.parent.mkdir(parents=True, exist_ok=True)
    rest, user = b"".join(lines[cut : message.last + 1]), _user_after(json.loads(lines[message.last]))
    head = b"".join(lines[:cut])
    if unterminated:
        head, rest = head[:-1], b"\n" + rest
    target.write_bytes(head)
    if unterminated:
        past = time.time() - 60
        os.utime(target, (past, past))
    engine.sync()
    if unterminated:
        [read] = engine.catalog.db.execute("SELECT parsed_bytes FROM files WHERE path = ?", (str(target),)).fetchone()
        assert read == len(head), "a quiet file's unterminated last line is read"
    for part in [rest + user] if steps == 1 else [rest, user]:
        with target.open("ab") as handle:
            handle.write(part)
        engine.sync()
    incremental = _messages(engine)
    engine.reindex(full=True)
    rebuilt = _messages(engine)
    where = f"{message.rel} cut after line {cut}, message lines {message.first + 1}..{message.last + 1}"
    assert len(incremental) == len(rebuilt), where
    assert incremental == rebuilt, where
    key = json.loads(lines[message.first])["message"]["id"]
    pieces = {
        obj["uuid"]
        for obj in map(json.loads, lines[message.first + 1 : message.last + 1])
        if obj.get("type") == "assistant" and obj["message"].get("id") == key
    }
    assert not pieces & {m[1] for m in incremental}, f"{where}: the message's id is its first line's uuid"
    target.unlink()
    engine.sync()


@pytest.mark.skipif(not SMALL_STREAMED, reason="no Claude Code fixture with a streamed message")
@pytest.mark.parametrize(("steps", "unterminated"), [(1, False), (2, False), (1, True)])
def test_every_line_inside_a_streamed_message_then_a_user_line(steps: int, unterminated: bool, scratch: Path) -> None:
    engine = _engine(scratch)
    try:
        for message in SMALL_STREAMED:
            for cut in range(message.first + 1, message.last + 1):
                _stream_case(engine, scratch, message, cut, steps=steps, unterminated=unterminated)
    finally:
        engine.close()


@st.composite
def _streamed_cuts(draw: st.DrawFn) -> tuple[Streamed, int]:
    rel = draw(st.sampled_from(sorted(STREAMED)))
    message = draw(st.sampled_from(STREAMED[rel]))
    return message, draw(st.integers(message.first + 1, message.last + 1))


@pytest.mark.skipif(not STREAMED, reason="no Claude Code fixture with a streamed message")
def test_random_streamed_messages_split_then_a_user_line() -> None:
    folder = Path(tempfile.mkdtemp(prefix="memlens-streamed-", dir="/dev/shm" if Path("/dev/shm").is_dir() else None))
    engine = _engine(folder)

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(_streamed_cuts(), st.sampled_from([1, 2]), st.booleans())
    def check(case: tuple[Streamed, int], steps: int, unterminated: bool) -> None:
        _stream_case(engine, folder, case[0], case[1], steps=steps, unterminated=unterminated)

    try:
        check()
    finally:
        engine.close()
        shutil.rmtree(folder, ignore_errors=True)


def _record_keys(result: Any) -> list[tuple[str, str, str, int, str | None]]:
    return [(r.message_id, r.role, r.text, r.position, r.uuid) for r in result.records]


# the real files when ../shared is present, else the committed synthetic ones (every format)
ALL_FILES = [(root, rel) for label, root, rel in FIXTURE_FILES if (label == "shared") == REAL]


@pytest.mark.skipif(not ALL_FILES, reason="no fixture transcripts")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ALL_FILES), st.floats(0.0, 1.0))
def test_a_block_boundary_never_splits_a_record(case: tuple[Path, str], share: float) -> None:
    """The whole-file read parses block by block: with any block size (the carry not capped), it holds exactly the
    records, ids, positions and counts of one parse of the whole file."""
    root, rel = case
    data = (root / rel).read_bytes()
    longest = max(len(line) for line in data.splitlines()) + 1  # the format is sniffed from the first block
    block = longest + int(share * max(0, len(data) - longest))
    whole = ingest.parse_transcript(data, root / rel)
    saved = ingest.MAX_CARRY_BLOCKS
    ingest.MAX_CARRY_BLOCKS = 1 << 30
    try:
        streamed = ingest.parse_transcript_stream(io.BytesIO(data), root / rel, block_bytes=block)
    finally:
        ingest.MAX_CARRY_BLOCKS = saved
    assert whole is not None and streamed is not None
    assert _record_keys(streamed.result) == _record_keys(whole), f"{rel} in blocks of {block} bytes"
    assert (streamed.result.bad_lines, streamed.result.consumed_bytes) == (whole.bad_lines, whole.consumed_bytes)


@pytest.mark.skipif(not SMALL_STREAMED, reason="no Claude Code fixture with a streamed message")
def test_a_file_rewritten_longer_with_the_same_head_is_read_whole(scratch: Path) -> None:
    """Cut inside a streamed message with a user line after it, then the same file rewritten as a longer cut (the
    rest of the message instead of that user line): grown, same head, but not an append. It is read whole, and
    equals a rebuild."""
    engine = _engine(scratch)
    try:
        for message in SMALL_STREAMED:
            lines = (message.root / message.rel).read_bytes().splitlines(keepends=True)
            target = scratch / "transcripts" / message.rel
            target.parent.mkdir(parents=True, exist_ok=True)
            cut = message.first + 1
            target.write_bytes(b"".join(lines[:cut]) + _user_after(json.loads(lines[message.first])))
            engine.sync()
            longer = b"".join(lines[: message.last + 1])
            assert len(longer) > target.stat().st_size
            target.write_bytes(longer)
            report = engine.sync()
            assert report.files_parsed == 1 and report.files_appended == 0, message
            incremental = _messages(engine)
            engine.reindex(full=True)
            assert incremental == _messages(engine), message
            target.unlink()
            engine.sync()
    finally:
        engine.close()
