"""What `memlens fixes` prints for people: each past error that matched, then the messages that followed it."""

from __future__ import annotations

import re
from datetime import tzinfo

from memlens.cli.clock import local_time
from memlens.cli.hits import bolded, matcher_of
from memlens.cli.nothing_found import say_nothing_found
from memlens.cli.terminal import Style, clip, folded
from memlens.requests import left_out_note
from memlens.wire import FixesResponse

ERROR_LINES = 8  # lines of each error shown (its header and the telling lines the index kept)
MESSAGE_CELLS = 300  # each following message, cut for a terminal
_WORD = re.compile(r"\w{2,}")
_FENCE = re.compile(r"^\s*(?:```|~~~)")


def telling_lines(text: str, error: str, count: int) -> list[str]:
    """At most `count` lines of a tool's output: its first ones, or, when the line that holds most of the pasted
    `error`'s words lies further down, its header line, a `…` and the lines from just before that one."""
    lines = text.splitlines()
    if len(lines) <= count:
        return lines
    words = set(_WORD.findall(error.lower()))
    held = [len(words & set(_WORD.findall(line.lower()))) for line in lines]
    best = max(range(len(lines)), key=lambda i: (held[i], -i))
    if held[best] == 0 or best < count - 1:
        return lines[:count]
    start = min(best - 1, len(lines) - (count - 2))
    return [lines[0], "…", *lines[start : start + count - 2]]


def said_fix_lines(text: str, error: str, count: int) -> list[str]:
    """The lines of a note or message that quotes the error and says how it was fixed: its words outside a fenced
    block whole (the fix is said there: "Fixed by storing qty as Decimal"), and of each fenced block (the quoted
    error, a traceback) its `telling_lines`."""
    shown: list[str] = []
    block: list[str] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            if fenced:
                shown += telling_lines("\n".join(block), error, count)
                block = []
            shown.append(line)
            fenced = not fenced
        elif fenced:
            block.append(line)
        else:
            shown.append(line)
    return shown + telling_lines("\n".join(block), error, count) if block else shown


def print_fixes(
    answer: FixesResponse,
    zone: tzinfo | None = None,
    *,
    columns: int = 0,
    style: Style | None = None,
    searched_in: str = "",
) -> None:
    """Each past error and what followed it, the headers and messages folded to `columns` (0: whole, as in a pipe);
    with a colouring `style` each session in the colour of a search hit's reference and the pasted error's words in
    its output lines as a search's matches. `searched_in`: the folders the command line named after the error, said
    with "no past tool output" (the command says them otherwise)."""
    left_out = answer.get("leftOut")
    notes = [left_out_note(left_out, "error")] if left_out is not None else []
    if not answer["fixes"]:  # on stderr, as a search that finds nothing says so
        searched = f" in {searched_in}" if searched_in else ""
        say_nothing_found(f"no past tool output matches that error{searched}", notes)
        return
    _print_fixes(answer, zone, columns, style or Style(color=False))
    for note in notes:  # last, as a search's notes: under the answer it explains
        print(folded(note, columns))


def _print_fixes(answer: FixesResponse, zone: tzinfo | None, columns: int, style: Style) -> None:
    matcher = matcher_of(answer["error"])
    for number, fix in enumerate(answer["fixes"], 1):
        title = f" · {fix['title']}" if fix.get("title") else ""
        when = f" · {local_time(fix['timestamp'], zone)}" if fix["timestamp"] else ""
        # on a terminal every line folds to its width: an error's own line under its indentation, after its bar;
        # coloured once folded, so that the codes are not counted as cells
        source = fix.get("source")
        if source == "note":  # a note has no session: its file and line, as a search hit's
            key = f"{number}. {fix.get('relPath') or fix['path']}:{fix.get('lineStart') or 1}"
            header = folded(f"{key}{title} · note that says how it was fixed", columns, indent="   ")
        else:
            key = f"{number}. {fix['sessionKey']}"
            said = " · says how it was fixed" if source == "message" else ""
            header = folded(f"{key}{title}{when} · message {fix['messageId']}{said}", columns, indent="   ")
        head, folds, rest = header.partition("\n")
        # the key is one word: whole on the first line, unless the terminal is narrower than it (then cut across)
        head = style.reference(key) + head[len(key) :] if head.startswith(key) else style.reference(head)
        print(head + folds + rest)
        # a note or a message says the fix beside the error it quotes: shown whole but its quoted blocks' lines
        says_fix = source in ("note", "message")
        lines = (said_fix_lines if says_fix else telling_lines)(fix["text"], answer["error"], ERROR_LINES)
        for line in lines:
            shown = folded(f"   | {line}", columns, indent="   | " + line[: len(line) - len(line.lstrip())])
            print("\n".join(bolded(part, matcher, style) for part in shown.split("\n")))
        if not fix["after"] and source != "note":
            print("   (nothing followed it in the session)")
        for message in fix["after"]:
            line = f"   → {message['role']}: {clip(' '.join(message['text'].split()), MESSAGE_CELLS)}"
            print(folded(line, columns, indent="     "))
        print()
