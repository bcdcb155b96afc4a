"""Cold indexing made cheaper must index the same things: the identifier terms, the redacted texts and the catalog
rows are compared with the straightforward way of making them; and the embedding queue runs newest first, resumes
where an interrupted run stopped, and shows its rate and time left."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from bench import cold_index
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FIXTURES
from long_paste import write_transcripts
from memlens.cli.output import progress_line
from memlens.engine import progress as progress_module
from memlens.engine.engine import Engine
from memlens.engine.indexing import text_compression, vector_writer
from memlens.engine.keyword.identifiers import cjk_field, identifier_terms, identifiers
from memlens.engine.keyword.keyword_docs import keyword_docs
from memlens.engine.progress import RateMeter
from memlens.engine.ranking.unit_facts import derived_facts
from memlens.engine.sources import tool_output
from memlens.engine.vectors.embedder import Embedder
from memlens.settings import Settings
from memlens_runs import on_a_terminal
from vector_files import held_text_hashes

# the identifier rules written plainly (one regex match and one check per token), as the fast path must agree with
_COMPOUND = re.compile(r"[A-Za-z0-9_$]+(?:(?:\.|/|::|-)[A-Za-z0-9_$]+)*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_SEGMENT = re.compile(r"\.|/|::|-")


def _is_identifier(token: str) -> bool:
    if len(token) > 200 or not any(c.isalpha() for c in token):
        return False
    if "_" in token.strip("_") or _SEGMENT.search(token):
        return True
    return bool(re.search(r"[a-z][A-Z]|[A-Z]{2,}[a-z]", token))


def _plain_identifier_terms(text: str) -> list[str]:
    terms: list[str] = []
    for match in _COMPOUND.finditer(text):
        token = match.group(0).strip("-.")
        if not _is_identifier(token):
            continue
        terms.append(token.lower())
        segments = [s for s in _SEGMENT.split(token) if s]
        if len(segments) > 1:
            terms += [s.lower() for s in segments if _is_identifier(s)]
        for segment in segments:
            for word in segment.split("_"):
                parts = _CAMEL.findall(word)
                if len(parts) > 1:
                    terms += [p.lower() for p in parts]
    return terms


def _plain_identifiers(text: str) -> list[str]:
    return [m.group(0).strip("-.").lower() for m in _COMPOUND.finditer(text) if _is_identifier(m.group(0).strip("-."))]


_PIECES = [*"aZbY09_$.-/: é\n", "::", "HTTP", "camelCase", "v2", "Ab"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30).map("".join))
def test_identifier_terms_as_the_plain_rules_give_them(text: str) -> None:
    assert identifier_terms(text) == _plain_identifier_terms(text)
    assert identifiers(text) == _plain_identifiers(text)


_CJK_PIECES = [*"ab é’—", "東京", "タワー", "한국어", "\U00020001", "\u1100", "\u318f", "\u3040", "\u30ff\u31f0", "😀"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_CJK_PIECES), max_size=12).map("".join))
def test_the_cjk_field_as_every_run_gives_it(text: str) -> None:
    """The `cjk` field is the bigrams of each run of CJK characters, whatever other characters surround them."""
    runs = re.findall(
        "[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u1100-\u11ff"
        "\u3130-\u318f\U00020000-\U0002ffff]+",
        text,
    )
    bigrams = [[run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)] for run in runs]
    assert cjk_field(text) == " ".join(b for run in bigrams for b in run)


def test_identifier_terms_of_real_transcripts_unchanged() -> None:
    texts = [p.read_text(errors="replace") for p in sorted(FIXTURES.rglob("*.jsonl"))] if FIXTURES.is_dir() else []
    texts.append("recompute_and_push_sync fooBar.baz HTTPServer v2.3.1 src/memlens/engine.py a::b::C x-y- .z $v")
    for text in texts:
        for line in text.splitlines():
            assert identifier_terms(line) == _plain_identifier_terms(line)


def _plain_telling_lines(lines: list[str], start: int, end: int) -> tuple[list[int], list[int]]:
    """tool_output's telling lines with both regexes tried on every line."""
    errors: list[int] = []
    frames: list[int] = []
    in_traceback = False
    for index in range(start, end):
        line = lines[index]
        if in_traceback and line[:1] not in (" ", "\t", ""):
            errors.append(index)
            in_traceback = False
        elif tool_output._ERROR_LINE.search(line):
            errors.append(index)
            in_traceback = in_traceback or line.lstrip().startswith("Traceback (most recent call last)")
        elif tool_output._FRAME_LINE.search(line):
            frames.append(index)
            if line.lstrip().startswith("File ") and index + 1 < end:
                frames.append(index + 1)
    return errors, frames


_LOG_PIECES = [
    *' \t\n\x0b\u2003\u0130\u0131:()*-"e',
    "E ",
    "  at x.js:1:2)",
    "Traceback (most recent call last)",
    'File "a.py", line 3',
    "ValueError: bad",
    "fAİLED",
    "exit code 2",
    "npm ERR!",
    "src/a.rs:3:4: error",
    "x.go:12",
    "٣",
    "0x1f - ",
    "** (Runtime",
    "1) test",
    "Not Found",
    "goroutine 1 [",
    "--> a:1:2",
    "plain words here",
]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_LOG_PIECES), max_size=40).map("".join))
def test_telling_lines_as_every_line_tried(text: str) -> None:
    lines = text.split("\n")
    assert tool_output._telling_lines(lines, 0, len(lines)) == _plain_telling_lines(lines, 0, len(lines))


def test_telling_lines_of_real_tool_outputs_unchanged() -> None:
    outputs = []
    for path in sorted(FIXTURES.rglob("*.jsonl")) if FIXTURES.is_dir() else []:
        for line in path.read_text(errors="replace").splitlines():
            if len(line) > 2000:
                outputs.append(line.replace("\\n", "\n"))
    outputs.append("ok\n  File \"x.py\", line 1\n    boom()\nKeyError: 'k'\n\u2003e  x\n\x0b at f (a.js:1:2)")
    for text in outputs:
        lines = text.split("\n")
        for start in (0, len(lines) // 3):
            assert tool_output._telling_lines(lines, start, len(lines)) == _plain_telling_lines(
                lines, start, len(lines)
            )


# -- the embedding queue: newest first, resumable, with its rate and time left ------------------------------------


DAY = 86_400.0


def _claude_session(path: Path, session: str, start: datetime, topic: str, messages: int = 6) -> None:
    lines = []
    parent = None
    for i in range(messages):
        uuid = f"{session}-{i:03d}"
        role = "user" if i % 2 == 0 else "assistant"
        text = f"{topic}: step {i} of the {topic} work, message {i} of session {session}"
        content: object = text if role == "user" else [{"type": "text", "text": text}]
        lines.append(
            {
                "type": role,
                "uuid": uuid,
                "parentUuid": parent,
                "sessionId": session,
                "timestamp": (start + timedelta(minutes=i)).isoformat().replace("+00:00", "Z"),
                "cwd": "/work/project",
                "message": {"role": role, "content": content},
            }
        )
        parent = uuid
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


@pytest.fixture
def months_of_work(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace with two undated notes (one edited today, one a year ago) and twelve sessions a month apart."""
    workspace, transcripts = tmp_path / "ws", tmp_path / "transcripts"
    (workspace / "memory").mkdir(parents=True)
    fresh, stale = workspace / "memory" / "fresh.md", workspace / "memory" / "stale.md"
    fresh.write_text("# Fresh\n\nThe note edited today about the release checklist and its owners.\n")
    stale.write_text("# Stale\n\nThe note nobody touched for a year about the old build farm.\n")
    os.utime(stale, (time.time() - 365 * DAY, time.time() - 365 * DAY))
    start = datetime.now(UTC) - timedelta(days=360)
    topics = [
        "billing",
        "search",
        "deploy",
        "cache",
        "auth",
        "queue",
        "metrics",
        "backup",
        "logging",
        "mobile",
        "pricing",
        "onboarding",
    ]
    for month, topic in enumerate(topics):
        _claude_session(transcripts / f"s{month:02d}.jsonl", f"s{month:02d}", start + timedelta(days=30 * month), topic)
    return workspace, transcripts


def _engine(where: tuple[Path, Path], index_dir: Path, embedder: Embedder) -> Engine:
    settings = Settings()
    settings.transcripts.agent_defaults = False
    return Engine([where[0]], settings, extra_transcripts=[where[1]], index_dir=index_dir, embedder=embedder)


def _queue(engine: Engine) -> tuple[list[float], list[float]]:
    """The queue times of the units with a vector and of those still waiting."""
    rows = engine.catalog.db.execute("SELECT queue_ts, vector_ready FROM units").fetchall()
    return [float(r[0]) for r in rows if r[1]], [float(r[0]) for r in rows if not r[1]]


def test_an_interrupted_embedding_did_the_newest_first_and_resumes_with_the_rest(
    months_of_work: tuple[Path, Path], tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vector_writer, "EMBED_BATCH", 16)
    monkeypatch.setattr(progress_module, "RATE_AFTER_SECONDS", 0.0)  # two batches take well under a second
    embedded: list[str] = []
    real_embed = embedder.embed

    def counting(texts: list[str], *args: Any, **kwargs: Any) -> Any:
        embedded.extend(texts)
        return real_embed(texts, *args, **kwargs)

    monkeypatch.setattr(embedder, "embed", counting)
    cancel = threading.Event()
    messages: list[str] = []

    def progress(done: int, total: int, message: str) -> None:
        messages.append(message)
        if sum(bool(re.match(r"embedding texts [\d,]+/", m)) for m in messages) == 2:
            cancel.set()  # as a person pressing Ctrl-C (or the editor's cancel) after two batches

    with _engine(months_of_work, tmp_path / "index", embedder) as engine:
        report = engine.sync(progress=progress, cancel=cancel)
        assert report.cancelled and report.units_embedded == len(embedded) == 32
        ready, waiting = _queue(engine)
        assert len(ready) >= 32 and waiting
        assert min(ready) >= max(waiting)  # the newest first: nothing embedded is older than what waits
        fresh = engine.catalog.db.execute("SELECT vector_ready FROM plain_units WHERE text LIKE '%release checklist%'")
        assert fresh.fetchone()[0] == 1  # an undated note counts by its file's time: edited today, embedded first
        first_run = set(embedded)
        left = engine.pending_embeddings()
    embedded.clear()
    with _engine(months_of_work, tmp_path / "index", embedder) as engine:
        engine.sync()
        assert engine.pending_embeddings() == 0
        texts = {str(r[0]) for r in engine.catalog.db.execute("SELECT text FROM plain_units")}
        again = [t for t in embedded if t in texts]  # the index's words are embedded too, once the units are
        assert len(again) == left and not first_run & set(again)  # only the rest, nothing embedded twice
        units = {str(r[0]) for r in engine.catalog.db.execute("SELECT embed_text_hash FROM units")}
        vectors = held_text_hashes(engine.vectors)
        assert units == vectors
    assert any(re.fullmatch(r"embedding texts 32/\d+ · [\d.,]+/s · (<1|\d+) min left", m) for m in messages), messages


def test_rate_and_time_left() -> None:
    now = [100.0]
    meter = RateMeter(clock=lambda: now[0])
    assert meter.status(0, 500) == "0/500"
    now[0] += 10
    assert meter.status(250, 1000) == "250/1,000 · 25/s · <1 min left"
    now[0] += 3590
    assert meter.status(9000, 1_000_000) == "9,000/1,000,000 · 2.5/s · 110 h 07 min left"
    assert meter.status(1_000_000, 1_000_000) == "1,000,000/1,000,000 · 278/s"  # done: no time left to tell


def test_no_rate_for_a_job_done_in_a_blink() -> None:
    now = [100.0]
    meter = RateMeter(clock=lambda: now[0])
    now[0] += 0.004  # 19 unchanged files checked
    assert meter.status(19, 19) == "19/19"
    assert meter.status(5, 19) == "5/19"
    now[0] += 1.0
    assert meter.status(19, 19).startswith("19/19 · 19/s")


def test_rate_and_time_left_count_what_the_job_does_not_what_it_skipped() -> None:
    """A sync of 10,000 files of which 9,000 are unchanged reads 1,000: a rate over all 10,000 (the unchanged ones
    counted at the start) said ~900/s and 1 min left where 10 files a second leave 50 more to read."""
    now = [100.0]
    meter = RateMeter(clock=lambda: now[0], already=9000)
    now[0] += 50
    assert meter.status(9500, 10_000) == "9,500/10,000 · 10/s · 1 min left"
    now[0] += 3000
    assert meter.status(9500, 10_000) == "9,500/10,000 · 0.2/s · 51 min left"
    assert RateMeter(clock=lambda: now[0], already=10).status(10, 20) == "10/20"  # nothing done yet: no rate


def test_the_progress_line_fits_80_columns() -> None:
    message = "embedding 1,000,000/1,500,000 · 137/s · 1 h 01 min left"
    line = progress_line(2, 3, message)
    assert len(line) < 80 and line.rstrip().endswith("left")
    assert len(progress_line(1, 3, "x" * 200)) < 80


@pytest.mark.slow  # a CLI process that loads the model
def test_memlens_index_on_a_terminal_shows_rate_and_time_left(
    months_of_work: tuple[Path, Path], tmp_path: Path
) -> None:
    workspace, transcripts = months_of_work
    # more texts than one embedding batch (EMBED_BATCH), so the bar shows a job under way, with its time left
    _claude_session(transcripts / "long.jsonl", "long", datetime.now(UTC) - timedelta(days=2), "archive", messages=300)
    args = ["index", "--workspace", str(workspace), "--transcripts", str(transcripts)]
    # a rate is told once a job has run a second (RATE_AFTER_SECONDS); 300 short texts may embed in less
    run = (
        "import sys; import memlens.engine.progress as p; p.RATE_AFTER_SECONDS = 0.0; "
        "from memlens.cli.commands import main; sys.exit(main(sys.argv[1:]))"
    )
    command = [sys.executable, "-c", run, *args, "--index-dir", str(tmp_path / "index")]
    env = {**os.environ, "TERM": "xterm", "HOME": str(tmp_path / "home")}
    status, written = on_a_terminal(command, env=env, stdout=False, stderr=True)
    assert status == 0, written
    shown = re.split(r"[\r\n]", written)
    assert any(re.search(r"embedding texts \d+/\d+ · [\d.,]+/s · .* left", line) for line in shown), shown
    assert all(len(line) < 80 for line in shown)


def test_the_cold_index_checksum_tells_the_same_index_from_another(tmp_path: Path) -> None:
    """bench/cold_index.py's A/B check: two fresh runs over one corpus agree; one more note changes it."""
    args = argparse.Namespace(
        root=tmp_path, corpus="synthetic", chunks=120, copies=1, profile=0, phases=True, corpus_dir=None, checksum=True
    )
    args.curve = 0
    first, second = cold_index.run_once(args), cold_index.run_once(args)
    assert first["checksum"] == second["checksum"] and first["messages"] > 0 and first["tantivyDocs"] == first["units"]
    assert first["phasesCpuS"]["read: parse + redact"] > 0
    # the same corpus named as a prebuilt one (--corpus-dir), counted without the checksum, its cost along the way
    args.corpus_dir, args.checksum, args.curve = tmp_path / "corpus-120", False, 50
    counted = cold_index.run_once(args)
    assert (counted["units"], counted["messages"]) == (first["units"], first["messages"]) and "checksum" not in counted
    assert counted["curve"] and counted["curve"][-1]["units"] <= first["units"]
    assert all(point["cpuPer1000"] > 0 for point in counted["curve"])
    args.corpus_dir, args.checksum, args.curve = None, True, 0
    notes = tmp_path / "corpus-120" / "workspace" / "memory"
    (next(notes.iterdir()) / "extra.md").write_text("# Extra\n\nOne more note about the zeppelin hangar.\n")
    assert cold_index.run_once(args)["checksum"] != first["checksum"]


def _plain_context(engine: Engine, row: Any) -> str:
    """A message's context field read the straightforward way: its window's rows, texts joined in order."""
    if row["kind"] != "transcript" or not row["session_key"]:
        return ""
    seq = int(row["seq"])
    window = engine.catalog.session_messages_between(row["session_key"], seq - 2, seq + 2)
    texts = {int(r["seq"]): r["text"] for r in window}
    return "\n".join(t for t in (texts.get(s) for s in range(seq - 2, seq + 3)) if t)


def test_keyword_context_as_the_whole_window_read_gives_it(tmp_path: Path, transcript_folder: Path) -> None:
    """The context field reads a text only for a neighbour outside the documents at hand: whether the documents are
    a whole rebuild's, a few scattered ones, or a session's middle, each context is its window's texts in order."""
    (tmp_path / "ws").mkdir()
    engine = Engine(
        [tmp_path / "ws"], Settings(), extra_transcripts=[transcript_folder], index_dir=tmp_path / "i", embedder=False
    )
    engine.sync(embed=False)
    rows = list(engine.catalog.all_units())
    assert sum(r["kind"] == "transcript" for r in rows) > 50
    for subset in (rows, rows[::7], rows[len(rows) // 3 : len(rows) // 3 + 5]):
        docs = list(keyword_docs(engine.catalog, engine.indexer.keyword, subset))
        assert [d.unit_id for d in docs] == [int(r["id"]) for r in subset]
        # a message's context words are its window's texts' words in order; a unit that is not a message has none
        plain = [_plain_context(engine, r) for r in subset]
        assert [d.context_words for d in docs] == [engine.indexer.keyword.analysed(c) if c else None for c in plain]
        # a tool output's header names its call, which its words leave out (tool_output.split_call)
        assert [d.words for d in docs] == [
            engine.indexer.keyword.analysed(tool_output.scored_text(r["text"], r["kind"])) for r in subset
        ]
        assert any(len(d.context_words or "") > len(d.words or "") for d in docs)  # neighbours joined in
    engine.close()


def test_the_units_a_sync_adds_are_mirrored_as_read_back(
    tmp_path: Path, transcript_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer's mirror step takes the units it inserted as made from its rows, not read back: every column of
    every unit the same as `units_by_id` reads after the commit (texts compressed or not, times, flags)."""
    (tmp_path / "ws" / "memory").mkdir(parents=True)
    for n in range(150):  # units enough to train a text dictionary on whichever transcripts the clone holds
        note = f"# Deploy {n}\n\nThe staging deploy {n} needs `make release-{n}` after migrating table t{n}.\n"
        (tmp_path / "ws" / "memory" / f"note-{n:03}.md").write_text(note)
    failed_run = write_transcripts(tmp_path / "failed-run")  # a tool output marked as an error, whatever the clone
    engine = Engine(
        [tmp_path / "ws"],
        Settings(),
        extra_transcripts=[transcript_folder, failed_run],
        index_dir=tmp_path / "i",
        embedder=False,
    )
    made: list[dict[int, Any]] = []
    read: list[dict[int, Any]] = []
    inserted_units = engine.catalog.inserted_units

    def kept(ids: Any, rows: Any) -> dict[int, Any]:
        made.append(inserted_units(ids, rows))
        read.append(engine.catalog.units_by_id(ids))  # what the mirror read before: the units as committed
        return made[-1]

    monkeypatch.setattr(engine.catalog, "inserted_units", kept)
    monkeypatch.setattr(text_compression, "TRAIN_AFTER", 100)  # texts compressed from the first batches on
    engine.sync(embed=False)
    units = {unit_id: row for rows in made for unit_id, row in rows.items()}
    assert len(units) == engine.catalog.unit_count() > 100
    stored = engine.catalog.db.execute("SELECT SUM(typeof(text) = 'blob'), COUNT(*) FROM units").fetchone()
    assert 0 < stored[0] < stored[1]  # texts stored compressed and plain
    assert [[(r.keys(), tuple(r)) for r in rows.values()] for rows in made] == [
        [(r.keys(), tuple(r)) for r in rows.values()] for rows in read
    ]
    assert {row["kind"] for row in units.values()} >= {"memory", "transcript", "tool"}
    assert any(row["error"] for row in units.values()) and any(row["ts"] is None for row in units.values())
    engine.close()


def test_inserted_units_as_sqlite_stores_their_values(tmp_path: Path) -> None:
    """A time given as an integer is read back a float, NaN as NULL, a flag as an integer: so are they made."""
    from memlens.engine.catalog import Catalog, UnitRow

    catalog = Catalog(tmp_path / "catalog.sqlite3")
    base = UnitRow(1, 1, "transcript", "codex", "s", "m", "user", None, 1, 3, 4, None, "hi", "h", False, None, 0)
    rows = [
        base,
        base._replace(ts=1_700_000_000, queue_ts=1_700_000_000, error=True, seq=2),
        base._replace(ts=float("nan"), queue_ts=12.5, seq=3, text="a longer text " * 5, part=1),
        base._replace(kind="memory", format="", session_key=None, message_id=None, role=None, position=None),
    ]
    with catalog.transaction() as db:
        ids = catalog.insert_units(db, rows)
    made, read = catalog.inserted_units(ids, rows), catalog.units_by_id(ids)
    assert [tuple(r) for r in made.values()] == [tuple(r) for r in read.values()]
    assert [type(r["ts"]) for r in made.values()] == [type(None), float, type(None), type(None)]
    catalog.close()


def test_the_facts_a_sync_stores_batch_by_batch_are_the_ones_worked_out_from_the_text(
    tmp_path: Path, transcript_folder: Path
) -> None:
    """The writer works a new unit's facts out from the words it analysed for tantivy (a tool output's without the
    call its header names): each unit's stored facts are those `derived_facts` works out from its text alone."""
    (tmp_path / "ws" / "memory").mkdir(parents=True)
    (tmp_path / "ws" / "memory" / "runbook.md").write_text("# Runbook\n\n[Bash] kubectl rollout restart\nDone?\n")
    engine = Engine(
        [tmp_path / "ws"], Settings(), extra_transcripts=[transcript_folder], index_dir=tmp_path / "i", embedder=False
    )
    engine.sync(embed=False)
    assert not engine.indexer.keyword_behind  # written batch by batch, not deferred to one rewrite
    keyword = engine.indexer.keyword
    stored = engine.catalog.db.execute("SELECT text, kind, words, tool, dup_key, question FROM plain_units").fetchall()
    assert len(stored) > 50
    for text, kind, *facts in stored:
        assert tuple(facts) == tuple(derived_facts(text, kind, keyword)), text[:80]
    calls = [text for text, kind, *_ in stored if tool_output.scored_text(text, kind) != text]
    assert calls  # tool outputs whose header's call their words leave out
    engine.close()
