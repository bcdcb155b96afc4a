"""A pasted stack trace is searched by its message: its frames (files and functions the transcripts never name) are
left out of the query, the innermost kept, in every language's trace format."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from memlens.engine.engine import Engine
from memlens.engine.keyword.stack_frames import root_cause, trace_message, without_stack_frames
from memlens.settings.tree import Mode

MESSAGE = "psycopg.OperationalError: remaining connection slots are reserved for non-replication superuser connections"


def python_trace(frames: int) -> str:
    lines = ["Traceback (most recent call last):"]
    for i in range(frames):
        lines += [f'  File "/srv/app/mod{i}.py", line {i + 1}, in handler_{i}', f"    call_{i}(request)"]
    return "\n".join([*lines, MESSAGE])


def go_trace(frames: int) -> str:
    lines = [f"panic: {MESSAGE}", "", "goroutine 1 [running]:"]
    for i in range(frames):
        lines += [f"main.handler{i}(0xc0000{i:04x}, 0x3)", f"\t/home/u/app/mod{i}.go:{i + 1} +0x1d"]
    return "\n".join([*lines, "exit status 2"])


def rust_trace(frames: int) -> str:
    lines = ["thread 'main' panicked at src/main.rs:4:5:", MESSAGE, "stack backtrace:"]
    for i in range(frames):
        lines += [f"  {i:>2}: app::mod{i}::handler_{i}", f"             at ./src/mod{i}.rs:{i + 1}:5"]
    note = "note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace."
    return "\n".join([*lines, note])


def dotnet_trace(frames: int) -> str:
    lines = [f"Npgsql.PostgresException (0x80004005): 53300: {MESSAGE.partition(': ')[2]}"]
    lines += [f"   at Ledger.Mod{i}.Handler{i}(Order order) in C:\\src\\Mod{i}.cs:line {i + 1}" for i in range(frames)]
    return "\n".join(lines)


def ruby_trace(frames: int) -> str:
    lines = [f"/app/lib/mod0.rb:1:in `handler_0': FATAL:  {MESSAGE.partition(': ')[2]} (PG::ConnectionBad)"]
    lines += [f"\tfrom /app/lib/mod{i}.rb:{i + 1}:in `handler_{i}'" for i in range(1, frames)]
    return "\n".join(lines)


def php_trace(frames: int) -> str:
    message = f"PHP Fatal error:  Uncaught PDOException: FATAL:  {MESSAGE.partition(': ')[2]} in /srv/src/Mod0.php:1"
    lines = [message, "Stack trace:"]
    lines += [
        f"#{i} /srv/src/Mod{i}.php({i + 1}): App\\Mod{i}->handler{i}('order', Object(App\\Order))"
        for i in range(frames)
    ]
    return "\n".join([*lines, f"#{frames} {{main}}", "  thrown in /srv/src/Mod0.php on line 1"])


def gdb_trace(frames: int) -> str:
    lines = [f"FATAL:  {MESSAGE.partition(': ')[2]}", "Program received signal SIGABRT, Aborted."]
    lines += [
        f"#{i}  0x00005555555551{i:02x} in handler_{i} (conn=0x5555555592a0) at mod{i}.c:{i + 1}" for i in range(frames)
    ]
    return "\n".join(lines)


def elixir_trace(frames: int) -> str:
    lines = [f"** (Postgrex.Error) FATAL 53300 (too_many_connections) {MESSAGE.partition(': ')[2]}", "stacktrace:"]
    lines += [f"  (ledger 0.1.0) lib/ledger/mod{i}.ex:{i + 1}: Ledger.Mod{i}.handler/2" for i in range(frames)]
    return "\n".join(lines)


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
        (  # Go: the goroutine's header and each frame's function and place
            "panic: runtime error: index out of range [3] with length 3  goroutine 1 [running]: "
            "main.(*Server).handle(0xc000010000, {0x4d2f60, 0x3}) \t/home/me/app/server.go:27 +0x1d "
            "main.main() \t/home/me/app/main.go:12 +0x25 "
            "created by main.start in goroutine 1 \t/home/me/app/main.go:9 +0x3f exit status 2",
            [
                "panic: runtime error: index out of range [3] with length 3",
                "main.(*Server).handle(0xc000010000, {0x4d2f60, 0x3})",
                "\t/home/me/app/server.go:27 +0x1d",
                "exit status 2",
            ],
        ),
        (  # Rust: each numbered frame and its place; the note that says how to see more is no message
            "thread 'main' panicked at src/main.rs:4:5: called `Option::unwrap()` on a `None` value "
            "stack backtrace:    0: std::panicking::begin_panic "
            "             at /rustc/90b35a6/library/std/src/panicking.rs:616:12 "
            "   1: <app::Config as core::default::Default>::default              at ./src/config.rs:10:5 "
            "   2: app::main              at ./src/main.rs:4:5 "
            "note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.",
            [  # the place on the message's line is the innermost frame's, of the machine it ran on
                "thread 'main' panicked: called `Option::unwrap()` on a `None` value",
                "   0: std::panicking::begin_panic",
            ],
        ),
        (  # Python: an exception whose name does not say it is one
            'Traceback (most recent call last):   File "/var/task/handler.py", line 31, in handle '
            '    dispatch(envelope)   File "/var/task/dispatch.py", line 18, in dispatch '
            "    raise UnroutableEvent(detail_type) ledgerline.errors.UnroutableEvent: no route for 'order.refunded'",
            [
                '  File "/var/task/dispatch.py", line 18, in dispatch     raise UnroutableEvent(detail_type)',
                "ledgerline.errors.UnroutableEvent: no route for 'order.refunded'",
            ],
        ),
    ],
)
def test_a_trace_pasted_on_one_line_keeps_its_messages(trace: str, kept: list[str]) -> None:
    assert without_stack_frames(trace).splitlines() == kept


SANITIZER = (
    "==12345==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010 at pc 0x0000004c6b2e\n"
    "READ of size 4 at 0x602000000010 thread T0\n"
    "    #0 0x4c6b2d in mod0_open /home/bob/src/mod0.c:12:5\n"
    "    #1 0x4c6c8e in mod1_main /home/bob/src/mod1.c:20:3\n"
    "    #2 0x7f1c2a3b0b96 in __libc_start_main (/lib/x86_64-linux-gnu/libc.so.6+0x21b96)"
)
LANGUAGES = [go_trace, rust_trace, dotnet_trace, ruby_trace, php_trace, gdb_trace, elixir_trace]


@pytest.mark.parametrize("lines", ["lines", "one line"])
@pytest.mark.parametrize("trace", [*(language(3) for language in LANGUAGES), SANITIZER])
def test_each_language_s_frames_are_left_out_but_the_innermost(trace: str, lines: str) -> None:
    """PHP's `#1 /x.php(2): f()`, gdb's and a sanitizer's `#1 0x… in f`, Ruby's `from x.rb:2:in`, Elixir's
    `(app 0.1.0) lib/x.ex:2: M.f/2`, C#'s `at N.T.M(args) in x.cs:line 2`: on lines and on one line."""
    read = without_stack_frames(trace if lines == "lines" else one_line(trace))
    assert "mod1" not in read.lower()
    assert "mod2" not in read.lower()
    assert ("connection slots" in read) or ("heap-use-after-free" in read)


STILL_WEAK: set[tuple[Callable[[int], str], str]] = set()


@pytest.mark.parametrize("lines", ["lines", "one line"])
@pytest.mark.parametrize(
    ("trace", "mode"),
    [
        pytest.param(language, mode, marks=[pytest.mark.xfail(strict=True)] if (language, mode) in STILL_WEAK else [])
        for language in LANGUAGES
        for mode in ("keyword", "hybrid")
    ],
)
def test_a_trace_in_each_language_finds_the_session_that_discussed_its_error(
    example: Engine, trace: Callable[[int], str], mode: str, lines: str
) -> None:
    """A trace's forty frames read as words no transcript holds, and the Postgres session that quotes its message
    ranked too weak to show: Go's and Rust's on one line (VS Code's Search Memory box), PHP's, gdb's and Elixir's
    either way, .NET's in hybrid."""
    pasted = trace(40)
    answer = example.search(pasted if lines == "lines" else one_line(pasted), mode=mode)
    assert answer["results"], answer.get("note")
    assert "c84f2a19" in str(answer["results"][0]["sessionKey"])


@pytest.mark.parametrize(
    "text",
    [
        "we looked at it at noon (see the log)",
        "the plan: 1: write the test 2: run it 3: ship",
        "we shipped #1 (the login fix) at noon and #2 (docs) at 3 from main: 1: done",
        "we changed handler() in main.go:12 and start() in server.go:40",
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


UNROUTABLE = "UnroutableEvent: no route for detail-type 'order.refunded' (known: order.created, order.paid)"


@pytest.mark.parametrize("lines", ["lines", "one line"])
@pytest.mark.parametrize(
    "trace",
    [
        python_trace(20).replace(MESSAGE, UNROUTABLE),
        "\n".join([UNROUTABLE, *(f"    at step{i} (/Users/bob/app/src/mod{i}.js:{i + 1}:5)" for i in range(20))]),
        # Rust and Ruby print the innermost frame's place on the message's line
        rust_trace(20).replace(MESSAGE, UNROUTABLE),
        ruby_trace(20).replace(f"FATAL:  {MESSAGE.partition(': ')[2]} (PG::ConnectionBad)", UNROUTABLE),
    ],
)
def test_fixes_finds_an_error_s_output_from_a_trace_of_other_code(example: Engine, trace: str, lines: str) -> None:
    """The example's consumer printed this error; pasted as the message of a trace through other code (another
    machine's), its innermost frame's names, in no output, counted as words of the error the output lacked, and
    `memlens fixes` found no occurrence."""
    fixes = example.fixes(trace if lines == "lines" else one_line(trace))["fixes"]
    assert fixes
    assert "5b0e7d3c" in str(fixes[0]["sessionKey"])


@pytest.mark.parametrize("lines", ["lines", "one line"])
@pytest.mark.parametrize(
    ("trace", "message"),
    [
        (php_trace(3), "PDOException: FATAL:  remaining connection slots"),
        (gdb_trace(3), "FATAL:  remaining connection slots"),
        (ruby_trace(3), "FATAL:  remaining connection slots"),
        (rust_trace(3), "thread 'main' panicked:\npsycopg.OperationalError: remaining connection slots"),
    ],
)
def test_a_trace_s_message_is_read_without_the_runtime_s_words_and_the_place_beside_it(
    trace: str, message: str, lines: str
) -> None:
    """PHP's `PHP Fatal error:  Uncaught`, gdb's `Program received signal SIGABRT, Aborted.`: the same beside every
    error; PHP's `in /srv/src/Mod0.php:1`, Ruby's `/app/lib/mod0.rb:1:in 'handler_0':`, Rust's `panicked at
    src/main.rs:4:5:`: the innermost frame's place, on the message's line."""
    pasted = trace if lines == "lines" else one_line(trace)
    for read in (without_stack_frames(pasted), without_stack_frames(pasted, innermost=False), trace_message(pasted)):
        assert read is not None
        assert read.lstrip().startswith(message.replace("\n", "\n" if lines == "lines" else " "))
        for said_beside in ("PHP Fatal", "Uncaught", "SIGABRT", "mod0.rb", "Mod0.php", "main.rs"):
            assert said_beside not in read


def test_a_trace_whose_message_is_the_runtime_s_report_keeps_it() -> None:
    """gdb's report of the signal is all a crash's backtrace may say of it: then it is the message."""
    pasted = "Program received signal SIGSEGV, Segmentation fault.\n" + "\n".join(gdb_trace(3).splitlines()[2:])
    assert "SIGSEGV, Segmentation fault" in without_stack_frames(pasted, innermost=False)
    assert "SIGSEGV, Segmentation fault" in str(trace_message(pasted))


def test_a_trace_whose_message_its_last_frame_s_line_holds_keeps_that_frame() -> None:
    """On one line, a message that reads as no exception's name (git's `fatal: …`) stays on the last frame's source
    line: without the innermost frame (as `memlens fixes` reads a trace) nothing was left, and the search said "the
    query is empty"."""
    pasted = one_line(python_trace(3).replace(MESSAGE, "fatal: The current branch spotter-gqc has no upstream branch."))
    read = without_stack_frames(pasted, innermost=False)
    assert "no upstream branch" in read


@pytest.mark.parametrize(
    "message",
    [
        "fatal: The current branch spotter-gqc has no upstream branch.",
        'Assertion with =~ failed code: assert html =~ "No open annotations for this project."',
    ],
)
def test_a_one_line_trace_s_message_in_no_exception_s_form_is_read_apart_from_the_last_call(message: str) -> None:
    """Python prints the message on a line of its own; joined on one line, a message that names no exception stayed
    on the last frame's source line, and `memlens fixes` (which leaves the innermost frame out) held the frame's
    made-up names against past outputs with it."""
    pasted = one_line(python_trace(3).replace(MESSAGE, message))
    assert without_stack_frames(pasted, innermost=False) == message
    assert without_stack_frames(pasted).splitlines() == [
        '  File "/srv/app/mod2.py", line 3, in handler_2     call_2(request)',
        message,
    ]


@pytest.mark.parametrize("source", ["assert total == 3", 'name = "a b" + call_2(request)', "call_2(request"])
def test_a_one_line_trace_s_last_source_line_without_a_call_that_ends_keeps_the_message_on_it(source: str) -> None:
    pasted = one_line(python_trace(3).replace("call_2(request)", source).replace(MESSAGE, "fatal: no upstream"))
    assert without_stack_frames(pasted).splitlines()[-1].endswith(f"{source} fatal: no upstream")


def test_fixes_answers_a_trace_whose_message_reads_as_no_exception(example: Engine) -> None:
    pasted = one_line(python_trace(3).replace(MESSAGE, "fatal: The current branch spotter-gqc has no upstream branch."))
    assert example.fixes(pasted)["error"] == pasted


@pytest.mark.parametrize("one_line_paste", [False, True])
@pytest.mark.parametrize("form", ["logged", "npm", "trace"])
@pytest.mark.parametrize("language", range(8))
def test_each_form_bench_errors_asks_is_read_as_its_error(form: str, language: int, one_line_paste: bool) -> None:
    """bench.errors asks each pasted error in the forms developers paste it (`--as`, `--one-line`): each is read as
    the error, with no frame but the innermost of its made-up trace and no request id."""
    from bench.errors import asked_as

    from memlens.engine.keyword.pasted_noise import without_pasted_noise
    from memlens.engine.keyword.source_excerpts import without_source_excerpts

    error = "fatal: The current branch spotter-gqc has no upstream branch."
    asked = asked_as(error, language, form=form, one_line=one_line_paste)
    read = without_source_excerpts(without_stack_frames(without_pasted_noise(asked)))
    assert error in read
    assert "mod5" not in read.lower()
    assert "request_id" not in read


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_fixes_finds_the_output_of_a_chained_trace_s_root_cause(example: Engine, mode: Mode) -> None:
    """The example's consumer printed this error; pasted as the `Caused by:` of a Java chain, the wrapping
    exception's words (`IllegalStateException: task 3 failed`) counted as words of the error the output lacked, and
    `memlens fixes` found no occurrence."""
    frames = [f"\tat com.acme.app.Mod{i}.step{i}(Mod{i}.java:{i + 1})" for i in range(8)]
    outer = 'Exception in thread "main" java.lang.IllegalStateException: task 3 failed'
    pasted = "\n".join([outer, *frames, f"Caused by: {UNROUTABLE}", *frames[:3], "\t... 5 more"])
    assert root_cause(pasted) == UNROUTABLE
    assert root_cause(UNROUTABLE) is None and root_cause(python_trace(20)) is None
    example.settings.search = dataclasses.replace(example.settings.search, mode=mode)
    fixes = example.fixes(pasted)["fixes"]
    assert fixes
    assert "5b0e7d3c" in str(fixes[0]["sessionKey"])
