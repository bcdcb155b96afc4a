"""Tool results as search units: each format's parser emits them linked to their call, trimmed to what matters and
marked when they failed (engine/sources/tool_output.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memlens.engine.sources.claude_code import ClaudeCodeParser
from memlens.engine.sources.codex import CodexParser
from memlens.engine.sources.common import CALL_SUMMARY_MAX_CHARS
from memlens.engine.sources.openclaw import OpenClawParser
from memlens.engine.sources.specstory import SpecStoryParser
from memlens.engine.sources.tool_output import TOOL_OUTPUT_MAX_CHARS, looks_like_error, trim_output
from transcript_fixtures import TRANSCRIPTS, jsonl, openclaw_line, parsed

PYTHON_TRACE = """Traceback (most recent call last):
  File "/app/billing/rounding.py", line 42, in total
    return round_half_up(amount)
  File "/app/billing/money.py", line 7, in round_half_up
    raise InvalidOperation(value)
decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]"""

# one diagnostic of each kind a trimmed output must keep, whatever surrounds it
DIAGNOSTICS = [
    'src/app.py:12:5: error: Incompatible return value type (got "int", expected "str")  [return-value]',
    "src/app.py:3:1: F401 [*] `os` imported but unused",
    "src/view.ts(14,7): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.",
    "  14:7  error  'x' is assigned a value but never used  no-unused-vars",
    "FAILED tests/test_money.py::test_round_half_up - AssertionError: assert Decimal('0.01') == Decimal('0.02')",
    "E       AssertionError: assert Decimal('0.01') == Decimal('0.02')",
    "thread 'main' panicked at src/main.rs:7:5:",
    "panic: runtime error: index out of range [3] with length 3",
    "TypeError: Cannot read properties of undefined (reading 'map')",
    "    at renderList (/app/src/list.js:12:19)",
    "error[E0308]: mismatched types",
]


def test_a_short_output_is_kept_whole() -> None:
    assert trim_output("\n\n  ok\n3 passed  \n") == "  ok\n3 passed"


def test_a_read_output_keeps_its_first_lines_indent() -> None:
    """A Read tool's lines are numbered right-aligned (`     1→import os`): the first one lost its indent alone, so
    the file shown in a result and in the transcript viewer began out of line with the rest."""
    numbered = "\n".join(f"{n:>6}→{line}" for n, line in enumerate(["import os", "", "print(os.sep)"], start=1))
    data = jsonl(
        _cc(
            "assistant",
            "a1",
            None,
            [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/r/x.py"}}],
        ),
        _cc("user", "r1", "a1", [{"type": "tool_result", "tool_use_id": "t1", "content": numbered + "\n"}]),
    )
    [tool] = [r for r in ClaudeCodeParser().parse(data, Path("s1.jsonl")).records if r.kind == "tool"]
    assert tool.text == f"[Read output] /r/x.py\n{numbered}"


def test_trimming_a_5_mb_log_keeps_its_error_lines_and_both_ends() -> None:
    filler = [f"INFO step {i}: compiled module_{i} in 12ms" for i in range(120_000)]
    lines = ["$ make all"] + filler[:40_000] + PYTHON_TRACE.splitlines() + filler[40_000:80_000]
    lines += DIAGNOSTICS + filler[80_000:] + ["make: *** [all] Error 2", "BUILD FAILED in 9m"]
    log = "\n".join(lines)
    assert len(log) > 5_000_000
    trimmed = trim_output(log)
    assert len(trimmed) <= TOOL_OUTPUT_MAX_CHARS
    assert trimmed.startswith("$ make all") and trimmed.endswith("BUILD FAILED in 9m")
    for line in [*DIAGNOSTICS, "decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]"]:
        assert line.rstrip() in trimmed, line
    assert "Traceback (most recent call last):" in trimmed
    assert "compiled module_50000" not in trimmed  # the noise between them is left out, marked by "…"
    assert "\n…\n" in trimmed


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (PYTHON_TRACE, True),
        ("thread 'main' panicked at src/main.rs:7:5:\nindex out of bounds", True),
        ("panic: runtime error: nil pointer dereference\n\ngoroutine 1 [running]:", True),
        ("TypeError: x is undefined\n    at f (/a.js:1:2)", True),
        ("Exit code: 1\nWall time: 0.2 seconds", True),
        ("FAILED tests/test_a.py::test_b - assert 1 == 2", True),
        ("3 passed in 0.12s", False),
        ("JSON is only processed on exit code 0\n5. Exit code 2 shows stderr to the user", False),  # prose about it
    ],
)
def test_what_looks_like_an_error(text: str, error: bool) -> None:
    assert looks_like_error(text) is error


def _cc(kind: str, uuid: str, parent: str | None, content: object, **extra: object) -> dict[str, object]:
    return {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": "s1",
        "timestamp": "2026-05-11T10:00:00Z",
        "message": {"role": kind, "content": content, **({"id": extra["mid"]} if "mid" in extra else {})},
    }


def test_claude_code_results_are_named_after_their_call_and_marked() -> None:
    data = jsonl(
        _cc("user", "u1", None, "run the tests"),
        _cc(
            "assistant",
            "a1",
            "u1",
            [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "pytest"}}],
            mid="m1",
        ),
        _cc(
            "user",
            "r1",
            "a1",
            [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "is_error": True,
                    "content": "Exit code 1\n" + DIAGNOSTICS[4],
                }
            ],
        ),
        _cc("assistant", "a2", "r1", [{"type": "text", "text": "Fixed the rounding."}], mid="m2"),
    )
    result = ClaudeCodeParser().parse(data, Path("s1.jsonl"))
    [tool] = [r for r in result.records if r.kind == "tool"]
    assert (tool.call_id, tool.error, tool.uuid, tool.parent_uuid) == ("toolu_1", True, "r1", "a1")
    assert tool.text.startswith("[Bash output · error] $ pytest\nExit code 1\nFAILED tests/test_money.py")
    assert [r.kind for r in result.records] == ["message", "message", "tool", "message"]


def test_codex_outputs_read_their_exit_code() -> None:
    def item(payload: dict[str, object]) -> dict[str, object]:
        return {"timestamp": "2026-03-09T16:20:01Z", "type": "response_item", "payload": payload}

    data = jsonl(
        {"timestamp": "2026-03-09T16:20:00Z", "type": "session_meta", "payload": {"id": "c1", "cwd": "/w"}},
        item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "build it"}]}),
        item({"type": "function_call", "name": "exec_command", "call_id": "call_1", "arguments": '{"cmd":"cargo b"}'}),
        item(
            {
                "type": "function_call_output",
                "call_id": "call_1",
                "output": '{"output":"error[E0308]: mismatched types","metadata":{"exit_code":101}}',
            }
        ),
        item({"type": "custom_tool_call", "name": "apply_patch", "call_id": "call_2", "input": "*** Begin Patch"}),
        item({"type": "custom_tool_call_output", "call_id": "call_2", "output": "Success. Updated src/main.rs"}),
    )
    tools = [r for r in CodexParser().parse(data, Path("rollout-c1.jsonl")).records if r.kind == "tool"]
    assert [(r.call_id, r.error) for r in tools] == [("call_1", True), ("call_2", False)]
    assert tools[0].text == "[exec_command output · error · exit 101] $ cargo b\nerror[E0308]: mismatched types"
    assert tools[1].text.startswith("[apply_patch output]\nSuccess.")


def _openclaw_enoent() -> bytes:
    """An OpenClaw read whose result says `"status": "error"` in its details while `isError` is false, as the real
    session in ../shared has it."""
    error = "ENOENT: no such file or directory, access '/home/node/.openclaw/workspace/MEMORY.md'"
    call: dict[str, object] = {
        "type": "toolCall",
        "id": "toolu_vrtx_014HNubtFNrbeeJT12zzBfGU",
        "name": "read",
        "arguments": {},
    }
    result: dict[str, object] = {
        "role": "toolResult",
        "toolCallId": "toolu_vrtx_014HNubtFNrbeeJT12zzBfGU",
        "toolName": "read",
        "content": [{"type": "text", "text": json.dumps({"status": "error", "tool": "read", "error": error})}],
        "details": {"status": "error", "tool": "read", "error": error},
        "isError": False,
    }
    user: dict[str, object] = {"role": "user", "content": [{"type": "text", "text": "read my memory"}]}

    line = openclaw_line

    return jsonl(
        {"type": "session", "version": 3, "id": "oc-enoent", "timestamp": "2026-02-26T14:29:50.000Z"},
        line("a", None, user),
        line("b", "a", {"role": "assistant", "content": [call]}),
        line("c", "b", result),
    )


OPENCLAW_ENOENT = "openclaw/b3db607f-7ae8-4089-b806-44800e961672.jsonl"  # real, in ../shared


@pytest.mark.parametrize(
    "source", ["real", "synthetic"] if (TRANSCRIPTS / OPENCLAW_ENOENT).is_file() else ["synthetic"]
)
def test_openclaw_results_and_their_error_status(source: str) -> None:
    if source == "real":
        records = parsed(OPENCLAW_ENOENT).records
    else:
        records = OpenClawParser().parse(_openclaw_enoent(), Path("oc-enoent.jsonl"), final=True).records
    [enoent] = [r for r in records if r.kind == "tool" and "ENOENT" in r.text]
    assert enoent.error and enoent.call_id == "toolu_vrtx_014HNubtFNrbeeJT12zzBfGU"
    assert enoent.text.startswith("[read output · error]")


def test_specstory_output_fences_follow_their_message() -> None:
    md = "\n".join(
        [
            "_**User (2026-05-11 10:00:00Z)**_",
            "",
            "type check it",
            "",
            "_**Agent (model-x 2026-05-11 10:00:06Z)**_",
            "",
            '<tool-use data-tool-type="shell" data-tool-name="Bash"><details>',
            "<summary>Tool use: **Bash**</summary>",
            "```bash",
            "mypy src",
            "```",
            "```text",
            DIAGNOSTICS[0],
            "Found 1 error in 1 file (checked 3 source files)",
            "```",
            "</details></tool-use>",
            "",
        ]
    )
    records = SpecStoryParser().parse(md.encode(), Path("2026-05-11_10-00-00Z-x.md"), final=True).records
    assert [(r.kind, r.message_id) for r in records] == [("message", "L1"), ("message", "L5"), ("tool", "L5:T1")]
    assert records[2].text.startswith("[Bash output · error] mypy src\nsrc/app.py:12:5: error:")


def _claude_code_errors() -> bytes:
    """A Claude Code session of the kinds of result the real one in ../shared has: a failed push, an Elixir compile
    error, a log far over the size kept, and documentation that talks about exit codes without being an error."""

    def call(uuid: str, parent: str, tool_id: str, command: str) -> dict[str, object]:
        use = {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command}}
        return _cc("assistant", uuid, parent, [use], mid=f"m-{uuid}")

    def result(uuid: str, parent: str, tool_id: str, text: str, *, error: bool) -> dict[str, object]:
        return _cc(
            "user", uuid, parent, [{"type": "tool_result", "tool_use_id": tool_id, "is_error": error, "content": text}]
        )

    push = "Exit code 128\nfatal: The current branch fix-login has no upstream branch."
    compile_error = (
        "Exit code 1\n** (CompileError) lib/cache.ex:14: undefined function get/2 (expected Cache to define it)"
    )
    log = "\n".join(f"INFO step {i}: compiled module_{i}" for i in range(20_000))
    docs = "## Hooks\nJSON is only processed on exit code 0\n5. Exit code 2 shows stderr to the user"
    return jsonl(
        _cc("user", "u1", None, "push the login fix"),
        call("a1", "u1", "t1", "git push"),
        result("r1", "a1", "t1", push, error=True),
        call("a2", "r1", "t2", "mix compile"),
        result("r2", "a2", "t2", compile_error, error=True),
        call("a3", "r2", "t3", "make all"),
        result("r3", "a3", "t3", log, error=False),
        call("a4", "r3", "t4", "cat docs/hooks.md"),
        result("r4", "a4", "t4", docs, error=False),
    )


CLAUDE_CODE_ERRORS = "claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl"  # real, in ../shared


@pytest.mark.parametrize(
    "source", ["real", "synthetic"] if (TRANSCRIPTS / CLAUDE_CODE_ERRORS).is_file() else ["synthetic"]
)
def test_claude_code_errors_are_marked(source: str) -> None:
    if source == "real":
        records = parsed(CLAUDE_CODE_ERRORS).records
    else:
        records = ClaudeCodeParser().parse(_claude_code_errors(), Path("s1.jsonl"), final=True).records
    errors = [r for r in records if r.kind == "tool" and r.error]
    assert any("has no upstream branch" in r.text for r in errors)
    assert any("undefined function get/2" in r.text for r in errors)
    assert all(len(r.text) <= TOOL_OUTPUT_MAX_CHARS + 60 + CALL_SUMMARY_MAX_CHARS for r in records if r.kind == "tool")
    assert not any("Exit code 2 shows stderr" in r.text for r in errors)  # prose about exit codes is no error
