"""Which queries read as a pasted error or a question about one (engine/keyword/error_query.py): tool output then
competes in full with prose. Each pasted case is a kind of output people copy from a terminal; prose must not read as
one, or tool output would crowd the answers to ordinary questions."""

from __future__ import annotations

import pytest

from memlens.engine.keyword.error_query import looks_like_error, looks_like_output, reads_as_question


@pytest.mark.parametrize(
    "query",
    [
        "ValueError: invalid literal for int() with base 10: 'x'",
        "** (RuntimeError) no :secret_key_base configuration found in SpotterWeb.Endpoint.",  # Elixir
        "(eval):1: command not found: goreleaser",  # zsh
        "bash: pnpm: command not found",
        "sh: 1: jq: not found",  # dash
        "'node' is not recognized as an internal or external command,",  # cmd.exe
        "The term 'pnpm' is not recognized as the name of a cmdlet, function, script file, or operable program.",
        "cp: cannot stat 'dist/app.js': No such file or directory",
        "ssh: connect to host 10.0.0.5 port 22: Connection refused",
        "mkdir: cannot create directory '/srv/data': Permission denied",
        "Segmentation fault (core dumped)",
        "OSError: [Errno 98] Address already in use",
        "write /var/lib/docker/tmp: no space left on device",
        "curl: (6) Could not resolve host: api.internal",
        "ENOENT: no such file or directory, open 'package.json'",
        "src/app.py:12:5: F401 'os' imported but unused",
        "how did we fix the failing migration test",
        "show me the output of bd ready",  # asks for what a command printed
        "what did git status print",
        "the stderr from the deploy script",
        "what was in mix.exs when it was read",
        "the contents of config.toml",
    ],
)
def test_pasted_errors_and_questions_about_them(query: str) -> None:
    assert looks_like_error(query)


@pytest.mark.parametrize(
    "query",
    [
        "how did we fix the dead-letter queue backup?",
        "what did Caroline do after the concert?",
        "where is the token validation implemented",
        "which command deploys the billing service",
        "what did we decide about the file layout",
        "the permission model for shared folders",
        "how do people know the online lookup is still running?",
        "what did we print on the invitations",
        "how much output does the new line produce per day",
        "what was in the box when she opened the door",
        "the contents of the letter from grandma",
    ],
)
def test_prose_questions_are_not_errors(query: str) -> None:
    assert not looks_like_error(query)


@pytest.mark.parametrize(
    "line",
    [
        "applied: 3118 skipped (dup key): 9",  # a report's counts
        "skipped (dup key)",  # a word and its note, as a tool prints it
        "10 passed in 0.58s",  # pytest's summary
        "uploading build/orders-consumer.zip (4.1 MiB)",  # a size
        "[100%]",
        "==> packaging orders-consumer",  # a build step
        "Compiled 12 files in 340 ms",
    ],
)
def test_lines_pasted_from_an_output(line: str) -> None:
    assert looks_like_output(line)


@pytest.mark.parametrize(
    "query",
    [
        "how did we fix the dead-letter queue backup?",
        "what did we do on 2026-02-10: the deploy (prod)?",  # asked, not pasted
        "which tests took over 5s",
        "notes on the 2026 roadmap",
        "the pool size we chose for pgbouncer",
        "why did the build fail (the second time)",
        "dead letter queue redrive",
    ],
)
def test_questions_and_plain_words_are_no_pasted_output(query: str) -> None:
    assert not looks_like_output(query)


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("how did we fix the dead-letter queue backup", True),  # a question word first
        ("the dead-letter queue backup?", True),  # a question mark last
        ("fatal: The current branch main has no upstream branch.", False),
        ("the dead-letter queue backup", False),
    ],
)
def test_a_question_reads_as_asked(text: str, asked: bool) -> None:
    assert reads_as_question(text) is asked
