"""One wire format: `client/src/protocol.ts` and `docs/lsp-api.md` held to what the server really answers.

A real index of the example workspace (plus one transcript with a broken line, so `fileErrors` has an entry)
answers every command the language server exposes, through the same `Engine` methods the LSP handlers call. The
keys of each answer are compared, recursively, with the fields of the TypeScript interface the client reads it as:

- a key the server sends that the interface lacks fails;
- a field the interface declares that no answer of that type carried fails (optional `?` fields may be absent from
  a given answer, but must turn up in at least one, unless `NEVER_SEEN` says why not);
- a required field missing from an answer fails, and so does a value of the wrong JSON type (`null` included);
- the parameters of each `*Params` interface must be exactly the fields the server's command accepts;
- every command is in `Commands`, and every command and every key of its answers is named in docs/lsp-api.md.

The reader of protocol.ts is a few regular expressions, so protocol.ts keeps to `field?: type;` lines and names its
nested objects (no inline `{ … }` types); it says so when it meets something it cannot read.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest

from conftest import REPO, example_settings
from memlens.engine.engine import Engine
from memlens.engine.filters import SearchFilters
from memlens.engine.vectors.embedder import Embedder
from memlens.lsp.commands import COMMANDS
from memlens.lsp.state import ServerState
from memlens.requests import SearchFilterRequest, wire_names
from memlens.settings import Settings, merge
from transcript_fixtures import EVENT_DAYS, one_message_days

PROTOCOL = REPO / "client" / "src" / "protocol.ts"
DOCS = REPO / "docs" / "lsp-api.md"

# command → (the interface of its one object argument, the interface of its answer)
WIRE: dict[str, tuple[str | None, str]] = {
    "memlens.search": ("SearchParams", "SearchResponse"),
    "memlens.history": ("HistoryParams", "HistoryResponse"),
    "memlens.sessions": ("SessionsParams", "SessionsResponse"),
    "memlens.stats": (None, "StatsResponse"),
    "memlens.reindex": ("ReindexParams", "ReindexReport"),
    "memlens.sources": (None, "SourcesResponse"),
    "memlens.removeSource": ("RemoveSourceParams", "RemoveSourceResponse"),
    "memlens.summaries.grep": ("SummariesGrepParams", "SummariesGrepResponse"),
    "memlens.summaries.describe": ("SummariesDescribeParams", "SummaryDescription"),
    "memlens.summaries.expand": ("SummariesExpandParams", "SummariesExpandResponse"),
    "memlens.context": ("ContextParams", "ContextResponse"),
    "memlens.fixes": ("FixesParams", "FixesResponse"),
}
NOTIFICATION = ("memlens/indexStatus", "IndexStatus")

# Fields no answer below carries, each with the reason it cannot be shown on the example workspace.
_TEAM_ONLY = "only with a team index (team.url): tests/test_team.py holds them against a real PostgreSQL"
NEVER_SEEN: dict[str, str] = {
    "SearchResponse.team": _TEAM_ONLY,
    "SearchResult.publisher": _TEAM_ONLY,
    "SearchResult.project": _TEAM_ONLY,
}

# Fields the server accepts that the client's types leave out on purpose.
PARAMS_NOT_TYPED = {
    # an alias of `session` the server accepts from hand-written clients; the VS Code client sends `session`
    ("SearchFilters", "sessionKey"),
}


# -- reading protocol.ts ------------------------------------------------------------------------------------------


@dataclass
class Field:
    name: str
    optional: bool
    type: str


@dataclass
class Protocol:
    interfaces: dict[str, dict[str, Field]] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    commands: dict[str, str] = field(default_factory=dict)


COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
INTERFACE = re.compile(r"export interface (\w+) \{(.*?)\n\}", re.S)
FIELD = re.compile(r"(\w+)(\?)?: ([^;]+);")
ALIAS = re.compile(r"export type (\w+) = ([^;]+);")
COMMANDS_CONST = re.compile(r"export const Commands = \{(.*?)\} as const;", re.S)


def read_protocol() -> Protocol:
    text = COMMENTS.sub("", PROTOCOL.read_text(encoding="utf-8"))
    protocol = Protocol()
    for name, body in INTERFACE.findall(text):
        assert "{" not in body, f"protocol.ts: interface {name} has an inline object type; name it as an interface"
        fields = {m[0]: Field(m[0], bool(m[1]), m[2].strip()) for m in FIELD.findall(body)}
        leftover = FIELD.sub("", body).strip()
        assert not leftover, f"protocol.ts: cannot read {leftover!r} in interface {name}"
        protocol.interfaces[name] = fields
    protocol.aliases = {name: body.strip() for name, body in ALIAS.findall(text)}
    block = COMMANDS_CONST.search(text)
    assert block, "protocol.ts: no `export const Commands = {…} as const`"
    protocol.commands = dict(re.findall(r"(\w+): '([^']+)'", block[1]))
    return protocol


def split_union(type_text: str) -> list[str]:
    """`A | B<C | D>[] | null` → the members at the top level."""
    members, depth, current = [], 0, ""
    for ch in type_text:
        depth += ch in "<(" or -(ch in ">)")
        if ch == "|" and depth == 0:
            members.append(current.strip())
            current = ""
        else:
            current += ch
    return [*members, current.strip()]


PRIMITIVES = {"string", "number", "boolean", "null", "unknown"}


def fits_primitive(type_name: str, value: Any) -> bool:
    if type_name == "string":
        return isinstance(value, str)
    if type_name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if type_name == "boolean":
        return isinstance(value, bool)
    if type_name == "null":
        return value is None
    return type_name == "unknown"


# -- checking answers ---------------------------------------------------------------------------------------------


class Checker:
    def __init__(self, protocol: Protocol) -> None:
        self.protocol = protocol
        self.seen: dict[str, set[str]] = {}
        self.found: dict[str, list[str]] = {}  # problem → where it was seen

    def problem(self, where: str, what: str) -> None:
        self.found.setdefault(what, []).append(where)

    @property
    def problems(self) -> list[str]:
        """Each problem once, with where it was first seen and how often."""
        return [
            f"{wheres[0]}: {what}" + (f" (and {len(wheres) - 1} more)" if len(wheres) > 1 else "")
            for what, wheres in self.found.items()
        ]

    def accepts(self, type_text: str, value: Any, where: str) -> bool:
        """Does `value` fit `type_text`? Objects of a named interface are checked (and recorded) on the way."""
        return any(self._member(member, value, where) for member in split_union(type_text))

    def _member(self, member: str, value: Any, where: str) -> bool:
        if member.startswith("(") and member.endswith(")"):
            return self.accepts(member[1:-1], value, where)
        if member.endswith("[]"):
            return isinstance(value, list) and all(
                self.accepts(member[:-2], item, f"{where}[{i}]") for i, item in enumerate(value)
            )
        record = re.fullmatch(r"Record<string, (.+)>", member)
        if record:
            return isinstance(value, dict) and all(self.accepts(record[1], v, where) for v in value.values())
        if member in self.protocol.interfaces:
            if not isinstance(value, dict):
                return False
            self.check(member, value, where)
            return True
        if member in self.protocol.aliases:
            return self.accepts(self.protocol.aliases[member], value, where)
        literal = re.fullmatch(r"'([^']*)'", member)
        if literal:
            return isinstance(value, str) and value == literal[1]
        assert member in PRIMITIVES, f"protocol.ts: cannot read the type {member!r} ({where})"
        return fits_primitive(member, value)

    def check(self, interface: str, answer: Mapping[str, Any], where: str) -> None:
        fields = self.protocol.interfaces[interface]
        self.seen.setdefault(interface, set()).update(answer)
        extra = sorted(set(answer) - set(fields))
        if extra:
            self.problem(where, f"the server sends {extra}, which interface {interface} lacks")
        missing = sorted(name for name, f in fields.items() if not f.optional and name not in answer)
        if missing:
            self.problem(where, f"interface {interface} requires {missing}, which this answer lacks")
        for name, value in answer.items():
            if name in fields and not self.accepts(fields[name].type, value, f"{where}.{name}"):
                self.problem(f"{where}.{name}", f"{value!r:.80} does not fit {interface}.{name}: {fields[name].type}")

    def never_seen(self, reachable: set[str]) -> list[str]:
        problems = []
        for interface in sorted(reachable):
            seen = self.seen.get(interface)
            if seen is None:
                problems.append(f"interface {interface}: no answer of this type was seen")
                continue
            unseen = sorted(
                name
                for name in self.protocol.interfaces[interface]
                if name not in seen and f"{interface}.{name}" not in NEVER_SEEN
            )
            if unseen:
                problems.append(f"interface {interface} declares {unseen}, which no answer carried")
        return problems

    def reachable(self, interface: str, into: set[str]) -> set[str]:
        """The interface and every interface its fields name, transitively."""
        if interface not in into:
            into.add(interface)
            for f in self.protocol.interfaces[interface].values():
                if f"{interface}.{f.name}" in NEVER_SEEN:
                    continue  # a field no answer here carries: what its type names is not looked for either
                for word in re.findall(r"\w+", f.type):
                    if word in self.protocol.interfaces:
                        self.reachable(word, into)
                    elif word in self.protocol.aliases:
                        for alias_word in re.findall(r"\w+", self.protocol.aliases[word]):
                            if alias_word in self.protocol.interfaces:
                                self.reachable(alias_word, into)
        return into


# -- the real answers ---------------------------------------------------------------------------------------------

BROKEN_LINE = '{"type": "user", "message": {"role": "user", "content": "cut off mid-li\n'


@pytest.fixture(scope="module")
def answers(
    built_example: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory, embedder: Embedder
) -> dict[str, list[Mapping[str, Any]]]:
    """Every answer type, several times over, from a private copy of the built example."""
    root = tmp_path_factory.mktemp("protocol")
    workspace, index_dir = root / "workspace", root / "index"
    shutil.copytree(built_example[0], workspace)
    shutil.copytree(built_example[1], index_dir)
    out: dict[str, list[Mapping[str, Any]]] = {name: [] for _, name in WIRE.values()}
    out[NOTIFICATION[1]] = []
    with Engine([workspace], example_settings(), index_dir=index_dir, embedder=embedder) as engine:
        with engine.catalog.transaction() as db:  # the catalog stores absolute paths: point it at this copy
            db.execute("UPDATE files SET path = replace(path, ?, ?)", (str(built_example[0]), str(workspace)))
            db.execute("UPDATE roots SET path = replace(path, ?, ?)", (str(built_example[0]), str(workspace)))
            db.execute("UPDATE files SET dev = NULL, ino = NULL, ctime_ns = NULL")  # a copy is another inode
        # a transcript grows by a line that is not JSON: the reindex report counts it, stats lists the file
        transcript = next((workspace / "transcripts" / "claude-code").glob("*.jsonl"))
        with transcript.open("a", encoding="utf-8") as f:
            f.write(BROKEN_LINE)
            f.write('{"not": "closed"\n')
        # a note that quotes an error and says its fix: a fix of its own (`source`, `relPath`, `lineStart`)
        (workspace / "memory" / "quoted-fix.md").write_text(
            "# Fixed\n\n- `KeyError: 'ledger_refund_id'` in the refund worker: fixed by reading `event.detail`.\n"
        )
        out["ReindexReport"] += [engine.reindex().to_wire(), engine.reindex(full=True).to_wire()]

        search = out["SearchResponse"]
        search.append(engine.search("how did we fix the dead-letter queue backup?", explain=True, min_score=0.0))
        search.append(engine.search("pgbouncer", limit=3))
        search.append(engine.search("what did we do on February 10?"))  # a question about a day: `period`
        search.append(engine.search("what did we do on February 15?"))  # a day without sessions: `nearest…`
        search.append(engine.search("the saxophone on February 10?"))  # words written nowhere then: `sessionsWritten`
        search.append(engine.search("what did we do on February 10 and 12?"))  # a list of days: `parts`
        search.append(engine.search("what did we do the week before the offsite"))  # days around an event: `event`
        search.append(engine.search("what did we do the week before the hackathon"))  # named nowhere: `unnamedEvent`
        search.append(engine.search("what did we do between the refund incident and the offsite"))  # `endEvent`
        search.append(engine.search("what did we do between the offsite and the hackathon"))  # `unnamedEvent.end`
        search.append(engine.search("pgbouncer pool\n" * 400))  # longer than a query's bound: `leftOut`
        search.append(engine.search("what did we do on February 30?"))  # no such day: `unreadDates`
        search.append(engine.search("what did we do on 10/02/2026?"))  # two days: `ambiguousDates`
        # the subagent's own task (a sidechain session): its hits carry parentSessionKey
        search.append(engine.search("where is order.refunded published; is there a refund handler", min_score=0.0))
        search.append(engine.search("to be or not"))  # only stop words: `namesNoTopic`
        future = SearchFilterRequest(since="2099-01-01")  # a window after every message: `emptyWindow.sinceInFuture`
        search.append(engine.search("pgbouncer", filters=future))
        gap = SearchFilterRequest(since="2026-02-15", until="2026-02-15")  # a day between sessions: both nearest
        search.append(engine.search("pgbouncer", filters=gap))
        summary = engine.summaries_grep("offsite", limit=5)
        out["SummariesGrepResponse"].append(summary)
        summary_id = summary["results"][0]["summaryId"]
        excerpt = summary["results"][0]["excerpt"][:60]
        kinds = SearchFilters(kind="summary")
        search.append(engine.search(excerpt, filters=kinds, explain=True, min_score=0.0, fusion="rrf"))
        out["SummaryDescription"].append(engine.summaries_describe(summary_id))
        for budget in (2000, 1):  # 1: the newest message is cut
            out["SummariesExpandResponse"].append(engine.summaries_expand(summary_id, token_budget=budget))

        sessions = engine.sessions(limit=3)
        out["SessionsResponse"] += [sessions, engine.sessions(cursor=sessions["nextCursor"])]
        out["SessionsResponse"].append(engine.sessions(project="no-such-project"))  # a mistyped project: `note`
        history = out["HistoryResponse"]
        for session in engine.sessions(limit=50)["sessions"]:
            history.append(engine.history(session["sessionKey"], limit=3))
        anchor = search[0]["results"][0]
        history.append(engine.history(anchor["sessionKey"], message_id=anchor["messageId"], limit=5))

        for question in ("Café Nordlys offsite agenda", "who is on the pager rota"):
            for budget in (2000, 100, 150):  # the small budgets cut items to fit
                out["ContextResponse"].append(engine.context(question, token_budget=budget))
            out["ContextResponse"].append(engine.context(question, limit=1))

        out["StatsResponse"].append(engine.stats())
        # an error line that lives in a tool result, and one no tool output holds
        out["FixesResponse"].append(engine.fixes("UnroutableEvent: no route for detail-type 'order.refunded'"))
        out["FixesResponse"].append(engine.fixes("zebracorn quux", limit=1, follow=1))
        out["FixesResponse"].append(engine.fixes("KeyError: 'ledger_refund_id'", limit=1))
        out["FixesResponse"].append(engine.fixes("no route for detail-type\n" * 400, limit=1))  # `leftOut`

        class Reader:  # what ServerState.index_status reads: the engine, a worker, whether a job runs
            busy = False

            def __init__(self) -> None:
                self.engine = engine

            async def read(self, fn: Any) -> Any:
                return fn()

        for message in (None, "reindex done"):
            status = asyncio.run(ServerState.index_status(cast(ServerState, Reader()), message))
            assert status is not None
            out["IndexStatus"].append(status)

    # a second, keyword-only engine on the same index: the hybrid search says why it ran by keywords
    with Engine([workspace], example_settings(), index_dir=index_dir, embedder=False) as keyword_only:
        out["SearchResponse"].append(keyword_only.search("dead-letter queue", explain=True))
        out["StatsResponse"].append(keyword_only.stats())

    # events the example states by date only: one stated relative to the day written ("tomorrow": `statedOn`) and
    # one whose mentions disagree (`mentions`, `otherDays`, `chosenBy`)
    events, bare = one_message_days(root / "event-days", EVENT_DAYS), root / "event-workspace"
    bare.mkdir()
    settings = Settings()
    settings.transcripts.agent_defaults = False
    with Engine([bare], settings, [events], index_dir=root / "event-index", embedder=False) as dated:
        dated.sync()
        out["SearchResponse"].append(dated.search("what did we do the day after the demo"))

    # a folder the index remembers that these settings do not name: listed, told, then removed
    extra = root / "extra-transcripts"
    shutil.copytree(workspace / "transcripts" / "openclaw", extra)
    with Engine([workspace], example_settings(), [extra], index_dir=index_dir, embedder=False) as with_extra:
        with_extra.sync()
    with Engine([workspace], example_settings(), index_dir=index_dir, embedder=False) as without:
        out["SourcesResponse"].append(without.source_folders())
        out["UnnamedSources"] = [{"sources": without.unnamed_source_folders()}]
        out["RemoveSourceResponse"].append(without.remove_source_folder(extra))
        out["SourcesResponse"].append(without.source_folders())

    # an index a sync leaves empty, a transcript under its workspace: the report's `empty`, the search's `emptyIndex`
    empty_workspace = root / "empty-workspace"
    shutil.copytree(workspace / "transcripts" / "openclaw", empty_workspace / "exports")
    no_agents = merge(Settings(), {"transcripts": {"agentDefaults": False}}, [])
    with Engine([empty_workspace], no_agents, index_dir=root / "empty-index", embedder=False) as empty:
        out["ReindexReport"].append(empty.reindex().to_wire())
        out["SearchResponse"].append(empty.search("anything", mode="keyword"))
    return out


@pytest.fixture(scope="module")
def protocol() -> Protocol:
    return read_protocol()


def test_every_answer_matches_its_typescript_interface(
    protocol: Protocol, answers: dict[str, list[Mapping[str, Any]]]
) -> None:
    checker = Checker(protocol)
    reachable: set[str] = set()
    missing = sorted(set(answers) - set(protocol.interfaces))
    for interface in missing:
        checker.problem("protocol.ts", f"no interface {interface}; the server answers {answers[interface][0]!r:.200}")
    for interface, values in answers.items():
        assert values, f"no {interface} answer was collected"
        if interface in missing:
            continue
        for i, value in enumerate(values):
            checker.check(interface, value, f"{interface}#{i}")
        checker.reachable(interface, reachable)
    problems = checker.problems + checker.never_seen(reachable)
    stale = sorted(set(NEVER_SEEN) - {f"{i}.{f}" for i in reachable for f in protocol.interfaces[i]})
    problems += [f"NEVER_SEEN names {name}, which protocol.ts does not declare" for name in stale]
    assert not problems, "client/src/protocol.ts has drifted from the server:\n  " + "\n  ".join(problems)


def test_params_match_what_each_command_accepts(protocol: Protocol) -> None:
    problems = []
    for command, (params, _) in WIRE.items():
        accepted = set(COMMANDS[command][1])
        if params and params not in protocol.interfaces:
            problems.append(f"protocol.ts has no interface {params}; {command} accepts {sorted(accepted)}")
            continue
        declared = set(protocol.interfaces[params]) if params else set()
        for name in sorted(accepted - declared):
            problems.append(f"{command} accepts {name!r}, which interface {params} lacks")
        for name in sorted(declared - accepted):
            problems.append(f"interface {params} declares {name!r}, which {command} rejects as unknown")
    filters = set(protocol.interfaces["SearchFilters"])
    server_filters = set(wire_names(SearchFilterRequest))  # what filters_from_dict reads
    for name in sorted(server_filters - filters):
        if ("SearchFilters", name) not in PARAMS_NOT_TYPED:
            problems.append(f"filters_from_dict accepts {name!r}, which interface SearchFilters lacks")
    for name in sorted(filters - server_filters):
        problems.append(f"interface SearchFilters declares {name!r}, which filters_from_dict rejects")
    assert not problems, "client/src/protocol.ts has drifted from the server:\n  " + "\n  ".join(problems)


def test_commands_are_the_servers(protocol: Protocol) -> None:
    assert set(COMMANDS) == set(WIRE), "WIRE in this test must list every command in memlens.lsp.commands"
    assert sorted(protocol.commands.values()) == sorted(COMMANDS), (
        f"protocol.ts Commands {sorted(protocol.commands.values())} != the server's {sorted(COMMANDS)}"
    )


def doc_section(docs: str, heading: str) -> str:
    start = docs.index(heading)
    following = re.search(r"^#{2,3} ", docs[start + len(heading) :], re.M)
    return docs[start : start + len(heading) + following.start()] if following else docs[start:]


def keys_of(value: Any, into: set[str]) -> set[str]:
    """Every key of the answer, nested ones too, except the keys of maps (format → count)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in {"files", "messages"} or isinstance(item, list):
                into.add(key)
                keys_of(item, into)
    elif isinstance(value, list):
        for item in value:
            keys_of(item, into)
    return into


def test_docs_name_every_command_and_key(answers: dict[str, list[Mapping[str, Any]]]) -> None:
    docs = DOCS.read_text(encoding="utf-8")
    problems = []
    sections = [(f"### `{command}`", command, response) for command, (_, response) in WIRE.items()]
    sections.append(("**`memlens/indexStatus`**", NOTIFICATION[0], NOTIFICATION[1]))
    sections.append(("**`memlens/unnamedSources`**", "memlens/unnamedSources", "UnnamedSources"))
    for heading, name, response in sections:
        if heading not in docs:
            problems.append(f"docs/lsp-api.md has no section {heading}")
            continue
        section = doc_section(docs, heading)
        keys: set[str] = set()
        for answer in answers[response]:
            keys_of(answer, keys)
        undocumented = sorted(k for k in keys if not re.search(rf"\b{re.escape(k)}\b", section))
        if undocumented:
            problems.append(f"{name} ({response}): docs/lsp-api.md does not name {undocumented} in {heading}")
    assert not problems, "docs/lsp-api.md has drifted from the server:\n  " + "\n  ".join(problems)
