"""The parser tests on the real transcripts in ../shared: exact counts, ids and excluded content of sessions
recorded by the real tools. Without ../shared this module skips as a whole (one skip); the same behaviours are
asserted on the committed synthetic fixtures in test_parsers.py, which always run."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memlens.engine.sources import (
    detect_format,
    get_parser,
    parse_file,
    read_head,
    select_active_branch,
    split_branches,
)
from memlens.engine.sources.claude_code import ClaudeCodeParser
from memlens.engine.sources.codex import CodexParser
from transcript_fixtures import TRANSCRIPTS, all_text, counts, jsonl, parsed

if not TRANSCRIPTS.is_dir():
    pytest.skip(
        f"real transcripts not found at {TRANSCRIPTS} (../shared is absent): test_parsers.py covers the same "
        "behaviours on the committed synthetic fixtures",
        allow_module_level=True,
    )

CC_MAIN = "claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl"
CC_SUBAGENTS = "claude-code/258c7280-ae70-4798-800f-63464d01a85d/subagents"
TURN = "claude-code/incremental-subagents"
CODEX_NEW = "codex/2026/05/11/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
CODEX_A = "codex/2026/02/23/rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl"
CODEX_B = "codex/2026/02/23/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl"
OC_BAD = "openclaw/b3db607f-7ae8-4089-b806-44800e961672.jsonl"
OC_GOOD = "openclaw/f967d602-325a-4a45-8d54-ee17484cfd96.jsonl"
SPEC = "specstory/.specstory/history"

# (format, user messages, assistant messages, summaries), counted independently of the parsers: assistant
# messages as distinct message.id values with text/tool_use (jq), the rest by reading the files.
EXPECTED: dict[str, tuple[str | None, int, int, int]] = {
    CC_MAIN: ("claude-code", 4, 152, 1),  # 2 typed prompts + 2 queued mid-turn prompts; 1 isCompactSummary
    f"{CC_SUBAGENTS}/agent-a881341.jsonl": ("claude-code", 1, 3, 0),
    f"{CC_SUBAGENTS}/agent-acompact-fffbd0.jsonl": ("claude-code", 1, 1, 0),
    f"{TURN}/README.md": (None, 0, 0, 0),
    f"{TURN}/turn-1.jsonl": ("claude-code", 1, 7, 1),
    f"{TURN}/turn-1/subagents/agent-a485154.jsonl": ("claude-code", 1, 6, 0),
    f"{TURN}/turn-2.jsonl": ("claude-code", 1, 11, 1),
    f"{TURN}/turn-2/subagents/agent-a485154.jsonl": ("claude-code", 1, 6, 0),
    "claude-code/short.jsonl": ("claude-code", 1, 1, 0),
    "claude-code/subagent.jsonl": ("claude-code", 2, 12, 0),  # "/handgemacht:create-beads <args>" + 1 prompt
    "claude-code/tool_heavy.jsonl": ("claude-code", 2, 4, 0),
    CODEX_A: ("codex", 3, 17, 0),  # redacted: injected context can't be told apart from prompts
    CODEX_B: ("codex", 4, 1, 0),
    CODEX_NEW: ("codex", 2, 14, 0),  # 13 messages + 1 tool-call-only record (calls before the first reply)
    OC_BAD: ("openclaw", 4, 8, 0),
    OC_GOOD: ("openclaw", 3, 9, 0),
    # 57 agent blocks, 5 of them a bare "[Edit]" stub folded into the agent message before it
    f"{SPEC}/2026-01-16_16-48-38Z-the-code-in-specstory.md": ("specstory", 8, 52, 0),
    f"{SPEC}/2026-05-10_09-00-00Z-where-is-save-implemented.md": ("specstory", 7, 7, 0),
    f"{SPEC}/2026-05-11_10-00-00Z-where-is-token-validation.md": ("specstory", 4, 4, 0),
}


def test_every_real_fixture_is_listed() -> None:
    found = {str(p.relative_to(TRANSCRIPTS)) for p in TRANSCRIPTS.rglob("*") if p.is_file()}
    assert found == set(EXPECTED)


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_real_fixture_format_and_counts(rel: str) -> None:
    fmt, users, assistants, summaries = EXPECTED[rel]
    path = TRANSCRIPTS / rel
    data = path.read_bytes()
    parser = detect_format(read_head(data), path)
    assert (parser.format if parser else None) == fmt
    if fmt is None:
        assert parse_file(path) is None
        return
    result = parsed(rel)
    assert result.format == fmt
    assert counts(result) == (users, assistants, summaries)
    assert result.consumed_bytes == len(data)
    assert all(r.text == r.text.strip() and r.text for r in result.records)
    assert all(r.position >= 1 for r in result.records)
    assert len({r.message_id for r in result.records}) == len(result.records)
    selection = split_branches(result.records)
    assert (selection.abandoned, selection.orphaned) == (0, 0)
    assert len(selection.records) == len(result.records)
    assert result.bad_lines == 0


@pytest.mark.parametrize(
    "rel",
    ["claude-code/short.jsonl", CODEX_B, OC_GOOD, f"{SPEC}/2026-05-11_10-00-00Z-where-is-token-validation.md"],
)
def test_partial_trailing_line_not_consumed(rel: str) -> None:
    path = TRANSCRIPTS / rel
    data = path.read_bytes()
    cut = data.rstrip(b"\n").rfind(b"\n") + 1  # start of the last line
    partial = data[:cut] + data[cut:].rstrip(b"\n")[:15]
    parser = get_parser(parsed(rel).format)
    assert parser is not None
    result = parser.parse(partial, path)
    assert result.consumed_bytes == cut
    assert result.bad_lines == 0 and result.errors == []
    last_line = data[:cut].count(b"\n") + 1
    assert all(r.position < last_line for r in result.records)


def test_session_ids_and_cwd() -> None:
    assert parsed("claude-code/short.jsonl").session_id == "55604662-cf2a-4331-851a-ec234028f8ca"
    assert parsed("claude-code/short.jsonl").cwd == "/home/marco/projects/spotter"
    assert parsed(CODEX_NEW).session_id == "019e1625-789d-76c0-80ab-3724b5ddb799"
    assert parsed(CODEX_NEW).cwd == "/Users/Sample_User/repos/codemie-ai/codemie-code"
    assert (parsed(OC_GOOD).session_id, parsed(OC_GOOD).cwd) == (
        "f967d602-325a-4a45-8d54-ee17484cfd96",
        "/app",
    )
    spec = parsed(f"{SPEC}/2026-01-16_16-48-38Z-the-code-in-specstory.md")
    assert spec.session_id == "e317d7b9-3289-4345-9c97-0bb1e3d998c8"
    assert spec.title == "the code in specstory"


@pytest.mark.parametrize(
    ("rel", "excluded"),
    [
        ("claude-code/short.jsonl", "trouble starting their Phoenix server"),  # thinking
        ("claude-code/short.jsonl", "Request interrupted"),
        ("claude-code/short.jsonl", "Kept model as"),  # system local_command
        ("claude-code/tool_heavy.jsonl", "Reconnected to tidewave"),  # <local-command-stdout> user line
        ("claude-code/tool_heavy.jsonl", "Caveat: The messages below"),  # isMeta
        ("claude-code/subagent.jsonl", "with a structured preview before execution"),  # isMeta skill text
        (CC_MAIN, "<task-notification>"),
        (CODEX_NEW, "Filesystem sandboxing defines"),  # developer prompt
        (CODEX_NEW, "AGENTS.md instructions"),
        (CODEX_NEW, "<environment_context>"),
        (OC_BAD, "a classic programmer greeting"),  # thinking
        (OC_GOOD, "A new session was started via /new or /reset"),  # injected startup prompt
        (f"{SPEC}/2026-01-16_16-48-38Z-the-code-in-specstory.md", "Let me start by exploring both locations"),
        (f"{SPEC}/2026-01-16_16-48-38Z-the-code-in-specstory.md", "Catch you later"),
    ],
)
def test_excluded_content_absent(rel: str, excluded: str) -> None:
    assert excluded in (TRANSCRIPTS / rel).read_text(encoding="utf-8")  # the probe is real
    assert excluded not in all_text(parsed(rel))


@pytest.mark.parametrize(
    ("rel", "output"),
    [
        ("claude-code/short.jsonl", "doesn't want to proceed with this tool use"),  # tool_result
        (CODEX_NEW, "Chunk ID: 8731b0"),  # function_call_output
        (OC_BAD, "ENOENT"),  # toolResult
        (f"{SPEC}/2026-01-16_16-48-38Z-the-code-in-specstory.md", "ISSUE_TEMPLATE/cloud-bug-feature.md"),
    ],
)
def test_tool_output_is_a_tool_record(rel: str, output: str) -> None:
    """A tool's output is a record of its own (kind "tool"), never part of a message's text."""
    assert output in (TRANSCRIPTS / rel).read_text(encoding="utf-8")  # the probe is real
    records = parsed(rel).records
    assert output not in "\n".join(r.text for r in records if r.kind != "tool")
    assert any(output in r.text for r in records if r.kind == "tool")


def test_codex_messages_not_indexed_twice() -> None:
    texts = [r.text for r in parsed(CODEX_NEW).records]
    assert sum(t.startswith("Available tool groups in this session") for t in texts) == 1
    assert sum(t == "show tools" for t in texts) == 1


def test_tool_inputs_kept_and_truncated() -> None:
    assert "[Bash] mix phx.server 2>&1 | head -80" in all_text(parsed("claude-code/short.jsonl"))
    assert "[Glob] pattern=mix.exs path=/home/marco/projects/spotter" in all_text(parsed("claude-code/short.jsonl"))
    assert "[exec] ls -la /home/node/.openclaw/workspace/memory/" in all_text(parsed(OC_BAD))
    assert "[Bash] List root directory structure" in all_text(
        parsed(f"{SPEC}/2026-01-16_16-48-38Z-the-code-in-specstory.md")
    )
    codex = all_text(parsed(CODEX_NEW))
    assert "[exec_command] rg -n " in codex
    patches = re.findall(r"^\[apply_patch\] (.*)$", codex, re.MULTILINE)
    assert patches and all(len(p) <= 500 for p in patches) and any(p.endswith("…") for p in patches)

    path = TRANSCRIPTS / "claude-code/subagent.jsonl"
    short = ClaudeCodeParser(tool_input_max_chars=40).parse(path.read_bytes(), path)
    bash = re.findall(r"^\[Bash\] (.*)$", all_text(short), re.MULTILINE)
    assert bash and all(len(b) <= 40 for b in bash)
    assert any(b.startswith("bd create --title=") and b.endswith("…") for b in bash)


def test_claude_code_merges_split_assistant_lines() -> None:
    lines = [json.loads(x) for x in (TRANSCRIPTS / "claude-code/short.jsonl").read_text().splitlines()]
    split = [x for x in lines if x.get("message", {}).get("id") == "msg_01MKH1ccEGrZGNPvu8pYiiQa"]
    assert len(split) == 5
    [record] = [r for r in parsed("claude-code/short.jsonl").records if r.role == "assistant" and r.kind != "tool"]
    assert record.message_id == split[0]["uuid"]
    assert record.uuid == split[-1]["uuid"]
    assert record.parent_uuid == split[0]["parentUuid"]
    assert record.position == 5
    assert record.text.startswith("Let me check the project structure")
    assert "[Bash]" in record.text and "[Glob]" in record.text


def test_claude_code_subagents() -> None:
    main = parsed(CC_MAIN)
    assert not any(r.is_sidechain for r in main.records) and main.parent_session_id is None
    for agent in ("a881341", "acompact-fffbd0"):
        sub = parsed(f"{CC_SUBAGENTS}/agent-{agent}.jsonl")
        assert sub.agent_id == agent
        assert sub.parent_session_id == "258c7280-ae70-4798-800f-63464d01a85d"
        assert sub.session_id == "258c7280-ae70-4798-800f-63464d01a85d"  # the sessionId inside the lines
        assert sub.records and all(r.is_sidechain for r in sub.records)
        assert select_active_branch(sub.records) == sub.records
    turn = parsed(f"{TURN}/turn-1/subagents/agent-a485154.jsonl")
    assert (turn.agent_id, turn.parent_session_id) == ("a485154", "e9fb405b-169f-40eb-9396-7e75076f045d")
    assert all(r.is_sidechain for r in turn.records)


def test_claude_code_summaries() -> None:
    [line_summary] = [r for r in parsed(f"{TURN}/turn-1.jsonl").records if r.kind == "summary"]
    assert line_summary.text == "Metrics Calculations Verification and Discrepancy Analysis"
    assert line_summary.uuid is None and line_summary.position == 1
    main = parsed(CC_MAIN)
    [compact] = [r for r in main.records if r.kind == "summary"]
    assert compact.role == "assistant" and compact.position == 1257
    assert compact.text.startswith("This session is being continued from a previous conversation")
    # compact_boundary has a null parentUuid: the chain continues through its logicalParentUuid
    before = [r for r in main.records if r.position < 1256]
    assert compact.parent_uuid == before[-1].uuid
    assert set(map(id, before)) <= set(map(id, select_active_branch(main.records)))


def test_claude_code_queued_prompts() -> None:
    queued = [r for r in parsed(CC_MAIN).records if r.message_id.startswith("Q")]
    assert [(r.position, r.text) for r in queued] == [
        (497, "check again"),
        (603, "new beads for the epic were added. tackle them"),
    ]


def test_tail_parse_positions() -> None:
    first = (TRANSCRIPTS / f"{TURN}/turn-1.jsonl").read_bytes()
    path = TRANSCRIPTS / f"{TURN}/turn-2.jsonl"
    whole = path.read_bytes()
    assert whole.startswith(first)
    head = parse_file(path, first)
    tail = parse_file(path, whole[len(first) :], start_line=first.count(b"\n") + 1)
    assert head is not None and tail is not None
    assert tail.session_id == "e9fb405b-169f-40eb-9396-7e75076f045d"
    assert tail.consumed_bytes == len(whole) - len(first)
    full = parsed(f"{TURN}/turn-2.jsonl")
    key = [(r.message_id, r.position, r.text, r.parent_uuid) for r in full.records]
    assert [(r.message_id, r.position, r.text, r.parent_uuid) for r in head.records + tail.records] == key
    assert [r.position for r in tail.records if r.kind != "tool"] == [27, 35, 42, 47]


def test_malformed_openclaw_file() -> None:
    path = TRANSCRIPTS / OC_BAD
    assert path.read_bytes().startswith(b"/speci{")
    parser = detect_format(read_head(path.read_bytes()), path)
    assert parser is not None and parser.format == "openclaw"
    result = parsed(OC_BAD)
    # the session line behind the torn bytes is read: its id (not the file name's) and its folder
    assert result.bad_lines == 0 and result.errors == ["line 1: 6 characters of a torn write skipped before its record"]
    assert result.session_id == "b3db607f-7ae8-4089-b806-44800e961672" and not result.session_from_path
    assert result.cwd == "/app"
    assert result.records[0].position == 2


def test_timestamps_parsed() -> None:
    first_user = parsed("claude-code/short.jsonl").records[0]
    assert first_user.timestamp == datetime(2026, 2, 10, 21, 11, 56, 846000, tzinfo=UTC).timestamp()
    show = next(r for r in parsed(CODEX_NEW).records if r.text == "show tools")
    assert show.timestamp == datetime(2026, 5, 11, 8, 27, 17, 494000, tzinfo=UTC).timestamp()
    hello = next(r for r in parsed(OC_GOOD).records if r.text == "Hello")
    assert hello.timestamp == datetime(2026, 2, 27, 15, 30, 15, 339000, tzinfo=UTC).timestamp()
    spec = parsed(f"{SPEC}/2026-05-11_10-00-00Z-where-is-token-validation.md").records
    assert spec[0].timestamp == datetime(2026, 5, 11, 10, 0, 0, tzinfo=UTC).timestamp()
    assert spec[1].timestamp == datetime(2026, 5, 11, 10, 0, 5, tzinfo=UTC).timestamp()
    assert parsed(f"{TURN}/turn-1.jsonl").records[0].timestamp is None  # a summary line has no time


def test_codex_compacted_summary() -> None:
    meta = (TRANSCRIPTS / CODEX_NEW).read_text().splitlines()[0]
    compacted = {
        "timestamp": "2026-05-11T09:00:00.000Z",
        "type": "compacted",
        "payload": {
            "message": "Summary: the user raised the compaction threshold to 90%.",
            "replacement_history": [],
        },
    }
    result = CodexParser().parse(meta.encode() + b"\n" + jsonl(compacted), Path("rollout-x.jsonl"))
    [summary] = result.records
    assert (summary.kind, summary.role, summary.position) == ("summary", "assistant", 2)
    assert summary.text.startswith("Summary: the user raised")
    assert result.session_id == "019e1625-789d-76c0-80ab-3724b5ddb799"
