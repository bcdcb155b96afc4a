"""The CLI as a ripgrep or git user expects it: finding nothing prints nothing on stdout and says why on stderr (exit
1; --json keeps its shape), a flag's value may start with '-' (`--since -3d`), every command that reads the index
takes the same common flags and every command that prints an answer the same output flags (--json, --color,
--no-pager, -q), `-m`/`--max-count` for a limit, and CLICOLOR_FORCE. The cases run the real CLI, or walk the parser
every command is made from."""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from memlens.cli.arguments import OUTPUT_FLAGS, build_parser
from memlens.engine.engine import Engine

WRITERS = frozenset({"index", "reindex", "watch"})  # their work is the sync: nothing to skip
SERVERS = frozenset({"mcp"})  # syncs in the background while it serves
LOCATION = frozenset({"--workspace", "--transcripts", "--index-dir", "--scope", "--settings", "--no-embeddings"})
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def memlens(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR", "CLICOLOR_FORCE")} | (env or {})
    return subprocess.run(
        [sys.executable, "-m", "memlens", *args], capture_output=True, text=True, timeout=600, check=False, env=env
    )


@pytest.fixture
def where(example: Engine) -> list[str]:
    example.close()  # release the writer lock: the CLI process may write
    return ["--workspace", str(example.workspaces[0]), "--index-dir", str(example.index_dir), "--no-sync"]


def commands() -> dict[str, argparse.ArgumentParser]:
    """Each command's own parser, by name."""
    parser = build_parser()
    found = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(found.choices)


def flags(parser: argparse.ArgumentParser) -> set[str]:
    return set(parser._option_string_actions)


@pytest.mark.slow  # CLI processes
def test_nothing_found_prints_nothing_on_stdout_and_says_why_on_stderr(where: list[str]) -> None:
    search = memlens("search", "zebra giraffe", "--min-score", "0.99", *where)
    assert (search.returncode, search.stdout) == (1, "")  # `memlens search x | wc -l` counts 0, as rg's would
    said = search.stderr.splitlines()
    assert "memlens: no results for 'zebra giraffe'" in said
    assert any(line.startswith("memlens: ") and "--min-score 0 shows them" in line for line in said), said
    sessions = memlens("sessions", "--project", "nowhere-at-all", *where)
    assert (sessions.returncode, sessions.stdout) == (1, "")
    assert "memlens: no sessions" in sessions.stderr.splitlines()
    fixes = memlens("fixes", "ZebracornError: the quux frobnicated", *where)
    assert (fixes.returncode, fixes.stdout) == (1, "")
    assert "memlens: no past tool output matches that error" in fixes.stderr.splitlines()
    # --json keeps its shape on stdout: an empty list, and the same status
    as_json = memlens("search", "zebra giraffe", "--min-score", "0.99", "--json", *where)
    assert as_json.returncode == 1 and json.loads(as_json.stdout)["results"] == []
    listed = memlens("sessions", "--project", "nowhere-at-all", "--json", *where)
    assert listed.returncode == 1 and json.loads(listed.stdout)["sessions"] == []
    # ...and what was found is on stdout still
    found = memlens("search", "dead-letter queue", *where)
    assert found.returncode == 0 and " results · hybrid · " in found.stdout


@pytest.mark.slow  # CLI processes
def test_since_takes_a_duration_written_with_a_minus(where: list[str]) -> None:
    """`--since -3d` was refused by argparse (`expected one argument`: it read -3d as a flag) and by the dates'
    grammar; both spellings now mean what `--since 3d` means, and `--since=-3d` too."""
    pages = []
    for written in (["--since", "-5000d"], ["--since=-5000d"], ["--since", "5000d"]):
        run = memlens("sessions", "--json", *written, *where)
        assert run.returncode == 0, run.stderr
        pages.append(json.loads(run.stdout)["sessions"])
    assert pages[0] and pages[0] == pages[1] == pages[2]
    search = memlens("search", "queue", "--since", "-5000d", "--until", "-0d", "--json", *where)
    assert search.returncode == 0 and json.loads(search.stdout)["results"], search.stderr


def test_every_flag_that_takes_a_value_takes_one_that_starts_with_a_dash(capsys: pytest.CaptureFixture[str]) -> None:
    """As git and ripgrep read the word after such a flag as its value: `--since -3d`, `--project -old`,
    `--cursor -Zx…` (a cursor may start with '-'). A value may still be refused, as any bad value is, but never as
    missing."""
    parser = build_parser()
    walked = 0
    for name, command in commands().items():
        needed = [a for a in command._actions if not a.option_strings and a.required]
        words = [name] + ["bash" if a.choices else "word" for a in needed]
        for action in command._actions:
            if not action.option_strings or action.nargs is not None:
                continue
            flag = max(action.option_strings, key=len)
            try:
                parsed = parser.parse_args([*words, flag, "-x3"])
            except SystemExit:  # refused as a value (a choice, a number): said so, not that it was missing
                said = capsys.readouterr().err
                assert "expected one argument" not in said and "-x3" in said, (name, flag, said)
            else:
                value = getattr(parsed, action.dest)
                assert value in ("-x3", ["-x3"], Path("-x3"), [Path("-x3")]), (name, flag, value)
            walked += 1
    assert walked > 40
    # a flag where its value was forgotten is still said to miss it, not taken as the value
    with pytest.raises(SystemExit):
        parser.parse_args(["search", "q", "--project", "--json"])
    assert "argument --project: expected one argument" in capsys.readouterr().err


def test_every_command_that_reads_the_index_takes_the_common_flags() -> None:
    """`memlens stats --no-sync` was refused where search and sessions take it: each command that opens an index
    takes the same folders flags, each that reads it (no writer, no server) --no-sync and --json, and each that
    colours its output the pager's flag too."""
    parsers = commands()
    opening = {name for name, command in parsers.items() if "--index-dir" in flags(command)}
    assert opening >= {"search", "history", "fixes", "sessions", "stats", "sources", "publish"} | WRITERS | SERVERS
    for name in opening:
        assert flags(parsers[name]) >= LOCATION, (name, LOCATION - flags(parsers[name]))
    for name in opening - WRITERS - SERVERS:
        assert {"--no-sync", "--json"} <= flags(parsers[name]), name
    for name, command in parsers.items():
        assert "-h" in flags(command) and "--help" in flags(command)
        if "--color" in flags(command):
            assert "--no-pager" in flags(command), name


@pytest.mark.slow  # CLI processes
def test_stats_and_sources_take_no_sync(where: list[str]) -> None:
    stats = memlens("stats", "--json", *where)
    assert stats.returncode == 0 and json.loads(stats.stdout)["totalChunks"] > 0, stats.stderr
    sources = memlens("sources", *where)
    assert sources.returncode == 0 and "[memory]" in sources.stdout, sources.stderr


@pytest.mark.slow  # a CLI process
def test_a_watch_whose_reader_has_gone_ends_quietly(tmp_path: Path) -> None:
    """`memlens watch | head -1`: once the reader has gone, the next sync's line meets a closed pipe. The watch
    logged a BrokenPipeError traceback at every sync and never ended; it now stops as after Ctrl-C, status 0."""
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "MEMORY.md").write_text("# Memory\n\nStart.\n")
    command = [sys.executable, "-m", "memlens", "watch", "--no-embeddings", "--workspace", str(workspace)]
    command += ["--index-dir", str(tmp_path / "index")]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.readline().startswith("sync: ")  # the first sync, read
        process.stdout.close()  # the reader goes, as `head -1` does
        (workspace / "memory" / "2026-02-11.md").write_text("# Today\n\nWatched note.\n")
        status = process.wait(timeout=120)  # before the fix it never ended: this wait failed
        said = process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert status == 0 and "Traceback" not in said and "BrokenPipe" not in said, said
    assert "memlens: stopped watching; " in said


@pytest.mark.slow  # CLI processes
def test_a_git_word_for_a_command_is_told_the_memlens_one() -> None:
    """`memlens show REF`, `memlens log`: no spelling is near a memlens command, so nothing was suggested."""
    for typed, meant in (("show", "memlens history REF"), ("log", "memlens sessions"), ("grep", "memlens search")):
        said = memlens(typed, "5b0e7d3c")
        assert said.returncode == 2 and said.stdout == "" and said.stderr.count("\n") == 1, said.stderr
        assert said.stderr.startswith(f"memlens: error: '{typed}' is not a memlens command; ")
        assert meant in said.stderr, said.stderr
    near = memlens("serch", "x")
    assert "did you mean 'search'?" in near.stderr  # a misspelling is still told its nearest name


@pytest.mark.slow  # CLI processes
def test_help_with_a_command_prints_that_commands_help_as_git_help_does() -> None:
    """`memlens help search` was refused with a pointer to `--help`; it prints what `memlens search --help` prints
    (git help, cargo help), `memlens help` what `memlens --help` prints, and a command that is none is one line."""
    for command in ("search", "history", "completion", "help"):
        asked = memlens("help", command)
        assert (asked.returncode, asked.stderr) == (0, ""), (command, asked.stderr)
        assert asked.stdout == memlens(command, "--help").stdout, command
        assert asked.stdout.startswith(f"usage: memlens {command} "), command
    top = memlens("help")
    assert top.returncode == 0 and top.stdout == memlens("--help").stdout and top.stdout.startswith("usage: memlens ")
    for typed, told in (("serch", "did you mean 'search'?"), ("show", "memlens history REF")):
        wrong = memlens("help", typed)
        assert (wrong.returncode, wrong.stdout, wrong.stderr.count("\n")) == (2, "", 1), wrong.stderr
        assert wrong.stderr.startswith(f"memlens: error: '{typed}' is not a memlens command; "), wrong.stderr
        assert told in wrong.stderr, wrong.stderr


def closed_stdout(*args: str) -> subprocess.CompletedProcess[str]:
    """`memlens ARGS` whose reader has gone before it writes (`memlens ARGS | true`): a closed pipe on stdout."""
    read, write = os.pipe()
    os.close(read)
    try:
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR")}
        command = [sys.executable, "-m", "memlens", *args]
        return subprocess.run(command, stdout=write, stderr=subprocess.PIPE, text=True, timeout=600, env=env)
    finally:
        os.close(write)


@pytest.mark.slow  # CLI processes
def test_every_command_ends_with_its_status_and_no_traceback_when_its_reader_has_gone(where: list[str]) -> None:
    """Exit statuses as ripgrep's (0 found, 1 nothing, 2 an error) for every command that ends by itself, each with
    stdout a pipe nobody reads any more (`memlens X | head -1`): the status kept, nothing said but its one line."""
    unreachable = "postgresql://127.0.0.1:1/nothing-listens"
    cases: list[tuple[list[str], int]] = [
        (["search", "dead-letter queue", "--limit", "100", "--long", *where], 0),
        (["search", "zebra giraffe", "--min-score", "0.99", *where], 1),
        (["search", "dead-letter queue", "--json", *where], 0),
        (["history", "5b0e7d3c", "--limit", "500", *where], 0),
        (["history", "no-such-session", *where], 2),
        (["fixes", "queue", *where], 0),
        (["fixes", "ZebracornError: the quux frobnicated", *where], 1),
        (["sessions", *where], 0),
        (["sessions", "--project", "nowhere-at-all", *where], 1),
        (["stats", *where], 0),
        (["sources", *where], 0),
        (["publish", "--team", unreachable, *where], 2),
        ([arg for arg in ["index", *where] if arg != "--no-sync"], 0),
        ([arg for arg in ["reindex", *where] if arg != "--no-sync"], 0),
        (["completion", "bash"], 0),
        (["man"], 0),
        (["search", "--help"], 0),
        (["help", "search"], 0),
        (["--version"], 0),
    ]
    ending = set(commands()) - {"watch", "serve", "mcp"}  # these serve until stopped
    assert {args[0] for args, _ in cases} >= ending
    for args, status in cases:
        ran = closed_stdout(*args)
        said = ran.stderr
        assert ran.returncode == status and "Traceback" not in said and "BrokenPipe" not in said, (args, said)
        if status == 2:
            assert said.startswith("memlens: error: ") and said.count("\n") == 1, (args, said)


def test_every_command_that_prints_an_answer_takes_the_same_output_flags() -> None:
    """`memlens stats --color never`, `memlens sessions -q` and `memlens index --json` were refused where search took
    them: each command that opens an index and ends by itself (not watch, mcp) takes every output flag, the one
    definition of them, and parses them all given at once."""
    parser = build_parser()
    parsers = commands()
    printing = {name for name, command in parsers.items() if "--index-dir" in flags(command)} - {"watch", "mcp"}
    assert printing >= {"index", "reindex", "search", "stats", "history", "fixes", "sessions", "sources", "publish"}
    for name in printing:
        assert flags(parsers[name]) >= {*OUTPUT_FLAGS, "-q"}, (name, set(OUTPUT_FLAGS) - flags(parsers[name]))
        needed = ["word" for a in parsers[name]._actions if not a.option_strings and a.required]
        parsed = parser.parse_args([name, *needed, "--json", "--color", "never", "--no-pager", "-q"])
        assert (parsed.json, parsed.color, parsed.no_pager, parsed.quiet) == (True, "never", True, True), name
        helped = {a.dest: a.help for a in parsers[name]._actions}
        assert all(helped[dest] for dest in ("json", "color", "no_pager", "quiet")), name


def test_a_limit_takes_rgs_and_gits_names_in_every_command_that_has_one() -> None:
    """`-m N` (rg, grep) and `--max-count N` (rg, grep, git log) are `--limit N` wherever there is a limit; search
    takes rg's `-i` (it never minds case), and memlens -V prints the version as rg -V does."""
    parser = build_parser()
    limited = {name for name, command in commands().items() if "--limit" in flags(command)}
    assert limited == {"search", "history", "fixes", "sessions"}
    for name in limited:
        needed = ["word" for a in commands()[name]._actions if not a.option_strings and a.required]
        for written in (["-m", "3"], ["-m3"], ["--max-count", "3"], ["--max-count=3"], ["--limit", "3"]):
            assert parser.parse_args([name, *needed, *written]).limit == "3", (name, written)
    assert parser.parse_args(["search", "-i", "dlq"]).query == ["dlq"]
    assert "-V" in flags(parser) and parser._option_string_actions["-V"] is parser._option_string_actions["--version"]


def test_a_bad_limit_is_told_by_the_name_it_was_typed_as(tmp_path: Path) -> None:
    """`-m 0` was answered "--limit must be 1..100": a user told of a flag they never typed has to work out it is the
    same one. The error names the flag as typed, in every command with a limit, and a text that is no number too."""
    for name, needed in (("search", ["dlq"]), ("history", ["dlq"]), ("fixes", ["dlq"]), ("sessions", [])):
        for written, said in (
            (["-m", "0"], "-m must be"),
            (["-m0"], "-m must be"),
            (["--max-count=0"], "--max-count must be"),
            (["--limit", "0"], "--limit must be"),
            (["-m", "x"], "-m must be an integer"),
        ):
            done = memlens(name, *needed, *written, "--index-dir", str(tmp_path / "index"), "--no-sync")
            assert done.returncode == 2, (name, written, done.stderr)
            assert done.stderr.startswith(f"memlens: error: {said}"), (name, written, done.stderr)
            assert "Traceback" not in done.stderr


def test_every_example_in_the_help_parses() -> None:
    """Each example a command's help shows is a command line memlens takes (`memlens index -v`, once shown there, was
    refused: -v is memlens's own flag, before the command). A pipe's other side and a redirection are left out."""
    parser = build_parser()
    shown = 0
    for name, helped in [("memlens", parser), *commands().items()]:
        examples = (helped.epilog or "").split("examples:\n", 1)[-1].split("\n\n", 1)[0].splitlines()
        for example in examples:
            ours = next(part for part in example.split("|") if part.strip().startswith("memlens "))
            words = shlex.split(ours.split(">")[0])[1:]
            try:
                parser.parse_args(words)
            except SystemExit as exc:
                raise AssertionError(f"{name}: {example!r} is refused") from exc
            shown += 1
    assert shown > 25


@pytest.mark.slow  # CLI processes
def test_index_prints_its_report_as_json_and_quiet_prints_nothing(example: Engine) -> None:
    """`memlens index` printed its one sync line only, where every other command takes --json: the report is the
    language server's (`memlens.reindex`), its keys and counts. -q prints nothing, in index and in a search that
    finds something (0) or nothing (1), as rg -q."""
    example.close()
    where = ["--workspace", str(example.workspaces[0]), "--index-dir", str(example.index_dir)]
    note = example.workspaces[0] / "memory" / "2026-03-01.md"
    note.write_text("# Today\n\nThe wibble gauge was recalibrated.\n")
    indexed = memlens("index", "--json", *where)
    assert indexed.returncode == 0, indexed.stderr
    report = json.loads(indexed.stdout)
    assert report["filesParsed"] == 1 and report["chunksAdded"] >= 1 and report["errors"] == [], report
    assert {"filesSeen", "filesUnchanged", "messagesAdded", "unitsEmbedded", "seconds", "cancelled"} <= set(report)
    again = memlens("reindex", "--json", *where)
    assert again.returncode == 0 and json.loads(again.stdout)["filesParsed"] == 0, again.stderr
    assert memlens("index", *where).stdout.startswith("sync: ")  # without it, the line for people
    note.write_text("# Today\n\nThe wibble gauge was recalibrated twice.\n")
    for args, status in (
        (["search", "wibble gauge", *where], 0),  # it syncs the change first: the sync's line is not said either
        (["index", *where], 0),
        (["search", "zebra giraffe", "--min-score", "0.99", *where], 1),
        (["sessions", "--project", "nowhere-at-all", "--json", *where], 1),
        (["stats", *where], 0),
    ):
        quiet = memlens(*args, "-q")
        assert (quiet.returncode, quiet.stdout, quiet.stderr) == (status, "", ""), (args, quiet.stderr)
    found = memlens("search", "wibble gauge", "-m", "1", "--json", "--no-sync", *where)
    assert len(json.loads(found.stdout)["results"]) == 1, found.stderr


@pytest.mark.slow  # CLI processes
def test_clicolor_force_colours_a_pipe_unless_no_color_or_the_flag_says_otherwise(where: list[str]) -> None:
    """CLICOLOR_FORCE (bixense.com/clicolors) colours a pipe, `memlens search x | less -R`; NO_COLOR still wins, as
    does --color never, and CLICOLOR_FORCE=0 forces nothing."""
    args = ["search", "dead-letter queue", "-m", "2", *where]
    assert ANSI.search(memlens(*args, env={"CLICOLOR_FORCE": "1"}).stdout)
    assert ANSI.search(memlens("history", "5b0e7d3c", "-m", "3", *where, env={"CLICOLOR_FORCE": "1"}).stdout)
    for env in ({}, {"CLICOLOR_FORCE": "0"}, {"CLICOLOR_FORCE": "1", "NO_COLOR": "1"}):
        plain = memlens(*args, env=env)
        assert plain.returncode == 0 and plain.stdout and not ANSI.search(plain.stdout), env
    never = memlens(*args, "--color", "never", env={"CLICOLOR_FORCE": "1"})
    assert never.stdout and not ANSI.search(never.stdout)


@pytest.mark.slow  # a CLI process
def test_watch_json_prints_a_line_of_json_per_sync(tmp_path: Path) -> None:
    """`memlens watch --json`: each sync's report as one line of JSON (JSON Lines, as rg --json), the keys of
    `memlens index --json`, flushed as it comes so that `| jq --unbuffered` reads each sync when it happens."""
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "MEMORY.md").write_text("# Memory\n\nStart.\n")
    command = [sys.executable, "-m", "memlens", "watch", "--json", "--no-embeddings", "--workspace", str(workspace)]
    command += ["--index-dir", str(tmp_path / "index")]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        first = json.loads(process.stdout.readline())
        assert first["filesParsed"] == 1 and first["cancelled"] is False, first
        (workspace / "memory" / "2026-02-11.md").write_text("# Today\n\nWatched note.\n")
        second = json.loads(process.stdout.readline())
        assert second["filesParsed"] == 1 and second["chunksAdded"] >= 1, second
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.slow  # CLI processes
def test_a_misspelt_memlens_flag_after_a_command_is_named_where_it_goes() -> None:
    """`memlens search --verison`: no flag of search's is near, memlens's own `--version` is, and it goes before the
    command; a command's own flag misspelt is still suggested as itself."""
    told = memlens("search", "--verison", "x")
    assert told.returncode == 2 and told.stderr.count("\n") == 1, told.stderr
    assert "did you mean --version, memlens's own flag, before the command: memlens --version (" in told.stderr
    verbose = memlens("stats", "--verbos").stderr
    assert "did you mean --verbose, memlens's own flag, before the command: memlens --verbose stats …" in verbose
    assert "--limt; did you mean --limit? (see memlens search --help)" in memlens("search", "--limt", "3", "x").stderr


@pytest.mark.slow  # CLI processes
def test_a_ripgrep_flag_given_to_search_is_told_what_memlens_does_instead() -> None:
    """`memlens search foo -C 3` (rg's context lines), `-F`, `-l`: no memlens flag is spelt near them, so each is told
    what memlens does instead, in its one error line; another command's unknown `-l` is only unknown."""
    context = memlens("search", "foo", "-C", "3")
    assert context.returncode == 2 and context.stderr.count("\n") == 1, context.stderr
    assert "-C 3; -C is ripgrep's: a hit is three lines; memlens history REF reads the messages around it" in (
        context.stderr
    )
    assert "-F is ripgrep's: a query is words, never a pattern" in memlens("search", "-F", "foo").stderr
    listed = memlens("fixes", "-l", "ECONNREFUSED").stderr
    assert "-l is ripgrep's: memlens sessions --query WORDS lists" in listed and "did you mean" not in listed
    assert (
        memlens("sessions", "-l").stderr == "memlens: error: unrecognized arguments: -l (see memlens sessions --help)\n"
    )
