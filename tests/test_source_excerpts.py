"""A pasted compiler error or pytest report is searched by its diagnostics: the code it quotes (the user's own, in
no note) and its rulers and closing lines are left out of the query, on lines and on one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import notes_engine
from memlens.engine.keyword.source_excerpts import without_source_excerpts

RUSTC = """error[E0382]: borrow of moved value: `config`
  --> src/main.rs:14:22
   |
11 |     let config = Config::from_env()?;
   |         ------ move occurs because `config` has type `Config`, which does not implement the `Copy` trait
12 |     let server = Server::new(config);
   |                              ------ value moved here
13 |
14 |     println!("{}", config.port);
   |                    ^^^^^^^^^^^ value borrowed here after move
   |
note: consider changing this parameter type in method `new` to borrow instead if owning the value isn't necessary
  --> src/server.rs:8:16
   |
8  |     pub fn new(config: Config) -> Self {
   |            ---         ^^^^^^ this parameter takes ownership of the value
help: consider cloning the value if the performance cost is acceptable
   |
12 |     let server = Server::new(config.clone());
   |                                    ++++++++

For more information about this error, try `rustc --explain E0382`.
error: could not compile `ledger` (bin "ledger") due to 1 previous error"""

GCC = """util.c: In function 'copy_name':
util.c:3:5: error: implicit declaration of function 'strlcpy'; did you mean 'strncpy'? [-Wimplicit-function-declaration]
    3 |     strlcpy(dst, src, n);
      |     ^~~~~~~
      |     strncpy
cc1: some warnings being treated as errors
make: *** [Makefile:12: util.o] Error 1"""

PYTEST = """=================================== FAILURES ===================================
____________________________ test_refund_rounding _____________________________

    def test_refund_rounding():
        refund = compute_refund(Decimal("20.02"), share=Decimal("0.5"))
>       assert refund == Decimal("10.00")
E       AssertionError: assert Decimal('10.01') == Decimal('10.00')

tests/test_refunds.py:14: AssertionError
=========================== short test summary info ============================
FAILED tests/test_refunds.py::test_refund_rounding - AssertionError: assert Decimal('10.01') == Decimal('10.00')
========================= 1 failed, 41 passed in 0.58s ========================="""

ELIXIR = "\n".join(
    [
        "    error: undefined function get/2 (expected LedgerWeb.RefundLiveTest to define such a function or for it to"
        " be imported, but none are available)",
        "    │",
        ' 41 │       {:ok, _view, html} = live(conn, "/refunds/#{refund.id}")',
        "    │       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        "    │",
        '    └─ test/ledger_web/live/refund_live_test.exs:41: LedgerWeb.RefundLiveTest."test mount shows the refund"/1',
        "",
        "== Compilation error in file test/ledger_web/live/refund_live_test.exs ==",
        "** (CompileError) test/ledger_web/live/refund_live_test.exs: cannot compile module LedgerWeb.RefundLiveTest"
        " (errors have been logged)",
    ]
)

NOTES = {
    "2026-02-01.md": "# Borrow fix\nThe build failed with error[E0382]: borrow of moved value: `config` in "
    "src/main.rs. We fixed it by passing `&config` to Server::new instead of moving it.\n",
    "2026-02-03.md": "# C build\ngcc said implicit declaration of function 'strlcpy' in util.c; on glibc we "
    "switched to snprintf.\n",
    "2026-02-04.md": "# Flaky test\ntest_refund_rounding failed with AssertionError: assert Decimal('10.01') == "
    "Decimal('10.00'); we switched to ROUND_HALF_EVEN in refunds.py.\n",
    "2026-02-07.md": "# LiveView test\nThe refund LiveView test did not compile: undefined function get/2 (expected "
    "LedgerWeb.RefundLiveTest to define such a function or for it to be imported). live/2 needs Phoenix.ConnTest "
    "imported beside Phoenix.LiveViewTest.\n",
    "2026-02-05.md": "# Deploys\nWe moved the blue-green deploy to Fridays and wrote the load balancer's runbook.\n",
    "2026-02-06.md": "# Lunch\nTalked about the new coffee machine and the team offsite in April.\n",
}


def one_line(text: str) -> str:
    return " ".join(text.splitlines())


@pytest.mark.parametrize(
    ("pasted", "kept"),
    [
        (
            RUSTC,
            ["error[E0382]: borrow of moved value: `config`", "--> src/main.rs:14:22", "--> src/server.rs:8:16"],
        ),
        (
            GCC,
            [
                "util.c: In function 'copy_name':",
                "util.c:3:5:",
                "error: implicit declaration of function 'strlcpy'; did you mean 'strncpy'? "
                "[-Wimplicit-function-declaration]",
            ],
        ),
        (
            PYTEST,
            [
                "test_refund_rounding",
                "E       AssertionError: assert Decimal('10.01') == Decimal('10.00')",
                "tests/test_refunds.py:14: AssertionError",
                "FAILED tests/test_refunds.py::test_refund_rounding - AssertionError: assert Decimal('10.01') == "
                "Decimal('10.00')",
            ],
        ),
    ],
)
def test_a_diagnostic_keeps_its_message_and_place(pasted: str, kept: list[str]) -> None:
    assert [line.strip() for line in without_source_excerpts(pasted).splitlines() if line.strip()] == kept


@pytest.mark.parametrize("pasted", [RUSTC, GCC, ELIXIR])
def test_a_diagnostic_pasted_on_one_line_keeps_no_quoted_code(pasted: str) -> None:
    read = without_source_excerpts(one_line(pasted))
    assert "borrow of moved value" in read or "implicit declaration" in read or "undefined function get/2" in read
    assert "Server::new(config)" not in read
    assert "strlcpy(dst" not in read
    assert "{:ok, _view, html}" not in read


def test_elixir_s_diagnostic_keeps_its_message_and_place_without_its_gutter() -> None:
    """Elixir 1.15's compiler quotes the code in a `│` gutter and names the place under it (`└─ test/x.exs:41:
    Mod.f/1`): that code, the user's own, is left out as rustc's is."""
    read = [line.strip() for line in without_source_excerpts(ELIXIR).splitlines() if line.strip()]
    assert read[0].startswith("error: undefined function get/2")
    assert read[1].startswith("└─ test/ledger_web/live/refund_live_test.exs:41:")
    assert not any("│" in line or "{:ok" in line for line in read)


def test_pytest_s_report_pasted_on_one_line_reads_as_on_lines() -> None:
    """Joined on one line, the report's rulers, marks, summary and the test's body were one line that no rule read:
    the body's code was searched with the failure."""
    assert without_source_excerpts(one_line(PYTEST)) == without_source_excerpts(PYTEST)


@pytest.mark.parametrize(
    "text",
    [
        "| name | count |\n|---|---|\n| orders | 3 |",  # a markdown table
        "ps aux | grep node | wc -l\nkill -9 | xargs",
        "error: src/app.py:12:5 unused import",
        "how did we fix the borrow of moved value error in main.rs?",
        "the run ended with === FAILURES === and        E   lines we did not read",
    ],
)
def test_text_that_quotes_no_code_is_read_as_it_is(text: str) -> None:
    assert without_source_excerpts(text) == text


@pytest.mark.parametrize(
    ("pasted", "note", "lines"),
    [
        *((RUSTC, "2026-02-01.md", lines) for lines in ("lines", "one line")),
        *((GCC, "2026-02-03.md", lines) for lines in ("lines", "one line")),
        *((PYTEST, "2026-02-04.md", lines) for lines in ("lines", "one line")),
        *((ELIXIR, "2026-02-07.md", lines) for lines in ("lines", "one line")),
    ],
)
def test_a_pasted_diagnostic_finds_the_note_about_it(tmp_path: Path, pasted: str, note: str, lines: str) -> None:
    """rustc's 24 lines (its quoted code, notes and help), gcc's quoted line and make's report, pytest's report of
    the test's body: their words, in no note, read as a topic the index does not hold, and the note about the very
    error was not shown."""
    engine = notes_engine(tmp_path, NOTES)
    answer = engine.search(pasted if lines == "lines" else one_line(pasted), mode="keyword")
    assert answer["results"], answer.get("note")
    assert answer["results"][0]["path"].endswith(note)
