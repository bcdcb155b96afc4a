"""Incremental indexing equals a rebuild: for every fixture transcript, index a prefix, append the rest, sync, and
the catalog holds exactly the messages (session, id, role, kind, text, in order) of one index of the whole file.

Splits fall at many line boundaries, and for the small synthetic fixtures inside lines too (a partial last line
waits for the next sync). Real fixtures in ../shared are used when present; the committed synthetic ones always.
"""

from __future__ import annotations

import json
import random
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import FIXTURES
from memlens.engine.engine import Engine
from memlens.engine.sources import parse_file, split_branches
from memlens.settings import Settings

HERE = Path(__file__).resolve().parent
SYNTHETIC = HERE / "fixtures" / "transcripts"
SHARED = FIXTURES  # the real transcripts in ../shared, when present
MAX_SPLITS = 16  # line boundaries per real file (chosen at random, fixed seed); synthetic ones: every line
MID_LINE_SPLITS = 4  # synthetic files only


def _fixtures(root: Path, label: str) -> list[tuple[str, Path, str]]:
    if not root.is_dir():
        return []
    files = sorted(p for p in root.rglob("*.jsonl") if p.is_file())
    return [(label, root, str(p.relative_to(root))) for p in files]


FIXTURE_FILES = _fixtures(SHARED, "shared") + _fixtures(SYNTHETIC, "synthetic")
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
        "SELECT session_key, message_id, role, kind, text FROM units WHERE kind != 'memory' ORDER BY session_key, seq"
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
