"""A tool output names the call that printed it (engine/sources/tool_output.py): through the real engine, in each of
the four formats, a question naming the command or the file finds the output itself (its body names neither), and a
secret on the command line is masked in the output's header as everywhere else."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from claude_lines import claude_line
from memlens.engine.engine import Engine
from memlens.engine.sources.common import tool_call_summary
from memlens.settings import Settings
from transcript_fixtures import jsonl, openclaw_line

KEY = "AKIA" + "Q3EGRT7X2LMN4PZV"  # concatenated so no scanner flags this file; the detector masks it
# what the commands print: no word of the command or the path that made them
READY = "spotter-gqc.2  Add the bulk resolve endpoint  P1\nspotter-gqc.3  Wire the review page  P2"
MIX = 'defmodule Spotter.MixProject do\n  use Mix.Project\n  defp deps, do: [{:phoenix, "~> 1.7"}]\nend'
STATUS = "On branch main\nChanges not staged for commit:\n\tmodified:   lib/cache.ex"


def _claude_code(root: Path) -> None:
    session = "7a1c9e20-3b4d-4f6a-8c2e-1d0f9b8a7c61"

    def line(kind: str, uuid: str, parent: str | None, content: object) -> dict[str, Any]:
        return claude_line(kind, uuid, parent, content, session=session, timestamp="2026-05-11T10:00:00Z")

    def call(uuid: str, parent: str, tool: str, name: str, tool_input: dict[str, str]) -> dict[str, Any]:
        return line("assistant", uuid, parent, [{"type": "tool_use", "id": tool, "name": name, "input": tool_input}])

    def result(uuid: str, parent: str, tool: str, text: str) -> dict[str, Any]:
        return line("user", uuid, parent, [{"type": "tool_result", "tool_use_id": tool, "content": text}])

    folder = root / "claude-code" / "-w"
    folder.mkdir(parents=True)
    lines = [
        line("user", "u1", None, "pick the next ticket"),
        call("a1", "u1", "t1", "Bash", {"command": "bd ready", "description": "List ready tickets"}),
        result("r1", "a1", "t1", READY),
        call("a2", "r1", "t2", "Read", {"file_path": "/w/mix.exs"}),
        result("r2", "a2", "t2", MIX),
        call("a3", "r2", "t3", "Bash", {"command": f"AWS_ACCESS_KEY_ID={KEY} ./deploy.sh --dry-run"}),
        result("r3", "a3", "t3", "deploy: 3 services would restart"),
    ]
    (folder / f"{session}.jsonl").write_bytes(jsonl(*lines))


def _codex(root: Path) -> None:
    def item(payload: dict[str, object]) -> dict[str, Any]:
        return {"timestamp": "2026-03-09T16:20:01Z", "type": "response_item", "payload": payload}

    folder = root / "codex" / "2026" / "03" / "09"
    folder.mkdir(parents=True)
    arguments = json.dumps({"cmd": "git status --short"})
    lines: list[dict[str, Any]] = [
        {"timestamp": "2026-03-09T16:20:00Z", "type": "session_meta", "payload": {"id": "c1", "cwd": "/w"}},
        item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "what changed"}]}),
        item({"type": "function_call", "name": "exec_command", "call_id": "call_1", "arguments": arguments}),
        item({"type": "function_call_output", "call_id": "call_1", "output": STATUS}),
    ]
    (folder / "rollout-2026-03-09T16-20-00-c1.jsonl").write_bytes(jsonl(*lines))


def _openclaw(root: Path) -> None:
    line = openclaw_line

    folder = root / "openclaw"
    folder.mkdir(parents=True)
    call: dict[str, object] = {
        "type": "toolCall",
        "id": "tc1",
        "name": "read",
        "arguments": {"path": "/w/notes/fishing-trip.md"},
    }
    output = "Day one: caught two trout at the north dam.\nDay two: rain all morning."
    result: dict[str, object] = {
        "role": "toolResult",
        "toolCallId": "tc1",
        "toolName": "read",
        "content": [{"type": "text", "text": output}],
    }
    lines = [
        {"type": "session", "version": 3, "id": "oc1", "timestamp": "2026-02-26T14:29:50.000Z"},
        line("a", None, {"role": "user", "content": [{"type": "text", "text": "what did I write"}]}),
        line("b", "a", {"role": "assistant", "content": [call]}),
        line("c", "b", result),
    ]
    (folder / "oc1.jsonl").write_bytes(jsonl(*lines))


def _specstory(root: Path) -> None:
    folder = root / "specstory" / ".specstory" / "history"
    folder.mkdir(parents=True)
    md = [
        "_**User (2026-05-11 10:00:00Z)**_",
        "",
        "check the types",
        "",
        "_**Agent (model-x 2026-05-11 10:00:06Z)**_",
        "",
        '<tool-use data-tool-type="shell" data-tool-name="Bash"><details>',
        "<summary>Tool use: **Bash**</summary>",
        "```bash",
        "pyright billing",
        "```",
        "```text",
        "0 errors, 0 warnings, 0 informations",
        "```",
        "</details></tool-use>",
        "",
    ]
    (folder / "2026-05-11_10-00-00Z-check-the-types.md").write_text("\n".join(md), encoding="utf-8")


def _synced(root: Path, embedder: Any) -> Iterator[Engine]:
    """An engine over one session of each format written under `root`, synced."""
    transcripts = root / "transcripts"
    for write in (_claude_code, _codex, _openclaw, _specstory):
        write(transcripts)
    workspace = root / "ws"
    workspace.mkdir()
    with Engine([workspace], Settings(), [transcripts], index_dir=root / "index", embedder=embedder) as opened:
        opened.sync()
        yield opened


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    yield from _synced(tmp_path_factory.mktemp("tool-call-header"), False)


def _tool_units(engine: Engine) -> dict[str, str]:
    rows = engine.catalog.db.execute("SELECT message_id, text FROM plain_units WHERE kind = 'tool'").fetchall()
    return {str(row[0]): str(row[1]) for row in rows}


@pytest.mark.parametrize(
    ("query", "body"),
    [
        ("show me the output of bd ready", "spotter-gqc.2"),  # Claude Code, a shell command
        ("what was in mix.exs when it was read", "Spotter.MixProject"),  # Claude Code, a file read
        ("what did git status print", "Changes not staged"),  # Codex
        ("the output of reading fishing-trip.md", "caught two trout"),  # OpenClaw
        ("what did pyright billing print", "0 errors, 0 warnings"),  # SpecStory
    ],
)
def test_a_question_naming_the_call_finds_its_output(engine: Engine, query: str, body: str) -> None:
    results = engine.search(query, mode="keyword", min_score=0.0)["results"]
    assert results, query
    top = results[0]  # the output, above the call that holds the same command and is shorter
    assert top["kind"] == "tool" and body in top["excerpt"], [(r["kind"], r["excerpt"][:60]) for r in results[:3]]


def test_each_format_names_the_call_in_its_outputs_header(engine: Engine) -> None:
    headers = {text.split("\n", 1)[0] for text in _tool_units(engine).values()}
    assert {
        "[Bash output] $ bd ready",
        "[Read output] /w/mix.exs",
        "[exec_command output] $ git status --short",
        "[read output] /w/notes/fishing-trip.md",
        "[Bash output] pyright billing",
    } <= headers


def test_a_secret_on_the_command_line_is_masked_in_the_outputs_header(engine: Engine) -> None:
    [deploy] = [text for text in _tool_units(engine).values() if "3 services would restart" in text]
    header = deploy.split("\n", 1)[0]
    assert header.startswith("[Bash output] $ AWS_ACCESS_KEY_ID=") and "deploy.sh --dry-run" in header
    assert KEY not in deploy and "REDACTED" in header
    found = engine.search("deploy.sh dry-run output", mode="keyword", min_score=0.0)
    assert found["results"] and KEY not in json.dumps(found)


def test_a_search_that_does_not_ask_for_output_scores_the_command_once(engine: Engine) -> None:
    """The call's words are scored in the call's message alone (the output's header names it, but its `text` field
    leaves the call out): the output, whose own text holds none of them, is not a keyword hit for them unless the
    question asks what the command printed."""
    rows = engine.catalog.db.execute("SELECT id, kind, text FROM plain_units").fetchall()
    [output] = [int(r[0]) for r in rows if r[1] == "tool" and "spotter-gqc.2" in r[2]]
    [call] = [int(r[0]) for r in rows if r[1] != "tool" and "bd ready" in r[2]]
    plain = [unit for unit, _ in engine.keyword.search(engine.keyword.parse("bd ready"), 20)]
    asked = [unit for unit, _ in engine.keyword.search(engine.keyword.parse("the output of bd ready"), 20)]
    assert call in plain and output not in plain
    assert output in asked


def test_history_shows_a_calls_command_once(engine: Engine) -> None:
    messages = engine.history("7a1c9e20-3b4d-4f6a-8c2e-1d0f9b8a7c61", limit=20)["messages"]
    naming = [m["text"] for m in messages if "bd ready" in m["text"]]
    assert len(naming) == 1 and naming[0].startswith("[Bash] bd ready"), naming
    [output] = [m["text"] for m in messages if "spotter-gqc.2" in m["text"]]
    assert output.startswith("[Bash output]\n"), output


@pytest.fixture(scope="module")
def hybrid_engine(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Iterator[Engine]:
    yield from _synced(tmp_path_factory.mktemp("tool-call-header-hybrid"), embedder)


@pytest.mark.parametrize(
    ("query", "body"),
    [
        ("show me the output of bd ready", "spotter-gqc.2"),
        ("what did git status print", "Changes not staged"),
        ("what did pyright billing print", "0 errors, 0 warnings"),
    ],
)
def test_a_hybrid_search_asking_for_output_ranks_it_first(hybrid_engine: Engine, query: str, body: str) -> None:
    """The learned ranker, fitted on no question that asks what a command printed, leaves such a question the rules'
    order, which puts the output above the call that holds the same words."""
    results = hybrid_engine.search(query, mode="hybrid", min_score=0.0)["results"]
    assert results and results[0]["kind"] == "tool" and body in results[0]["excerpt"], [
        (r["kind"], r["excerpt"][:50]) for r in results[:3]
    ]


@pytest.mark.parametrize("key", ["password", "apiKey", "token", "client_secret", "db_password", "auth_token"])
def test_an_argument_its_key_makes_secret_never_heads_the_output(key: str) -> None:
    """A call with no command, file or query is summed up by its first short argument; shown without its key, a
    password is a word no detector can tell from any other, so an argument its key makes secret is passed over."""
    value = "hunter2Horse" + "Staple9"  # a password with no token's shape: only its key says what it is
    summary = tool_call_summary("mcp__db__query", {key: value, "database": "billing"})
    assert summary == "billing"
    assert tool_call_summary("mcp__db__connect", {key: value}) is None  # nothing else to say: no header
