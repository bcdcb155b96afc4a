"""A parser's cut never runs through a secret: what it keeps of a tool call (the header of the call's output, a
call rendered in its message) and of a long output line is stored and redacted after the cut, and a token cut
short is a piece no detector knows. The cut falls at the secret's start instead."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memlens.engine.engine import Engine
from memlens.engine.sources.common import CALL_SUMMARY_MAX_CHARS, tool_call_summary, truncate
from memlens.engine.sources.tool_output import LINE_MAX_CHARS, trim_output
from memlens.redaction import clear_cut, find_secrets, redact
from memlens.settings import Settings
from planted_secrets import PLANTED, Planted, leaked_fragments

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
    folder = tmp_path / "transcripts" / "claude-code"
    folder.mkdir(parents=True)
    (folder / f"{base['sessionId']}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    (tmp_path / "ws").mkdir()
    settings = Settings()
    settings.transcripts.agent_defaults = False
    settings.privacy.redact_index = redact_index
    with Engine(
        [tmp_path / "ws"],
        settings,
        extra_transcripts=[tmp_path / "transcripts"],
        index_dir=tmp_path / "i",
        embedder=False,
    ) as engine:
        engine.sync()
        hits = engine.search("wombat rejected push", mode="keyword", min_score=0)["results"]
        shown = json.dumps(hits) + json.dumps(engine.history(hits[0]["reference"]))
    assert "--token" in shown  # the header was reached
    assert leaked_fragments(shown, length=6, planted=[GITHUB]) == []
