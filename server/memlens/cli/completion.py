"""`memlens completion bash|zsh|fish`: a completion script made from the parser, so it never lags the options.

bash and zsh come from shtab: static scripts, so a Tab press runs no Python (memlens takes a few hundred ms to
import; argcomplete would run it on every Tab). shtab writes no fish, and fish's `complete` lines are simple enough
to write here from the same parser."""

from __future__ import annotations

import argparse

import shtab


def completion_script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The script for `shell`; `parser` is made for it alone (its flags' values are given as choices here)."""
    _list_choices(parser)
    if shell == "fish":
        return _fish(parser)
    return str(shtab.complete(parser, shell=shell))


def _list_choices(parser: argparse.ArgumentParser) -> None:
    """Give the flags whose values a request's schema checks (`--format {claude-code,codex,…}`: shown as the metavar,
    not argparse's choices, so that a wrong one is the schema's one error line) their values as choices, which is
    what the completion writers complete a flag's value from."""
    for action in parser._actions:
        listed = action.metavar
        if action.choices is None and isinstance(listed, str) and listed.startswith("{") and listed.endswith("}"):
            action.choices = listed[1:-1].split(",")
        if getattr(action, "folders_after", False):  # `memlens search heartbeat ~/no<Tab>`: a folder to search
            action.complete = shtab.DIRECTORY  # type: ignore[attr-defined]
    for sub in _subcommands(parser).values():
        _list_choices(sub)


def _fish(parser: argparse.ArgumentParser) -> str:
    prog = parser.prog
    lines = [f"# fish completion for {prog} (memlens completion fish)", f"complete -c {prog} -f"]
    commands = _subcommands(parser)
    names = " ".join(commands)
    for name, sub in commands.items():
        summary = _quote(sub.description or "")
        lines.append(f"complete -c {prog} -n 'not __fish_seen_subcommand_from {names}' -a {name} -d {summary}")
        for action in sub._actions:
            lines.extend(_fish_option(prog, name, action))
    for action in parser._actions:
        lines.extend(_fish_option(prog, None, action))
    return "\n".join(lines) + "\n"


def _fish_option(prog: str, command: str | None, action: argparse.Action) -> list[str]:
    longs = [o[2:] for o in action.option_strings if o.startswith("--")]
    shorts = [o[1:] for o in action.option_strings if not o.startswith("--")]
    if not action.option_strings:
        if command and action.choices:
            values = " ".join(str(c) for c in action.choices)
            return [f"complete -c {prog} -n '__fish_seen_subcommand_from {command}' -a '{values}'"]
        if command and getattr(action, "folders_after", False):
            return [f"complete -c {prog} -n '__fish_seen_subcommand_from {command}' -a '(__fish_complete_directories)'"]
        return []
    condition = f"__fish_seen_subcommand_from {command}" if command else "not __fish_seen_subcommand_from"
    parts = [f"complete -c {prog} -n '{condition}'"]
    parts += [f"-l {name}" for name in longs] + [f"-s {name}" for name in shorts]
    if action.nargs != 0:
        parts.append("-r")
        if action.choices:
            parts.append("-a '" + " ".join(str(c) for c in action.choices) + "'")
        elif action.metavar in ("DIR", "FILE", "PATH") or action.type is not None:
            parts.append("-F")
    if action.help and action.help != argparse.SUPPRESS:
        parts.append(f"-d {_quote(action.help.split(';')[0].split(' (')[0])}")
    return [" ".join(parts)]


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
