"""A pasted stack trace read for what it says, not where it ran: its frames left out of the query.

A traceback's frames name the files and functions of the code that failed (``File "/srv/app/mod12.py", line 12, in
f12``), most of them in no transcript: a query of forty frames and one exception line reads as forty words the index
never saw, so every hit ranks as weak and the answer says "no results" for an error the transcripts discuss. The
message lines (the exception, "Caused by: …", a panic's text) are the topic; the innermost frame, where the error
was raised, is kept too, since a session about the same failure may name it.

A trace pasted into a one-line input (VS Code's quick pick joins a paste's lines with spaces) holds its frames in one
line: such a line is broken again before each frame (and a Python trace's exception after its last; a Go frame's
function and its place apart, as Go prints them), so that it is read as the trace it was.

A trace's message line also holds words the runtime prints around every error it reports, and they read as a topic
too: PHP's `PHP Fatal error:  Uncaught` before the exception, gdb's `Program received signal SIGABRT, Aborted.`
after it. Beside the example's Postgres error they lowered the message's cosine to the session that quotes it from
0.53 to 0.29 and its share of the query's words by a third, and hybrid search answered "no results" where keyword
search found it. PHP, Ruby and Rust print the innermost frame's place on the message's line (`… in /srv/Db.php:14`,
`/app/db.rb:14:in 'connect': …`, `panicked at src/main.rs:4:5:`): a file and line of the machine the trace ran on,
which no output of the same error from other code holds. Both are left out of the message of a trace.
"""

from __future__ import annotations

import re

# One line of a stack trace, by language; the frame's own source line (Python prints it indented under the frame)
# goes with it.
_FRAME = re.compile(
    r"""^(?:
        \s*File\ "[^"\n]*",\ line\ \d+(?:,\ in\ .*)?          # Python
      | \s+at\ \S.*(?:\(.*\)|:\d+(?::\d+)?|\ in\ .*:line\ \d+)  # JavaScript, Java, C#, Rust's "at src/x.rs:1:2"
      | \s*\.\.\.\ \d+\ (?:more|common\ frames\ omitted)       # Java's elided frames
      | \s+\d+:\ +(?:0x[0-9a-f]+\ -\ )?(?:<.*>)?[\w:<>{}$.]+    # Rust's backtrace
      | \t?(?:[A-Za-z]:)?[\w./@~-]*\.go:\d+(?:\ \+0x[0-9a-f]+)?  # Go: a frame's place
      | \s*\#\d+\s+0x[0-9a-f]+\s.*                              # gdb, a sanitizer: an address, then where
      | \s*\#\d+\s+\S+\ \(.*\)\ (?:at|from)\ \S+                  # gdb, where it has no address
      | \s*\#\d+\ (?:\S+\(\d+\):\ .*|\{main\}|\[internal\ function\]:\ .*)  # PHP
      | \s*from\ \S+:\d+:in\ .*                                  # Ruby
      | \s*\(\w+(?:\ [\w.+-]+)?\)\ \S+:\d+:\ \S.*                # Elixir: (app 1.2.3) lib/x.ex:12: Mod.f/2
    )\s*$""",
    re.VERBOSE,
)
_PYTHON_FRAME = re.compile(r'^\s*File "[^"\n]*", line \d+')
# The lines a trace prints around its frames, which say nothing of the error
_HEADERS = re.compile(
    r"^\s*(?:Traceback \(most recent call last\):|Stack trace:|stack backtrace:|Backtrace:"
    r"|During handling of the above exception, another exception occurred:"
    r"|The above exception was the direct cause of the following exception:|goroutine \d+ \[[^\]]*\]:"
    r"|note: (?:Some details are omitted, run with|run with) `RUST_BACKTRACE=\w+`.*|stacktrace:"
    r"|--- End of (?:inner exception )?stack trace[\w ]*---|thrown in \S+ on line \d+)\s*$"
)
# a Go frame's function, on the line above its place
_GO_CALL = re.compile(r"^(?:created by \S+(?: in goroutine \d+)?|[\w./*()\-\[\]]+\(.*\))\s*$")
# The runtime's own words on a trace's message line, the same for every error it reports: PHP's prefix (its log's
# level, "Uncaught" before an exception's name), gdb's report of the signal that stopped the program
_RUNTIME_WORDS = re.compile(
    r"^\s*(?:PHP\ )?(?:Fatal\ error|Warning|Notice|Parse\ error|Deprecated):\s+(?:Uncaught\s+)?(?=\S)"
    r"|\s*\bProgram\ (?:received|terminated\ with)\ signal\ SIG[A-Z0-9]+,\ [\w ]+\.",
    re.VERBOSE,
)
# The innermost frame's place, printed on the message's line: PHP's after it, Ruby's before it, Rust's in the panic
_PLACE_ON_MESSAGE = re.compile(
    r"""\ in\ \S+:\d+(?=\s*$)                       # PHP: … in /srv/src/Db.php:14
      | ^\s*\S+:\d+:in\ [`'][^`'\n]*'\s*:\s+       # Ruby: /app/lib/db.rb:14:in `connect': …
      | (?<=\ panicked)\ at\ \S+:\d+:\d+(?=:)      # Rust: thread 'main' panicked at src/main.rs:4:5:
    """,
    re.VERBOSE,
)
MIN_FRAMES = 2  # one "at …" line may be prose; two in a paste are a trace
# Where a frame (or a header) starts inside a line: only forms prose never takes ("at noon (see the log)" names no
# place, "1: add a test" no Rust path).
_FRAME_IN_LINE = re.compile(
    r"""(?<!\ panicked)\s+(?=
        File\ "[^"\n]*",\ line\ \d+                                      # Python
      | at\ (?:[\w.$<>\[\]/-]+\ ?\([^()\n]*:\d+(?::\d+)?\)|\S+:\d+:\d+\b)  # JavaScript, Java: with a place
      | \.\.\.\ \d+\ (?:more|common\ frames\ omitted)\b                # Java's elided frames
      | Caused\ by:\                                                  # Java's next exception
      | \d{1,3}:\ +(?:0x[0-9a-f]+\ -\ )?(?:<|[\w$]+::)                  # Rust's backtrace: a numbered path
      | (?:Traceback\ \(most\ recent\ call\ last\)|stack\ backtrace|Stack\ trace):
      | note:\ (?:Some\ details\ are\ omitted|run\ with\ `RUST_BACKTRACE)
      | at\ [A-Z]\w*(?:\.[\w`<>\[\]+|]+)+\([^()\n]*\)                # C#: Namespace.Type.Method(args)
      | \#\d+\s+0x[0-9a-f]+\s                                      # gdb, a sanitizer
      | \#\d+\s+\S+\ \([^()\n]*\)\ at\ \S+:\d+                       # gdb, where it has no address
      | \#\d+\ (?:\S+\(\d+\):\ |\{main\}|\[internal\ function\]:)   # PHP
      | from\ \S+:\d+:in\ [`']                                       # Ruby
      | \(\w+(?:\ [\w.+-]+)?\)\ \S+:\d+:\ \S                         # Elixir
      | stacktrace:|---\ End\ of\ |thrown\ in\ \S+\ on\ line\ \d+   # headers
    )""",
    re.VERBOSE,
)
# a piece of a broken line that is a frame
_FRAME_START = re.compile(r'File "|at |\d{1,3}: |#\d+\s|from |\(\w+(?: [\w.+-]+)?\) ')
# A frame's place, in a piece that starts with it: what follows it in the line is not the frame's
_FRAME_END = re.compile(r"at (?:[\w.$<>\[\]/-]+ ?\([^()\n]*:\d+(?::\d+)?\)|\S+:\d+:\d+\b)")
# A Go frame in a line: its function (its arguments, or "created by …") and its place; a goroutine's header
_GO_FRAME_IN_LINE = re.compile(
    r"""(?P<call>
        created\ by\ [\w./*()\[\]-]+(?:\ in\ goroutine\ \d+)?
      | [\w./*()\[\]-]+?\((?:[^()\n]|\([^()\n]*\))*\)
    )\s+(?P<place>(?:[A-Za-z]:)?[\w./@~-]*\.go:\d+(?:\ \+0x[0-9a-f]+)?)(?=\s|$)""",
    re.VERBOSE,
)
_GO_HEADER_IN_LINE = re.compile(r"\s+(?=goroutine \d+ \[[^\]]*\]:)|(?<=\]:)\s+")
# A Python exception's name with its message, after the last frame and its source line: a name that says it is one,
# else a dotted or capitalised name before ": " (ledgerline.errors.UnroutableEvent: …)
_EXCEPTION_IN_LINE = re.compile(
    r"\s+(?=(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Interrupt|Exit|Warning)(?::|$))"
    r"|\s+(?=(?:[A-Za-z_]\w*\.)*[A-Z]\w*: )"
)


def without_stack_frames(text: str, *, innermost: bool = True) -> str:
    """``text`` without the frames of any stack trace in it (and the traces' headers), the innermost frame kept
    unless ``innermost`` is False; ``text`` itself when it holds fewer than two frames."""
    lines = [piece for line in text.splitlines() for piece in _frames_in_line(line)]
    frame = [False] * len(lines)
    for index, line in enumerate(lines):
        if _FRAME.match(line):
            frame[index] = True
            if _PYTHON_FRAME.match(line) and index + 1 < len(lines) and _source_line(lines[index + 1], line):
                frame[index + 1] = True  # the frame's source line
            if ".go:" in line and index > 0 and _GO_CALL.match(lines[index - 1]):
                frame[index - 1] = True  # the frame's function
    frames = [index for index, is_frame in enumerate(frame) if is_frame and _FRAME.match(lines[index])]
    if len(frames) < MIN_FRAMES:
        return text
    kept_frame = _innermost(lines, frames) if innermost else set()
    kept = [
        (index, line) for index, line in enumerate(lines)
        if (not frame[index] or index in kept_frame) and not _HEADERS.match(line)
    ]  # fmt: skip
    said = [line if frame[index] else _message_line(line) for index, line in kept]
    if not any(line.strip() for (index, _), line in zip(kept, said, strict=True) if not frame[index]):
        said = [line for _, line in kept]  # the runtime's words were all the message said
    kept_lines = [line for (_, was), line in zip(kept, said, strict=True) if line.strip() or not was.strip()]
    if not innermost and not any(line.strip() for line in kept_lines):  # a message the last frame's line holds
        return without_stack_frames(text)
    return "\n".join(kept_lines)


def trace_message(text: str) -> str | None:
    """The message lines of the stack trace in ``text``: every frame, frame source line and header left out, the
    innermost frame too; None when ``text`` holds no trace (two frames, or one under a trace's header). A log that
    printed the error only (`logger.error(exc)`, a Lambda's log line) holds these lines and none of the frames."""
    lines = [piece for line in text.splitlines() for piece in _frames_in_line(line)]
    left_out = [False] * len(lines)
    frames = 0
    for index, line in enumerate(lines):
        if _FRAME.match(line):
            frames += 1
            left_out[index] = True
            if _PYTHON_FRAME.match(line) and index + 1 < len(lines) and _source_line(lines[index + 1], line):
                left_out[index + 1] = True
            if ".go:" in line and index > 0 and _GO_CALL.match(lines[index - 1]):
                left_out[index - 1] = True
        elif _HEADERS.match(line):
            left_out[index] = True
    headed = any(_HEADERS.match(line) for line in lines)
    if frames < MIN_FRAMES and not (frames and headed):
        return None
    message = [line for index, line in enumerate(lines) if not left_out[index] and line.strip()]
    said = [_message_line(line) for line in message]
    return "\n".join(line for line in (said if any(line.strip() for line in said) else message) if line.strip()) or None


_CAUSED_BY = re.compile(r"^\s*Caused by:\s*", re.MULTILINE)


def root_cause(text: str) -> str | None:
    """The message of the last `Caused by:` of a chained trace in ``text`` (Java's, Kotlin's, Scala's): the exception
    that started it, which a log of that error alone prints; the exceptions wrapping it name the code it ran through.
    None when ``text`` holds no trace or no cause."""
    message = trace_message(text)
    causes = list(_CAUSED_BY.finditer(message or ""))
    if message is None or not causes:
        return None
    return message[causes[-1].end() :].strip() or None


def _message_line(line: str) -> str:
    """A trace's message ``line`` without the runtime's own words and the innermost frame's place in it."""
    return _PLACE_ON_MESSAGE.sub("", _RUNTIME_WORDS.sub("", line)).rstrip()


def _frames_in_line(line: str) -> list[str]:
    """``line`` broken before each frame when it holds two or more (a trace whose line breaks were lost), each frame
    indented as a trace prints it; else ``line`` alone."""
    go = _go_frames_in_line(line)
    if go is not None:
        return go
    pieces = _FRAME_IN_LINE.split(line)
    if sum(_FRAME_START.match(piece) is not None for piece in pieces[1:]) < MIN_FRAMES:
        return [line]
    lines = [pieces[0]] if pieces[0].strip() else []
    for piece in pieces[1:]:
        if piece.startswith("File "):
            lines.append(f"  {piece}")
        elif piece.startswith(("at ", "... ")):
            end = _FRAME_END.match(piece)
            rest = piece[end.end() :].strip() if end else ""
            lines += [f"    {piece[: end.end()]}", rest] if end and rest else [f"    {piece}"]
        elif _FRAME_START.match(piece):
            lines.append(f"   {piece}")
        else:
            lines.append(piece)
    if lines[-1].startswith("  File "):  # Python's last frame: its source line, then the exception
        frame, _, source = lines[-1].partition(", in ")
        split = _EXCEPTION_IN_LINE.split(source, maxsplit=1)
        if len(split) == 2:
            lines[-1:] = [f"{frame}, in {split[0]}", split[1]]
        elif (call_end := _end_of_call(source)) is not None:  # a message in no exception's form (git's "fatal: …")
            lines[-1:] = [f"{frame}, in {source[:call_end]}", source[call_end:].strip()]
    return lines


def _end_of_call(source: str) -> int | None:
    """Where the call that a one-line Python trace's last source line makes ends (``step(job)`` in ``handle
    step(job) fatal: …``: the function's name, the line's indentation, the line), when words follow it; None when
    it holds no call or nothing follows. Python prints the message on a line of its own, and a source line that
    raised is a call more often than not."""
    name_end = re.search(r"\s{2,}\S", source)  # the source line's own indentation, after the function's name
    if name_end is None:
        return None
    depth = 0
    for index in range(name_end.end(), len(source)):
        char = source[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                return None
            if depth == 0 and char == ")" and re.match(r"\s+\w", source[index + 1 :]):
                return index + 1
        elif char in "\"'" and depth == 0 and index > name_end.end():
            return None  # a string outside any call: no telling where the code ends
    return None


def _go_frames_in_line(line: str) -> list[str] | None:
    """A Go trace's ``line`` broken as Go prints it (each frame's function, then its place on a line of its own
    after a tab), when it holds two or more frames; else None."""
    frames = list(_GO_FRAME_IN_LINE.finditer(line))
    if len(frames) < MIN_FRAMES:
        return None
    lines = _GO_HEADER_IN_LINE.split(line[: frames[0].start()])
    for index, frame in enumerate(frames):
        following = frames[index + 1].start() if index + 1 < len(frames) else len(line)
        between = [piece.strip() for piece in _GO_HEADER_IN_LINE.split(line[frame.end() : following])]
        lines += [frame["call"], f"\t{frame['place']}", *between]
    return [piece.rstrip() for piece in lines if piece.strip()]


def _source_line(line: str, frame_line: str) -> bool:
    """Whether ``line`` is the source Python prints under a frame: indented deeper than the frame, not a frame."""
    indent = len(line) - len(line.lstrip())
    return bool(line.strip()) and indent > len(frame_line) - len(frame_line.lstrip()) and not _FRAME.match(line)


def _innermost(lines: list[str], frames: list[int]) -> set[int]:
    """The lines of the frame where the error was raised: Python prints it last, the other languages first (Ruby
    and PHP on the message's line: "… in /srv/Db.php:14")."""
    if _PYTHON_FRAME.match(lines[frames[0]]):
        last = frames[-1]
        following = last + 1
        return {last, following} if following < len(lines) and _source_line(lines[following], lines[last]) else {last}
    first = frames[0]
    if lines[first].lstrip().startswith(("from ", "#0 /")):  # Ruby and PHP print it on the message's line
        return set()
    return {first - 1, first} if ".go:" in lines[first] and first > 0 and _GO_CALL.match(lines[first - 1]) else {first}
