"""Tests the transcript parsers on the synthetic transcripts committed under tests/fixtures (always) and on
inline synthetic cases. test_parsers_real.py asserts the same behaviours on the real transcripts in ../shared
when that folder is present."""

from __future__ import annotations

import json
import random
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memlens.engine.engine import Engine
from memlens.engine.indexing.ingest import transcript_content
from memlens.engine.sources import (
    PARSERS,
    ParseResult,
    detect_format,
    get_parser,
    parse_file,
    read_head,
    select_active_branch,
    split_branches,
)
from memlens.engine.sources.claude_code import ClaudeCodeParser
from memlens.engine.sources.codex import CodexParser
from memlens.engine.sources.common import parse_timestamp
from memlens.engine.sources.openclaw import OpenClawParser
from memlens.engine.sources.specstory import SpecStoryParser, without_closing_rule
from memlens.settings import ChunkingSettings, Settings
from transcript_fixtures import SYNTHETIC, all_text, counts, fixture_path, jsonl, parsed

SYN_CC = "claude-code/5f1c2a7e-9b0d-4e8a-a1c3-2d4e6f8a0b1c.jsonl"
SYN_CC_AGENT = "claude-code/5f1c2a7e-9b0d-4e8a-a1c3-2d4e6f8a0b1c/subagents/agent-a7c41d2.jsonl"
SYN_CC_BROKEN = "claude-code/8d2e4b6a-1c3f-4a5b-9e7d-0f1a2b3c4d5e.jsonl"
SYN_CODEX = "codex/2026/03/03/rollout-2026-03-03T14-00-00-019c9f10-4b2a-7c11-8e3d-5a6b7c8d9e0f.jsonl"
SYN_CODEX_EVENTS = "codex/2026/03/04/rollout-2026-03-04T08-00-00-019c9f22-7d3e-7f20-9a4b-1c2d3e4f5a6b.jsonl"
SYN_CODEX_TOOLS = "codex/2026/03/09/rollout-2026-03-09T16-20-00-019ca1b3-2e4f-7a60-8c1d-3f5a7b9c0d2e.jsonl"
SYN_OC = "openclaw/3b9d7f1e-2a4c-4e6b-8d0f-1a3c5e7b9d2f.jsonl"
SYN_OC_BAD = "openclaw/7c2e9a14-5d3b-4f8e-a6c1-0b9d2e4f7a35.jsonl"
SYN_SPEC = "specstory/.specstory/history/2026-03-06_11-00-00Z-webhook-signature-validation.md"
INC_SESSION = "c4e8a1f2-6b3d-4f7a-9e2c-1d5b8a3f6e90"
INC_1 = "claude-code/turn-1.jsonl"
INC_2 = "claude-code/turn-2.jsonl"  # turn-1 plus a second turn appended
INC_AGENT = "claude-code/turn-1/subagents/agent-b91e2c4.jsonl"

# The synthetic fixtures, counted by reading them: (format, user, assistant, summary records, bad lines,
# records the branch rule drops as abandoned edits, records it keeps as orphans of broken links).
SYN_EXPECTED: dict[str, tuple[str, int, int, int, int, int, int]] = {
    # 4 typed prompts (one of them edited, so abandoned with its answer) + 1 queued prompt; a `summary` line and
    # an isCompactSummary user after a compact_boundary; 8 API messages (a thinking-only line merges with its text)
    SYN_CC: ("claude-code", 5, 8, 2, 0, 2, 0),
    SYN_CC_AGENT: ("claude-code", 1, 2, 0, 0, 0, 0),
    # line 4 is cut mid-string; line 7 names a parent that is not in the file: both runs after a break are kept
    SYN_CC_BROKEN: ("claude-code", 4, 3, 0, 1, 0, 4),
    SYN_CODEX: ("codex", 2, 4, 1, 0, 0, 0),  # event_msg copies of the 4 messages are not indexed again
    SYN_CODEX_EVENTS: ("codex", 2, 4, 0, 0, 0, 0),  # user and agent turns only as event_msg lines
    # 3 injected user messages skipped; a tool-call-only record (a call before the first reply)
    SYN_CODEX_TOOLS: ("codex", 1, 3, 0, 0, 0, 0),
    SYN_OC: ("openclaw", 2, 5, 2, 0, 1, 0),  # m6 is the answer regenerated as m7
    SYN_OC_BAD: ("openclaw", 2, 3, 0, 0, 0, 0),  # line 1: a slash command's bytes torn before the session line
    SYN_SPEC: ("specstory", 2, 8, 0, 0, 0, 0),  # 3 of the 8 agent messages are a sidechain's
}
# The incremental pair (outside the tree above, whose sessions are indexed together by other tests): prompts
# u-0001 and u-0009 (the rest are tool results, an interruption, isMeta, command echoes), 5 API messages with text
# or tool calls and the `summary` line; turn-2 adds a prompt, a queued prompt and 3 API messages.
INC_EXPECTED: dict[str, tuple[str, int, int, int, int, int, int]] = {
    INC_1: ("claude-code", 2, 5, 1, 0, 0, 0),
    INC_2: ("claude-code", 4, 8, 1, 0, 0, 0),
    INC_AGENT: ("claude-code", 1, 2, 0, 0, 0, 0),
}
EXPECTED_BY_ROOT = {"synthetic": SYN_EXPECTED, "incremental": INC_EXPECTED}
FIXTURE_SETS = [(root, rel) for root, expected in EXPECTED_BY_ROOT.items() for rel in sorted(expected)]


def synthetic(rel: str) -> ParseResult:
    return parsed(rel, "synthetic")


def incremental(rel: str) -> ParseResult:
    return parsed(rel, "incremental")


# --- every fixture: format and counts ---


@pytest.mark.parametrize("root", sorted(EXPECTED_BY_ROOT))
def test_every_fixture_is_listed(root: str) -> None:
    base = fixture_path(root, "")
    found = {str(p.relative_to(base)) for p in base.rglob("*") if p.is_file()}
    assert found == set(EXPECTED_BY_ROOT[root])


@pytest.mark.parametrize(("root", "rel"), FIXTURE_SETS)
def test_fixture_format_and_counts(root: str, rel: str) -> None:
    fmt, users, assistants, summaries, bad, abandoned, orphaned = EXPECTED_BY_ROOT[root][rel]
    path = fixture_path(root, rel)
    data = path.read_bytes()
    parser = detect_format(read_head(data), path)
    assert (parser.format if parser else None) == fmt
    result = parsed(rel, root)
    assert result.format == fmt
    assert counts(result) == (users, assistants, summaries)
    assert result.consumed_bytes == len(data)
    assert all(r.text == r.text.strip() and r.text for r in result.records)
    assert all(r.position >= 1 for r in result.records)
    assert len({r.message_id for r in result.records}) == len(result.records)
    selection = split_branches(result.records)
    assert (selection.abandoned, selection.orphaned) == (abandoned, orphaned)
    assert len(selection.records) == len(result.records) - abandoned
    assert result.bad_lines == bad


def test_session_ids_cwd_and_title() -> None:
    assert (incremental(INC_2).session_id, incremental(INC_2).cwd) == (INC_SESSION, "/home/dev/projects/exporter")
    codex = synthetic(SYN_CODEX_TOOLS)
    assert (codex.session_id, codex.cwd) == ("019ca1b3-2e4f-7a60-8c1d-3f5a7b9c0d2e", "/home/dev/projects/billing")
    assert (synthetic(SYN_OC).session_id, synthetic(SYN_OC).cwd) == (
        "3b9d7f1e-2a4c-4e6b-8d0f-1a3c5e7b9d2f",
        "/home/dev/.openclaw/workspace",
    )
    spec = synthetic(SYN_SPEC)
    assert spec.session_id == "6e8a0c2d-4f6b-4a8d-9c0e-2b4d6f8a0c3e"
    assert spec.title == "webhook signature validation"


# --- exclusions and tool inputs ---


@pytest.mark.parametrize(
    ("root", "rel", "excluded"),
    [
        ("incremental", INC_2, "Parser lives in cli/export.py"),  # thinking
        ("incremental", INC_2, "Request interrupted"),
        ("incremental", INC_2, "Caveat: The messages below"),  # isMeta
        ("incremental", INC_2, "Set model to opus-4-1"),  # <local-command-stdout> user line
        ("incremental", INC_2, "<command-name>/model"),  # a command echo without arguments
        ("incremental", INC_2, "<task-notification>"),
        ("synthetic", SYN_CC, "Probably date arithmetic."),  # thinking
        ("synthetic", SYN_CODEX_TOOLS, "Filesystem sandboxing"),  # developer prompt
        ("synthetic", SYN_CODEX_TOOLS, "AGENTS.md instructions"),
        ("synthetic", SYN_CODEX_TOOLS, "<environment_context>"),
        ("synthetic", SYN_OC_BAD, "search the memory folder for garage"),  # thinking
        ("synthetic", SYN_OC, "A new session was started via /new or /reset"),  # injected startup prompt
        ("synthetic", SYN_SPEC, "Probably in the webhooks module."),  # <think>
    ],
)
def test_excluded_content_absent(root: str, rel: str, excluded: str) -> None:
    assert excluded in fixture_path(root, rel).read_text(encoding="utf-8")  # the probe is real
    assert excluded not in all_text(parsed(rel, root))


@pytest.mark.parametrize(
    ("root", "rel", "output"),
    [
        ("incremental", INC_2, "doesn't want to proceed with this tool use"),  # tool_result
        ("incremental", INC_AGENT, "| --output | where to write |"),  # a subagent's tool_result
        ("synthetic", SYN_CC, "4 passed in 0.12s"),  # tool_result
        ("synthetic", SYN_CODEX_TOOLS, "Chunk ID: 5e21c4"),  # function_call_output
        ("synthetic", SYN_CODEX_TOOLS, "Success. Updated billing/rounding.py"),  # custom_tool_call_output
        ("synthetic", SYN_OC_BAD, "No such file or directory"),  # toolResult
        ("synthetic", SYN_SPEC, "app/webhooks/verify.py:18:"),  # a tool's output fence
    ],
)
def test_tool_output_is_a_tool_record(root: str, rel: str, output: str) -> None:
    """A tool's output is a record of its own (kind "tool"), never part of a message's text."""
    assert output in fixture_path(root, rel).read_text(encoding="utf-8")  # the probe is real
    records = parsed(rel, root).records
    assert output not in "\n".join(r.text for r in records if r.kind != "tool")
    assert any(output in r.text for r in records if r.kind == "tool")


def test_codex_tool_call_before_the_first_reply_is_a_record() -> None:
    records = [r for r in synthetic(SYN_CODEX_TOOLS).records if r.kind != "tool"]
    assert [(r.position, r.role) for r in records] == [
        (6, "user"),
        (8, "assistant"),
        (11, "assistant"),
        (15, "assistant"),
    ]
    assert records[1].text == "[exec_command] rg -n ROUND_ billing/"
    texts = [r.text for r in records]
    assert sum(t.startswith("Only ROUND_00 exists") for t in texts) == 1  # not again from its event_msg copy


def test_tool_inputs_kept_and_truncated() -> None:
    cc = all_text(incremental(INC_2))
    assert "[Bash] grep -n 'add_argument' cli/export.py && python -m exporter export --help | head -40" in cc
    assert "[Glob] pattern=cli/**/*.py path=/home/dev/projects/exporter" in cc
    assert "[exec] grep -ril garage memory/" in all_text(synthetic(SYN_OC_BAD))
    assert '[Grep] rg -n "hmac.compare_digest" app/' in all_text(synthetic(SYN_SPEC))
    codex = all_text(synthetic(SYN_CODEX_TOOLS))
    assert "[exec_command] rg -n ROUND_ billing/" in codex
    patches = re.findall(r"^\[apply_patch\] (.*)$", codex, re.MULTILINE)
    assert patches and all(len(p) <= 500 for p in patches) and any(p.endswith("…") for p in patches)
    assert len(fixture_path("synthetic", SYN_CODEX_TOOLS).read_text()) > 1000  # the patch itself is longer

    path = fixture_path("incremental", INC_2)
    short = ClaudeCodeParser(tool_input_max_chars=40).parse(path.read_bytes(), path)
    bash = re.findall(r"^\[Bash\] (.*)$", all_text(short), re.MULTILINE)
    assert len(bash) == 2 and all(len(b) <= 40 for b in bash)
    assert any(b.startswith("grep -n 'add_argument'") and b.endswith("…") for b in bash)


# --- Claude Code specifics ---


def test_claude_code_merges_split_assistant_lines() -> None:
    lines = [json.loads(x) for x in fixture_path("incremental", INC_1).read_text().splitlines()]
    split = [x for x in lines if x.get("message", {}).get("id") == "msg_t1"]
    assert len(split) == 3  # thinking, text, tool_use
    [record] = [r for r in incremental(INC_1).records if r.message_id == split[0]["uuid"]]
    assert record.uuid == split[-1]["uuid"]
    assert record.parent_uuid == split[0]["parentUuid"]
    assert record.position == 3
    assert record.text.startswith("I'll find the argument parser first.")
    assert "[Glob]" in record.text and "Parser lives" not in record.text


def test_claude_code_subagents() -> None:
    main = incremental(INC_1)
    assert not any(r.is_sidechain for r in main.records) and main.parent_session_id is None
    assert main.agent_id is None
    sub = incremental(INC_AGENT)
    assert (sub.agent_id, sub.parent_session_id, sub.session_id) == ("b91e2c4", INC_SESSION, INC_SESSION)
    assert sub.records and all(r.is_sidechain for r in sub.records)
    assert select_active_branch(sub.records) == sub.records
    other = synthetic(SYN_CC_AGENT)
    assert other.records and all(r.is_sidechain for r in other.records)


def test_claude_code_summaries() -> None:
    [line_summary] = [r for r in incremental(INC_1).records if r.kind == "summary"]
    assert line_summary.text == "Export command flag audit"
    assert line_summary.uuid is None and line_summary.position == 1 and line_summary.timestamp is None
    assert line_summary.message_id == "summary:a-0017"
    main = synthetic(SYN_CC)
    [compact] = [r for r in main.records if r.kind == "summary" and r.uuid is not None]
    assert compact.role == "assistant" and compact.uuid == "u-0018"
    assert compact.text.startswith("This session is being continued from a previous conversation")
    # compact_boundary has a null parentUuid: the chain continues through its logicalParentUuid
    [before] = [r for r in main.records if r.uuid == "a-0016"]
    assert compact.parent_uuid == before.uuid
    active = select_active_branch(main.records)
    assert before in active and compact in active


def test_claude_code_queued_prompts() -> None:
    queued = [r for r in incremental(INC_2).records if r.message_id.startswith("Q")]
    assert [(r.position, r.text, r.role) for r in queued] == [
        (24, "also mention --format-version in the changelog", "user")
    ]
    assert [r.text for r in synthetic(SYN_CC).records if r.message_id.startswith("Q")] == [
        "also add a regression test for 2028-02-29"
    ]


# --- timestamps ---


def test_timestamps_parsed() -> None:
    first_user = incremental(INC_2).records[1]
    assert first_user.timestamp == datetime(2026, 4, 7, 10, 0, 0, tzinfo=UTC).timestamp()
    codex_user = synthetic(SYN_CODEX_TOOLS).records[0]
    assert codex_user.timestamp == datetime(2026, 3, 9, 16, 20, 1, tzinfo=UTC).timestamp()
    cron = next(r for r in synthetic(SYN_OC).records if r.text == "remind me where the backup cron lives")
    assert cron.timestamp == datetime(2026, 3, 5, 17, 1, 0, tzinfo=UTC).timestamp()
    spec = synthetic(SYN_SPEC).records
    assert spec[0].timestamp == datetime(2026, 3, 6, 11, 0, 0, tzinfo=UTC).timestamp()
    assert spec[1].timestamp == datetime(2026, 3, 6, 11, 0, 5, tzinfo=UTC).timestamp()
    assert incremental(INC_1).records[0].timestamp is None  # a summary line has no time


# --- tail parses, robustness ---


def test_tail_parse_positions() -> None:
    first = fixture_path("incremental", INC_1).read_bytes()
    path = fixture_path("incremental", INC_2)
    whole = path.read_bytes()
    assert whole.startswith(first)
    head = parse_file(path, first)
    tail = parse_file(path, whole[len(first) :], start_line=first.count(b"\n") + 1)
    assert head is not None and tail is not None
    assert tail.session_id == INC_SESSION
    assert tail.consumed_bytes == len(whole) - len(first)
    full = incremental(INC_2)
    key = [(r.message_id, r.position, r.text, r.parent_uuid) for r in full.records]
    assert [(r.message_id, r.position, r.text, r.parent_uuid) for r in head.records + tail.records] == key
    assert [r.position for r in tail.records if r.kind != "tool"] == [20, 21, 24, 25, 28]


def test_malformed_openclaw_file() -> None:
    path = fixture_path("synthetic", SYN_OC_BAD)
    assert path.read_bytes().startswith(b"/resum{")
    parser = detect_format(read_head(path.read_bytes()), path)
    assert parser is not None and parser.format == "openclaw"
    result = synthetic(SYN_OC_BAD)
    # the session line behind the torn bytes is read: its folder, its start, its id (not the file name's)
    assert result.bad_lines == 0 and result.errors == ["line 1: 6 characters of a torn write skipped before its record"]
    assert result.session_id == "7c2e9a14-5d3b-4f8e-a6c1-0b9d2e4f7a35" and not result.session_from_path
    assert result.cwd == "/srv/openclaw/workspace"
    assert result.records[0].position == 2


def test_codex_compacted_summary() -> None:
    meta = fixture_path("synthetic", SYN_CODEX_TOOLS).read_text().splitlines()[0]
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
    assert result.session_id == "019ca1b3-2e4f-7a60-8c1d-3f5a7b9c0d2e"


def _cc_line(kind: str, uuid: str, parent: str | None, content: object, **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message["id"] = extra.pop("message_id", f"msg-{uuid}")
    line = {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s1", "message": message}
    line["timestamp"] = "2026-02-10T21:11:56.846Z"
    return {**line, **extra}


def test_claude_code_active_branch_after_edit() -> None:
    text = [{"type": "text", "text": "answer one"}]
    tool = [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]
    data = jsonl(
        _cc_line("user", "u1", None, "first question"),
        _cc_line("assistant", "a1", "u1", text, message_id="m1"),
        {"type": "progress", "uuid": "p1", "parentUuid": "a1", "sessionId": "s1", "data": {}},
        _cc_line("assistant", "a1b", "p1", tool, message_id="m1"),
        _cc_line("user", "r1", "a1b", [{"type": "tool_result", "tool_use_id": "t1", "content": "out"}]),
        _cc_line("user", "u2", "r1", "original follow-up"),
        _cc_line("assistant", "a2", "u2", [{"type": "text", "text": "old answer"}]),
        _cc_line("user", "u2e", "r1", "edited follow-up"),  # the user edited u2: a new branch from r1
        _cc_line("assistant", "a2e", "u2e", [{"type": "text", "text": "new answer"}]),
    )
    result = ClaudeCodeParser().parse(data, Path("s1.jsonl"))
    by_text = {r.text: r for r in result.records}
    merged = by_text["answer one\n\n[Bash] ls"]
    assert (merged.message_id, merged.uuid, merged.parent_uuid) == ("a1", "a1b", "u1")
    assert by_text["original follow-up"].parent_uuid == "r1"  # the tool_result line is a record on the chain
    assert by_text["edited follow-up"].parent_uuid == "r1"
    active = [r.text for r in select_active_branch(result.records)]
    assert active == [
        "first question",
        "answer one\n\n[Bash] ls",
        "[Bash output] $ ls\nout",
        "edited follow-up",
        "new answer",
    ]


def test_claude_code_unknown_parent_kept_raw() -> None:
    result = ClaudeCodeParser().parse(jsonl(_cc_line("user", "u9", "elsewhere", "hello")), Path("x.jsonl"))
    assert result.records[0].parent_uuid == "elsewhere"
    assert result.session_id == "s1"


# --- tail parses and partial lines ---


@pytest.mark.parametrize(
    ("root", "rel"),
    [
        ("synthetic", SYN_CC),
        ("synthetic", SYN_CODEX),
        ("synthetic", SYN_CODEX_TOOLS),
        ("synthetic", SYN_OC),
        ("synthetic", SYN_SPEC),
        ("incremental", INC_2),
    ],
)
def test_partial_trailing_line_not_consumed(root: str, rel: str) -> None:
    path = fixture_path(root, rel)
    data = path.read_bytes()
    cut = data.rstrip(b"\n").rfind(b"\n") + 1  # start of the last line
    partial = data[:cut] + data[cut:].rstrip(b"\n")[:15]
    parser = get_parser(parsed(rel, root).format)
    assert parser is not None
    result = parser.parse(partial, path)
    assert result.consumed_bytes == cut
    assert result.bad_lines == 0 and result.errors == []
    last_line = data[:cut].count(b"\n") + 1
    assert all(r.position < last_line for r in result.records)


def test_complete_json_without_newline_is_not_consumed() -> None:
    data = jsonl(_cc_line("user", "u1", None, "one")) + json.dumps(_cc_line("user", "u2", "u1", "two")).encode()
    result = ClaudeCodeParser().parse(data, Path("s.jsonl"))
    assert [r.text for r in result.records] == ["one"]
    assert result.consumed_bytes == data.index(b"\n") + 1


# --- robustness ---


@pytest.mark.parametrize("parser", PARSERS, ids=lambda p: p.format)
def test_bad_content_never_raises(parser: Any) -> None:
    junk = b'\xff\xfe not json\n[1, 2]\n"text"\n{"type": "message", "message": 5}\n' + b"{broken\n" * 30
    junk += b'{"type":"user","message":{"content":[{"type":"text"}]}}\n{"type":"response_item","payload":[]}\n'
    result = parser.parse(junk, Path("junk.jsonl"), start_line=7)
    assert result.consumed_bytes == len(junk)
    if parser.format != "specstory":
        assert result.bad_lines == 33
        assert len(result.errors) == 20
        assert result.errors[0].startswith("line 7:")


def test_detect_format_rejects_unknown() -> None:
    assert detect_format(["hello world", '{"a": 1}'], Path("notes.txt")) is None
    assert detect_format([], Path("empty.jsonl")) is None


def test_non_utf8_is_replaced() -> None:
    line = json.dumps(_cc_line("user", "u1", None, "caf\u00e9"), ensure_ascii=False).encode()
    data = line.replace("\u00e9".encode(), b"\xe9") + b"\n"
    assert ClaudeCodeParser().parse(data, Path("s.jsonl")).records[0].text == "caf\ufffd"


# --- timestamps ---


# --- Codex and OpenClaw synthetic cases ---


def test_codex_event_fallback_and_tool_only_record() -> None:
    events = jsonl(
        {
            "timestamp": "2026-01-01T00:00:00Z",
            "type": "event_msg",
            "payload": {"type": "user_message", "message": "hi"},
        },
        {
            "timestamp": "2026-01-01T00:00:01Z",
            "type": "event_msg",
            "payload": {"type": "agent_message", "message": "yo"},
        },
    )
    name = "rollout-2026-01-01T00-00-00-019c8a70-dda7-7f33-98ea-f30553347322.jsonl"
    result = CodexParser().parse(events, Path(name))
    assert [(r.role, r.text, r.message_id) for r in result.records] == [
        ("user", "hi", "L1"),
        ("assistant", "yo", "L2"),
    ]
    assert result.session_id == "019c8a70-dda7-7f33-98ea-f30553347322"
    call = {
        "type": "function_call",
        "name": "shell",
        "arguments": json.dumps({"command": ["bash", "-lc", "make"]}),
    }
    lines = jsonl(
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "build"}],
            },
        },
        {"type": "response_item", "payload": call},
        {"type": "event_msg", "payload": {"type": "user_message", "message": "build"}},
    )
    assert [r.text for r in CodexParser().parse(lines, Path(name)).records] == ["build", "[shell] make"]


def _oc(entry_id: str, parent: str | None, role: str, content: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-02-27T15:30:15.339Z",
            "message": {"role": role, "content": content}}  # fmt: skip


def test_openclaw_fork_and_summaries() -> None:
    def text(value: str) -> list[dict[str, Any]]:
        return [{"type": "text", "text": value}]

    call = [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"file_path": "/a.md"}}]
    data = jsonl(
        {"type": "session", "version": 3, "id": "sess", "timestamp": "2026-02-27T15:29:48.817Z", "cwd": "/w"},
        _oc("u1", None, "user", text("question")),
        _oc("a1", "u1", "assistant", [{"type": "thinking", "thinking": "hmm"}, *call]),
        _oc("t1", "a1", "toolResult", text("file body")),
        _oc("a2", "t1", "assistant", text("old answer")),
        {"type": "thinking_level_change", "id": "k1", "parentId": "a2", "thinkingLevel": "high"},
        _oc("a2b", "t1", "assistant", text("regenerated answer")),  # fork: a second child of t1
        {
            "type": "branch_summary",
            "id": "b1",
            "parentId": "a2b",
            "fromId": "a2",
            "summary": "Tried the old answer.",
        },
        {"type": "compaction", "id": "c9", "parentId": "b1", "summary": "Earlier: a question was answered."},
        _oc("u2", "c9", "user", text("thanks")),
    )
    result = OpenClawParser().parse(data, Path("sess.jsonl"))
    assert (result.session_id, result.cwd) == ("sess", "/w")
    by_id = {r.message_id: r for r in result.records}
    assert by_id["a1"].text == "[read] file_path=/a.md"
    assert by_id["a2"].parent_uuid == "t1" and by_id["a2b"].parent_uuid == "t1"  # the tool result is a record
    assert {by_id["b1"].kind, by_id["c9"].kind} == {"summary"}
    active = [r.message_id for r in select_active_branch(result.records)]
    assert active == ["u1", "a1", "t1", "a2b", "b1", "c9", "u2"]


def test_specstory_blocks_and_tools() -> None:
    md = "\n".join(
        [
            "<!-- Generated by SpecStory, Markdown v2.1.0 -->",
            "<!-- Claude Code Session abc-123 (2026-05-11 10:00:00Z) -->",
            "_**User (2026-05-11 10:00:00Z)**_",
            "",
            "run it",
            "",
            "---",
            "",
            "_**Agent (model-x 2026-05-11 10:00:05Z)**_",
            "",
            "<think><details><summary>Thought Process</summary>",
            "secret reasoning",
            "</details></think>",
            "",
            "_**Agent (model-x 2026-05-11 10:00:06Z)**_",
            "",
            "Running.",
            "",
            '<tool-use data-tool-type="shell" data-tool-name="Bash"><details>',
            "<summary>Tool use: **Bash**</summary>",
            "",
            "```bash",
            "make test",
            "```",
            "",
            "```text",
            "_**User (2026-05-11 10:00:07Z)**_",
            "```",
            "</details></tool-use>",
            "",
            "Done.",
            "",
            "---",
            "",
            "",
        ]
    )
    result = SpecStoryParser().parse(md.encode(), Path("2026-05-11_10-00-00Z-run-it.md"))
    assert result.session_id == "abc-123"
    assert [(r.role, r.text, r.position) for r in result.records] == [
        ("user", "run it", 3),
        ("assistant", "Running.\n\n[Bash] make test\n\nDone.", 15),
        ("assistant", "[Bash output] make test\n_**User (2026-05-11 10:00:07Z)**_", 15),  # its output, after the call
    ]


# --- the committed synthetic fixtures: formats and rules that the real ones lack ---


def _chain_from_last(records: list[Any]) -> list[Any]:
    """What the old rule kept: only the chain from the last record back to its root."""
    by_uuid = {r.uuid: r for r in records if r.uuid}
    current, chain = next(r for r in reversed(records) if r.uuid), []
    while current is not None:
        chain.append(current)
        current = by_uuid.get(current.parent_uuid)
    return chain


def test_broken_chain_keeps_every_run() -> None:
    result = synthetic(SYN_CC_BROKEN)
    assert len(result.errors) == 1 and result.errors[0].startswith("line 4: invalid JSON")
    kept = select_active_branch(result.records)
    assert [r.message_id for r in kept] == ["b-0001", "b-0002", "b-0003", "b-0005", "b-0006", "b-0007", "b-0008"]
    assert len(_chain_from_last(result.records)) == 2  # the old rule lost the five messages before the breaks
    content = transcript_content(result, _chunking())
    assert content.orphaned == 4 and len(content.records) == 7


def test_claude_code_branch_compaction_and_queue() -> None:
    result = synthetic(SYN_CC)
    kept = [r.text for r in select_active_branch(result.records)]
    assert "Subtract 365 days instead of replacing the year." not in kept  # the answer to the edited question
    assert "what's the safest fix that keeps calendar semantics?" in kept
    assert kept[0] == "Ledger reconciliation job fails on leap days"  # the `summary` line
    assert any(t.startswith("This session is being continued") for t in kept)  # isCompactSummary
    assert "also add a regression test for 2028-02-29" in kept  # queued mid-turn
    merged = next(r for r in result.records if r.message_id == "a-0002")  # thinking + text + tool_use lines
    assert merged.text == "Let me look at how the job computes its window.\n\n[Grep] pattern=replace(year= path=ledger/"
    assert "/cost" not in "\n".join(kept)  # isMeta
    sub = synthetic(SYN_CC_AGENT)
    assert (sub.agent_id, sub.parent_session_id) == ("a7c41d2", result.session_id)


def test_codex_event_messages_per_turn() -> None:
    only_events = synthetic(SYN_CODEX_EVENTS)
    users = [r.text for r in only_events.records if r.role == "user"]
    assert users == ["why is the invoice total off by one cent?", "switch it to Decimal with ROUND_HALF_UP"]
    both = synthetic(SYN_CODEX)
    texts = [r.text for r in both.records]
    assert texts.count("rename the settlement_date column to settled_on everywhere") == 1
    assert sum(t.startswith("I'll find every use of settlement_date first.") for t in texts) == 1
    assert all(r.message_id == f"L{r.position}" for r in both.records)
    # one rollout mixing a turn carried by response items with a turn recorded only as events
    lines = (SYNTHETIC / SYN_CODEX).read_bytes() + b"".join(
        line + b"\n" for line in (SYNTHETIC / SYN_CODEX_EVENTS).read_bytes().splitlines()[2:]
    )
    mixed = CodexParser().parse(lines, Path("rollout-x.jsonl"))
    mixed_users = [r.text for r in mixed.records if r.role == "user"]
    assert mixed_users == [
        "rename the settlement_date column to settled_on everywhere",
        "now run the migration tests",
        "why is the invoice total off by one cent?",
        "switch it to Decimal with ROUND_HALF_UP",
    ]


def test_specstory_sidechain_is_a_subagent_and_stubs_fold() -> None:
    result = synthetic(SYN_SPEC)
    side = [r for r in result.records if r.is_sidechain and r.kind != "tool"]
    assert [r.position for r in side] == [39, 45, 61] and {r.agent_id for r in side} == {"sidechain-L39"}
    main = [r for r in result.records if not r.is_sidechain]
    assert not any("HMAC" in r.text and "compare_digest" in r.text and r.position < 67 for r in main)
    edit = next(r for r in main if r.position == 79)
    assert edit.text == "Adding a timestamp tolerance check.\n\n[Edit]"  # the bare stub is not a message of its own
    assert all(r.text != "[Edit]" for r in result.records)
    content = transcript_content(result, _chunking())
    [subsession] = content.subsessions
    assert (subsession.agent_id, subsession.parent_session_id) == ("sidechain-L39", result.session_id)
    side_units = [u for c in content.chunks if c.agent_id == "sidechain-L39" for u in c.units if u.kind != "tool"]
    assert [u.position for u in side_units] == [39, 45, 61]


def test_long_message_split_into_searchable_units() -> None:
    words = [f"word{i:05d}" for i in range(6000)]  # ~60,000 characters in paragraphs
    body = "\n\n".join(" ".join(words[i : i + 50]) for i in range(0, len(words), 50))
    line = _cc_line("assistant", "a1", None, [{"type": "text", "text": body}], message_id="m1")
    result = ClaudeCodeParser().parse(jsonl(_cc_line("user", "u1", None, "dump it"), line), Path("s.jsonl"))
    chunking = _chunking()
    content = transcript_content(result, chunking)
    parts = [u for c in content.chunks for u in c.units if u.message_id == "a1"]
    assert len(parts) >= len(body) // chunking.max_chars
    assert all(len(u.text) <= chunking.max_chars for u in parts)
    assert " ".join(u.text for u in parts).split() == body.split()  # every word is in some unit, in order


def test_message_parts_follow_their_own_limit_while_chunks_keep_theirs() -> None:
    paragraphs = [" ".join(f"p{i}w{j}" for j in range(40)) for i in range(14)]  # ~3,900 characters
    body = "\n\n".join(paragraphs)
    line = _cc_line("assistant", "a1", "u1", [{"type": "text", "text": body}], message_id="m1")
    result = ClaudeCodeParser().parse(jsonl(_cc_line("user", "u1", None, "dump it"), line), Path("s.jsonl"))
    chunking = _chunking()
    whole = [u for c in transcript_content(result, chunking).chunks for u in c.units if u.message_id == "a1"]
    assert len(whole) == 1  # the default splits only what a chunk cannot hold
    chunking.message_part_chars = 1000
    chunks = transcript_content(result, chunking).chunks
    parts = [u for c in chunks for u in c.units if u.message_id == "a1"]
    assert len(parts) >= len(body) // 1000 and all(len(u.text) <= 1000 for u in parts)
    assert " ".join(u.text for u in parts).split() == body.split()
    assert len(chunks) == 1  # the request and its parts (under 8 messages) still fit one 16,000-character chunk


def test_history_never_shows_part_of_a_split_message(tmp_path: Path) -> None:
    """A window of history that a split message's parts straddle shows the whole message, whatever the limit."""
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    body = "\n\n".join(" ".join(f"p{i}w{j}" for j in range(40)) for i in range(30))  # ~8,000 characters
    lines = [
        _cc_line("user", "u1", None, "dump it"),
        _cc_line("assistant", "a1", "u1", [{"type": "text", "text": body}]),
    ]
    lines.append(_cc_line("user", "u2", "a1", "thanks"))
    (transcripts / "s1.jsonl").write_bytes(jsonl(*lines))
    settings = Settings()
    settings.transcripts.agent_defaults = False
    settings.chunking.message_part_chars = 1000
    (tmp_path / "ws").mkdir()
    with Engine([tmp_path / "ws"], settings, [transcripts], tmp_path / "index", embedder=False) as engine:
        engine.sync()
        key = engine.catalog.all_sessions()[0]["key"]
        assert len(engine.catalog.message_units(key, "a1")) >= 8  # really split
        # the window starts at the message / ends in it / ends in it at the session's end / holds it all
        for limit, anchor in ((1, "a1"), (3, "u2"), (3, None), (20, None)):
            page = engine.history(key, message_id=anchor, limit=limit)
            texts = [m["text"] for m in page["messages"] if m["messageId"] == "a1"]
            assert len(texts) == 1 and texts[0].split() == body.split(), (limit, anchor)


def _chunking() -> ChunkingSettings:
    return Settings().chunking


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-8-sig", "utf-32"])
def test_specstory_in_other_encodings(encoding: str) -> None:
    path = SYNTHETIC / SYN_SPEC
    text = path.read_text(encoding="utf-8")
    data = text.encode(encoding)
    parser = detect_format(read_head(data), path)
    assert parser is not None and parser.format == "specstory"
    result = parser.parse(data, path)
    assert result.consumed_bytes == len(data)
    assert [(r.position, r.text) for r in result.records] == [(r.position, r.text) for r in synthetic(SYN_SPEC).records]


def test_jsonl_with_a_utf8_bom() -> None:
    data = b"\xef\xbb\xbf" + (SYNTHETIC / SYN_OC).read_bytes()
    result = OpenClawParser().parse(data, Path("x.jsonl"))
    assert result.bad_lines == 0 and result.session_id == synthetic(SYN_OC).session_id


def test_sidechain_and_long_message_stored(tmp_path: Path) -> None:
    """Through the engine: the SpecStory sidechain is a subagent session linked to its parent, and every part of
    a message longer than the chunk limit is a unit of its own, found by a word from its end."""
    transcripts = tmp_path / "transcripts"
    (transcripts / "specstory").mkdir(parents=True)
    spec = transcripts / "specstory" / Path(SYN_SPEC).name
    spec.write_bytes((SYNTHETIC / SYN_SPEC).read_bytes())
    tail_word = "zyzzyvaterminal"
    body = " ".join(f"filler{i}" for i in range(5000)) + f" {tail_word}"  # ~44,000 characters
    long_line = _cc_line("assistant", "a1", "u1", [{"type": "text", "text": body}], message_id="m1")
    (transcripts / "s1.jsonl").write_bytes(jsonl(_cc_line("user", "u1", None, "dump it"), long_line))
    settings = Settings()
    settings.transcripts.agent_defaults = False
    (tmp_path / "ws").mkdir()
    engine = Engine([tmp_path / "ws"], settings, [transcripts], tmp_path / "index", embedder=False)
    try:
        engine.sync()
        session = synthetic(SYN_SPEC).session_id
        side = engine.history(f"specstory:{session}/agent-sidechain-L39")
        assert side["parentSessionKey"] == f"specstory:{session}"
        [hit] = engine.search("HMAC usage", mode="keyword")["results"][:1]
        key = hit["sessionKey"]
        assert key is not None and key.endswith("/agent-sidechain-L39"), hit
        hits = engine.search(tail_word, mode="keyword")["results"]
        assert hits and hits[0]["messageId"] == "a1"
        parts = engine.catalog.db.execute("SELECT COUNT(*) FROM units WHERE message_id = 'a1'").fetchone()[0]
        assert parts >= len(body) // settings.chunking.max_chars
    finally:
        engine.close()


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        (1772730000, 1772730000.0),  # epoch seconds
        (1772730000000, 1772730000.0),  # epoch milliseconds (OpenClaw's message.timestamp)
        (1772730000.5, 1772730000.5),
        (1772730000500.0, 1772730000.5),
        ("2026-03-05T17:00:00Z", 1772730000.0),
        ("2026-03-05T17:00:00z", 1772730000.0),
        ("2026-03-05 17:00:00", 1772730000.0),  # no zone: UTC
        ("2026-03-05T18:00:00+01:00", 1772730000.0),
        (True, None),
        (10**16, None),
        (-(10**16), None),
        ("", None),
        ("not a date", None),
    ],
)
def test_timestamps_in_every_shape(value: object, seconds: float | None) -> None:
    assert parse_timestamp(value) == seconds


def test_a_blocks_closing_rule_is_cut_as_the_regex_cut_it() -> None:
    """The closing `---` of a SpecStory block is cut in one pass, exactly where `\\n\\s*---\\s*$` cut it (that
    regex tried each line break against the whitespace after it: quadratic in a block of blank lines)."""
    rng = random.Random(4)
    pieces = ["\n", " ", "\t", "-", "---", "a", "\r", "\u2028"]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
        assert without_closing_rule(text) == re.sub(r"\n\s*---\s*$", "", "\n" + text).strip(), repr(text)
    assert without_closing_rule("kept" + "\n" * 200_000 + "end\n---\n") == "kept" + "\n" * 200_000 + "end"
