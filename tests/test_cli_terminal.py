"""The CLI as a person meets it (issue 36): hits in at most three lines of the terminal's width, colour and a pager
on a terminal only, help that teaches, completion and a man page, relative dates, short references, options in any
order, the project found from a subfolder, and one honest line for each error. Every case runs the real CLI."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from conftest import ctrl_c_reaches
from memlens.cli.terminal import Style, cells
from memlens.engine.engine import Engine
from memlens_runs import memlens_process, on_a_terminal

QUERY = "how did we fix the dead-letter queue backup?"
DLQ_SESSION = "claude-code:5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
pytestmark = pytest.mark.slow  # CLI processes


def memlens(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return memlens_process(*args, env={**os.environ, **(env or {})}, cwd=cwd)


def on_terminal(*args: str, env: dict[str, str], columns: int = 80, rows: int = 24, stderr_too: bool = False) -> str:
    """What `memlens ARGS` writes to a real terminal (a pseudo-terminal of `columns` × `rows`); `stderr_too`: its
    stderr on the same terminal, as a shell's command has it."""
    clean = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    command = [sys.executable, "-m", "memlens", *args]
    _, shown = on_a_terminal(
        command, env={**clean, "TERM": "xterm", **env}, columns=columns, rows=rows, stderr=stderr_too
    )
    return shown.replace("\r\n", "\n")


@pytest.fixture
def cli_example(example: Engine) -> Engine:
    example.close()  # release the writer lock: the CLI process writes
    return example


def where(engine: Engine) -> list[str]:
    return ["--workspace", str(engine.workspaces[0]), "--index-dir", str(engine.index_dir)]


def hits_of(out: str) -> list[list[str]]:
    """The hits of a search's text output: each a header line and its indented excerpt lines (the footer and the
    notes under it left out)."""
    lines = [line for line in out.splitlines() if line]
    hits: list[list[str]] = []
    for line in lines:
        if re.match(r"\d+ results? · ", line):
            break
        if line.startswith("  "):
            hits[-1].append(line)
        else:
            hits.append([line])
    return hits


def test_hits_fit_80_columns_in_three_lines_each(cli_example: Engine) -> None:
    result = memlens("search", QUERY, *where(cli_example), env={"COLUMNS": "80"})
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert not ANSI.search(out)  # a pipe: no colour
    assert all(cells(line) <= 80 for line in out.splitlines()), out
    hits = hits_of(out)
    assert len(hits) >= 3 and all(1 <= len(hit) <= 3 for hit in hits)
    headers = [hit[0] for hit in hits]
    assert any(h.startswith("5b0e7d3c:") for h in headers)  # the short reference history opens
    assert all(re.search(r" · (strong|possible|weak)$", h) for h in headers)  # how sure, in words
    assert str(cli_example.workspaces[0]) not in out  # paths relative to the workspace
    footer = [line for line in out.splitlines() if re.fullmatch(r"\d+ results · hybrid · \d+ ms.*", line)]
    last = out.splitlines()[-1]
    assert len(footer) == 1 and (
        last == footer[0] or re.fullmatch(r"\d+ weaker match(es)? hidden; --min-score 0 shows them", last)
    )
    narrow = memlens("search", QUERY, *where(cli_example), "--no-sync", env={"COLUMNS": "40"}).stdout
    assert all(cells(line) <= 40 for line in narrow.splitlines()), narrow


def test_a_terminal_gets_colour_and_bold_matches_unless_no_color(cli_example: Engine) -> None:
    args = ["search", QUERY, "--limit", "3", "--no-sync", *where(cli_example)]
    shown = on_terminal(*args, env={}, columns=80)
    assert "\x1b[1;31m" in shown, shown  # matched words, bold red as ripgrep's
    assert re.search(r"\x1b\[1;31m(queue|fix|backup)\w*\x1b\[0m", shown, re.IGNORECASE), shown
    plain = ANSI.sub("", shown)
    assert all(cells(line) <= 80 for line in plain.splitlines()), plain  # the real terminal's width
    assert all(len(hit) <= 3 for hit in hits_of(plain))
    assert not ANSI.search(on_terminal(*args, env={"NO_COLOR": "1"}))
    assert not ANSI.search(on_terminal(*args, "--color", "never", env={}))
    forced = memlens(*args, "--color", "always").stdout  # a pipe, colour asked for
    assert "\x1b[1;31m" in forced
    assert not ANSI.search(memlens(*args).stdout)


def test_history_and_fixes_colour_as_a_search_does(cli_example: Engine) -> None:
    """`history` and `fixes` take `--color` as `search` does, and colour a terminal only (not under NO_COLOR, not in a
    pipe unless asked): the message a reference names, and the pasted error's words where its past output holds
    them, in the colours of a search hit's reference and matches."""
    history = ["history", "5b0e7d3c:b93217ff", "--limit", "3", "--no-sync", "--no-pager", *where(cli_example)]
    fixes = ["fixes", "UnroutableEvent: no route for detail-type", "--limit", "1", "--no-sync", "--no-pager"]
    fixes += where(cli_example)
    read = on_terminal(*history, env={}, columns=80)
    assert re.search(r"\x1b\[35m\x1b\[1m▶ \[b93217ff[^\n]*\x1b\[0m", read), read  # the anchor, as a reference
    found = on_terminal(*fixes, env={}, columns=80)
    assert "\x1b[1;31mUnroutableEvent\x1b[0m" in found, found  # the error's words, bold red as a search's matches
    for args in (history, fixes):
        plain = on_terminal(*args, "--color", "never", env={}, columns=80)
        assert not ANSI.search(plain) and not ANSI.search(on_terminal(*args, env={"NO_COLOR": "1"}))
        assert ANSI.sub("", on_terminal(*args, env={}, columns=80)) == plain  # folded alike: codes take no cells
        assert not ANSI.search(memlens(*args).stdout)  # a pipe
        assert "\x1b[" in memlens(*args, "--color", "always").stdout  # a pipe, colour asked for


def test_the_pager_runs_on_a_terminal_only(cli_example: Engine, tmp_path: Path) -> None:
    paged = tmp_path / "paged.txt"
    pager = {"PAGER": f"sh -c 'cat > {paged}'", "LINES": "5"}
    args = ["search", QUERY, "--no-sync", *where(cli_example)]
    piped = memlens(*args, env=pager)
    assert piped.returncode == 0 and piped.stdout and not paged.exists()
    on_terminal(*args, "--no-pager", env=pager)
    assert not paged.exists()
    on_terminal(*args, env=pager)
    assert paged.exists() and "5b0e7d3c:" in paged.read_text()


def test_an_empty_or_unsplittable_pager_prints_the_answer(cli_example: Engine, tmp_path: Path) -> None:
    """PAGER= is no pager, as git reads it (it started less); PAGER='less "' ended in 'internal error: ValueError'
    with no answer. A `less` first on PATH says whether the default pager was started."""
    started = tmp_path / "less-started"
    (tmp_path / "less").write_text(f"#!/bin/sh\ntouch {started}\ncat\n")
    (tmp_path / "less").chmod(0o755)
    args = ["search", QUERY, "--no-sync", *where(cli_example)]
    for pager in ("", 'less "'):
        shown = on_terminal(*args, env={"PAGER": pager, "PATH": f"{tmp_path}:{os.environ['PATH']}"}, rows=5)
        assert "5b0e7d3c:" in shown and "error" not in shown and not started.exists(), pager


def test_memlens_pager_comes_before_pager_and_cat_is_no_pager(cli_example: Engine, tmp_path: Path) -> None:
    """MEMLENS_PAGER beats PAGER, as GIT_PAGER does (set empty: no pager, whatever PAGER says); a pager of `cat` is
    none, as in git (it was started). `stats` and `sources` page on a terminal as the other answers do."""
    ours, theirs, started = tmp_path / "ours.txt", tmp_path / "theirs.txt", tmp_path / "cat-started"
    (tmp_path / "cat").write_text(f"#!/bin/sh\ntouch {started}\nexec /bin/cat\n")
    (tmp_path / "cat").chmod(0o755)
    args = ["search", QUERY, "--no-sync", *where(cli_example)]
    both = {"MEMLENS_PAGER": f"sh -c 'cat > {ours}'", "PAGER": f"sh -c 'cat > {theirs}'"}
    on_terminal(*args, env=both, rows=5)
    assert "5b0e7d3c:" in ours.read_text() and not theirs.exists()
    shown = on_terminal(*args, env={**both, "MEMLENS_PAGER": ""}, rows=5)
    assert "5b0e7d3c:" in shown and not theirs.exists()
    path = f"{tmp_path}:{os.environ['PATH']}"
    shown = on_terminal(*args, env={"PAGER": "cat", "PATH": path}, rows=5)
    assert "5b0e7d3c:" in shown and not started.exists()
    for command, said in (("stats", "chunks with embeddings"), ("sources", "[memory]")):
        on_terminal(command, *where(cli_example), env={"PAGER": f"sh -c 'cat > {ours}'"}, rows=3)
        assert said in ours.read_text(), command
        ours.unlink()


def test_help_describes_every_option_with_defaults_and_examples() -> None:
    out = memlens("search", "--help").stdout
    assert "examples:" in out and "memlens search" in out.split("examples:")[1]
    for flag in ("--limit", "--mode", "--kind", "--role", "--min-score", "--since", "--color", "--transcripts"):
        block = re.split(rf"\n  (?:-\w \S+, )?{flag}\b", out, maxsplit=1)[1].split("\n  -", 1)[0]  # -m N, --limit
        assert len(block.split()) > 3, f"{flag} has no description: {block!r}"
    assert "default: search.maxResults (10)" in " ".join(out.split())
    for command in ("index", "search", "stats", "history", "sessions", "watch", "completion", "man"):
        text = memlens(command, "--help").stdout
        assert "examples:" in text, command
    assert "default: team.url (none)" in " ".join(out.split())  # an unset setting is said, not shown as `()`
    sessions = " ".join(memlens("sessions", "--help").stdout.split())
    assert "--publisher PUBLISHER only the team's sessions of this publisher" in sessions
    said = "1 nothing found (search, fixes and sessions: nothing on stdout, why on stderr), 2 an error"  # help, man
    assert said in " ".join(memlens("--help").stdout.split()) and said in " ".join(memlens("man").stdout.split())


def test_every_help_fits_an_80_column_terminal_and_keeps_its_examples_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each command's help, its prose folded as argparse folds the options' help, and each example a whole line to
    copy: no line wider than the terminal."""
    import argparse

    from memlens.cli.arguments import build_parser

    monkeypatch.setenv("COLUMNS", "80")
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    for name, helped in [("memlens", parser), *commands.items()]:
        text = helped.format_help()
        wide = [line for line in text.splitlines() if cells(line) > 80]
        assert not wide, f"{name}: {wide}"
        examples = text.split("examples:\n", 1)[1].split("\n\n", 1)[0].splitlines() if "examples:" in text else []
        # each a whole command, its continuation never folded onto a line of its own (a pipe into memlens too)
        assert all(line.startswith("  memlens ") or " | memlens " in line for line in examples), f"{name}: {examples}"
    assert "memlens history 5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9 --message b932" in commands["history"].format_help()


@pytest.mark.parametrize("columns", [40, 60])
def test_every_help_fits_a_narrow_terminal(columns: int) -> None:
    """At 40 or 60 columns no line of any command's help runs past the terminal but an example (a command to copy)
    or a word that cannot break (a URL): the usage shrinks to `memlens search [OPTIONS] QUERY [DIR ...]` where
    argparse's own would run past it, and a flag whose choices do not fit beside it is named, its choices said in its
    help."""
    commands = ["", "index", "reindex", "search", "stats", "history", "fixes", "sessions", "sources", "publish"]
    for command in [*commands, "watch", "serve", "mcp", "completion", "man"]:
        shown = memlens(*command.split(), "--help", env={"COLUMNS": str(columns)})
        assert shown.returncode == 0, shown.stderr
        wide = [
            line
            for line in shown.stdout.splitlines()
            if cells(line) > columns and not line.startswith("  memlens ") and len(line.split()) > 1
        ]
        assert not wide, f"memlens {command} --help at {columns} columns: {wide}"
    narrow = memlens("search", "--help", env={"COLUMNS": "40"}).stdout
    assert narrow.startswith("usage: memlens search [OPTIONS] QUERY\n  [DIR ...]\n")
    said = " ".join(narrow.split())
    assert "--format FORMAT only this agent's transcripts; e.g. codex; one of: claude-code, codex, openclaw" in said
    assert "--format {claude-code,codex,openclaw,specstory}" in memlens("search", "--help").stdout  # where it fits


def test_completion_scripts_for_three_shells(tmp_path: Path) -> None:
    bash = memlens("completion", "bash")
    assert bash.returncode == 0 and "memlens" in bash.stdout and "--since" in bash.stdout
    script = tmp_path / "memlens.bash"
    script.write_text(bash.stdout)
    subprocess.run(["bash", "-n", str(script)], check=True)
    zsh = memlens("completion", "zsh").stdout
    assert zsh.startswith("#compdef memlens") and "--since" in zsh
    fish = memlens("completion", "fish").stdout
    assert "complete -c memlens" in fish and "-l since" in fish
    assert "-n '__fish_seen_subcommand_from search' -l limit -l max-count -s m -r" in fish
    if shutil.which("fish"):
        subprocess.run(["fish", "--no-execute", "-c", fish], check=True)


def test_bash_completes_commands_flags_and_every_flags_values(tmp_path: Path) -> None:
    """Tab in a real bash, from the script `memlens completion bash` writes: a command, a flag, and the values of a
    flag, those the request's schema checks (`--format`, `--mode`, `--kind`, `--role`) as well as argparse's own."""
    script = tmp_path / "memlens.bash"
    script.write_text(memlens("completion", "bash").stdout)

    def tab(line: str) -> list[str]:
        words = line.split(" ")
        press = f"""
            source {script}
            COMP_WORDS=({" ".join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}
            COMP_LINE={line!r}; COMP_POINT=${{#COMP_LINE}}
            _shtab_memlens memlens {words[-1]!r} {words[-2]!r}
            printf '%s\\n' "${{COMPREPLY[@]}}"
        """
        done = subprocess.run(["bash", "-c", press], capture_output=True, text=True, check=True)
        return sorted(done.stdout.split())

    assert tab("memlens se") == ["search", "serve", "sessions"]
    assert tab("memlens history --co") == ["--color"]
    assert tab("memlens search --format ") == ["claude-code", "codex", "openclaw", "specstory"]
    assert tab("memlens sessions --format ") == ["claude-code", "codex", "openclaw", "specstory"]
    assert tab("memlens search --mode ") == ["hybrid", "keyword", "vector"]
    assert tab("memlens search --role ") == ["assistant", "user"]
    assert tab("memlens search --kind ") == ["memory", "summary", "tool", "transcript"]
    assert tab("memlens search --color ") == ["always", "auto", "never"]
    assert tab("memlens sessions --max") == ["--max-count"]  # the new flags, in every command that has them
    assert tab("memlens stats --qu") == ["--quiet"]
    assert tab("memlens index --j") == ["--json"]
    assert tab("memlens sources --color ") == ["always", "auto", "never"]
    for name in ("notes", "nothing", "other"):
        (tmp_path / name).mkdir()
    (tmp_path / "notes.md").write_text("a file: no folder to search\n", encoding="utf-8")
    folders = [str(tmp_path / "notes"), str(tmp_path / "nothing")]
    assert tab(f"memlens search heartbeat {tmp_path}/no") == folders  # a folder after the query, as rg's PATH
    assert tab(f"memlens fixes ECONNREFUSED {tmp_path}/no") == folders


def test_the_man_page_renders(tmp_path: Path) -> None:
    roff = memlens("man").stdout
    assert roff.startswith(".TH MEMLENS 1") and ".SH COMMANDS" in roff and "\\-\\-since" in roff
    assert not any(
        line.startswith((".", "'")) and not re.match(r"\.(TH|SH|SS|TP|PP|B|nf|fi)\b", line)
        for line in roff.splitlines()
    )
    if shutil.which("man"):
        page = tmp_path / "memlens.1"
        page.write_text(roff)
        shown = subprocess.run(
            ["man", "-l", str(page)], capture_output=True, text=True, env={**os.environ, "MANPAGER": "cat"}, check=True
        ).stdout
        assert "memlens search" in shown and "--since" in shown


def test_since_takes_relative_dates(cli_example: Engine) -> None:
    def results(*args: str) -> list[dict[str, Any]]:
        out = memlens("search", QUERY, "--json", "--no-sync", "--kind", "transcript", *args, *where(cli_example))
        assert out.returncode in (0, 1), out.stderr
        return json.loads(out.stdout)["results"]  # type: ignore[no-any-return]

    week = datetime.now(UTC) - timedelta(days=7)
    recent = results("--since", "7d")
    assert all(datetime.fromisoformat(r["timestamp"].replace("Z", "+00:00")) >= week for r in recent)
    assert recent == [] and results("--since", "today") == []  # the example transcripts are months old
    assert results("--since", "5000d") and results("--until", "yesterday")
    assert results("--since", "2026-02-10", "--until", "2026-02-10")
    sessions = memlens("sessions", "--since", "2w", "--json", "--no-sync", *where(cli_example))
    assert sessions.returncode == 1 and json.loads(sessions.stdout)["sessions"] == []  # none, as a search's 1
    assert memlens("sessions", "--since", "5000d", "--json", "--no-sync", *where(cli_example)).returncode == 0


def test_session_and_message_prefixes(cli_example: Engine) -> None:
    found = memlens("search", "redrive", "--session", "5b0e7d3c", "--json", "--no-sync", *where(cli_example))
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)["results"]
    assert hits and {h["sessionKey"] for h in hits} == {DLQ_SESSION}
    hit = hits[0]
    ref = f"{hit['sessionId'][:8]}:{hit['messageId'][:8]}"
    history = memlens("history", ref, "--json", "--no-sync", "--limit", "5", *where(cli_example))
    assert history.returncode == 0, history.stderr
    window = json.loads(history.stdout)
    assert window["sessionKey"] == DLQ_SESSION and window["anchor"] == hit["messageId"]
    flagged = memlens("history", "5b0e7d3c", "--message", hit["messageId"][:6], "--json", *where(cli_example))
    assert json.loads(flagged.stdout)["anchor"] == hit["messageId"]
    text = memlens("history", ref, "--no-sync", *where(cli_example)).stdout
    assert f"▶ [{hit['messageId']}]" in text


def test_options_and_the_query_in_any_order(cli_example: Engine, tmp_path: Path) -> None:
    extra = tmp_path / "more"
    extra.mkdir()
    first = memlens("search", "--transcripts", str(extra), "redrive", "--json", "--no-sync", *where(cli_example))
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["query"] == "redrive"
    last = memlens("search", *where(cli_example), "--limit", "2", "--json", "--no-sync", "redrive")
    assert json.loads(last.stdout)["query"] == "redrive" and 1 <= len(json.loads(last.stdout)["results"]) <= 2


def test_the_project_is_found_from_a_subfolder(tmp_path: Path) -> None:
    project = tmp_path / "project"
    deep = project / "src" / "deep"
    deep.mkdir(parents=True)
    (project / ".git").mkdir()
    (project / "MEMORY.md").write_text("# Memory\n\nThe quokka cluster was retired.\n")
    index = ["--index-dir", str(tmp_path / "index"), "--no-embeddings"]
    found = memlens("search", "quokka", *index, cwd=deep)
    assert found.returncode == 0 and found.stdout.startswith("MEMORY.md:"), found.stdout + found.stderr
    stats = memlens("stats", *index, cwd=deep).stdout
    assert f"workspace: {project} (a parent of the current folder holds .git)" in stats
    given = memlens("stats", *index, "--workspace", str(project), cwd=deep).stdout
    assert "(given by --workspace)" in given


def test_each_error_is_one_line_naming_its_cause(tmp_path: Path) -> None:
    def error(*args: str) -> str:
        result = memlens(*args)
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("memlens: error: "), result.stderr
        return lines[0]

    ws = ["--workspace", str(tmp_path)]
    (tmp_path / "notes.txt").write_text("x")
    assert "--index-dir /proc/nope: cannot create a folder in /proc (" in error(
        "stats", *ws, "--index-dir", "/proc/nope"
    )
    assert "is a file, not a folder" in error("stats", *ws, "--index-dir", str(tmp_path / "notes.txt"))
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    assert error("search", "q", "--workspace", str(a_file)).endswith(f"--workspace {a_file} is a file, not a folder")
    assert "--limit must be 1..100, got 0" in error("search", "q", *ws, "--limit", "0")
    assert "--limit must be 1..100, got -3" in error("search", "q", *ws, "--limit=-3")
    assert "must not be after until" in error("search", "q", *ws, "--since", "2026-02-10", "--until", "2026-01-01")
    assert "--since must be an ISO date" in error("search", "q", *ws, "--since", "someday")
    assert error("search", "q", "--color", "sometimes").startswith(
        "memlens: error: --color must be one of auto, always, never, got 'sometimes'"
    )
    assert "argument --debounce-ms: must be 0..60000, got -1" in error("watch", "--debounce-ms", "-1", *ws)
    assert error("search", "q", "--limt", "3", *ws).endswith(  # a command's flag is the command's to explain
        "unrecognized arguments: --limt 3; did you mean --limit? (see memlens search --help)"
    )
    assert error("--no-pager", "history", "5b0e7d3c", *ws).endswith(  # where git takes it: said where it goes
        "--no-pager before the command; write it after: memlens history --no-pager … (see memlens history --help)"
    )
    assert "write it after: memlens search --color=never …" in error("--color=never", "search", "q", *ws)
    assert error("search", "--limit", "3").startswith("memlens: error: the following arguments are required: QUERY (")
    # memlens's own flags after a command were a missing QUERY (with "did you mean --session?") or unrecognized
    assert error("search", "--version").endswith(
        "--version is memlens's own flag, before any command: memlens --version"
    )
    assert error("search", "q", "-v", *ws).endswith("-v is memlens's own flag, before any command: memlens -v search …")
    assert error("history", "-vv").endswith("memlens -vv history …")
    assert "a query that starts with '-' goes last, after `--`" in error("search", "-ENOENT", *ws)
    assert "required: ERROR; a query that starts with '-'" in error("fixes", "-x", *ws)
    assert "memlens: error: SESSION_KEY must be at most 1,000 characters, got 5,000" in error(
        "history", "x" * 5000, *ws
    )
    # a reference with no session before its colon is named as typed, not by the MCP and editor field's name
    assert "'::::' names no session before its ':'" in error("history", "::::", *ws)
    assert "sessionKey" not in error("history", ":b93217ff", *ws)
    # a name holding a byte that is no UTF-8 is shown escaped once, as stats and search show file names
    assert error("history", "bad\udcff", *ws).endswith("unknown session 'bad\\xff'")


def test_stats_of_an_empty_or_never_synced_index_says_so(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    where = ["--workspace", str(workspace), "--index-dir", str(tmp_path / "i"), "--no-embeddings"]
    for before in ([], ["index"]):  # never synced, then synced with nothing to read
        if before:
            assert memlens(*before, *where).returncode == 0
        out = memlens("stats", *where).stdout
        assert out.startswith("memlens index: empty: nothing indexed yet") and "up to date" not in out


def test_watch_stops_on_one_ctrl_c_and_says_what_it_did(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "MEMORY.md").write_text("# Memory\n\nStart.\n")
    command = [sys.executable, "-m", "memlens", "watch", "--no-embeddings", "--workspace", str(workspace)]
    process = subprocess.Popen(
        [*command, "--index-dir", str(tmp_path / "index")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_reaches,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline().startswith("sync: ")
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=60) == 0
    said = process.stderr.read()
    assert "memlens: stopped watching; 1 file indexed" in said, said
    # said at once, before the wait for the step under way (an embedding batch can take seconds)
    assert said.index("memlens: stopping after the current step") < said.index("memlens: stopped watching"), said
    # the folders it watches, and where the index is (not the index folder as the thing watched)
    assert f"memlens: watching {workspace} (index at {tmp_path / 'index'}); Ctrl-C stops" in said, said


def test_times_are_shown_in_the_zone_days_are_read_in(cli_example: Engine, tmp_path: Path) -> None:
    """display.timeZone: the times under a hit, a history and the sessions table agree with the zone in which
    "yesterday" is read (the catalog holds UTC; 08:57 UTC is 17:57 in Tokyo)."""
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"display": {"timeZone": "Asia/Tokyo"}}))
    zoned = [*where(cli_example), "--settings", str(settings), "--no-sync"]
    found = memlens("search", QUERY, *zoned, env={"COLUMNS": "200"}).stdout
    (header,) = [line for line in found.splitlines() if line.startswith("5b0e7d3c:b93217ff")]
    assert " · 2026-02-10 17:57 · assistant" in header
    history = memlens("history", "5b0e7d3c:b93217ff", *zoned).stdout
    assert "[b93217ff" in history and "assistant · 2026-02-10 17:57:" in history
    machine = memlens("history", "5b0e7d3c:b93217ff", *where(cli_example), "--no-sync", env={"TZ": "UTC"}).stdout
    assert "assistant · 2026-02-10 08:57:" in machine
    sessions = memlens("sessions", *zoned).stdout
    assert "2026-02-10 17:57  claude-code" in sessions


def test_the_sync_line_folds_to_the_terminal_and_stays_whole_in_a_pipe(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    for n in range(3):
        (workspace / "memory" / f"note-{n}.md").write_text(f"# Note {n}\n\nThe pager rotation moved to day {n}.\n")
    where = ["--workspace", str(workspace), "--index-dir", str(tmp_path / "index"), "--no-embeddings"]
    shown = ANSI.sub("", on_terminal("reindex", "--full", *where, env={"HOME": str(tmp_path)}, columns=60))
    lines = [line for line in shown.splitlines() if line.strip() and "\r" not in line]
    sync = lines[lines.index(next(line for line in lines if line.startswith("sync: "))) :]
    assert len(sync) >= 2 and all(len(line) <= 60 for line in sync), sync  # folded, nothing lost past the edge
    assert all(line.startswith("  ") for line in sync[1:])
    # the same sync into an index of its own (a second one into the first adds no chunks, and says so)
    again = ["--workspace", str(workspace), "--index-dir", str(tmp_path / "piped-index"), "--no-embeddings"]
    piped = memlens("reindex", "--full", *again, env={"HOME": str(tmp_path)})
    (line,) = [line for line in piped.stdout.splitlines() if line.startswith("sync: ")]
    assert " ".join(sync).split()[:-2] == line.split()[:-2]  # the same words (but the seconds it took)


def test_fixes_folds_to_the_terminal_pages_like_search_and_stays_whole_in_a_pipe(tmp_path: Path) -> None:
    from test_fixes import ERROR_LINE, write_transcripts

    transcripts = tmp_path / "transcripts"
    write_transcripts(transcripts)
    (tmp_path / "ws").mkdir()
    where = ["--workspace", str(tmp_path / "ws"), "--transcripts", str(transcripts)]
    where += ["--index-dir", str(tmp_path / "index"), "--no-embeddings"]
    assert memlens("index", *where).returncode == 0
    args = ["fixes", ERROR_LINE, "--no-sync", *where]
    shown = ANSI.sub("", on_terminal(*args, "--no-pager", env={"HOME": str(tmp_path)}, columns=60))
    lines = [line for line in shown.splitlines() if line.strip()]
    header = next(n for n, line in enumerate(lines) if line.startswith("1. claude-code:"))
    folded = [line for line in lines if not line.startswith("   | ")]  # the error's own lines are kept as they were
    assert all(cells(line) <= 60 for line in folded), folded
    assert lines[header + 1].startswith("   ") and "message r1" in " ".join(lines[header : header + 3])
    piped = memlens(*args)
    assert "1. claude-code:7a1c9e20-3b4d-4f6a-8c2e-1d0f9b8a7c61 · " in piped.stdout  # one line each in a pipe
    assert any(len(line) > 60 for line in piped.stdout.splitlines())
    paged = tmp_path / "paged.txt"
    on_terminal(*args, env={"HOME": str(tmp_path), "PAGER": f"sh -c 'cat > {paged}'", "LINES": "5"})
    assert paged.exists() and "message r1" in paged.read_text()
    # folded for the terminal the pager shows it on (80 columns), as without it
    assert all(cells(line) <= 80 for line in paged.read_text().splitlines() if not line.startswith("   | "))


def test_an_answer_narrowed_to_nothing_names_the_flags_that_did_it(cli_example: Engine) -> None:
    narrowed = memlens("search", QUERY, "--no-sync", "--until", "2001-01-01", "--role", "user", *where(cli_example))
    assert narrowed.returncode == 1 and narrowed.stdout == ""  # nothing found: said on stderr, as rg says it
    assert narrowed.stderr.startswith(f"memlens: no results for {QUERY!r}")
    assert "--role user and --until 2001-01-01 narrowed it: drop them to search everything" in narrowed.stderr
    found = memlens("search", QUERY, "--no-sync", *where(cli_example))
    assert found.returncode == 0 and "narrowed it" not in found.stdout + found.stderr  # ...without them it finds
    nothing = memlens("search", "zzqqxx unheard-of words", "--no-sync", *where(cli_example))
    assert nothing.returncode == 1 and "narrowed it" not in nothing.stderr  # no flag to blame
    sessions = memlens("sessions", "--no-sync", "--project", "nowhere-at-all", *where(cli_example))
    assert sessions.returncode == 1 and sessions.stdout == ""  # nothing listed: as grep, and a search
    # ...and that no session worked in such a folder, as a search says it: on stderr, and in the JSON answer
    said = "no session worked in a folder named or under 'nowhere-at-all'"
    assert sessions.stderr.splitlines() == [
        f"memlens: {said}",
        "memlens: no sessions",
        "memlens: --project nowhere-at-all narrowed it: drop it to list every session",
    ]
    as_json = memlens("sessions", "--no-sync", "--json", "--project", "nowhere-at-all", *where(cli_example))
    assert as_json.returncode == 1 and json.loads(as_json.stdout)["note"] == said
    known_run = memlens("sessions", "--no-sync", "--json", "--project", "ledgerline", *where(cli_example))
    known = json.loads(known_run.stdout)
    assert known["sessions"] and "note" not in known


def test_the_session_list_gives_its_titles_the_room_on_an_80_column_terminal(cli_example: Engine) -> None:
    """Each column is as wide as what it holds (an agent name, a project, a subagent's reference), so at 80 columns
    the titles line up and keep at least 16 cells, and no line, the footer included, runs past the terminal."""
    shown = ANSI.sub("", on_terminal("sessions", "--no-sync", "--no-pager", *where(cli_example), env={}, columns=80))
    lines = [line for line in shown.splitlines() if line.strip()]
    assert lines[0].startswith("LAST ACTIVE")
    assert all(cells(line) <= 80 for line in lines), [line for line in lines if cells(line) > 80]
    rows = [line for line in lines if re.match(r"\d{4}-\d{2}-\d{2} ", line)]
    title_at = lines[0].index("TITLE")
    # every title starts under TITLE, a subagent's longer reference (`5b0e7d3c/a`) included
    assert all(row[title_at - 2 : title_at] == "  " and row[title_at] != " " for row in rows), rows
    assert any("/" in row.split()[4] for row in rows)  # the example has a subagent's row
    assert all(cells(row[title_at:]) >= 16 for row in rows if cells(row) == 80)
    assert "resume commands" in shown  # the footer folded, not cut


def test_a_pasted_traceback_that_finds_nothing_is_echoed_on_one_line(cli_example: Engine) -> None:
    pasted = 'Traceback (most recent call last):\n  File "x.py", line 1\nZorblaxError: the quux frobnicated\n'
    piped = memlens("search", "--no-sync", "--mode", "keyword", *where(cli_example), "--", pasted)
    assert piped.returncode == 1
    assert piped.stdout == ""
    said = 'memlens: no results for \'Traceback (most recent call last): File "x.py", line 1 ZorblaxError: the quux '
    assert said + "frobnicated'" in piped.stderr.splitlines()
    shown = ANSI.sub(
        "",
        on_terminal(
            "search",
            "--no-sync",
            "--no-pager",
            "--mode",
            "keyword",
            *where(cli_example),
            "--",
            pasted,
            env={},
            columns=40,
            stderr_too=True,
        ),
    )
    first = next(line for line in shown.splitlines() if "no results" in line)
    assert first.startswith("memlens: no results for 'Tra") and first.endswith("…") and cells(first) <= 40


def test_a_long_paste_that_finds_nothing_is_not_echoed_whole_in_a_pipe(cli_example: Engine) -> None:
    """A paste is read by its first line and its end (up to 4,000 characters): echoing all of that on the "no
    results" line buries the answer; a pipe gets a line of at most 200 characters."""
    frames = "".join(f'  File "/srv/app/mod{i}.py", line {i}, in f{i}\n    call_{i}()\n' for i in range(300))
    pasted = f"Traceback (most recent call last):\n{frames}ZorblaxError: the quux frobnicated\n"
    piped = memlens("search", "--no-sync", "--mode", "keyword", *where(cli_example), "--", pasted)
    assert piped.returncode == 1
    first = next(line for line in piped.stderr.splitlines() if "no results" in line)
    assert first.startswith("memlens: no results for 'Traceback (most recent call") and first.endswith("…")
    assert len(first) <= 200


def test_the_team_session_list_fits_its_columns_to_what_they_hold(capsys: pytest.CaptureFixture[str]) -> None:
    """As the local list does: short publishers and projects leave the title the room at 80 columns, a long one is
    cut to 16 cells, no row runs past the terminal, and a session without a title shows its key."""
    from memlens.cli.output import print_team_sessions
    from memlens.wire.team import TeamSession, TeamSessionsResponse

    def session(publisher: str, project: str, title: str | None, messages: int) -> TeamSession:
        return {
            "publisher": publisher,
            "project": project,
            "sessionKey": f"claude-code:{publisher}-{messages}",
            "format": "claude-code",
            "title": title,
            "firstTimestamp": "2026-02-10T09:00:00Z",
            "lastTimestamp": "2026-02-12T14:41:00Z",
            "messageCount": messages,
        }

    ana = session("ana", "ledger", "Why the DLQ backs up after a deploy", 42)
    print_team_sessions({"sessions": [ana, session("ben", "ledger", None, 3)]}, columns=80, zone=UTC)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("LAST ACTIVE") and all(cells(line) <= 80 for line in lines), lines
    assert lines[1].startswith("2026-02-12 14:41  ana ")
    assert lines[1].endswith("Why the DLQ backs up after a deploy")  # short columns: all of it
    assert lines[2].endswith("claude-code:ben-3")  # no title: its key
    assert lines[-1].startswith("2 team sessions")
    long_names = session("a-very-long-publisher-name", "payments-reconciliation-service", "Retry budget", 7)
    page: TeamSessionsResponse = {"sessions": [ana, long_names]}
    print_team_sessions(page, columns=80, zone=UTC)
    lines = capsys.readouterr().out.splitlines()
    assert all(cells(line) <= 80 for line in lines), lines
    assert "a-very-long-publ " in lines[2] and "payments-reconci " in lines[2]  # each cut to 16 cells
    title_at = lines[0].index("TITLE")
    assert cells(lines[1][title_at:]) >= 20 and lines[1][title_at:].startswith("Why the DLQ backs")
    print_team_sessions(page, columns=40, zone=UTC)  # a narrow terminal: the title, not the count, keeps its room
    lines = capsys.readouterr().out.splitlines()
    assert all(cells(line) <= 40 for line in lines), lines
    assert lines[0].startswith("LAST ACTIVE") and "TITLE" in lines[0], lines
    assert lines[1].startswith("2026-02-12 14:41  ") and "Why the DLQ" in lines[1], lines
    for width in (0, 40, 80):  # in a search's colours, laid out as the plain table
        print_team_sessions(page, columns=width, zone=UTC)
        plain = capsys.readouterr().out
        print_team_sessions(page, columns=width, zone=UTC, style=Style(color=True))
        coloured = capsys.readouterr().out
        assert ANSI.sub("", coloured) == plain and coloured.startswith("\x1b[1mLAST ACTIVE"), width
        assert coloured.splitlines()[1].startswith("\x1b[2m2026-02-12 14:41\x1b[0m  "), width


def test_an_output_that_is_not_utf8_gets_the_answer(cli_example: Engine) -> None:
    """A Latin-1 or ASCII locale's output cannot hold `…`, `·` or `—`: the text answer shows `?` for them, and the
    JSON answer escapes every character beyond ASCII, so a script reads back the same text."""
    query = "Café Nordlys offsite"

    def run(*args: str, encoding: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "memlens", *args, "--no-sync", *where(cli_example)],
            capture_output=True,
            encoding=encoding,  # strict: what the process wrote must be valid in the output's encoding
            timeout=600,
            check=False,
            env={**os.environ, "PYTHONIOENCODING": encoding, "COLUMNS": "80"},
        )

    for encoding in ("ascii", "latin-1"):
        text = run("search", query, encoding=encoding)
        assert text.returncode == 0 and text.stderr == "", text.stderr
        assert hits_of(text.stdout) and "Nordlys" in text.stdout
        as_json = run("search", query, "--json", encoding=encoding)
        assert as_json.returncode == 0, as_json.stderr
        excerpts = [r["excerpt"] for r in json.loads(as_json.stdout)["results"]]
        assert any("Café Nordlys" in excerpt for excerpt in excerpts) and any("—" in e for e in excerpts)
    refused = run("search", query, "--since", "ĉ", encoding="ascii")
    assert refused.returncode == 2 and refused.stderr.startswith("memlens: error: --since must be")


def test_the_footer_counts_in_words_and_offers_history_only_for_sessions(cli_example: Engine) -> None:
    """`1 result`, not `1 results`; and `memlens history REF` only under hits whose reference history opens (a
    note's `path:line` is for an editor)."""
    notes = memlens(
        "search", "zzz", "--kind", "memory", "--limit", "1", "--no-sync", "--min-score", "0", *where(cli_example)
    )
    footer = notes.stdout.splitlines()[-1]
    assert re.fullmatch(r"1 result · hybrid · \d+ ms", footer), notes.stdout
    assert memlens("history", hits_of(notes.stdout)[0][0].split()[0], *where(cli_example)).returncode == 2
    sessions = memlens("search", QUERY, "--kind", "transcript", "--limit", "2", "--no-sync", *where(cli_example))
    assert re.fullmatch(r"2 results · hybrid · \d+ ms · memlens history REF", sessions.stdout.splitlines()[-1])
    assert memlens("history", hits_of(sessions.stdout)[0][0].split()[0], *where(cli_example)).returncode == 0


def test_a_header_cut_to_the_terminal_keeps_its_colours(tmp_path: Path) -> None:
    """A hit whose reference alone is wider than the terminal has its header cut: it was cut as plain text and
    shown without colour among coloured hits. The plain text is cut and each piece keeps its colour."""
    folder = tmp_path / "ws" / "memory" / ("the-kiln-notebook-kept-by-the-pottery-studio-" * 2).rstrip("-")
    folder.mkdir(parents=True)
    (folder / "thermocouple-drift.md").write_text("# Kiln\n\nThe thermocouple drifts after three hundred firings.\n")
    where = ["--workspace", str(tmp_path / "ws"), "--index-dir", str(tmp_path / "index"), "--no-embeddings"]
    found = memlens("search", "thermocouple drift", "--color", "always", *where, env={"COLUMNS": "80"})
    assert found.returncode == 0, found.stderr
    header = found.stdout.splitlines()[0]
    plain = ANSI.sub("", header)
    assert plain.startswith("memory/the-kiln-notebook") and plain.endswith("…") and cells(plain) == 80, plain
    assert header.startswith("\x1b[35mmemory/the-kiln-notebook") and header.endswith("…\x1b[0m"), repr(header)
