"""One typed wire protocol: `memlens.wire` (the Python types), `client/src/protocol.ts` (the TypeScript ones) and
what the engine really answers, held to one another.

- each TypedDict in memlens.wire has the TypeScript interface of the same name (`TS_NAME` lists the renamed ones), with
  the same keys, the same optional ones (`NotRequired` / `?`) and the same types, and each interface has its
  TypedDict;
- every real answer (test_protocol collects them from a real index: every command, several times over) has exactly
  the keys its TypedDict allows, all required ones, and values of the declared types, recursively;
- the fields the catalog may hold NULL for reach the wire as null, fit their types, and every consumer of a search
  answer (hover, CLI, context pack) takes them;
- the language server's commands accept exactly the keys of their `*Params` type, and each MCP tool's handler takes
  the request its input schema is made from.

test_protocol.py holds protocol.ts to the server and to docs/lsp-api.md; this file closes the triangle, so a key
added to an answer fails here until memlens.wire, protocol.ts (and the docs) say it.
"""

from __future__ import annotations

import json
import re
import types
from pathlib import Path
from typing import Any, Literal, Union, cast, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from memlens import wire
from memlens.cli.output import print_search
from memlens.engine.answers.context_pack import build_context_pack
from memlens.engine.engine import Engine
from memlens.lsp.commands import COMMANDS
from memlens.lsp.hover import render
from memlens.mcp.render import render_search
from memlens.mcp.tools import TOOLS
from memlens.requests import wire_names
from memlens.settings import Settings, merge
from test_protocol import WIRE, Protocol, answers, protocol, split_union  # noqa: F401 (answers, protocol: fixtures)

# memlens.wire name → protocol.ts name, where they differ
TS_NAME = {"SearchFilterParams": "SearchFilters"}
# memlens.wire types the VS Code client never sees, with the reason
PYTHON_ONLY = {
    "ContextPassage": "a ContextItem before its cost in tokens is known; the engine never sends one",
    "McpSearchParams": "the MCP tool `search`'s arguments; MCP clients read the tool's JSON schema instead",
    "SummaryHeader": "the fields SummaryDescription and SummariesExpandResponse share (their own interfaces list them)",
    "PublishResponse": "`memlens publish --json`: a command of the CLI only",
    "TeamSession": "a row of `memlens sessions --team --json`: the CLI only",
    "TeamSessionsResponse": "`memlens sessions --team --json`: the CLI only",
}


def wire_types() -> dict[str, Any]:
    return {
        name: value
        for name, value in vars(wire).items()
        if is_typeddict(value) and value.__module__.startswith(f"{wire.__name__}.") and name not in PYTHON_ONLY
    }


def by_ts_name() -> dict[str, Any]:
    return {TS_NAME.get(name, name): value for name, value in wire_types().items()}


# -- one spelling for both languages' types ----------------------------------------------------------------------


def _joined(members: frozenset[str]) -> str:
    return next(iter(members)) if len(members) == 1 else "(" + " | ".join(sorted(members)) + ")"


def py_type(annotation: Any) -> frozenset[str]:
    """A Python annotation as the set of TypeScript union members it means (`str | None` → {string, null})."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        return frozenset().union(*(py_type(member) for member in get_args(annotation)))
    if origin is Literal:
        return frozenset(f"'{value}'" for value in get_args(annotation))
    if origin is list:
        return frozenset({_joined(py_type(get_args(annotation)[0])) + "[]"})
    if origin is dict:
        key, value = get_args(annotation)
        assert key is str, f"memlens.wire: a map keyed by {key}; JSON keys are strings"
        return frozenset({f"Record<string, {_joined(py_type(value))}>"})
    if is_typeddict(annotation):
        return frozenset({TS_NAME.get(annotation.__name__, annotation.__name__)})
    simple = {str: "string", bool: "boolean", int: "number", float: "number", type(None): "null"}
    assert annotation in simple, f"memlens.wire: cannot spell {annotation!r} in TypeScript"
    return frozenset({simple[annotation]})


def ts_type(text: str, proto: Protocol) -> frozenset[str]:
    """A protocol.ts type as its union members, aliases expanded (`HitKind | null` → {'memory', …, null})."""
    members: set[str] = set()
    for member in split_union(text):
        record = re.fullmatch(r"Record<string, (.+)>", member)
        if member.startswith("(") and member.endswith(")"):
            members |= ts_type(member[1:-1], proto)
        elif member.endswith("[]"):
            members.add(_joined(ts_type(member[:-2], proto)) + "[]")
        elif record:
            members.add(f"Record<string, {_joined(ts_type(record[1], proto))}>")
        elif member in proto.aliases:
            members |= ts_type(proto.aliases[member], proto)
        else:
            members.add(member)  # a primitive, a 'literal' or an interface
    return frozenset(members)


def test_wire_types_are_the_typescript_interfaces(protocol: Protocol) -> None:  # noqa: F811
    problems = []
    for name, typed in wire_types().items():
        ts_name = TS_NAME.get(name, name)
        fields = protocol.interfaces.get(ts_name)
        if fields is None:
            problems.append(f"wire.{name} has no interface {ts_name} in protocol.ts (or a reason in PYTHON_ONLY)")
            continue
        hints = get_type_hints(typed)
        for key in sorted(set(hints) - set(fields)):
            problems.append(f"wire.{name} has {key!r}, which interface {ts_name} lacks")
        for key in sorted(set(fields) - set(hints)):
            problems.append(f"interface {ts_name} has {key!r}, which wire.{name} lacks")
        for key in sorted(set(hints) & set(fields)):
            py_optional, ts_optional = key in typed.__optional_keys__, fields[key].optional
            if py_optional != ts_optional:
                spelt = {True: "optional", False: "required"}
                problems.append(f"{key!r} is {spelt[py_optional]} in wire.{name} but {spelt[ts_optional]} in {ts_name}")
            py, ts = py_type(hints[key]), ts_type(fields[key].type, protocol)
            if py != ts:
                problems.append(f"{name}.{key}: memlens.wire says {sorted(py)}, protocol.ts says {sorted(ts)}")
    for ts_name in sorted(set(protocol.interfaces) - set(by_ts_name())):
        problems.append(f"protocol.ts interface {ts_name} has no TypedDict in memlens.wire")
    for name in sorted(set(PYTHON_ONLY) - set(vars(wire))):
        problems.append(f"PYTHON_ONLY names {name}, which memlens.wire does not define")
    assert not problems, "memlens.wire and client/src/protocol.ts disagree:\n  " + "\n  ".join(problems)


# -- real answers ---------------------------------------------------------------------------------------------


def check_value(annotation: Any, value: Any, where: str, problems: list[str]) -> None:
    """Does `value` fit `annotation`? Objects of a TypedDict must have exactly its keys (required ones all there)."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        for member in get_args(annotation):
            attempt: list[str] = []
            check_value(member, value, where, attempt)
            if not attempt:
                return
        problems.append(f"{where}: {value!r:.60} is none of {annotation}")
    elif is_typeddict(annotation):
        if not isinstance(value, dict):
            problems.append(f"{where}: {value!r:.60} is not an object ({annotation.__name__})")
            return
        hints = get_type_hints(annotation)
        unknown = sorted(set(value) - set(hints))
        missing = sorted(annotation.__required_keys__ - set(value))
        if unknown:
            problems.append(f"{where}: the answer has {unknown}, which wire.{annotation.__name__} lacks")
        if missing:
            problems.append(f"{where}: wire.{annotation.__name__} requires {missing}, which the answer lacks")
        for key, item in value.items():
            if key in hints:
                check_value(hints[key], item, f"{where}.{key}", problems)
    elif origin is list:
        if not isinstance(value, list):
            problems.append(f"{where}: {value!r:.60} is not a list")
            return
        for i, item in enumerate(value):
            check_value(get_args(annotation)[0], item, f"{where}[{i}]", problems)
    elif origin is dict:
        if not isinstance(value, dict):
            problems.append(f"{where}: {value!r:.60} is not an object")
            return
        for key, item in value.items():
            check_value(get_args(annotation)[1], item, f"{where}[{key!r}]", problems)
    elif origin is Literal:
        if value not in get_args(annotation):
            problems.append(f"{where}: {value!r:.60} is not one of {get_args(annotation)}")
    elif not _fits(annotation, value):
        problems.append(f"{where}: {value!r:.60} is not a {annotation.__name__}")


def _fits(annotation: Any, value: Any) -> bool:
    if annotation is type(None):
        return value is None
    if annotation is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, annotation)


def test_real_answers_have_exactly_the_keys_of_their_wire_type(answers: dict[str, list[dict[str, Any]]]) -> None:  # noqa: F811
    typed = by_ts_name()
    problems: list[str] = []
    for interface, values in answers.items():
        assert interface in typed, f"the server answers {interface}, which memlens.wire does not type"
        assert values, f"no {interface} answer was collected"
        for i, value in enumerate(values):
            check_value(typed[interface], value, f"{interface}#{i}", problems)
    unique = list(dict.fromkeys(re.sub(r"#\d+|\[\d+\]", "", p) for p in problems))
    assert not unique, "real answers do not fit memlens.wire:\n  " + "\n  ".join(unique[:30])


def test_the_checker_catches_a_stray_key_and_a_missing_one() -> None:
    """check_value itself: a key the type lacks, a required key missing, a wrong type in a nested list."""
    good: wire.FileError = {"path": "/a", "badLines": 1, "replaced": 0, "reasons": ["x"]}
    problems: list[str] = []
    check_value(wire.FileError, good, "ok", problems)
    assert problems == []
    for bad in (
        {**good, "extra": 1},
        {"path": "/a", "reasons": []},
        {**good, "reasons": [3]},
        {**good, "badLines": True},
    ):
        found: list[str] = []
        check_value(wire.FileError, bad, "bad", found)
        assert found, f"{bad} passed"


# -- null fields -------------------------------------------------------------------------------------------------

NOTE = "The zeppelin hangar has a copper roof, and the mooring mast leans a little to the east.\n"  # no heading


def _transcript(path: Path) -> None:
    """An OpenClaw session of two messages about the zeppelin."""
    entries: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": "cccc0000-0000-4000-8000-000000000003"}]
    for n, (role, text) in enumerate([("user", "Where does the zeppelin moor?"), ("assistant", "At the hangar mast.")]):
        message = {"role": role, "content": [{"type": "text", "text": text}]}
        parent = f"m{n - 1}" if n else None
        entries.append({"type": "message", "id": f"m{n}", "parentId": parent, "timestamp": "2026-03-01T10:00:00Z"})
        entries[-1]["message"] = message
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")


def test_null_fields_fit_the_wire_and_every_consumer_takes_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A memory section with no heading above it has a null `heading`, and a transcript hit whose session and message
    the catalog holds NULL for (the schema allows it) has null `sessionKey`, `messageId` and `role`. The answer fits
    wire.SearchResult (which declared those fields `str` until it told the truth: this check failed then), and the
    hover, the CLI's output and the context pack take the nulls: the hover links the session-less hit's file and
    writes no "None", the context pack skips the hit that names no message instead of failing on it."""
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "notes.md").write_text(NOTE, encoding="utf-8")
    _transcript(workspace / "transcripts" / "s.jsonl")
    settings = merge(Settings(), {"transcripts": {"paths": ["transcripts"], "agentDefaults": False}})
    with Engine([workspace], settings, index_dir=tmp_path / "index", embedder=False) as engine:
        engine.sync()
        with engine.catalog.transaction() as db:
            db.execute("UPDATE chunks SET session_key = NULL WHERE kind = 'transcript'")
            db.execute("UPDATE units SET message_id = NULL, role = NULL WHERE kind = 'transcript'")
        response = engine.search("zeppelin hangar mast", mode="keyword", min_score=0.0)
        hits = {hit["kind"]: hit for hit in response["results"]}
        assert sorted(hits) == ["memory", "transcript"], response
        memory, transcript = hits["memory"], hits["transcript"]
        assert "heading" in memory and memory["heading"] is None
        assert not {"sessionKey", "messageId", "role"} & set(memory)
        assert (transcript["sessionKey"], transcript["messageId"], transcript["role"]) == (None, None, None)
        assert "title" not in transcript  # no session, so no label
        problems: list[str] = []
        check_value(wire.SearchResponse, response, "search", problems)
        assert not problems, problems

        hover = render("zeppelin", response["results"])
        assert f"[{memory['relPath']}]({Path(memory['path']).as_uri()}#L1)" in hover
        assert f"]({Path(transcript['path']).as_uri()}#L{transcript['lineStart']})" in hover
        assert "None" not in hover and "memlens-transcript:" not in hover

        print_search(response, explain=False)
        printed = capsys.readouterr().out
        assert f"{memory['relPath']}:1 " in printed and "2 results" in printed
        assert "None" not in printed and "· message · " in printed  # a null role reads as "message"
        assert f"{transcript['relPath']}:{transcript['lineStart']} " in printed  # no session: the file's line

        as_text = render_search(cast(dict[str, Any], response))  # what the MCP server's search tool answers
        assert "None" not in as_text and "no session" in as_text

        pack = build_context_pack(engine, "zeppelin hangar mast")
        assert [item["kind"] for item in pack["items"]] == ["memory"]
        assert pack["items"][0]["heading"] is None and "None" not in pack["markdown"]
        check_value(wire.ContextResponse, pack, "context", problems)
        assert not problems, problems


# -- requests -----------------------------------------------------------------------------------------------------


def test_each_command_accepts_exactly_its_params_type() -> None:
    typed = by_ts_name()
    problems = []
    for command, (params, _) in WIRE.items():
        accepted = set(COMMANDS[command][1])
        declared = set(get_type_hints(typed[params])) if params else set()
        if accepted != declared:
            problems.append(f"{command} accepts {sorted(accepted)}; wire.{params} has {sorted(declared)}")
    assert not problems, "\n".join(problems)


def test_each_mcp_tool_takes_its_request_and_lists_its_schema() -> None:
    """An MCP tool's handler takes the request its input schema is made from (memlens.requests; test_requests.py
    holds those requests to the wire.*Params types)."""
    problems = []
    for tool in TOOLS:
        taken = get_type_hints(tool.handler)["request"]
        if taken is not tool.request:
            problems.append(f"{tool.name}: the handler takes {taken.__name__}, not {tool.request.__name__}")
        if list(tool.input_schema["properties"]) != list(wire_names(tool.request)):
            problems.append(f"{tool.name}: the input schema lists {sorted(tool.input_schema['properties'])}")
    assert not problems, "\n".join(problems)
