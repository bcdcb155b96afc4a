"""Tool output as search units through the real engine and CLI: an error query finds the tool result, a plain question
keeps prose first, a secret in a command's output is masked everywhere, and `memlens fixes` answers "how did we fix
X" with the error and what came after it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from claude_lines import claude_line
from memlens.engine.answers.fixes import topic_of_question
from memlens.engine.engine import Engine
from memlens.engine.filters import SearchFilters
from memlens.settings import Settings
from transcript_fixtures import jsonl

SESSION = "7a1c9e20-3b4d-4f6a-8c2e-1d0f9b8a7c61"
OTHER = "2f8e6d4c-9a1b-4c3d-8e7f-6a5b4c3d2e1f"
KEY = "AKIA" + "Q3EGRT7X2LMN4PZV"  # concatenated so no scanner flags this file; the detector masks it
ERROR_LINE = (
    "FAILED tests/test_money.py::test_round_half_up - AssertionError: assert Decimal('0.01') == Decimal('0.02')"
)
REPO = Path(__file__).resolve().parents[1]


def _line(kind: str, uuid: str, parent: str | None, content: object, when: str, session: str) -> dict[str, Any]:
    return claude_line(kind, uuid, parent, content, session=session, timestamp=f"2026-05-11T10:{when}Z")


def _bash(call: str) -> list[dict[str, Any]]:
    return [{"type": "tool_use", "id": call, "name": "Bash", "input": {"command": "pytest tests/test_money.py"}}]


def _result(call: str, text: str, error: bool) -> list[dict[str, Any]]:
    return [{"type": "tool_result", "tool_use_id": call, "is_error": error, "content": text}]


def write_transcripts(root: Path) -> None:
    """A session where a test failed (its output holds a planted key) and was fixed, and one that only talks about
    rounding in prose."""
    folder = root / "claude-code" / "-w"
    folder.mkdir(parents=True)
    failing = "\n".join(
        ["Exit code 1", "============ test session starts ============", f"AWS_ACCESS_KEY_ID={KEY}"]
        + [f"tests/test_money.py::test_case_{i} PASSED" for i in range(400)]
        + ["E       AssertionError: assert Decimal('0.01') == Decimal('0.02')", ERROR_LINE, "1 failed, 400 passed"]
    )
    lines = [
        _line("user", "u1", None, "run the money tests", "00:00", SESSION),
        _line("assistant", "a1", "u1", _bash("call-1"), "00:05", SESSION),
        _line("user", "r1", "a1", _result("call-1", failing, True), "00:10", SESSION),
        _line(
            "assistant",
            "a2",
            "r1",
            [{"type": "text", "text": "The half-up case truncates: quantize first."}],
            "00:20",
            SESSION,
        ),
        _line(
            "assistant",
            "a3",
            "a2",
            [{"type": "tool_use", "id": "call-2", "name": "Edit", "input": {"file_path": "billing/money.py"}}],
            "00:25",
            SESSION,
        ),
        _line(
            "user",
            "r2",
            "a3",
            _result("call-2", "The file billing/money.py has been updated.", False),
            "00:30",
            SESSION,
        ),
        _line(
            "assistant", "a4", "r2", [{"type": "text", "text": "Fixed: all money tests pass now."}], "00:40", SESSION
        ),
    ]
    (folder / f"{SESSION}.jsonl").write_bytes(jsonl(*lines))
    prose = [
        _line("user", "p1", None, "what rounding do we use for money amounts in test_round_half_up?", "00:00", OTHER),
        _line(
            "assistant",
            "p2",
            "p1",
            [
                {
                    "type": "text",
                    "text": "We round money half-up to cents with Decimal quantize; test_round_half_up checks it.",
                }
            ],
            "00:05",
            OTHER,
        ),
    ]
    (folder / f"{OTHER}.jsonl").write_bytes(jsonl(*prose))


@pytest.fixture()
def engine(tmp_path: Path) -> Any:
    transcripts = tmp_path / "transcripts"
    write_transcripts(transcripts)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with Engine([workspace], Settings(), [transcripts], index_dir=tmp_path / "index", embedder=False) as opened:
        opened.sync()
        yield opened


def test_an_error_line_finds_the_tool_result(engine: Engine) -> None:
    top = engine.search(ERROR_LINE, mode="keyword")["results"][0]
    assert (top["kind"], top["sessionKey"], top["messageId"]) == ("tool", f"claude-code:{SESSION}", "r1")
    only_tools = engine.search("money tests", mode="keyword", filters=SearchFilters(kind="tool"), min_score=0.0)
    assert only_tools["results"] and {r["kind"] for r in only_tools["results"]} == {"tool"}


def test_a_plain_question_keeps_prose_above_tool_output(engine: Engine) -> None:
    results = engine.search("how do we round money in test_round_half_up", mode="keyword", min_score=0.0)["results"]
    kinds = [r["kind"] for r in results]
    assert kinds[0] == "transcript" and results[0]["sessionKey"] == f"claude-code:{OTHER}"
    assert "tool" not in kinds[:1]
    plain = engine.search("money tests session", mode="keyword", min_score=0.0)["results"]
    assert plain and all(r["kind"] != "tool" for r in plain)  # plain words leave command output out
    named = engine.search("AWS_ACCESS_KEY_ID", mode="keyword", min_score=0.0)["results"]
    assert named and named[0]["kind"] == "tool"  # a name printed only in a command's output is still found


def test_a_quoted_phrase_that_only_a_command_printed_is_found(engine: Engine) -> None:
    """Plain words leave tool output out, but words quoted as written ask for that text wherever it is: pytest's
    banner exists only in the failed command's output."""
    plain = engine.search("test session starts", mode="keyword", min_score=0.0)["results"]
    assert all(r["kind"] != "tool" for r in plain)
    quoted = engine.search('"test session starts"', mode="keyword")["results"]
    assert quoted and (quoted[0]["kind"], quoted[0]["messageId"]) == ("tool", "r1")


def test_a_secret_in_tool_output_is_masked_in_every_answer(engine: Engine) -> None:
    rows = engine.catalog.db.execute("SELECT text FROM plain_units WHERE kind = 'tool'").fetchall()
    assert rows and not any(KEY in row[0] for row in rows)  # stored redacted, as every text
    answers = [
        engine.search("AWS_ACCESS_KEY_ID test session starts", mode="keyword", min_score=0.0),
        engine.fixes(ERROR_LINE),
        engine.history(f"claude-code:{SESSION}"),
    ]
    for answer in answers:
        assert KEY not in json.dumps(answer)
    assert "AWS_ACCESS_KEY_ID=" in json.dumps(answers[1])


def test_fixes_answers_with_the_error_and_what_came_after(engine: Engine) -> None:
    answer = engine.fixes(ERROR_LINE)
    [fix] = answer["fixes"]
    assert (fix["sessionKey"], fix["messageId"], fix["error"]) == (f"claude-code:{SESSION}", "r1", True)
    assert fix["text"].startswith("[Bash output · error]")
    assert ERROR_LINE in fix["text"] and len(fix["text"]) <= 2100  # trimmed: 400 passing lines left out
    assert [m["messageId"] for m in fix["after"]] == ["a2", "a3", "a4"]  # tool results between them skipped
    assert fix["after"][0]["text"] == "The half-up case truncates: quantize first."
    assert [m["messageId"] for m in engine.fixes(ERROR_LINE, follow=1)["fixes"][0]["after"]] == ["a2"]


def test_a_pasted_error_no_output_held_gets_no_fixes(engine: Engine) -> None:
    """Output that shares a word or two with a pasted error is not an occurrence of it: nothing, not the nearest
    tool output. A question in prose is other words than the output, and is still answered."""
    assert engine.fixes("ModuleNotFoundError: No module named 'psycopg'")["fixes"] == []
    assert engine.fixes("AssertionError: assert Decimal('2.50') == Decimal('9.99')")["fixes"] == []
    assert engine.fixes(ERROR_LINE)["fixes"]
    assert engine.fixes("how did we fix the rounding of money amounts")["fixes"]


def _cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(REPO / "server"), "PATH": "/usr/bin:/bin", "HOME": str(Path.home())}
    return subprocess.run(
        [sys.executable, "-m", "memlens", *map(str, args)], capture_output=True, text=True, timeout=300, env=env
    )


def _cli_corpus(tmp_path: Path) -> list[str | Path]:
    """The two sessions written under `tmp_path`, and the CLI arguments that search them in an index of their own."""
    transcripts = tmp_path / "transcripts"
    write_transcripts(transcripts)
    (tmp_path / "ws").mkdir()
    return ["--workspace", tmp_path / "ws", "--transcripts", transcripts, "--index-dir", tmp_path / "index"]


def test_memlens_fixes_through_the_cli(tmp_path: Path) -> None:
    where = _cli_corpus(tmp_path)
    shown = _cli("fixes", ERROR_LINE, *where, "--no-embeddings")
    assert shown.returncode == 0, shown.stderr
    assert f"claude-code:{SESSION}" in shown.stdout and "message r1" in shown.stdout
    assert "→ assistant: The half-up case truncates: quantize first." in shown.stdout
    assert KEY not in shown.stdout
    as_json = _cli("fixes", ERROR_LINE, *where, "--no-embeddings", "--json", "--follow", "2", "--no-sync")
    answer = json.loads(as_json.stdout)
    assert answer["error"] == ERROR_LINE and len(answer["fixes"][0]["after"]) == 2
    nothing = _cli("fixes", "zebracorn quux", *where, "--no-embeddings", "--no-sync")
    assert nothing.returncode == 1 and "memlens: no past tool output matches" in nothing.stderr
    assert nothing.stdout == ""  # as rg: nothing found prints nothing, and says why on stderr
    bad = _cli("fixes", ERROR_LINE, *where, "--no-embeddings", "--limit", "0")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--limit must be 1..20, got 0" in bad.stderr


def test_the_cli_names_a_command_output_as_such(tmp_path: Path) -> None:
    """A tool output travels in a message of the user's role (Claude Code) or the agent's: a hit says it is the
    command's output, not that the user or the agent wrote it."""
    where = _cli_corpus(tmp_path)
    found = _cli("search", '"test session starts"', *where, "--no-embeddings", "--no-pager")
    assert found.returncode == 0, found.stderr
    header = found.stdout.splitlines()[0]
    assert " · tool output · " in header and " · user · " not in header


def test_a_line_pasted_from_an_output_finds_that_output(example: Engine) -> None:
    """The example's refund replay printed `applied: 3118  skipped (dup key): 9`; pasted without quotes it reports
    no error, and plain words left tool output out, so the prose about keys answered instead."""
    for pasted in ("applied: 3118 skipped (dup key): 9", "skipped (dup key)"):
        top = example.search(pasted)["results"][0]
        assert top["kind"] == "tool" and "skipped (dup key): 9" in top["excerpt"], pasted


def test_the_cli_shows_the_lines_of_a_tool_output_that_hold_the_pasted_error() -> None:
    from memlens.cli.fixes_output import telling_lines

    noise = [f"(node:{i}) Warning: something else entirely" for i in range(12)]
    output = [
        "[Bash output · error · exit 1]",
        *noise,
        " FAIL src/a.test.ts",
        "AssertionError: expected 1 to be 2",
        "x",
    ]
    shown = telling_lines("\n".join(output), "AssertionError: expected 1 to be 2", 8)
    assert shown[:2] == ["[Bash output · error · exit 1]", "…"] and len(shown) <= 8
    assert shown[-3:] == [" FAIL src/a.test.ts", "AssertionError: expected 1 to be 2", "x"]  # with the line before
    assert telling_lines("\n".join(output), "nothing alike", 8) == output[:8]  # no word in common: the head
    early = ["[Bash output · error]", "TypeError: x is undefined", *noise]
    assert telling_lines("\n".join(early), "TypeError: x is undefined", 8) == early[:8]  # already in the head
    assert telling_lines("one\ntwo", "two", 8) == ["one", "two"]
    last = ["[Bash output]", *noise, "KeyError: 'orders'"]
    assert telling_lines("\n".join(last), "KeyError: 'orders'", 8)[-1] == "KeyError: 'orders'"


def test_an_output_that_printed_the_error_comes_before_code_that_holds_its_words(example: Engine) -> None:
    """The example's Lambda log printed `UnroutableEvent: no route for detail-type …` (its command exited 0), and a
    subagent read the code that raises it, which holds the same words apart: the log, where the error happened,
    is the first past occurrence."""
    fixes = example.fixes("UnroutableEvent: no route for detail-type")["fixes"]
    assert fixes and fixes[0]["text"].startswith("[Bash output")
    assert "[ERROR] UnroutableEvent: no route for detail-type" in fixes[0]["text"]
    assert any(fix["text"].startswith("[Read output") for fix in fixes[1:])  # the code is still listed, after it


def test_a_pasted_python_traceback_finds_the_log_that_printed_its_error(example: Engine) -> None:
    """The example's Lambda log printed the exception line alone; the traceback a user pastes has a frame too (kept,
    the innermost) and the module before the class, so no output held half its words and `fixes` answered
    nothing, while the exception line alone found the log."""
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/var/task/ledgerline/consumers/router.py", line 17, in dispatch\n'
        "    raise UnroutableEvent(detail_type, known=sorted(_ROUTES))\n"
        "ledgerline.consumers.router.UnroutableEvent: no route for detail-type 'order.refunded'\n"
    )
    fixes = example.fixes(trace)["fixes"]
    assert fixes and "[ERROR] UnroutableEvent: no route for detail-type" in fixes[0]["text"]


def test_a_question_is_searched_by_its_topic_not_by_its_asking_for_a_fix() -> None:
    """ "how did we fix the dead-letter queue backup": every fix answers "fix", and searched whole it was expanded to
    the words nearest it ("update"), ranking an offsite plan that held them above the DLQ session's outputs."""
    assert topic_of_question("how did we fix the dead-letter queue backup?") == "the dead-letter queue backup?"
    assert topic_of_question("How do I get rid of: the stale lock warning") == "the stale lock warning"
    assert topic_of_question("what have we ever resolved the flaky login test with") == "the flaky login test with"
    for kept in ("how did we fix", "fixing the DLQ backup", "how did the DLQ back up", "TypeError: fix is undefined"):
        assert topic_of_question(kept) == kept


def test_words_the_index_holds_nowhere_get_no_fixes(example: Engine) -> None:
    """Text that is not an error is ranked as a question, and was answered with whatever output came nearest in
    meaning (a pgbouncer edit for three made-up words): now it is answered as a search of it would be, not at all,
    while a question the example's sessions do hold still finds its session."""
    assert example.fixes("zyzzyva quoxlet frobnicator")["fixes"] == []
    assert example.search("zyzzyva quoxlet frobnicator")["results"] == []  # the same rule as search's
    asked = example.fixes("how did we fix the dead-letter queue backup")["fixes"]
    dlq = example.search("dead letter queue")["results"][0]["sessionKey"]
    assert asked and asked[0]["sessionKey"] == dlq  # its topic, not "fix" (topic_of_question)


def test_the_errors_bench_counts_fixes_silence_on_prose_per_half(engine: Engine) -> None:
    """bench.errors asks `fixes` the absent-topic questions in prose, and reports each half (tune, held-out) apart:
    what it answers in one half never counts in the other."""
    sys.path.insert(0, str(REPO))
    from bench.errors import SPLITS, load_absent_prose, silent_by_split
    from bench.transcripts import Corpus

    prose = load_absent_prose()
    assert {split: sum(item["split"] == split for item in prose) for split in SPLITS} == {"tune": 32, "heldout": 32}
    asked = [
        {"question": "How did we shard the Meilisearch indexes for the audit log?", "split": "tune"},
        {"question": "how did we fix the rounding of money amounts", "split": "heldout"},  # this index holds it
        {"question": "What did we decide about migrating the CI to Drone?", "split": "heldout"},
    ]
    halves = silent_by_split(asked, Corpus(engine, {}, {}, 0.0, 0.0))
    assert halves["tune"] == {"questions": 1, "silent": 100.0, "answered": []}
    assert halves["heldout"] == {
        "questions": 2,
        "silent": 50.0,
        "answered": ["how did we fix the rounding of money amounts"],
    }


def test_fixes_shows_what_followed_an_error_in_its_file_though_a_later_file_keeps_it(tmp_path: Path) -> None:
    """A rotated transcript (`s.jsonl.1`) holds the error, and the new `s.jsonl` starts with the messages after it,
    which it keeps (catalog/copies.py): the fix is still what followed the error in the rotated file."""
    transcripts = tmp_path / "transcripts"
    write_transcripts(transcripts)
    live = transcripts / "claude-code" / "-w" / f"{SESSION}.jsonl"
    rows = live.read_bytes().splitlines(keepends=True)
    live.rename(f"{live}.1")
    live.write_bytes(b"".join(rows[3:]))  # from the first message after the error on
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with Engine([workspace], Settings(), [transcripts], index_dir=tmp_path / "index", embedder=False) as engine:
        engine.sync()
        [fix] = engine.fixes(ERROR_LINE)["fixes"]
        assert fix["sessionKey"] != f"claude-code:{SESSION}" and fix["messageId"] == "r1"
        assert [m["messageId"] for m in fix["after"]] == ["a2", "a3", "a4"]
