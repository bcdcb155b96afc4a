"""A misspelt name gets the name meant, at every door: the CLI's commands, flags and choices (argparse before
Python 3.14 suggests nothing) and a request's fields and choices (the MCP server and the editor parse the same
requests), and a wild guess gets no suggestion."""

from __future__ import annotations

import pytest

from memlens.cli.arguments import build_parser
from memlens.errors import InvalidRequest
from memlens.requests import HistoryRequest, SearchRequest
from memlens.requests.fields import parse


def cli_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as ended:
        build_parser().parse_args(list(argv))
    assert ended.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memlens: error: ")
    return lines[0]


@pytest.mark.parametrize(
    ("argv", "meant"),
    [
        (["serch", "dlq"], "'search'"),
        (["sesions"], "'sessions'"),
        (["histroy", "5b0e7d3c"], "'history'"),
        (["stat"], "'stats'"),
        (["fix", "KeyError"], "'fixes'"),
        (["search", "dlq", "--limt", "3"], "--limit"),
        (["search", "dlq", "--sinse=7d"], "--since"),
        (["sessions", "--sinse", "2w"], "--since"),
        (["search", "dlq", "--color", "allways"], "'always'"),
        (["search", "dlq", "--mode", "keywrd"], "'keyword'"),
        (["search", "dlq", "--kind", "tol"], "'tool'"),
    ],
)
def test_a_misspelt_command_flag_or_choice_names_the_one_meant(
    capsys: pytest.CaptureFixture[str], argv: list[str], meant: str
) -> None:
    try:  # a choice the request schema owns is checked there, after parsing: the same words either way
        args = build_parser().parse_args(argv)
    except SystemExit:
        line = capsys.readouterr().err
    else:
        from memlens.cli.arguments import request_from

        with pytest.raises(InvalidRequest) as failed:
            request_from(SearchRequest, args)
        line = str(failed.value)
    assert f"did you mean {meant}?" in line


def test_a_misspelt_top_flag_is_named_rather_than_a_missing_command(capsys: pytest.CaptureFixture[str]) -> None:
    line = cli_error(capsys, "--verison")
    assert "unrecognized arguments: --verison; did you mean --version?" in line
    assert "required" not in line


def test_a_wild_guess_gets_no_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    assert "did you mean" not in cli_error(capsys, "zzz")
    assert "did you mean" not in cli_error(capsys, "search", "dlq", "--frobnicate")


def test_a_request_field_misspelt_as_an_agent_would_names_the_field() -> None:
    with pytest.raises(InvalidRequest) as failed:
        parse(HistoryRequest, {"session_key": "5b0e7d3c:b93217ff"})
    assert "did you mean 'sessionKey'?" in str(failed.value)
    with pytest.raises(InvalidRequest) as failed:
        parse(SearchRequest, {"query": "dlq", "mode": "Keyword "})
    assert "did you mean 'keyword'?" in str(failed.value)
