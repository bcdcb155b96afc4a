"""`memlens man`: the manual page in roff, made from the parser (each command's description, options, defaults and
examples), so `memlens man | man -l -` reads what `--help` says."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime

from memlens import __version__
from memlens.cli.arguments import EXIT_STATUS
from memlens.cli.completion import _subcommands


def manual_page(parser: argparse.ArgumentParser) -> str:
    prog = parser.prog
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    out = [
        f'.TH {prog.upper()} 1 "{today}" "{prog} {__version__}" "User Commands"',
        ".SH NAME",
        f"{prog} \\- {_text(parser.description or '')}",
        ".SH SYNOPSIS",
        f".B {prog}\n[\\fB\\-v\\fR] \\fICOMMAND\\fR [\\fIOPTIONS\\fR]",
        ".SH DESCRIPTION",
        _text(parser.description or ""),
        ".SH OPTIONS",
    ]
    out += _options(parser)
    out.append(".SH COMMANDS")
    for name, sub in _subcommands(parser).items():
        out += [".SS " + _text(f"{prog} {name}"), _text(sub.description or "")]
        out += _options(sub)
        if sub.epilog:
            out += [".PP", ".nf", *(_text(line) for line in sub.epilog.splitlines()), ".fi"]
    out += [
        ".SH EXIT STATUS",
        _text(EXIT_STATUS.split(": ", 1)[1]),  # after its "exit status, as ripgrep's:", which the heading says
        ".SH ENVIRONMENT",
        ".TP\n.B NO_COLOR\nno colour unless \\fB\\-\\-color always\\fR.",
        ".TP\n.B CLICOLOR_FORCE\nset to anything but 0: colour in a pipe too, unless NO_COLOR is set or "
        "\\fB\\-\\-color never\\fR is given.",
        ".TP\n.B MEMLENS_PAGER, PAGER\nthe pager for long output on a terminal, the first one set (default: less "
        "\\-FRX; set empty, or cat: none).",
        ".TP\n.B LESS\nthe pager's options when it is less (default: FRX).",
        ".SH SEE ALSO",
        f"\\fB{prog} COMMAND \\-\\-help\\fR, \\fB{prog} completion\\fR",
    ]
    return "\n".join(out) + "\n"


def _options(parser: argparse.ArgumentParser) -> list[str]:
    out: list[str] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) or action.help == argparse.SUPPRESS:
            continue
        if action.option_strings:
            names = ", ".join(f"\\fB{_text(o)}\\fR" for o in action.option_strings)
            if action.nargs != 0:
                names += f" \\fI{_text(_metavar(action))}\\fR"
        else:
            names = f"\\fI{_text(_metavar(action))}\\fR"
        out += [".TP", names, _text(action.help or "")]
    return out


def _metavar(action: argparse.Action) -> str:
    if isinstance(action.metavar, str):
        return action.metavar
    if action.choices:
        return "{" + ",".join(str(c) for c in action.choices) + "}"
    return action.dest.upper()


def _text(text: str) -> str:
    """`text` safe in roff: backslashes and hyphens escaped, no line opening with a control character."""
    escaped = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + escaped if escaped[:1] in (".", "'") else escaped
