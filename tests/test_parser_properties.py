"""Property tests of the parsers' validated boundary (Hypothesis), plus the hostile values seen in the wild.

- Arbitrary JSON in any field of a realistic line never raises, and whatever comes out is safe to store: UTF-8
  encodable text (no lone surrogates) and a timestamp that is None or inside 1970..2100.
- Good lines around a bad one are always parsed: a bad line costs exactly itself, counted as one bad line.
- What a crashed writer leaves costs no record: torn bytes before a line, and neighbouring lines whose newline was
  lost (joined with nothing, a blank or torn bytes), read as the clean file's records, session, folder and ids.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memlens.engine.sources import ParseResult, TranscriptParser, TranscriptRecord, select_active_branch
from memlens.engine.sources.claude_code import ClaudeCodeParser
from memlens.engine.sources.codex import CodexParser
from memlens.engine.sources.common import EPOCH_MAX, EPOCH_MIN, line_ref, parse_timestamp
from memlens.engine.sources.openclaw import OpenClawParser
from memlens.engine.sources.specstory import SpecStoryParser
from memlens.engine.sources.torn_lines import MAX_TRIES, LineRecords, records_on_line

PROPERTY = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
T0 = "2026-03-02T09:00:00.000Z"

# --- realistic lines, one template per kind of line each parser reads ---


def _claude(kind: str, uuid: str, parent: str | None, content: Any, **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message = {"id": f"msg_{uuid}", "type": "message", "role": "assistant", "content": content}
    line = {"parentUuid": parent, "isSidechain": False, "type": kind, "sessionId": "s1", "cwd": "/w", "uuid": uuid}
    return {**line, "timestamp": T0, "message": message, **extra}


def claude_lines(n: int) -> list[dict[str, Any]]:
    """A linear conversation of n user/assistant lines (assistant lines carry text and a tool call)."""
    lines = []
    for i in range(n):
        parent = f"id{i - 1}" if i else None
        if i % 2 == 0:
            lines.append(_claude("user", f"id{i}", parent, f"question {i}"))
        else:
            content = [
                {"type": "text", "text": f"answer {i}"},
                {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": f"echo {i}"}},
            ]
            lines.append(_claude("assistant", f"id{i}", parent, content))
    return lines


def codex_lines(n: int) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [
        {
            "timestamp": T0,
            "type": "session_meta",
            "payload": {"id": "019c0000-0000-7000-8000-000000000000", "cwd": "/w"},
        }
    ]
    for i in range(n):
        if i % 3 == 0:
            lines.append({"timestamp": T0, "type": "event_msg", "payload": {"type": "task_started"}})
        role, kind = ("user", "input_text") if i % 2 == 0 else ("assistant", "output_text")
        payload = {"type": "message", "role": role, "content": [{"type": kind, "text": f"message {i}"}]}
        lines.append({"timestamp": T0, "type": "response_item", "payload": payload})
    return lines


def openclaw_lines(n: int) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": "sess", "timestamp": T0, "cwd": "/w"}]
    for i in range(n):
        role = "user" if i % 2 == 0 else "assistant"
        content: list[dict[str, Any]] = [{"type": "text", "text": f"message {i}"}]
        if role == "assistant":
            content.append({"type": "toolCall", "id": f"c{i}", "name": "exec", "arguments": {"command": "ls"}})
        message = {"role": role, "content": content}
        lines.append({"type": "message", "id": f"e{i}", "parentId": f"e{i - 1}" if i else None, "timestamp": T0,
                      "message": message})  # fmt: skip
    return lines


EXTRA_TEMPLATES: dict[str, list[dict[str, Any]]] = {
    "claude-code": [
        {"type": "summary", "summary": "a summary", "leafUuid": "id1"},
        {"type": "queue-operation", "operation": "enqueue", "timestamp": T0, "sessionId": "s1", "content": "later"},
        _claude("user", "cs", "id0", "This session is being continued", isCompactSummary=True),
    ],
    "codex": [
        {"timestamp": T0, "type": "event_msg", "payload": {"type": "user_message", "message": "hi"}},
        {"timestamp": T0, "type": "event_msg", "payload": {"type": "agent_message", "message": "yo"}},
        {
            "timestamp": T0,
            "type": "response_item",
            "payload": {"type": "function_call", "name": "shell", "arguments": '{"command": ["ls"]}'},
        },
        {"timestamp": T0, "type": "compacted", "payload": {"message": "summary"}},
    ],  # fmt: skip
    "openclaw": [
        {"type": "compaction", "id": "cp", "parentId": "e0", "timestamp": T0, "summary": "earlier"},
        {"type": "branch_summary", "id": "bs", "parentId": "e0", "timestamp": T0, "summary": "tried"},
    ],
}
FORMATS: dict[str, tuple[TranscriptParser, Callable[[int], list[dict[str, Any]]]]] = {
    "claude-code": (ClaudeCodeParser(), claude_lines),
    "codex": (CodexParser(), codex_lines),
    "openclaw": (OpenClawParser(), openclaw_lines),
}


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every field of a JSON value, as a path of keys and indexes (the value itself is the empty path)."""
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _paths(child, (*prefix, index))
    return found


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _replaced(value[path[0]], path[1:], new)
    return copy


def jsonl(objects: list[Any]) -> bytes:
    return b"".join(json.dumps(o).encode() + b"\n" for o in objects)  # json.dumps writes NaN, Infinity, \ud800


def assert_storable(result: ParseResult, data: bytes) -> None:
    """What a parse returns can be stored: all lines consumed, UTF-8 text, sane timestamps, SQLite accepts it."""
    assert result.consumed_bytes == len(data)
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (id TEXT, text TEXT, ts REAL, uuid TEXT, parent TEXT)")
    for record in result.records:
        for text in (record.text, record.message_id, record.uuid or "", record.parent_uuid or "", result.session_id):
            text.encode("utf-8")  # raises on a lone surrogate
        assert record.timestamp is None or EPOCH_MIN <= record.timestamp < EPOCH_MAX
        row = (record.message_id, record.text, record.timestamp, record.uuid, record.parent_uuid)
        db.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)", row)
    for error in result.errors:
        error.encode("utf-8")


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**400), max_value=10**400)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(alphabet=st.characters(codec=None), max_size=20)  # includes lone surrogates
    | st.sampled_from(
        [
            "2026-03-02T09:00:00Z",
            "9999-12-31T23:59:59-12:00",
            "0001-01-01T00:00:00+14:00",
            "toolCall",
            "text",
            "tool_use",
            "user",
            "assistant",
            "message",
            "response_item",
            "event_msg",
        ]
    ),  # fmt: skip
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)


# --- properties ---


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@PROPERTY
@given(data=st.data(), new=json_values)
def test_any_json_in_any_field_never_raises(fmt: str, data: st.DataObject, new: Any) -> None:
    parser, make = FORMATS[fmt]
    templates = make(4) + EXTRA_TEMPLATES[fmt]
    index = data.draw(st.integers(0, len(templates) - 1))
    path = data.draw(st.sampled_from(_paths(templates[index])))
    lines = list(templates)
    lines[index] = _replaced(templates[index], path, new)
    payload = jsonl(lines)
    result = parser.parse(payload, Path("s1.jsonl"))
    assert_storable(result, payload)
    assert result.bad_lines == (0 if isinstance(lines[index], dict) else 1)


bad_lines = st.sampled_from(
    [
        b"{broken",
        b'{"type": "user", "message": {"content": "cut mid-str',
        b"[" * 10_000 + b"]" * 10_000,  # nested too deeply for the JSON decoder
        b'{"a":' * 5_000 + b"1" + b"}" * 5_000,
        b"[1, 2]",
        b'"just a string"',
        b"\xff\xfe\x00garbage",
        b"NaN",
    ]
) | st.binary(max_size=40).filter(lambda b: b"\n" not in b and not _is_json_object(b))


def _is_json_object(raw: bytes) -> bool:
    """Whether a line may hold a record: a JSON object starts somewhere in it."""
    return _holds_object(raw.decode("utf-8", "replace"))


def _holds_object(text: str) -> bool:
    decoder = json.JSONDecoder(strict=False)
    for start in (i for i, char in enumerate(text) if char == "{"):
        try:
            if isinstance(decoder.raw_decode(text, start)[0], dict):
                return True
        except (ValueError, RecursionError):
            continue
    return False


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@PROPERTY
@given(n=st.integers(2, 12), where=st.integers(0, 100), bad=bad_lines)
def test_good_lines_around_a_bad_one_are_all_kept(fmt: str, n: int, where: int, bad: bytes) -> None:
    parser, make = FORMATS[fmt]
    lines = make(n)
    at = 1 + where % len(lines)  # after the header line (claude: after the first message)
    good = jsonl(lines)
    raw = good.split(b"\n")
    with_bad = b"\n".join([*raw[:at], bad, *raw[at:]])
    clean = parser.parse(good, Path("s1.jsonl"))
    result = parser.parse(with_bad, Path("s1.jsonl"))
    blank = not bad.decode("utf-8", "replace").strip()  # a blank line (Unicode whitespace) is no bad line
    assert result.bad_lines == (0 if blank else 1)
    assert_storable(result, with_bad)
    assert [r.text for r in result.records] == [r.text for r in clean.records]
    # and the branch rule keeps them all: a bad line never hides the messages before it
    assert len(select_active_branch(result.records)) == len(clean.records)


torn_prefixes = st.text(max_size=30).filter(
    lambda t: "\n" not in t and "\r" not in t and '{"' not in t and t.strip() and not _holds_object(t)
)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@PROPERTY
@given(n=st.integers(2, 12), where=st.integers(0, 100), torn=torn_prefixes | st.just('"content": "cut mid-str'))
def test_a_line_behind_a_torn_write_is_kept(fmt: str, n: int, where: int, torn: str) -> None:
    """What a crashed writer leaves (part of a line, no newline) before the next record it appends costs no record:
    the line reads as the record it ends with, the skipped characters said on its line."""
    parser, make = FORMATS[fmt]
    lines = make(n)
    at = where % len(lines)  # the header line too: a session line names the session and its folder
    raw = jsonl(lines).split(b"\n")
    raw[at] = torn.encode("utf-8", "surrogatepass") + raw[at]
    torn_file = b"\n".join(raw)
    clean = parser.parse(jsonl(lines), Path("s1.jsonl"))
    result = parser.parse(torn_file, Path("s1.jsonl"))
    assert result.bad_lines == 0
    assert [r.text for r in result.records] == [r.text for r in clean.records]
    assert (result.session_id, result.cwd) == (clean.session_id, clean.cwd)
    assert f"line {at + 1}: {len(torn)} characters of a torn write skipped before its record" in result.errors
    assert_storable(result, torn_file)


def _torn_record(line: bytes, cut: int) -> bytes:
    """The start of a record a writer died in: cut short of its end, never just after a nested object's closing brace
    (such a start ends in a whole object, which no reader can tell from a record: a known limit)."""
    start = line[: 1 + cut % (len(line) - 1)]
    return start.rstrip(b"}] \t") or b"{"


# what lies between two records whose newline was lost: nothing, a blank, torn bytes, or a torn record
GLUES = ("", " ", "\t", "torn", "record")
# Torn bytes between two records, short of those that start as what follows a value inside its parent (`,` `}` `]`):
# after them the record before reads as an object nested in a torn one. No writer starts a line with them.
torn_between = torn_prefixes.filter(lambda t: t.lstrip(" \t")[:1] not in (",", "}", "]"))


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@PROPERTY
@given(
    n=st.integers(2, 12),
    glues=st.lists(st.sampled_from(("\n", "\n", *GLUES)), min_size=20, max_size=20),
    tails=st.lists(st.booleans(), min_size=20, max_size=20),
    torn=torn_between,
    cut=st.integers(0, 10_000),
)
def test_records_whose_newline_was_lost_are_all_kept(
    fmt: str, n: int, glues: list[str], tails: list[bool], torn: str, cut: int
) -> None:
    """Neighbouring lines joined as a crashed writer leaves them (`{a}{b}`, `{a} {b}`, `{a}<torn bytes>{b}`,
    `{a}{"type":"assis…{b}`), some lines ending in a torn record: every record is read, in order, with the clean
    file's session, folder and ids (an id made of a line number names the record's line and its place on it), the
    records after the split point of an append read as the whole file reads them, each line's problem said once."""
    parser, make = FORMATS[fmt]
    raw = jsonl(make(n)).split(b"\n")[:-1]
    torn_bytes = torn.encode("utf-8", "surrogatepass")
    joined: list[bytes] = [raw[0]]
    place = {1: (1, 0)}  # clean line → (joined line, place on it)
    expected: dict[int, tuple[int, int]] = {}  # joined line → (records, characters of torn writes skipped)
    for number, line in enumerate(raw[1:], start=2):
        glue = glues[number - 2]
        last, index = place[number - 1]
        if glue == "\n":
            joined.append(line)
            place[number] = (last + 1, 0)
            continue
        between = {"torn": torn_bytes, "record": _torn_record(raw[cut % len(raw)], cut)}.get(glue, glue.encode())
        joined[-1] += between + line
        place[number] = (last, index + 1)
        records, skipped = expected.get(last, (1, 0))
        expected[last] = (records + 1, skipped + (_chars(between) if glue in ("torn", "record") else 0))
    for at, tail in enumerate(tails[: len(joined)]):
        if tail and at + 1 in expected:  # a joined line that ends in a torn record too
            end = _torn_record(raw[(cut + at) % len(raw)], cut + at)
            joined[at] += end
            records, skipped = expected[at + 1]
            expected[at + 1] = (records, skipped + _chars(end))
    data = b"\n".join([*joined, b""])
    clean = parser.parse(jsonl(make(n)), Path("s1.jsonl"))
    result = parser.parse(data, Path("s1.jsonl"))
    assert result.bad_lines == 0
    assert_storable(result, data)
    assert [r.text for r in result.records] == [r.text for r in clean.records]
    assert (result.session_id, result.cwd) == (clean.session_id, clean.cwd)
    assert [(r.message_id, r.position) for r in result.records] == [_moved(r, place) for r in clean.records]
    assert len({(r.message_id, r.part) for r in result.records}) == len(result.records)
    for line_no, (records, skipped) in expected.items():
        problem = f"line {line_no}: {records} records on one line (a newline lost)"
        assert (f"{problem}, {skipped} characters of a torn write skipped" if skipped else problem) in result.errors
    # an append from any line after the first: what a parse resumes from reads the same records again
    split = 1 + cut % len(joined)
    head = parser.parse(b"".join(line + b"\n" for line in joined[:split]), Path("s1.jsonl"))
    resume = head.resume_line or split + 1
    appended = parser.parse(b"".join(line + b"\n" for line in joined[resume - 1 :]), Path("s1.jsonl"), resume)
    kept = [(r.message_id, r.position, r.text) for r in head.records if r.position < resume]
    assert kept + [(r.message_id, r.position, r.text) for r in appended.records] == [
        (r.message_id, r.position, r.text) for r in result.records
    ]


def _chars(raw: bytes) -> int:
    return len(raw.decode("utf-8", "replace"))


def _moved(record: TranscriptRecord, place: dict[int, tuple[int, int]]) -> tuple[str, int]:
    """A clean file's record's (id, line) where its line now lies: an id made of its line number names its new line
    and its place on it."""
    line, index = place[record.position]
    made_of_line = re.fullmatch(r"([LQ])(\d+)", record.message_id)
    message_id = f"{made_of_line.group(1)}{line_ref(line, index)}" if made_of_line else record.message_id
    return message_id, line


def test_an_object_nested_in_a_torn_record_is_no_record() -> None:
    """The inner object of a record whose start was torn off is followed by its parent's closing braces: the line
    stays a bad line rather than a message made of part of another."""
    decoder = json.JSONDecoder(strict=False)
    assert records_on_line('ssage", "message": {"role": "user", "content": "hi"}}', decoder) is None
    assert records_on_line('ssage", "message": {"role": "user"}, "uuid": "u1"}{"b": 2}', decoder) == LineRecords(
        [{"b": 2}], skipped_before=50
    )
    found = records_on_line('x{"a": 1}  ', decoder)
    assert found == LineRecords([{"a": 1}], skipped_before=1)
    assert found.problem() == "1 characters of a torn write skipped before its record"


@pytest.mark.parametrize(
    ("line", "records", "problem"),
    [
        ('{"a": 1}{"b": 2}', [{"a": 1}, {"b": 2}], "2 records on one line (a newline lost)"),
        ('{"a": 1} {"b": 2}\t{"c": 3}', [{"a": 1}, {"b": 2}, {"c": 3}], "3 records on one line (a newline lost)"),
        (
            '/spec{"a": 1}{"b": 2}',
            [{"a": 1}, {"b": 2}],
            "2 records on one line (a newline lost), 5 characters of a torn write skipped",
        ),
        ('{"a": 1}{"type":"assis', [{"a": 1}], "14 characters of a torn write skipped after its record"),
        ('x{"a": 1}{"ty', [{"a": 1}], "5 characters of a torn write skipped around its record"),
        (  # a torn record between two: its inner object is followed by a comma, the next record by the line's end
            '{"a": 1}{"t": "u", "m": {"r": 1}, "c": "cu{"b": 2}',
            [{"a": 1}, {"b": 2}],
            "2 records on one line (a newline lost), 34 characters of a torn write skipped",
        ),
        (
            '{"a": 1}\x00\x00{"b": 2}',
            [{"a": 1}, {"b": 2}],
            "2 records on one line (a newline lost), 2 characters of a torn write skipped",
        ),  # fmt: skip
    ],
)
def test_every_whole_record_on_a_line_is_read(line: str, records: list[dict[str, Any]], problem: str) -> None:
    found = records_on_line(line, json.JSONDecoder(strict=False))
    assert found is not None and found.records == records and found.problem() == problem


def test_a_long_garbled_line_costs_a_few_parses() -> None:
    """Tries from the `{"` of skipped characters are bounded: a line of a million of them is given up on after a
    few, whatever follows."""
    calls = 0

    class Counting(json.JSONDecoder):
        def raw_decode(self, s: str, idx: int = 0) -> tuple[Any, int]:
            nonlocal calls
            calls += 1
            return super().raw_decode(s, idx)

    assert records_on_line('{"' * 1_000_000 + '{"a": 1}', Counting(strict=False)) is None
    assert calls == MAX_TRIES


@PROPERTY
@given(lines=st.lists(st.text(alphabet=st.characters(codec=None), max_size=60), max_size=30))
def test_specstory_any_text_never_raises(lines: list[str]) -> None:
    header = ["<!-- Generated by SpecStory -->", "_**User (2026-03-02 09:00:00Z)**_", "", "question", "---"]
    text = "\n".join([*header, "_**Agent (m 2026-03-02 09:00:05Z)**_", *lines, ""])
    payload = text.encode("utf-8", "surrogatepass")
    result = SpecStoryParser().parse(payload, Path("2026-03-02_09-00-00Z-x.md"))
    assert_storable(result, payload)
    assert result.records[0].text == "question"


# --- the hostile values seen in the wild, each one named ---

HOSTILE_TIMESTAMPS = [
    pytest.param(b"1e400", id="1e400"),
    pytest.param(b"Infinity", id="Infinity"),
    pytest.param(b"-Infinity", id="-Infinity"),
    pytest.param(b"NaN", id="NaN"),
    pytest.param(b"9" * 400, id="400-digit"),
    pytest.param(b"-1e20", id="-1e20"),
    pytest.param(b"1e17", id="1e17"),
    pytest.param(b'"9999-12-31T23:59:59-12:00"', id="year-9999-at-minus-12"),
    pytest.param(b'"0001-01-01T00:00:00+14:00"', id="year-1-at-plus-14"),
    pytest.param(b'"2150-01-01T00:00:00Z"', id="after-2100"),
    pytest.param(b'{"$date": 1}', id="object"),
]


@pytest.mark.parametrize("raw", HOSTILE_TIMESTAMPS)
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_hostile_timestamps_become_unknown(fmt: str, raw: bytes) -> None:
    parser, make = FORMATS[fmt]
    good = jsonl(make(3))
    data = good.replace(json.dumps(T0).encode(), raw)
    assert data != good
    result = parser.parse(data, Path("s1.jsonl"))
    assert_storable(result, data)
    assert result.bad_lines == 0 and len(result.records) == len(parser.parse(good, Path("s1.jsonl")).records)
    assert all(r.timestamp is None for r in result.records)


def test_parse_timestamp_range() -> None:
    assert parse_timestamp("2026-03-02T09:00:00Z") == 1772442000.0
    assert parse_timestamp(1772442000) == parse_timestamp(1772442000000) == 1772442000.0
    assert parse_timestamp(0) == 0.0 and parse_timestamp(EPOCH_MAX) is None
    for value in (math.inf, -math.inf, math.nan, 10**400, -1e20, 1e17, -1, True, "9999-12-31T23:59:59-12:00"):
        assert parse_timestamp(value) is None, value


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_lone_surrogate_is_replaced(fmt: str) -> None:
    parser, make = FORMATS[fmt]
    data = jsonl(make(3)).replace(b"question 0", b"cut \\ud83d here").replace(b"message 0", b"cut \\ud83d here")
    result = parser.parse(data, Path("s1.jsonl"))
    assert_storable(result, data)
    assert any("cut \ufffd here" in r.text for r in result.records)


@pytest.mark.parametrize(
    ("fmt", "line"),
    [
        ("claude-code", _claude("user", "x", None, 42)),  # content as a number
        ("claude-code", {**_claude("user", "x", None, "hi"), "type": {"user": True}}),  # type as a dict
        ("claude-code", {**_claude("assistant", "x", None, "hi"), "message": ["a", "list"]}),
        ("codex", {"type": "response_item", "payload": {"type": "message", "role": "user", "content": 7}}),
        ("codex", {"type": {"response_item": 1}, "payload": {"type": "message"}}),
        ("codex", {"type": "response_item", "payload": {"type": ["function_call"], "name": {"a": 1}}}),
        ("openclaw", {"type": "message", "id": "x", "parentId": None, "message": ["list"]}),
        ("openclaw", {"type": {"compaction": 1}, "id": {"a": 1}, "parentId": 3, "summary": 5}),
    ],
)
def test_wrong_json_types_cost_nothing_else(fmt: str, line: dict[str, Any]) -> None:
    parser, make = FORMATS[fmt]
    good = make(4)
    data = jsonl([*good[:2], line, *good[2:]])
    result = parser.parse(data, Path("s1.jsonl"))
    assert_storable(result, data)
    assert [r.text for r in result.records] == [r.text for r in parser.parse(jsonl(good), Path("s1.jsonl")).records]
