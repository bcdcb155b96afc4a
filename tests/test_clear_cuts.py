"""A parser's cut never runs through a secret: what it keeps of a tool call (the header of the call's output, a
call rendered in its message) and of a long output line is stored and redacted after the cut, and a token cut
short is a piece no detector knows. The cut falls at the secret's start instead."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claude_lines import claude_line
from memlens.engine.answers.fixes import AFTER_MESSAGE_CHARS
from memlens.engine.engine import Engine
from memlens.engine.sources.common import CALL_SUMMARY_MAX_CHARS, tool_call_summary, truncate
from memlens.engine.sources.tool_output import LINE_MAX_CHARS, trim_output
from memlens.redaction import clear_cut, find_secrets, redact
from memlens.settings import Settings
from planted_secrets import PLANTED, Planted, leaked_fragments
from transcript_fixtures import jsonl

GITHUB = next(p for p in PLANTED if p.kind == "github-pat-classic")


def _one_line(item: Planted) -> bool:
    return "\n" not in item.text


@pytest.mark.parametrize("item", [p for p in PLANTED if _one_line(p)], ids=lambda p: p.kind)
def test_a_cut_anywhere_through_a_secret_keeps_no_piece_of_it(item: Planted) -> None:
    text = "run this: " + item.text
    start = text.index(item.secret)
    for end in range(start + 1, start + len(item.secret), 3):
        kept = truncate(text, end + 1)  # the ellipsis takes the last character
        assert leaked_fragments(redact(kept), length=6, planted=[item]) == [], (end, kept)


def test_a_cut_clear_of_every_secret_stays_where_it_was() -> None:
    text = f"before {GITHUB.secret} after the token, a long way after"
    assert clear_cut(text, len(text) - 5) == len(text) - 5
    assert clear_cut(text, 10) == text.index(GITHUB.secret)
    assert find_secrets(text[: clear_cut(text, 10)]) == []


def test_a_tool_calls_summary_and_a_long_output_line_cut_before_the_token() -> None:
    padding = "x" * (CALL_SUMMARY_MAX_CHARS - 50)  # the token runs over the cut
    summary = tool_call_summary("Bash", {"command": f"git push https://{padding} --token {GITHUB.secret}"})
    assert summary is not None and summary.endswith("--token…")
    long_line = "y" * (LINE_MAX_CHARS - 10) + " " + GITHUB.secret
    output = "\n".join(["Traceback (most recent call last):", long_line, *(f"line {n}" for n in range(3000))])
    assert leaked_fragments(trim_output(output), length=6, planted=[GITHUB]) == []


@pytest.mark.parametrize("redact_index", [True, False])
def test_a_token_cut_by_a_tool_output_header_is_never_shown(tmp_path: Path, redact_index: bool) -> None:
    padding = "x" * (CALL_SUMMARY_MAX_CHARS - 50)  # the token runs over the cut
    command = f"git push https://{padding} --token {GITHUB.secret}"
    base = {"sessionId": "5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9", "cwd": "/w", "version": "2.1.38"}
    use = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": command}}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "remote: wombat rejected the push"}
    lines = [
        {**base, "type": "user", "uuid": "u1", "parentUuid": None, "timestamp": "2026-03-01T10:00:00Z"}
        | {"message": {"role": "user", "content": "push the wombat branch"}},
        {**base, "type": "assistant", "uuid": "a1", "parentUuid": "u1", "timestamp": "2026-03-01T10:00:01Z"}
        | {"message": {"id": "m1", "role": "assistant", "content": [use]}},
        {**base, "type": "user", "uuid": "r1", "parentUuid": "a1", "timestamp": "2026-03-01T10:00:02Z"}
        | {"message": {"role": "user", "content": [result]}},
    ]
    transcript = tmp_path / "transcripts" / "claude-code" / f"{base['sessionId']}.jsonl"
    with _indexed(
        tmp_path, transcript, "".join(json.dumps(line) + "\n" for line in lines).encode(), redact_index
    ) as engine:
        hits = engine.search("wombat rejected push", mode="keyword", min_score=0)["results"]
        shown = json.dumps(hits) + json.dumps(engine.history(hits[0]["reference"]))
    assert "--token" in shown  # the header was reached
    assert leaked_fragments(shown, length=6, planted=[GITHUB]) == []


def test_a_message_after_an_error_cut_by_fixes_shows_no_piece_of_a_token(tmp_path: Path) -> None:
    """`memlens fixes` cuts each message after the error to AFTER_MESSAGE_CHARS; with the index unredacted the
    text it cuts is raw, and the door can not tell the piece left of a token for one."""
    session = "7a1c9e20-3b4d-4f6a-8c2e-1d0f9b8a7c61"
    error = "FAILED tests/test_money.py::test_round_half_up - AssertionError: assert Decimal('0.01') == Decimal('0.02')"
    after = "x" * (AFTER_MESSAGE_CHARS - 20) + f" {GITHUB.secret} was the token the push used"
    call = {"type": "tool_use", "id": "c1", "name": "Bash", "input": {"command": "pytest tests/test_money.py"}}
    output = {"type": "tool_result", "tool_use_id": "c1", "is_error": True, "content": f"Exit code 1\n{error}"}
    lines = [
        claude_line("user", "u1", None, "run the money tests", session=session, timestamp="2026-05-11T10:00:00Z"),
        claude_line("assistant", "a1", "u1", [call], session=session, timestamp="2026-05-11T10:00:05Z"),
        claude_line("user", "r1", "a1", [output], session=session, timestamp="2026-05-11T10:00:10Z"),
        claude_line(
            "assistant",
            "a2",
            "r1",
            [{"type": "text", "text": after}],
            session=session,
            timestamp="2026-05-11T10:00:20Z",
        ),
    ]
    transcript = tmp_path / "transcripts" / "claude-code" / "-w" / f"{session}.jsonl"
    with _indexed(tmp_path, transcript, jsonl(*lines), redact_index=False) as engine:
        answer = engine.fixes(error)
    assert answer["fixes"] and answer["fixes"][0]["after"][0]["text"].endswith("…")  # it was cut
    assert leaked_fragments(json.dumps(answer), length=6, planted=[GITHUB]) == []


def _indexed(tmp_path: Path, transcript: Path, content: bytes, redact_index: bool) -> Engine:
    """A keyword-only engine over one transcript written at `transcript` (under tmp_path/transcripts), synced."""
    transcript.parent.mkdir(parents=True)
    transcript.write_bytes(content)
    (tmp_path / "ws").mkdir()
    settings = Settings()
    settings.transcripts.agent_defaults = False
    settings.privacy.redact_index = redact_index
    engine = Engine(
        [tmp_path / "ws"],
        settings,
        extra_transcripts=[tmp_path / "transcripts"],
        index_dir=tmp_path / "i",
        embedder=False,
    )
    try:
        engine.sync()
    except BaseException:
        engine.close()
        raise
    return engine
