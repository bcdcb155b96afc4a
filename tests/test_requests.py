"""One request schema per command (memlens.requests), and every door held to it.

- each schema field's bound is enforced: the values just inside pass, just outside fail, with one message naming the
  field, the range and the value; non-finite and huge numbers, NUL bytes, long strings, inverted date ranges and
  deep nesting are refused, whichever way the request is built (parsed from JSON, or built by the engine's door);
- the doors agree with the schema: the MCP tools' JSON Schemas accept and refuse what the schema does (jsonschema
  checks them), the CLI's flags are the schema's fields with its bounds in their help, the language server accepts
  exactly its fields, and `memlens.wire`'s `*Params` TypedDicts and `client/src/protocol.ts`'s interfaces have the
  schema's fields, optional where the schema's are, of the schema's types;
- through the CLI, each bad value is one line on stderr and exit 2 (`--limit 1000000000000` aborted the process in
  tantivy once).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import re
import subprocess
import sys
from typing import Any, get_type_hints

import jsonschema
import pytest

from conftest import REPO
from memlens import wire
from memlens.cli.arguments import SKIPPED, build_parser
from memlens.cli.commands import main
from memlens.errors import InvalidRequest
from memlens.lsp.commands import COMMANDS as LSP_COMMANDS
from memlens.mcp.tools import TOOLS
from memlens.requests import (
    COMMANDS,
    MAX_DEPTH,
    FieldSpec,
    McpSearchRequest,
    Request,
    SearchFilterRequest,
    SearchRequest,
    checked,
    json_schema,
    load_json,
    parse,
    specs,
    wire_names,
)
from memlens.settings import wire_name
from test_protocol import PROTOCOL, WIRE, read_protocol
from test_wire_types import TS_NAME, py_type, ts_type

REQUESTS: list[type[Request]] = [*COMMANDS.values(), McpSearchRequest]
WIRE_PARAMS = {McpSearchRequest: "McpSearchParams", SearchFilterRequest: "SearchFilterParams"} | {
    COMMANDS[command]: params for command, (params, _) in WIRE.items() if params
}

ALIASES = {(SearchFilterRequest, "sessionKey")}
"""Fields the server accepts that the typed clients leave out: an alias of `session` for hand-written clients."""


def minimal(cls: type[Request]) -> dict[str, Any]:
    """The smallest valid raw request of `cls`: its required strings."""
    return {spec.wire: "x" for spec in specs(cls) if spec.required}


def numeric_fields() -> list[tuple[type[Request], FieldSpec]]:
    return [(cls, spec) for cls in REQUESTS for spec in specs(cls) if spec.base in (int, float)]


def text_fields() -> list[tuple[type[Request], FieldSpec]]:
    return [(cls, spec) for cls in REQUESTS for spec in specs(cls) if spec.base is str]


def ids(pairs: list[tuple[type[Request], FieldSpec]]) -> list[str]:
    return [f"{cls.__name__}.{spec.wire}" for cls, spec in pairs]


# -- the schema's own bounds ---------------------------------------------------------------------------------------


def test_every_number_and_string_has_bounds() -> None:
    unbounded = [f"{c.__name__}.{s.wire}" for c, s in numeric_fields() if s.low is None or s.high is None]
    unbounded += [f"{c.__name__}.{s.wire}" for c, s in text_fields() if s.max_chars is None]
    assert not unbounded, f"fields without bounds: {unbounded}"


@pytest.mark.parametrize(("cls", "spec"), numeric_fields(), ids=ids(numeric_fields()))
def test_a_number_inside_its_bounds_passes_and_outside_fails(cls: type[Request], spec: FieldSpec) -> None:
    assert spec.low is not None and spec.high is not None
    for good in (spec.low, spec.high):
        assert getattr(parse(cls, {**minimal(cls), spec.wire: good}), spec.name) == good
    step = 1 if spec.base is int else 0.001
    for bad in (spec.low - step, spec.high + step, 10**12, -(10**30), math.inf, math.nan, True, "5", [5]):
        with pytest.raises(InvalidRequest, match=rf"^{spec.wire} must be .*got ") as caught:
            parse(cls, {**minimal(cls), spec.wire: bad})
        assert "\n" not in str(caught.value) and len(str(caught.value)) < 200
    if spec.base is int:
        with pytest.raises(InvalidRequest, match="whole number"):
            parse(cls, {**minimal(cls), spec.wire: spec.low + 0.5})


@pytest.mark.parametrize(("cls", "spec"), text_fields(), ids=ids(text_fields()))
def test_a_string_past_its_length_or_with_a_nul_fails(cls: type[Request], spec: FieldSpec) -> None:
    assert spec.max_chars is not None
    with pytest.raises(InvalidRequest, match=rf"^{spec.wire} must be at most {spec.max_chars:,} characters"):
        parse(cls, {**minimal(cls), spec.wire: "a" * (spec.max_chars + 1)})
    with pytest.raises(InvalidRequest, match="NUL"):
        parse(cls, {**minimal(cls), spec.wire: "a\x00b"})
    with pytest.raises(InvalidRequest, match=rf"^{spec.wire} must be a string"):
        parse(cls, {**minimal(cls), spec.wire: {"nested": ["deep"]}})


def test_the_examples_of_the_issue_say_field_range_and_value() -> None:
    cases: dict[str, dict[str, Any]] = {
        "limit must be 1..100, got 1000000000000": {"limit": 10**12},
        "limit must be 1..100, got -3": {"limit": -3},
        "minScore must be a finite number 0..1, got inf": {"minScore": float("1e400")},
        "minScore must be a finite number 0..1, got nan": {"minScore": math.nan},
        # a query over 4,000 characters is read by its end (test_long_paste.py); past the most taken at all, refused
        "query must be at most 1,000,000 characters, got 1,000,001; over 4,000 only its first line and end are read: "
        "paste those": {"query": "q" * 1_000_001},
    }
    for message, fields in cases.items():
        with pytest.raises(InvalidRequest) as caught:
            SearchRequest.parse({"query": "q", **fields})
        assert str(caught.value) == message


def test_dates_are_checked_and_an_inverted_range_is_an_error() -> None:
    assert SearchRequest.parse({"query": "q", "filters": {"since": "2026-02-10", "until": "2026-02-10"}})
    with pytest.raises(InvalidRequest, match=r"^filters\.since \(2026-02-11\) must not be after until"):
        SearchRequest.parse({"query": "q", "filters": {"since": "2026-02-11", "until": "2026-02-10"}})
    with pytest.raises(InvalidRequest, match=r"^filters\.until must be an ISO date"):
        SearchRequest.parse({"query": "q", "filters": {"until": "next week"}})
    for cls in (McpSearchRequest, COMMANDS["memlens.sessions"]):
        with pytest.raises(InvalidRequest, match="must not be after until"):
            parse(cls, {**minimal(cls), "since": "2026-03-01T00:00:00Z", "until": "2026-02-28"})


def test_unknown_fields_enums_and_shapes_are_refused() -> None:
    for raw, message in [
        ({"query": "q", "qeury": "q"}, "unknown field(s): 'qeury'; expected query, limit"),
        ({"query": "q", "filters": {"colour": "red"}}, "unknown field(s) in filters: 'colour'"),
        ({"query": "q", "mode": "psychic"}, "mode must be one of hybrid, keyword, vector, got 'psychic'"),
        ({"query": "q", "filters": "kind=memory"}, "filters must be an object, got 'kind=memory'"),
        ({"query": "q", "explain": "yes"}, "explain must be true or false, got 'yes'"),
        ({"query": "  "}, "query must not be empty"),
        ({}, "query is required"),
        ([1, 2], "the arguments must be an object"),
    ]:
        with pytest.raises(InvalidRequest) as caught:
            SearchRequest.parse(raw)
        assert str(caught.value).startswith(message), caught.value


def test_the_engine_door_builds_the_same_checked_request() -> None:
    """`checked` is what Engine's methods call with their keyword arguments: no door can bypass the bounds."""
    assert checked(SearchRequest, query="q", limit=100, min_score=0).limit == 100
    with pytest.raises(InvalidRequest, match=r"^limit must be 1\.\.100, got 1000000000000$"):
        checked(SearchRequest, query="q", limit=10**12)
    with pytest.raises(InvalidRequest, match="mode must be one of"):
        checked(SearchRequest, query="q", mode="psychic")
    with pytest.raises(InvalidRequest, match=r"^limit must be an integer 1\.\.500, got null$"):
        checked(COMMANDS["memlens.history"], session_key="k", limit=None)  # a field that has a default is no "null"


def test_deep_nesting_is_refused_before_the_parser_recurses() -> None:
    assert load_json(b'{"a": [[["x"]]]}') == {"a": [[["x"]]]}
    assert load_json('{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}')  # brackets in strings do not count
    for deep in ("[" * 100_000, '{"a":' * 100_000, "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)):
        with pytest.raises(InvalidRequest, match=f"nested deeper than {MAX_DEPTH}"):
            load_json(deep)
    for garbage in (b"\xff\xfe\x00garbage", b"not json", b""):
        with pytest.raises(InvalidRequest):
            load_json(garbage)


# -- the doors agree with the schema -------------------------------------------------------------------------------


def test_mcp_input_schemas_accept_and_refuse_what_the_schema_does() -> None:
    """Each tool's JSON Schema is made from its request; jsonschema (what an MCP client checks) and the schema agree
    on the edges of every bound."""
    for tool in TOOLS:
        schema = tool.input_schema
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema == json_schema(tool.request, defaults=tool.defaults)
        validator = jsonschema.Draft202012Validator(schema)
        base = minimal(tool.request)
        samples: list[dict[str, Any]] = [base, {**base, "bogus": 1}]
        for spec in specs(tool.request):
            if spec.low is not None and spec.high is not None:
                samples += [{**base, spec.wire: v} for v in (spec.low, spec.high, spec.low - 1, spec.high + 1)]
            if spec.max_chars is not None:
                lengths = (spec.max_chars + 1,) if spec.date else (spec.max_chars, spec.max_chars + 1)  # a date: parsed
                samples += [{**base, spec.wire: "a" * n} for n in lengths]
            if spec.choices:
                samples += [{**base, spec.wire: spec.choices[0]}, {**base, spec.wire: "nonsense"}]
        for sample in samples:
            by_json_schema = validator.is_valid(sample)
            try:
                parse(tool.request, sample)
                by_request = True
            except InvalidRequest:
                by_request = False
            assert by_json_schema == by_request, (tool.name, {k: str(v)[:20] for k, v in sample.items()})


def test_the_language_server_accepts_exactly_each_schemas_fields() -> None:
    assert set(LSP_COMMANDS) == set(COMMANDS)
    for name, (_, fields) in LSP_COMMANDS.items():
        assert fields == wire_names(COMMANDS[name])


@pytest.mark.parametrize("cls", list(WIRE_PARAMS), ids=[c.__name__ for c in WIRE_PARAMS])
def test_wire_params_and_protocol_ts_have_the_schemas_fields_and_types(cls: type[Request]) -> None:
    """wire.*Params (Python) and protocol.ts's interfaces (TypeScript) against the schema: same fields, optional
    where the schema's are not required, same types (a number for int and float, the same string literals)."""
    protocol = read_protocol()
    name = WIRE_PARAMS[cls]
    typed = getattr(wire, name)
    _agree(cls, get_type_hints(typed), typed.__optional_keys__, f"wire.{name}")
    if name == "McpSearchParams":
        return  # no TS counterpart: MCP clients read the JSON Schema
    interface = protocol.interfaces[TS_NAME.get(name, name)]
    problems = []
    for spec in specs(cls):
        if (cls, spec.wire) in ALIASES:
            continue
        field = interface.get(spec.wire)
        if field is None:
            problems.append(f"protocol.ts {name} lacks {spec.wire}")
            continue
        if field.optional == spec.required:
            problems.append(
                f"protocol.ts {name}.{spec.wire} optional={field.optional}, schema required={spec.required}"
            )
        want = _ts_spelling(spec)
        got = ts_type(field.type, protocol)
        if want != got:
            problems.append(f"protocol.ts {name}.{spec.wire}: {sorted(got)}, the schema says {sorted(want)}")
    extra = set(interface) - set(wire_names(cls))
    problems += [f"protocol.ts {TS_NAME.get(name, name)} has {key}, which the schema lacks" for key in sorted(extra)]
    assert not problems, "\n".join(problems)


FIELD_COMMENT = re.compile(r"/\*\*(.*?)\*/\s*\n\s*(\w+)\??:", re.S)


def test_protocol_ts_comments_state_each_numbers_bounds_and_default() -> None:
    """The client's types say each number's range and default as the schema declares them (`1..100, default 20`,
    or the setting an absent value means), so a bound changed in one place fails here until protocol.ts says it."""
    text = PROTOCOL.read_text(encoding="utf-8")
    problems = []
    for cls, name in WIRE_PARAMS.items():
        if name == "McpSearchParams":
            continue
        body = re.search(rf"export interface {TS_NAME.get(name, name)} \{{(.*?)\n\}}", text, re.S)
        assert body, name
        comments = {field: " ".join(comment.split()) for comment, field in FIELD_COMMENT.findall(body[1])}
        for spec in specs(cls):
            if spec.low is None or spec.high is None:
                continue
            want = [spec.bounds_text()]
            if spec.setting:
                want.append(f"default `{wire_name(spec.setting)}`")
            elif spec.default is not None:
                want.append(f"default {spec.default}")
            comment = comments.get(spec.wire, "")
            problems += [f"{name}.{spec.wire}: the comment {comment!r} lacks {w!r}" for w in want if w not in comment]
    assert not problems, "\n".join(problems)


def _ts_spelling(spec: FieldSpec) -> frozenset[str]:
    if spec.nested is not None:
        return frozenset({"SearchFilters"})
    return py_type(spec.base)


def _agree(cls: type[Request], hints: dict[str, Any], optional: frozenset[str], where: str) -> None:
    problems = []
    fields = {spec.wire: spec for spec in specs(cls)}
    for key in sorted(set(fields) - set(hints) - {key for c, key in ALIASES if c is cls}):
        problems.append(f"{where} lacks {key}")
    for key in sorted(set(hints) - set(fields)):
        problems.append(f"{where} has {key}, which the schema lacks")
    for key in sorted(set(fields) & set(hints)):
        spec = fields[key]
        if (key in optional) == spec.required:
            problems.append(f"{where}.{key}: optional={key in optional}, the schema's required={spec.required}")
        if spec.nested is None and py_type(hints[key]) != py_type(spec.base):
            problems.append(f"{where}.{key}: {hints[key]}, the schema says {spec.base}")
    assert not problems, "\n".join(problems)


def _subparser(command: str) -> argparse.ArgumentParser:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found: argparse.ArgumentParser = sub.choices[command]
    return found


@pytest.mark.parametrize(
    ("command", "request_cls"),
    [("search", SearchRequest), ("history", COMMANDS["memlens.history"]), ("sessions", COMMANDS["memlens.sessions"])],
)
def test_cli_flags_are_the_schemas_fields_with_its_bounds_in_their_help(command: str, request_cls: type) -> None:
    actions = {action.dest: action for action in _subparser(command)._actions}
    flat = [s for spec in specs(request_cls) for s in (specs(spec.nested) if spec.nested else (spec,))]
    for spec in flat:
        if spec.name in SKIPPED.get(request_cls, ()):
            continue
        action = actions.get(spec.name)
        assert action is not None, f"memlens {command} has no flag for {spec.wire}"
        if spec.low is not None:
            assert action.help and spec.bounds_text() in action.help, action.help
        if spec.choices:
            assert action.metavar == "{" + ",".join(spec.choices) + "}"
        if spec.default_text:
            assert action.help and f"default: {spec.default_text}" in action.help, action.help


def test_cli_help_names_the_setting_a_missing_value_means() -> None:
    help_text = _subparser("search").format_help()
    assert "1..100; default: search.maxResults (10)" in " ".join(help_text.split())


# -- through the CLI: one line, exit 2 ----------------------------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memlens", *args], capture_output=True, text=True, timeout=120, cwd=REPO
    )


@pytest.mark.parametrize("value", ["0", "-3", "1000000000000"])
def test_cli_search_limit_out_of_range_is_one_line_exit_2(value: str, tmp_path: Any) -> None:
    """`--limit 1000000000000` aborted with a Rust allocation panic (exit 134); now each is one line, before any
    index is opened."""
    done = _cli("search", "anything", "--limit", value, "--index-dir", str(tmp_path / "index"))
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"memlens: error: --limit must be 1..100, got {value}\n"
    assert not (tmp_path / "index").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["search", "q", "--min-score", "nan"], "--min-score must be a finite number 0..1, got nan"),
        (["search", "q", "--min-score", "1e400"], "--min-score must be a finite number 0..1, got inf"),
        (["search", "q", "--min-score", "1.5"], "--min-score must be 0..1, got 1.5"),
        (["search", "q", "--limit", "ten"], "--limit must be an integer 1..100, got 'ten'"),
        (["search", "q", "--mode", "psychic"], "--mode must be one of hybrid, keyword, vector, got 'psychic'"),
        (["search", "q", "--kind", "diary"], "--kind must be one of memory, transcript, summary, tool, got 'diary'"),
        (["sessions", "--format", "vim"], "--format must be one of claude-code, codex, openclaw, specstory"),
        (["search", "q", "--since", "2026-03-01", "--until", "2026-02-01"], "must not be after until"),
        (["search", "q", "--since", "someday"], "error: --since must be an ISO date"),
        (["sessions", "--query", "q" * 5000], "--query must be at most 4,000 characters, got 5,000"),
        (["search", " "], "error: QUERY must not be empty"),  # a positional, named as the usage line names it
        (["history", ""], "error: SESSION_KEY must not be empty"),
        (["history", "claude-code:x", "--limit", "0"], "--limit must be 1..500, got 0"),
        (["history", "claude-code:x", "--limit", "501"], "--limit must be 1..500, got 501"),
        (["sessions", "--limit", "100000"], "--limit must be 1..500, got 100000"),
        (["sessions", "--since", "2026-03-01", "--until", "2026-02-01"], "must not be after until"),
    ],
)
def test_cli_bad_values_are_one_line_exit_2(
    argv: list[str], message: str, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv, "--index-dir", str(tmp_path / "index"), "--workspace", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("memlens: error: ") and message in err, err
    assert "Traceback" not in err


def test_requests_are_frozen_and_hold_their_checked_values() -> None:
    request = SearchRequest.parse({"query": "q", "limit": 5.0, "filters": {"kind": "memory"}})
    assert request.limit == 5 and isinstance(request.limit, int)
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.limit = 10**12  # type: ignore[misc]
    assert json.loads(json.dumps(dataclasses.asdict(request)))["filters"]["kind"] == "memory"
