"""An error pasted with what the terminal and the logger added (colours, a time stamp) is searched for what it says:
the stamp's day is not read as the question's date, and neither its digits nor the colour codes count as words the
output must hold."""

from __future__ import annotations

import pytest

from memlens.engine.engine import Engine
from memlens.engine.keyword.pasted_noise import without_pasted_noise
from test_fixes import ERROR_LINE, SESSION
from test_fixes import engine as engine  # the fixes tests' transcripts, synced: a fixture

RED, RESET = "\x1b[31m", "\x1b[0m"


@pytest.mark.parametrize(
    ("pasted", "read"),
    [
        ("2026-03-04T10:00:01.123Z ERROR boom: command not found", "ERROR boom: command not found"),
        ("[2026-03-04 10:00:01,123] fatal: no upstream branch", "fatal: no upstream branch"),
        ("Mar  4 10:00:01 host kernel: segmentation fault", "host kernel: segmentation fault"),
        ("2026/03/04 10:00:01 panic: runtime error: index out of range", "panic: runtime error: index out of range"),
        (f"{RED}error:{RESET} undefined function get/2", "error: undefined function get/2"),
        ("10:00:01.5 [ERROR] Network timeout after 30s", "[ERROR] Network timeout after 30s"),
        (  # a run's ids
            "ERROR [api] request_id=7f3c2a1e-9b4d trace_id: 4bf92f3577b34da6 UnroutableEvent: no route",
            "ERROR [api] UnroutableEvent: no route",
        ),
        ("[ERROR] batch item failure messageId=8e4c1a06-3b7f-4f92-9d15-c2a0e6b7f384", "[ERROR] batch item failure"),
        ("Error: lock 9d1e2f3a-0b4c-4d5e-8f6a-7b8c9d0e1f2a held by worker 3", "Error: lock held by worker 3"),
        (
            "ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010",
            "ERROR: AddressSanitizer: heap-use-after-free on address",
        ),
        (  # someone else's home folder
            "Error: ENOENT: no such file or directory, open '/Users/bob/app/config.json'",
            "Error: ENOENT: no such file or directory, open '~/app/config.json'",
        ),
        (
            "C:\\Users\\bob\\src\\Orders.cs(42,5): error CS1002: ; expected",
            "~\\src\\Orders.cs(42,5): error CS1002: ; expected",
        ),
    ],
)
def test_a_pasted_lines_colours_and_stamps_are_left_out(pasted: str, read: str) -> None:
    assert " ".join(without_pasted_noise(pasted).split()) == read


@pytest.mark.parametrize(
    "kept",
    [
        "what did we do on 2026-03-04",
        "what did we do on 2026-03-04 10:00:01",  # asks about a moment: no error, so the stamp is the question
        "error: src/app.py:12:5 unused import",
        "what errors did we hit on March 4",
        "what did we do about request_id=7f3c2a1e in /home/alice/app",  # no error: a question keeps its ids
        "error: session id 3 was not found at 0x1f",  # a number named, no run's id
    ],
)
def test_a_question_keeps_its_dates_and_places(kept: str) -> None:
    assert without_pasted_noise(kept) == kept


def test_a_stamped_error_line_is_not_a_question_about_its_day(engine: Engine) -> None:
    """A short log line of a day the index has nothing on was answered as a question about that day: no results."""
    answer = engine.search("2026-03-04 10:00:01 FAILED test_round_half_up AssertionError", mode="keyword")
    assert "period" not in answer
    assert [(r["sessionKey"], r["messageId"]) for r in answer["results"][:1]] == [(f"claude-code:{SESSION}", "r1")]


def test_a_coloured_stamped_error_finds_its_output_and_fix(engine: Engine) -> None:
    pasted = f"{RED}2026-03-04T10:00:01.123Z {ERROR_LINE}{RESET}"
    top = engine.search(pasted, mode="keyword")["results"][0]
    assert (top["sessionKey"], top["messageId"]) == (f"claude-code:{SESSION}", "r1")
    answer = engine.fixes(pasted)
    assert [fix["messageId"] for fix in answer["fixes"]] == ["r1"]
    assert answer["error"] == pasted  # the answer names the error as it was given


NPM_REPORT = (
    "npm ERR! code 1\n"
    "npm ERR! path /Users/bob/ledgerline\n"
    "npm ERR! command failed\n"
    "npm ERR! command sh -c node scripts/migrate.js\n"
    "npm ERR! Error: remaining connection slots are reserved for non-replication superuser connections\n"
    "npm ERR!     at Parser.parseErrorMessage (/Users/bob/ledgerline/node_modules/pg-protocol/dist/parser.js:287:98)\n"
    "\n"
    "npm ERR! A complete log of this run can be found in:\n"
    "npm ERR!     /Users/bob/.npm/_logs/2026-03-04T12_01_02_345Z-debug-0.log"
)


def test_a_logged_error_with_its_request_id_finds_the_output_it_was_copied_from(example: Engine) -> None:
    """The example's consumer logged this error with another request's id: the id's words, in no output, held
    `memlens fixes` below the share of the error's words an occurrence needs."""
    logged = (
        "2026-03-04 10:00:01,123 ERROR [orders.consumer] request_id=7f3c2a1e-9b4d-4c1a-8e2f-0a1b2c3d4e5f "
        "UnroutableEvent: no route for detail-type 'order.refunded' (known: order.created, order.paid)"
    )
    fixes = example.fixes(logged)["fixes"]
    assert fixes
    assert "5b0e7d3c" in str(fixes[0]["sessionKey"])


@pytest.mark.parametrize("report", [NPM_REPORT, NPM_REPORT.replace("npm ERR!", "npm error")])
@pytest.mark.parametrize("lines", ["lines", "one line"])
def test_npm_s_report_around_an_error_is_left_out(report: str, lines: str) -> None:
    read = without_pasted_noise(report if lines == "lines" else " ".join(report.splitlines()))
    prefix = report.split()[0] + " " + report.split()[1]
    assert [" ".join(line.split()) for line in read.splitlines()] == [
        f"{prefix} Error: remaining connection slots are reserved for non-replication superuser connections",
        f"{prefix} at Parser.parseErrorMessage (~/ledgerline/node_modules/pg-protocol/dist/parser.js:287:98)",
    ]


@pytest.mark.parametrize(
    "kept",
    [
        'npm ERR! Missing script: "build"',
        "npm ERR! code ENOENT\nnpm ERR! syscall open\nnpm ERR! enoent Could not read package.json",
    ],
)
def test_npm_s_lines_that_say_what_failed_are_kept(kept: str) -> None:
    assert without_pasted_noise(kept) == kept


@pytest.mark.parametrize("lines", ["lines", "one line"])
@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_an_error_in_npm_s_report_finds_the_session_that_discussed_it(example: Engine, mode: str, lines: str) -> None:
    """npm's eight lines of its own around the example's Postgres error answered "no results"."""
    answer = example.search(NPM_REPORT if lines == "lines" else " ".join(NPM_REPORT.splitlines()), mode=mode)
    assert answer["results"], answer.get("note")
    assert "c84f2a19" in str(answer["results"][0]["sessionKey"])
