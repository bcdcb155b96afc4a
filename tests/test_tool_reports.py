"""A pasted error in the report of a build, deploy or CI tool (tool_reports.py) is read as the error: BuildKit's failed
step, Terraform's diagnostic box and a GitHub Actions log leave only the output's lines, and `memlens fixes` finds the
output the error was printed in."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
from bench.errors import in_ci_log, in_docker_build, in_terraform_box

from memlens.engine.engine import Engine
from memlens.engine.keyword.pasted_noise import without_pasted_noise
from memlens.engine.keyword.tool_reports import without_tool_reports
from memlens.settings.tree import Mode

UNROUTABLE = "UnroutableEvent: no route for detail-type 'order.refunded' (known: order.created, order.paid)"
TWO_LINES = f"{UNROUTABLE}\n  raised in the orders consumer"
REPORTS = [in_docker_build, in_terraform_box, in_ci_log]


def test_buildkit_s_report_leaves_the_step_s_output_without_its_seconds() -> None:
    pasted = "\n".join(
        [
            " => ERROR [build 4/6] RUN make test                              12.3s",
            "------",
            " > [build 4/6] RUN make test:",
            f"#12 12.31 {UNROUTABLE}",
            "12.32   raised in the orders consumer",
            "------",
            "Dockerfile:14",
            "  14 | >>> RUN make test",
            'ERROR: failed to solve: process "/bin/sh -c make test" did not complete successfully: exit code: 2',
        ]
    )
    assert without_tool_reports(pasted) == TWO_LINES


def test_terraform_s_box_leaves_the_diagnostic_without_where_in_the_configuration() -> None:
    pasted = in_terraform_box(TWO_LINES, 3)
    assert without_tool_reports(pasted) == f"Error: {UNROUTABLE}\nraised in the orders consumer"


def test_a_ci_log_leaves_the_output_without_the_step_s_script_or_the_runner_s_error() -> None:
    read = without_pasted_noise(in_ci_log(TWO_LINES, 3))
    assert UNROUTABLE in read and "raised in the orders consumer" in read
    for word in ("##[", "task3", "bash -e", "Process completed", "2026-03-04"):
        assert word not in read


@pytest.mark.parametrize(
    "text",
    [
        UNROUTABLE,
        "we set the table with a ruler:\n----\nDockerfile:14 was changed",  # a rule and a place, but no report
        "│ a line in a box without Terraform's diagnostic",
        "##[error]Process completed with exit code 1.",  # nothing but the runner's line: nothing else to read
        "how did we fix the dead-letter queue backup?",
    ],
)
def test_text_without_a_tool_s_report_is_read_as_it_is(text: str) -> None:
    assert without_tool_reports(text) == text


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("report", REPORTS, ids=lambda report: report.__name__)
def test_fixes_finds_the_output_of_an_error_pasted_in_a_tool_s_report(
    example: Engine, report: Callable[[str, int], str], mode: Mode
) -> None:
    """The example's consumer printed this error; pasted in a tool's report, the report's words (the Dockerfile's
    lines, the Terraform resource, the CI step's script) were words of the error no output held, and `memlens fixes`
    found no occurrence."""
    pasted = report(UNROUTABLE, 3)
    example.settings.search = dataclasses.replace(example.settings.search, mode=mode)
    fixes = example.fixes(pasted)["fixes"]
    assert fixes
    assert "5b0e7d3c" in str(fixes[0]["sessionKey"])


@pytest.mark.parametrize("report", REPORTS, ids=lambda report: report.__name__)
def test_a_report_pasted_on_one_line_is_read_as_on_its_lines(report: Callable[[str, int], str]) -> None:
    """VS Code's Search Memory box joins a paste's lines with spaces: the report's lines are found again."""
    one_line = " ".join(report(TWO_LINES, 3).splitlines())
    read = without_pasted_noise(one_line)
    assert UNROUTABLE in read and "raised in the orders consumer" in read
    for word in ("##[", "task3", "Dockerfile", "failed to solve", "aws_lambda_function", "│", "2026-03-04"):
        assert word not in read
