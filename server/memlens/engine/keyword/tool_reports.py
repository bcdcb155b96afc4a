"""A pasted error read without the report a build, deploy or CI tool wrapped it in.

Docker's BuildKit reports a failed `RUN` step in lines of its own around the step's output: the step (`=> ERROR
[build 4/6] RUN …`), rules of dashes, each output line after the seconds it was printed at (`12.31 …`), the
Dockerfile's lines around the step (`  14 | >>> RUN …`) and `ERROR: failed to solve: process … did not complete
successfully`. Terraform boxes a diagnostic (`╷ │ ╵`) and names the resource and the configuration's line it came
from. A GitHub Actions log groups the step's script and shell (`##[group]` … `##[endgroup]`), ends on the runner's
`##[error]Process completed with exit code 1.` and stamps every line. None of that is in the session where the
error was met (the agent ran the command itself, or another project's), and the report's words outnumbered the
error's: `memlens fixes` held the paste against each past output and found none holding half its words, so 6 of the
10 tune errors of bench.errors pasted in BuildKit's report (5 in Terraform's box) came back with nothing. The
reports' own lines are left out and the output's lines kept; a text with none of them is returned as it is.

A report pasted on one line (VS Code's Search Memory box joins a paste's lines with spaces) is broken again where its
lines began: before BuildKit's markers and each output line's seconds (a number of that shape inside the output, `1.25
`, breaks a line too and is left out with them), at Terraform's box edges, before each of the runner's stamps.
"""

from __future__ import annotations

import re

# BuildKit: a step's header, its rules, the Dockerfile's excerpt, the failure's last line
_DOCKER_OWN = re.compile(
    r"""^\s*(?:
        =>\ .*                                       # => ERROR [build 4/6] RUN …  12.3s
      | \#\d+\ \[[^\]]*\]\ .*                         # #12 [build 4/6] RUN … (plain progress)
      | >\ \[[^\]]*\]\ .*:                            # > [build 4/6] RUN …:
      | -{4,}
      | Dockerfile(?:\.\w+)?:\d+
      | \d+\ \|(?:\ >>>)?\ .*|\d+\ \|                  # 14 | >>> RUN …
      | (?:ERROR|error):\ failed\ to\ (?:solve|build):.*
    )\s*$""",
    re.VERBOSE,
)
_DOCKER_MARK = re.compile(r"^\s*(?:(?:ERROR|error): failed to (?:solve|build):|> \[[^\]]*\] .*:\s*$)", re.MULTILINE)
_DOCKER_SECONDS = re.compile(r"^\s*(?:#\d+\s+)?\d+\.\d+\s")  # an output line's seconds, `#12` before them in plain mode
# Terraform: the box, and the lines that say where in the configuration the diagnostic came from
_BOX_MARK = re.compile(r"^\s*│ (?:Error|Warning): ", re.MULTILINE)
_BOX_OWN = re.compile(r"^\s*(?:[╷╵]|with\ \S+,|on\ \S+\ line\ \d+(?:,\ in\ .*)?:|\d+:\ .*)?\s*$", re.VERBOSE)
# GitHub Actions: a group's lines (the step's script, shell and environment), the runner's own error
_CI_STAMP = r"\s*(?:\d{4}-\d\d-\d\dT[\d:.]+Z\s+)?"  # the runner's stamp before each line of a downloaded log
_CI_GROUP = re.compile(rf"^{_CI_STAMP}##\[group\].*?^{_CI_STAMP}##\[endgroup\]\s*$\n?", re.MULTILINE | re.DOTALL)
_CI_MARK = re.compile(rf"^{_CI_STAMP}##\[(?:group|endgroup|error|warning)\]", re.MULTILINE)
_CI_LINE_STAMP = re.compile(r"^\d{4}-\d\d-\d\dT[\d:.]+Z\s", re.MULTILINE)  # the runner's, on each line of the log
_CI_OWN = re.compile(rf"^{_CI_STAMP}##\[error\]Process completed with exit code \d+\.\s*$\n?", re.MULTILINE)


# A report pasted on one line (VS Code's Search Memory box joins a paste's lines with spaces): where its lines began
_DOCKER_ON_ONE_LINE = re.compile(r"(?:ERROR|error): failed to (?:solve|build):|\s> \[[^\]]*\] [^:]*:\s")
_DOCKER_BREAKS = re.compile(
    r"""\s+(?=
        =>\ | -{4,} | >\ \[ | Dockerfile(?:\.\w+)?:\d | \d+\ \|\s | (?:ERROR|error):\ failed\ to\ (?:solve|build):
      | (?:\#\d+\ )?\d+\.\d{2,3}\ (?!\|)                        # an output line's seconds
    )""",
    re.VERBOSE,
)
_BOX_ON_ONE_LINE = re.compile(r"│ (?:Error|Warning): ")
_BOX_BREAKS = re.compile(r"\s*(?=[│╵])|(?<=╷)\s*")
_CI_BREAKS = re.compile(r"\s+(?=\d{4}-\d\d-\d\dT[\d:.]+Z\s)")


def without_tool_reports(text: str) -> str:
    """`text` without the lines BuildKit, Terraform or a GitHub Actions runner print around the error they report;
    `text` itself when no such report frames it, or when nothing else would be left. A report on one line is read
    on the lines it had."""
    read = _relined(text)
    if _DOCKER_MARK.search(read):
        kept = [_DOCKER_SECONDS.sub("", line) for line in read.splitlines() if not _DOCKER_OWN.match(line)]
        read = "\n".join(kept)
    if _BOX_MARK.search(read):
        lines = [_unboxed(line) for line in read.splitlines()]
        read = "\n".join(line for line in lines if not _BOX_OWN.match(line))
    if _CI_MARK.search(read):
        read = _CI_LINE_STAMP.sub("", _CI_OWN.sub("", _CI_GROUP.sub("", read)))
    return read if read.strip() else text


def _unboxed(line: str) -> str:
    """A line of Terraform's box without the box's edge."""
    stripped = line.strip()
    return stripped.removeprefix("│").strip() if stripped.startswith("│") else line


def _relined(text: str) -> str:
    """`text` broken again into the lines of the report it holds, when it was pasted on one line."""
    if "\n" in text.strip():
        return text
    if _DOCKER_ON_ONE_LINE.search(text):
        return _DOCKER_BREAKS.sub("\n", text)
    if _BOX_ON_ONE_LINE.search(text):
        return _BOX_BREAKS.sub("\n", text)
    if "##[" in text and len(_CI_BREAKS.findall(text)) > 1:
        return _CI_BREAKS.sub("\n", text)
    return text
