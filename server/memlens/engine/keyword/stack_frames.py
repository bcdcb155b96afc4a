"""A pasted stack trace read for what it says, not where it ran: its frames left out of the query.

A traceback's frames name the files and functions of the code that failed (``File "/srv/app/mod12.py", line 12, in
f12``), most of them in no transcript: a query of forty frames and one exception line reads as forty words the index
never saw, so every hit ranks as weak and the answer says "no results" for an error the transcripts discuss. The
message lines (the exception, "Caused by: …", a panic's text) are the topic; the innermost frame, where the error
was raised, is kept too, since a session about the same failure may name it.

A trace pasted into a one-line input (VS Code's quick pick joins a paste's lines with spaces) holds its frames in one
line: such a line is broken again before each frame (and a Python trace's exception after its last), so that it is
read as the trace it was.
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
      | \s+\d+:\ +(?:0x[0-9a-f]+\ -\ )?[\w:<>{}$.]+            # Rust's backtrace
      | \t?/\S+\.go:\d+(?:\ \+0x[0-9a-f]+)?                    # Go: a frame's place
    )\s*$""",
    re.VERBOSE,
)
_PYTHON_FRAME = re.compile(r'^\s*File "[^"\n]*", line \d+')
_HEADERS = re.compile(
    r"^\s*(?:Traceback \(most recent call last\):|Stack trace:|stack backtrace:|Backtrace:"
    r"|During handling of the above exception, another exception occurred:"
    r"|The above exception was the direct cause of the following exception:|goroutine \d+ \[[^\]]*\]:)\s*$"
)
_GO_CALL = re.compile(r"^[\w./*()\-\[\]]+\(.*\)\s*$")  # a Go frame's function, on the line above its place
MIN_FRAMES = 2  # one "at …" line may be prose; two in a paste are a trace
# Where a frame starts inside a line: only forms prose never takes ("at noon (see the log)" names no place).
_FRAME_IN_LINE = re.compile(
    r"""\s+(?=
        File\ "[^"\n]*",\ line\ \d+                                      # Python
      | at\ (?:[\w.$<>\[\]/-]+\ ?\([^()\n]*:\d+(?::\d+)?\)|\S+:\d+:\d+\b)  # JavaScript, Java: with a place
      | \.\.\.\ \d+\ (?:more|common\ frames\ omitted)\b                # Java's elided frames
      | Caused\ by:\                                                  # Java's next exception
    )""",
    re.VERBOSE,
)
# A Python exception's name with its message, after the last frame and its source line
_EXCEPTION_IN_LINE = re.compile(
    r"\s+(?=(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Interrupt|Exit|Warning)(?::|$))"
)


def without_stack_frames(text: str) -> str:
    """``text`` without the frames of any stack trace in it (and the traces' headers), the innermost frame kept;
    ``text`` itself when it holds fewer than two frames."""
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
    innermost = _innermost(lines, frames)
    kept = [
        line
        for index, line in enumerate(lines)
        if (not frame[index] or index in innermost) and not _HEADERS.match(line)
    ]
    return "\n".join(kept)


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
    message = "\n".join(line for index, line in enumerate(lines) if not left_out[index] and line.strip())
    return message or None


def _frames_in_line(line: str) -> list[str]:
    """``line`` broken before each frame when it holds two or more (a trace whose line breaks were lost), each frame
    indented as a trace prints it; else ``line`` alone."""
    pieces = _FRAME_IN_LINE.split(line)
    if sum(piece.startswith(("File ", "at ")) for piece in pieces[1:]) < MIN_FRAMES:
        return [line]
    lines = [pieces[0]] if pieces[0].strip() else []
    for piece in pieces[1:]:
        if piece.startswith("File "):
            lines.append(f"  {piece}")
        elif piece.startswith(("at ", "... ")):
            lines.append(f"    {piece}")
        else:
            lines.append(piece)
    if lines[-1].startswith("  File "):  # Python's last frame: its source line, then the exception
        frame, _, source = lines[-1].partition(", in ")
        split = _EXCEPTION_IN_LINE.split(source, maxsplit=1)
        if len(split) == 2:
            lines[-1:] = [f"{frame}, in {split[0]}", split[1]]
    return lines


def _source_line(line: str, frame_line: str) -> bool:
    """Whether ``line`` is the source Python prints under a frame: indented deeper than the frame, not a frame."""
    indent = len(line) - len(line.lstrip())
    return bool(line.strip()) and indent > len(frame_line) - len(frame_line.lstrip()) and not _FRAME.match(line)


def _innermost(lines: list[str], frames: list[int]) -> set[int]:
    """The lines of the frame where the error was raised: Python prints it last, the other languages first."""
    if _PYTHON_FRAME.match(lines[frames[0]]):
        last = frames[-1]
        following = last + 1
        return {last, following} if following < len(lines) and _source_line(lines[following], lines[last]) else {last}
    first = frames[0]
    return {first - 1, first} if ".go:" in lines[first] and first > 0 and _GO_CALL.match(lines[first - 1]) else {first}
