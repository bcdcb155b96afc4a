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
