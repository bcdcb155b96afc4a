"""A pasted stack trace is searched by its message: its frames (files and functions the transcripts never name) are
left out of the query, the innermost kept, in every language's trace format."""

from __future__ import annotations

import pytest

from memlens.engine.engine import Engine
from memlens.engine.keyword.stack_frames import trace_message, without_stack_frames

MESSAGE = "psycopg.OperationalError: remaining connection slots are reserved for non-replication superuser connections"


def python_trace(frames: int) -> str:
    lines = ["Traceback (most recent call last):"]
    for i in range(frames):
        lines += [f'  File "/srv/app/mod{i}.py", line {i + 1}, in handler_{i}', f"    call_{i}(request)"]
    return "\n".join([*lines, MESSAGE])


def test_a_python_trace_keeps_its_message_and_innermost_frame() -> None:
    read = without_stack_frames(python_trace(40))
    assert read.splitlines() == ['  File "/srv/app/mod39.py", line 40, in handler_39', "    call_39(request)", MESSAGE]


@pytest.mark.parametrize(
    ("trace", "kept"),
    [
        (  # Node: the innermost frame is the first
            'TypeError: Cannot read properties of undefined (reading "map")\n'
            "    at renderList (/app/src/List.tsx:12:5)\n"
            "    at Object.render (/app/node_modules/react-dom/cjs/react-dom.js:100:12)\n"
            "    at processTicksAndRejections (node:internal/process/task_queues:95:5)",
            [
                'TypeError: Cannot read properties of undefined (reading "map")',
                "    at renderList (/app/src/List.tsx:12:5)",
            ],
        ),
        (  # Java: each "Caused by" is a message
            'Exception in thread "main" java.lang.IllegalStateException: pool exhausted\n'
            "\tat com.acme.db.Pool.take(Pool.java:42)\n"
            "\tat com.acme.api.Orders.create(Orders.java:88)\n"
            "\t... 12 more\n"
            "Caused by: java.net.SocketTimeoutException: connect timed out\n"
            "\tat java.base/sun.nio.ch.Net.connect(Net.java:579)",
            [
                'Exception in thread "main" java.lang.IllegalStateException: pool exhausted',
                "\tat com.acme.db.Pool.take(Pool.java:42)",
                "Caused by: java.net.SocketTimeoutException: connect timed out",
            ],
        ),
        (  # Go: a frame is its function and its place
            "panic: runtime error: index out of range [3] with length 3\n\n"
            "goroutine 1 [running]:\n"
            "main.handler(0xc000010000)\n"
            "\t/home/me/app/main.go:27 +0x1d\n"
            "main.main()\n"
            "\t/home/me/app/main.go:12 +0x25\n"
            "exit status 2",
            [
                "panic: runtime error: index out of range [3] with length 3",
                "",
                "main.handler(0xc000010000)",
                "\t/home/me/app/main.go:27 +0x1d",
                "exit status 2",
            ],
        ),
    ],
)
def test_each_language_keeps_its_messages(trace: str, kept: list[str]) -> None:
    assert without_stack_frames(trace).splitlines() == kept


def one_line(trace: str) -> str:
    """A trace pasted into a one-line input: VS Code's quick pick joins the lines of a paste with spaces."""
    return " ".join(trace.splitlines())


def test_a_python_trace_pasted_on_one_line_is_read_as_the_trace() -> None:
    read = without_stack_frames(one_line(python_trace(40))).splitlines()
    assert read == ['  File "/srv/app/mod39.py", line 40, in handler_39     call_39(request)', MESSAGE]


@pytest.mark.parametrize(
    ("trace", "kept"),
    [
        (
            'TypeError: Cannot read properties of undefined (reading "map") at renderList (/app/src/List.tsx:12:5) '
            "at Object.render (/app/node_modules/react-dom/cjs/react-dom.js:100:12) at /app/src/index.js:3:1",
            [
                'TypeError: Cannot read properties of undefined (reading "map")',
                "    at renderList (/app/src/List.tsx:12:5)",
            ],
        ),
        (
            'Exception in thread "main" java.lang.IllegalStateException: pool exhausted '
            "at com.acme.db.Pool.take(Pool.java:42) at com.acme.api.Orders.create(Orders.java:88) ... 12 more "
            "Caused by: java.net.SocketTimeoutException: connect timed out "
            "at java.base/sun.nio.ch.Net.connect(Net.java:579)",
            [
                'Exception in thread "main" java.lang.IllegalStateException: pool exhausted',
                "    at com.acme.db.Pool.take(Pool.java:42)",
                "Caused by: java.net.SocketTimeoutException: connect timed out",
            ],
        ),
    ],
)
def test_a_trace_pasted_on_one_line_keeps_its_messages(trace: str, kept: list[str]) -> None:
    assert without_stack_frames(trace).splitlines() == kept


@pytest.mark.parametrize(
    "text",
    [
        "we looked at it at noon (see the log)",
        "we met at noon (monday) and at lunch (tuesday) at the office (floor 3)",
        'the error names File "a.py", line 3 and File "b.py", line 4 but no more',
        "how did we fix the dead-letter queue backup?",
        '  File "/srv/app/mod1.py", line 2, in handler\nValueError: one frame is not a trace',
    ],
)
def test_text_without_a_trace_is_read_as_it_is(text: str) -> None:
    assert without_stack_frames(text) == text


@pytest.mark.parametrize("lines", ["lines", "one line"])
@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("frames", [10, 40, 300])
def test_a_pasted_trace_finds_the_session_that_discussed_its_error(
    example: Engine, mode: str, frames: int, lines: str
) -> None:
    """The example's Postgres session quotes this error. With the frames in the query, their forty made-up names read
    as a topic no transcript holds, and every hit ranked too weak to show: "no results" (a trace pasted into a
    one-line input too)."""
    trace = python_trace(frames)
    answer = example.search(trace if lines == "lines" else one_line(trace), mode=mode)
    assert answer["results"], answer.get("note")
    assert answer["results"][0]["sessionKey"] is not None
    assert "c84f2a19" in answer["results"][0]["sessionKey"]


def test_a_trace_s_message_is_its_lines_without_any_frame() -> None:
    one_frame = "Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\n    f()\nKeyError: 'id'"
    assert trace_message(one_frame) == "KeyError: 'id'"  # one frame under a trace's header is a trace
    assert trace_message(python_trace(40)) == MESSAGE
    assert trace_message(MESSAGE) is None  # no trace: nothing to leave out
    assert trace_message("see the log at noon (line 3)") is None
