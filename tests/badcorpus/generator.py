"""Writes the bad-input corpus of issue 9: one file per (format, bad-input case), good messages around each bad one.

`write_corpus(root)` builds, below `root`:

- `workspace/`: memory notes (`MEMORY.md`, `memory/*.md`) and SpecStory exports (`.specstory/history/*.md`);
- `transcripts/`: Claude Code, Codex CLI and OpenClaw JSONL (the CLI's `--transcripts` folder);
- `outside/`: files that symlinks inside the workspace or the transcript folder point at (never to be indexed);
- `home/`: an empty home folder, so the agents' default folders of the machine running the tests stay out.

Every good message carries one unique marker word (`gm` + case code + `n` + number, e.g. `gmcc07n1`), so a keyword
search proves it was indexed. `om…` markers sit in the bad line itself: either outcome is acceptable (the line may be
skipped or partly kept). `fm…` markers must never be found (content behind a symlink that leads out). `um…` markers
sit in unreadable files: not findable when the process cannot read them (the expectation is skipped as root).

Line shapes are copied from the real fixtures (Claude Code 2.1.38, Codex CLI 0.104/0.125, OpenClaw v3, SpecStory
2.1.0), trimmed to the fields the agents write.

Run `python -m tests.badcorpus.generator DIR` (from the repository root) to write the corpus and list its cases.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from .names import write_name_cases

FORMATS = ("claude-code", "codex", "openclaw", "specstory", "memory")
_CODES = {"claude-code": "cc", "codex": "cx", "openclaw": "oc", "specstory": "ss", "memory": "md"}
_NAMESPACE = uuid.UUID("6f1c1c6e-8d0a-4b53-9a55-3c0d8b1e0a11")
_START = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)
HUGE_LINE_BYTES = 5 * 1024 * 1024
DEEP_LEVELS = 10_000

_USER_TEXTS = (
    "The nightly export job stopped writing rows to the warehouse after the upgrade, ticket {m}. Can you look?",
    "Why does the invoice sync retry forever when the upstream returns 429? See {m} in the tracker.",
    "Please rename the flag to enableBatchWrites everywhere and keep the old name as an alias ({m}).",
    "ok, now add a test for the empty-payload case, same as {m} but for the webhook handler",
    "Can we cap the connection pool at 20 and log when a request waits longer than two seconds? {m}",
)
_ASSISTANT_TEXTS = (
    "The export stops because the cursor column was renamed; I updated the query and backfilled, see {m}.",
    "The retry loop ignored Retry-After. It now backs off exponentially with jitter and gives up after 6 tries ({m}).",
    "Renamed the flag in 14 files; the old name still parses and logs a deprecation warning. Marker {m}.",
    "Added test_webhook_empty_payload, it fails on main and passes with the guard in handler.py ({m}).",
    "Pool capped at 20; a waiting request over 2 s now logs pool_wait_slow with the route name. Ref {m}.",
)


# -- what the corpus promises -------------------------------------------------------------------------------------


@dataclass
class Case:
    """One bad-input case in one format: the files written and what indexing them must (not) make findable."""

    code: str  # e.g. "cc07": format code + number, the marker prefix
    format: str  # claude-code | codex | openclaw | specstory | memory
    slug: str  # e.g. "ts-1e400"
    title: str
    files: list[Path] = field(default_factory=list)
    expected: list[str] = field(default_factory=list)  # markers a keyword search must find
    optional: list[str] = field(default_factory=list)  # markers in the bad line: found or not, both fine
    forbidden: list[str] = field(default_factory=list)  # markers that must never be found
    unreadable: list[str] = field(default_factory=list)  # not findable unless running as root
    separate: list[tuple[str, str]] = field(default_factory=list)  # marker pairs that must be in different messages
    unique: list[str] = field(default_factory=list)  # markers that must be in exactly one message (no duplicates)
    bad_lines: int = 0  # lines that are not valid JSON at all: stats must count at least these
    replaced: int = 0  # invalid bytes (NULs, lone surrogates) in kept lines: stats must count at least these as U+FFFD
    rule: str = ""  # the expectation chosen where it is debatable
    rewrite: Callable[[], None] | None = None  # run after the first index, before `reindex` (names.py)

    @property
    def id(self) -> str:
        return f"{self.format}/{self.slug}"

    def marker(self, n: int) -> str:
        return f"gm{self.code}n{n}"


@dataclass
class Corpus:
    root: Path
    workspace: Path
    transcripts: Path
    outside: Path
    home: Path
    cases: list[Case] = field(default_factory=list)

    def expected(self) -> dict[str, Case]:
        return {m: c for c in self.cases for m in c.expected}

    def forbidden(self) -> dict[str, Case]:
        return {m: c for c in self.cases for m in c.forbidden}

    def optional(self) -> dict[str, Case]:
        return {m: c for c in self.cases for m in c.optional}

    def unreadable(self) -> dict[str, Case]:
        return {m: c for c in self.cases for m in c.unreadable}

    def files(self) -> list[Path]:
        return [p for c in self.cases for p in c.files]

    def min_bad_lines(self) -> int:
        return sum(c.bad_lines for c in self.cases)

    def min_replaced(self) -> int:
        return sum(c.replaced for c in self.cases)

    def by_format(self) -> dict[str, list[Case]]:
        return {f: [c for c in self.cases if c.format == f] for f in FORMATS}

    def case(self, case_id: str) -> Case:
        return next(c for c in self.cases if c.id == case_id)


# -- raw JSON tokens ----------------------------------------------------------------------------------------------


class Raw:
    """A JSON token written verbatim (`1e400`, `NaN`, a lone `\\ud800` escape, 10,000 nested brackets)."""

    def __init__(self, text: str) -> None:
        self.text = text


def _dumps(obj: Any) -> str:
    """json.dumps with Raw values spliced in verbatim (compact, UTF-8 as the agents write it)."""
    raws: list[str] = []

    def swap(value: Any) -> Any:
        if isinstance(value, Raw):
            raws.append(value.text)
            return f"@@RAW{len(raws) - 1}@@"
        if isinstance(value, dict):
            return {k: swap(v) for k, v in value.items()}
        if isinstance(value, list):
            return [swap(v) for v in value]
        return value

    text = json.dumps(swap(obj), ensure_ascii=False, separators=(",", ":"))
    for i, raw in enumerate(raws):
        text = text.replace(f'"@@RAW{i}@@"', raw)
    return text


def surrogate_string(text: str) -> Raw:
    """A JSON string holding a lone high surrogate escape where `text` has `@S@` (JSON.stringify of a cut emoji)."""
    return Raw(json.dumps(text, ensure_ascii=False).replace("@S@", "\\ud800"))


def _deep(levels: int) -> Raw:
    return Raw("[" * levels + "]" * levels)


def _iso(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


def _uid(*parts: object) -> str:
    return str(uuid.uuid5(_NAMESPACE, "/".join(str(p) for p in parts)))


# -- the bad values ----------------------------------------------------------------------------------------------

# (slug, title, raw bytes spliced into a message's JSON string, the U+FFFD they become): the message is kept
ODD_BYTES_CASES: tuple[tuple[str, str, bytes, int], ...] = (
    ("nul-in-text", "raw NUL bytes inside a message's JSON string", b"\x00\x00", 2),
    ("ff-in-text", "a raw 0xFF byte inside a message's JSON string", b"\xff", 1),
    ("overlong-utf8", "an overlong UTF-8 form (C0 AF) inside a message's JSON string", b"\xc0\xaf", 2),
    ("nul-escape", 'a "\\u0000" escape inside a message\'s JSON string', b"\\u0000", 1),
    ("stray-cr", "a raw CR inside a message's JSON string", b"\r", 0),
    (
        "mixed-odd-bytes",
        "NUL, 0xFF, UTF-8-encoded and escaped lone surrogates in one string",
        b"\x00\xff\xed\xa0\x80\\udc00",
        6,
    ),
)
ODD_BYTES_RULE = "invalid bytes inside a string become U+FFFD (counted in stats `replaced`); the message is kept"
QUIET_RULE = "a complete last line without a newline is indexed once its file has been quiet briefly"

# (slug, title, raw timestamp)
TIMESTAMP_CASES: tuple[tuple[str, str, Any], ...] = (
    ("ts-1e400", "timestamp 1e400 (parses to inf)", Raw("1e400")),
    ("ts-infinity", "timestamp Infinity", Raw("Infinity")),
    ("ts-nan", "timestamp NaN", Raw("NaN")),
    ("ts-neg-infinity", "timestamp -Infinity", Raw("-Infinity")),
    ("ts-400-digits", "timestamp: a 400-digit integer", Raw("9" * 400)),
    ("ts-neg-1e20", "timestamp -1e20", Raw("-1e20")),
    ("ts-1e17", "timestamp 1e17 (ms epoch far beyond year 9999)", Raw("1e17")),
    ("ts-year-9999", "timestamp 9999-12-31T23:59:59-12:00 (UTC overflows)", "9999-12-31T23:59:59-12:00"),
    ("ts-year-0001", "timestamp 0001-01-01T00:00:00+14:00 (UTC underflows)", "0001-01-01T00:00:00+14:00"),
    ("ts-empty", 'timestamp ""', ""),
    ("ts-dict", 'timestamp {"$date": ...}', {"$date": "2026-03-02T09:01:00Z"}),
)
TIMESTAMP_RULE = "a message whose only fault is its timestamp is a good message: kept with an unknown (or clamped) time"


# -- JSONL sessions -----------------------------------------------------------------------------------------------


class _Session:
    """Builds one JSONL transcript line by line; subclasses write one agent's line shapes."""

    def __init__(self, case: Case, cwd: str) -> None:
        self.case = case
        self.cwd: Any = cwd
        self.lines: list[bytes] = []
        self.clock = _START + timedelta(minutes=7 * int(case.code[2:]))
        self.count = 0
        self.parent: Any = None  # the id the next line links to (formats with branches)

    def tick(self, seconds: int = 20) -> str:
        self.clock += timedelta(seconds=seconds)
        return _iso(self.clock)

    def next_id(self) -> str:
        self.count += 1
        return _uid(self.case.code, self.count)

    def add(self, obj: dict[str, Any]) -> dict[str, Any]:
        self.lines.append(_dumps(obj).encode("utf-8", errors="surrogatepass"))
        return obj

    def add_raw(self, line: bytes) -> None:
        self.lines.append(line)

    # per format
    def header(self) -> None: ...

    def user(self, text: str) -> dict[str, Any]:
        raise NotImplementedError

    def assistant(self, text: str, tool: tuple[str, dict[str, Any]] | None = None) -> dict[str, Any]:
        raise NotImplementedError

    def tool_result(self, output: str) -> dict[str, Any]:
        raise NotImplementedError

    # mutations of one message line (a dict produced by user()/assistant(), not yet written)
    def set_timestamp(self, obj: dict[str, Any], value: Any) -> None:
        obj["timestamp"] = value

    def set_content(self, obj: dict[str, Any], value: Any) -> None:
        obj["message"]["content"] = value

    def set_type(self, obj: dict[str, Any], value: Any) -> None:
        obj["type"] = value

    def set_message(self, obj: dict[str, Any], value: Any) -> None:
        obj["message"] = value

    def set_role(self, obj: dict[str, Any], value: Any) -> None:
        obj["message"]["role"] = value

    def set_id(self, obj: dict[str, Any], value: Any) -> None:
        raise NotImplementedError

    def relink(self, obj: dict[str, Any], parent: Any) -> None:
        """Make `obj` link to `parent` (formats with branches)."""

    def data(self, newline: bytes = b"\n") -> bytes:
        return newline.join(self.lines) + newline


class _ClaudeCode(_Session):
    """Claude Code 2.1.38 lines (see fixtures claude-code/short.jsonl, tool_heavy.jsonl)."""

    def __init__(self, case: Case, cwd: str) -> None:
        super().__init__(case, cwd)
        self.session_id = _uid(case.code, "session")

    def _base(self, kind: str) -> dict[str, Any]:
        return {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": "2.1.38",
            "gitBranch": "main",
            "type": kind,
        }

    def header(self) -> None:
        message_id = _uid(self.case.code, "first-user")
        snapshot = {"messageId": message_id, "trackedFileBackups": {}, "timestamp": _iso(self.clock)}
        self.add(
            {"type": "file-history-snapshot", "messageId": message_id, "snapshot": snapshot, "isSnapshotUpdate": False}
        )

    def _emit(self, obj: dict[str, Any]) -> dict[str, Any]:
        self.parent = obj["uuid"]
        return obj

    def user(self, text: str) -> dict[str, Any]:
        obj = self._base("user")
        obj |= {
            "message": {"role": "user", "content": text},
            "uuid": self.next_id(),
            "timestamp": self.tick(),
            "permissionMode": "default",
        }
        return self._emit(obj)

    def assistant(self, text: str, tool: tuple[str, dict[str, Any]] | None = None) -> dict[str, Any]:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        if tool is not None:
            content.append(
                {
                    "type": "tool_use",
                    "id": f"toolu_{self.next_id()[:18]}",
                    "name": tool[0],
                    "input": tool[1],
                    "caller": {"type": "direct"},
                }
            )
        obj = self._base("assistant")
        message = {
            "model": "claude-opus-4-6",
            "id": f"msg_{self.next_id()[:22]}",
            "type": "message",
            "role": "assistant",
            "content": content,
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 41, "service_tier": "standard"},
        }
        obj |= {
            "message": message,
            "requestId": f"req_{self.next_id()[:24]}",
            "uuid": self.next_id(),
            "timestamp": self.tick(),
        }
        return self._emit(obj)

    def tool_result(self, output: str) -> dict[str, Any]:
        obj = self._base("user")
        block = {
            "tool_use_id": "toolu_018GZVh9ymkrdx1TnR8reg5Y",
            "type": "tool_result",
            "content": output,
            "is_error": False,
        }
        obj |= {
            "message": {"role": "user", "content": [block]},
            "uuid": self.next_id(),
            "timestamp": self.tick(),
            "toolUseResult": {"stdout": output[:200], "stderr": "", "interrupted": False},
        }
        return self._emit(obj)

    def set_id(self, obj: dict[str, Any], value: Any) -> None:
        obj["uuid"] = value
        self.parent = value

    def relink(self, obj: dict[str, Any], parent: Any) -> None:
        obj["parentUuid"] = parent


class _Codex(_Session):
    """Codex CLI rollout lines (see fixtures codex/2026/05/11/rollout-….jsonl, 0.125)."""

    def __init__(self, case: Case, cwd: str) -> None:
        super().__init__(case, cwd)
        self.session_id: Any = _uid(case.code, "session")
        self.meta: dict[str, Any] = {}

    def header(self) -> None:
        self.meta = {
            "id": self.session_id,
            "timestamp": _iso(self.clock),
            "cwd": self.cwd,
            "originator": "codex-tui",
            "cli_version": "0.125.0",
            "source": "cli",
            "model_provider": "openai",
            "base_instructions": {"text": "You are Codex, a coding agent."},
        }
        self.add({"timestamp": self.tick(1), "type": "session_meta", "payload": self.meta})
        self.add(
            {
                "timestamp": self.tick(1),
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "developer",
                    "content": [{"type": "input_text", "text": "<permissions instructions>..."}],
                },
            }
        )
        self.add(
            {
                "timestamp": self.tick(1),
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "user",
                    "content": [
                        {
                            "type": "input_text",
                            "text": "<environment_context>\n  <cwd>"
                            + str(self.cwd if isinstance(self.cwd, str) else "")
                            + "</cwd>\n</environment_context>",
                        }
                    ],
                },
            }
        )

    def event(self, kind: str, text: str) -> dict[str, Any]:
        payload: dict[str, Any] = {"type": kind, "message": text}
        if kind == "user_message":
            payload |= {"images": [], "local_images": [], "text_elements": []}
        return {"timestamp": self.tick(0), "type": "event_msg", "payload": payload}

    def user(self, text: str) -> dict[str, Any]:
        return {
            "timestamp": self.tick(),
            "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
        }

    def assistant(self, text: str, tool: tuple[str, dict[str, Any]] | None = None) -> dict[str, Any]:
        return {
            "timestamp": self.tick(),
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text}],
                "phase": "final_answer",
            },
        }

    def function_call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {
            "timestamp": self.tick(1),
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": name,
                "arguments": json.dumps(arguments),
                "call_id": f"call_{self.next_id()[:24]}",
            },
        }

    def tool_result(self, output: str) -> dict[str, Any]:
        return {
            "timestamp": self.tick(1),
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "call_Y2p6KmqwoTtpi6atpDPuxC5M", "output": output},
        }

    def set_content(self, obj: dict[str, Any], value: Any) -> None:
        obj["payload"]["content"] = value

    def set_type(self, obj: dict[str, Any], value: Any) -> None:
        obj["payload"]["type"] = value  # the case: `type` as a dict inside one response_item

    def set_message(self, obj: dict[str, Any], value: Any) -> None:
        obj["payload"] = value

    def set_role(self, obj: dict[str, Any], value: Any) -> None:
        obj["payload"]["role"] = value


class _OpenClaw(_Session):
    """OpenClaw session JSONL v3 (see fixtures openclaw/f967d602-….jsonl)."""

    def __init__(self, case: Case, cwd: str) -> None:
        super().__init__(case, cwd)
        self.session_id = _uid(case.code, "session")

    def next_id(self) -> str:
        return super().next_id()[:8]

    def header(self) -> None:
        self.add({"type": "session", "version": 3, "id": self.session_id, "timestamp": self.tick(0), "cwd": self.cwd})
        first = {
            "type": "model_change",
            "id": self.next_id(),
            "parentId": None,
            "timestamp": self.tick(0),
            "provider": "litellm",
            "modelId": "anthropic/claude-sonnet-4-5",
        }
        self.parent = first["id"]
        self.add(first)

    def _message(self, message: dict[str, Any]) -> dict[str, Any]:
        stamp = self.tick()
        message["timestamp"] = int(self.clock.timestamp() * 1000)
        obj = {"type": "message", "id": self.next_id(), "parentId": self.parent, "timestamp": stamp, "message": message}
        self.parent = obj["id"]
        return obj

    def user(self, text: str) -> dict[str, Any]:
        return self._message({"role": "user", "content": [{"type": "text", "text": text}]})

    def assistant(self, text: str, tool: tuple[str, dict[str, Any]] | None = None) -> dict[str, Any]:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        if tool is not None:
            content.append(
                {"type": "toolCall", "id": f"toolu_vrtx_{self.next_id()}", "name": tool[0], "arguments": tool[1]}
            )
        return self._message(
            {
                "role": "assistant",
                "content": content,
                "api": "openai-completions",
                "provider": "litellm",
                "model": "anthropic/claude-sonnet-4-5",
                "stopReason": "toolUse" if tool else "stop",
            }
        )

    def tool_result(self, output: str) -> dict[str, Any]:
        return self._message(
            {
                "role": "toolResult",
                "toolCallId": "toolu_vrtx_012Zmcgvp1RNMwUJQPzZ5Scw",
                "toolName": "read",
                "content": [{"type": "text", "text": output}],
                "isError": False,
            }
        )

    def set_timestamp(self, obj: dict[str, Any], value: Any) -> None:
        obj["timestamp"] = value
        if isinstance(obj.get("message"), dict):
            obj["message"]["timestamp"] = value

    def set_id(self, obj: dict[str, Any], value: Any) -> None:
        obj["id"] = value
        self.parent = value

    def relink(self, obj: dict[str, Any], parent: Any) -> None:
        obj["parentId"] = parent


_SESSIONS: dict[str, type[_Session]] = {"claude-code": _ClaudeCode, "codex": _Codex, "openclaw": _OpenClaw}


# -- the writer ---------------------------------------------------------------------------------------------------


class _Writer:
    def __init__(self, root: Path) -> None:
        root = root.resolve()
        self.corpus = Corpus(
            root=root,
            workspace=root / "workspace",
            transcripts=root / "transcripts",
            outside=root / "outside",
            home=root / "home",
        )
        for folder in (
            self.corpus.workspace / "memory",
            self.corpus.transcripts,
            self.corpus.outside,
            self.corpus.home,
            self.corpus.workspace / ".specstory" / "history",
        ):
            folder.mkdir(parents=True, exist_ok=True)
        self.counters: dict[str, int] = {}
        self.rng = random.Random(9)
        self.after: list[Callable[[], None]] = []  # chmod last, once every file is written

    def case(self, fmt: str, slug: str, title: str, rule: str = "") -> Case:
        n = self.counters.get(fmt, 0) + 1
        self.counters[fmt] = n
        case = Case(code=f"{_CODES[fmt]}{n:02d}", format=fmt, slug=slug, title=title, rule=rule)
        self.corpus.cases.append(case)
        return case

    def write(self, case: Case, path: Path, data: bytes) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        case.files.append(path)
        return path

    def jsonl_path(self, case: Case, session: _Session) -> Path:
        base = self.corpus.transcripts / case.format
        if case.format == "codex":
            when = session.clock
            name = f"rollout-{when:%Y-%m-%dT%H-%M-%S}-{_uid(case.code, 'session')}.jsonl"
            return base / f"{when:%Y}" / f"{when:%m}" / f"{when:%d}" / name
        return base / f"{_uid(case.code, 'session')}.jsonl"

    # -- JSONL cases --------------------------------------------------------------------------------------------

    def _good(self, session: _Session, case: Case, n: int, role: str, tool: bool = False) -> dict[str, Any]:
        marker = case.marker(n)
        case.expected.append(marker)
        texts = _USER_TEXTS if role == "user" else _ASSISTANT_TEXTS
        text = texts[(n + int(case.code[2:])) % len(texts)].format(m=marker)
        if role == "user":
            return session.user(text)
        call = ("Bash", {"command": "pytest -q tests/test_export.py", "description": "Run the export tests"})
        return session.assistant(text, call if tool else None)

    def jsonl_case(
        self,
        fmt: str,
        slug: str,
        title: str,
        bad: Callable[[_Session, Case], None],
        rule: str = "",
        newline: bytes = b"\n",
        prefix: bytes = b"",
        tail: bytes | None = None,
    ) -> Case:
        """good user, good assistant + tool call, tool result, BAD, good user, good assistant."""
        case = self.case(fmt, slug, title, rule)
        session = _SESSIONS[fmt](case, str(self.corpus.workspace))
        self.jsonl_body(session, case, bad)
        data = prefix + session.data(newline)
        if tail is not None:
            data += tail
        self.write(case, self.jsonl_path(case, session), data)
        return case

    def jsonl_body(self, session: _Session, case: Case, bad: Callable[[_Session, Case], None]) -> None:
        session.header()
        session.add(self._good(session, case, 1, "user"))
        if isinstance(session, _Codex):
            session.add(self._good(session, case, 2, "assistant"))
            session.add(session.function_call("exec_command", {"cmd": "pytest -q tests/test_export.py"}))
        else:
            session.add(self._good(session, case, 2, "assistant", tool=True))
        session.add(session.tool_result("3 passed in 0.41s"))
        bad(session, case)
        session.add(self._good(session, case, 4, "user"))
        session.add(self._good(session, case, 5, "assistant"))

    def all_jsonl(
        self, slug: str, title: str, bad: Callable[[_Session, Case], None], rule: str = "", **kw: Any
    ) -> None:
        for fmt in ("claude-code", "codex", "openclaw"):
            self.jsonl_case(fmt, slug, title, bad, rule, **kw)

    def write_jsonl_cases(self) -> None:
        self.all_jsonl("baseline", "a clean session (format baseline)", _bad_message(lambda s, o: None))
        for slug, title, value in TIMESTAMP_CASES:
            self.all_jsonl(slug, title, _bad_message(_set_timestamp(value)), TIMESTAMP_RULE)
        self.all_jsonl(
            "surrogate-text",
            'a lone surrogate "\\ud800" in the message text (JSON.stringify of a string cut mid-emoji)',
            _bad_surrogate_text,
            "the text around a lone surrogate is kept (the surrogate becomes U+FFFD or is dropped)",
        )
        self.jsonl_case(
            "claude-code",
            "surrogate-id",
            'a lone surrogate "\\ud800" in `uuid`',
            _bad_surrogate_id,
            "a line with an unusable id may be skipped, but the chain through it must not drop the messages before it",
        )
        self.jsonl_case(
            "openclaw", "surrogate-id", 'a lone surrogate "\\ud800" in `id`', _bad_surrogate_id, "as for claude-code"
        )
        self.codex_surrogate_session_id()
        for fmt in ("claude-code", "codex", "openclaw"):
            self.surrogate_cwd(fmt)
        self.all_jsonl(
            "content-number", "`content` is a number", _bad_message(lambda s, o: s.set_content(o, 42), marker=False)
        )
        self.all_jsonl(
            "content-null", "`content` is null", _bad_message(lambda s, o: s.set_content(o, None), marker=False)
        )
        self.all_jsonl("content-nested-list", "`content` is a list nested in a list", _bad_nested_content)
        self.all_jsonl(
            "type-dict",
            "`type` is a dict",
            _bad_message(lambda s, o: s.set_type(o, {"name": "message"}), optional=True),
        )
        self.all_jsonl("message-list", "`message` (Codex: `payload`) is a list", _bad_message_list)
        self.all_jsonl("role-number", "`role` is a number", _bad_message(lambda s, o: s.set_role(o, 1), optional=True))
        self.all_jsonl(
            "deep-nesting",
            f"JSON nested {DEEP_LEVELS:,} levels deep (a tool input)",
            _bad_deep,
            "a line the JSON reader cannot take (RecursionError) is a bad line",
        )
        self.all_jsonl("truncated-line", "a line cut mid-JSON, followed by more lines", _bad_truncated)
        self.all_jsonl("binary-garbage", "a line of binary garbage", self._bad_garbage)
        self.all_jsonl("huge-line", "a 5 MB single line (a tool result)", _bad_huge)
        self.all_jsonl("crlf", "CRLF line endings", _bad_message(lambda s, o: None), newline=b"\r\n")
        self.all_jsonl(
            "utf8-bom",
            "the file starts with a UTF-8 BOM",
            _bad_message(lambda s, o: None),
            "a leading BOM is not part of the first line",
            prefix=b"\xef\xbb\xbf",
        )
        for slug, title, raw, replaced in ODD_BYTES_CASES:
            for fmt in ("claude-code", "codex", "openclaw"):
                case = self.jsonl_case(fmt, slug, title, _bad_odd_bytes, ODD_BYTES_RULE)
                self._splice(case, b"@X@", raw)
                case.replaced = replaced
        for fmt in ("claude-code", "codex", "openclaw"):
            case = self.jsonl_case(
                fmt,
                "no-final-newline",
                "the last line is complete but has no newline",
                _bad_message(lambda s, o: None),
                QUIET_RULE,
            )
            self._end_without_newline(case)
        self.all_jsonl(
            "truncated-tail",
            "the last line is cut mid-write (no newline)",
            _bad_message(lambda s, o: None),
            "a partial last line waits; the lines before it are indexed",
            tail=b'{"type":"us',
        )
        for fmt in ("claude-code", "openclaw"):
            self.jsonl_case(
                fmt,
                "dangling-parent",
                "a parent link to a line that is not in the file",
                _bad_dangling,
                "a message whose parent is missing starts a run of its own; the "
                "messages before it stay indexed (no silent loss)",
            )
        for fmt in ("claude-code", "codex", "openclaw"):
            self.empty_file(fmt, "blank-file", "an empty file", b"")
            self.empty_file(fmt, "bom-only", "a file holding only a UTF-8 BOM", b"\xef\xbb\xbf")
        self.garbage_file()
        self.codex_events()
        self.transcript_symlinks()

    def _bad_garbage(self, session: _Session, case: Case) -> None:
        session.user("x")  # the line the garbage replaced (never written): the next line still links to its id
        noise = bytes(self.rng.randrange(256) for _ in range(600)).replace(b"\n", b"\x00")
        session.add_raw(noise)
        case.bad_lines += 1

    def surrogate_cwd(self, fmt: str) -> None:
        case = self.case(
            fmt,
            "surrogate-cwd",
            'a lone surrogate "\\ud800" in `cwd`',
            "a session with an unusable cwd is still indexed",
        )
        session = _SESSIONS[fmt](case, str(self.corpus.workspace))
        session.cwd = surrogate_string(str(self.corpus.workspace / "caf@S@"))
        self.jsonl_body(session, case, _bad_message(lambda s, o: None))
        self.write(case, self.jsonl_path(case, session), session.data())

    def codex_surrogate_session_id(self) -> None:
        case = self.case(
            "codex",
            "surrogate-id",
            'a lone surrogate "\\ud800" in `session_meta.payload.id`',
            "the session is indexed (under a sanitised id or the file name's)",
        )
        session = _Codex(case, str(self.corpus.workspace))
        session.session_id = surrogate_string("019c8a70-dda7-7f33-98ea-@S@")
        self.jsonl_body(session, case, _bad_message(lambda s, o: None))
        self.write(case, self.jsonl_path(case, session), session.data())

    def empty_file(self, fmt: str, slug: str, title: str, data: bytes) -> None:
        case = self.case(fmt, slug, title)
        session = _SESSIONS[fmt](case, str(self.corpus.workspace))
        self.write(case, self.jsonl_path(case, session), data)

    def garbage_file(self) -> None:
        case = self.case("claude-code", "binary-file", "a .jsonl file of binary garbage (no line is JSON)")
        noise = bytes(self.rng.randrange(256) for _ in range(64 * 1024))
        self.write(case, self.corpus.transcripts / "claude-code" / f"{_uid(case.code)}.jsonl", noise)

    def codex_events(self) -> None:
        case = self.case(
            "codex",
            "event-msg-users",
            "user turns only as event_msg/user_message (response_item carries the assistant side)",
            "event_msg user/agent messages count when no response_item message carries them",
        )
        session = _Codex(case, str(self.corpus.workspace))
        session.header()
        for n in (1, 3):
            marker_user, marker_agent = case.marker(n), case.marker(n + 1)
            case.expected += [marker_user, marker_agent]
            session.add(
                {
                    "timestamp": session.tick(),
                    "type": "event_msg",
                    "payload": {"type": "task_started", "turn_id": _uid(case.code, n)},
                }
            )
            session.add(session.event("user_message", _USER_TEXTS[n].format(m=marker_user)))
            session.add(session.function_call("exec_command", {"cmd": "rg -n cursor src/export"}))
            session.add(session.tool_result("src/export/query.py:41: cursor_col = 'updated_at'"))
            text = _ASSISTANT_TEXTS[n].format(m=marker_agent)
            session.add(session.event("agent_message", text))
            session.add(session.assistant(text))
        case.unique += list(case.expected)
        self.write(case, self.jsonl_path(case, session), session.data())

        case = self.case(
            "codex",
            "event-msg-duplicates",
            "user and agent turns both as event_msg and as response_item (the usual case)",
            "each message is indexed once",
        )
        session = _Codex(case, str(self.corpus.workspace))
        session.header()
        for n in (1, 3):
            user_text = _USER_TEXTS[n].format(m=case.marker(n))
            agent_text = _ASSISTANT_TEXTS[n].format(m=case.marker(n + 1))
            case.expected += [case.marker(n), case.marker(n + 1)]
            session.add(session.user(user_text))
            session.add(session.event("user_message", user_text))
            session.add(session.event("agent_message", agent_text))
            session.add(session.assistant(agent_text))
        case.unique += list(case.expected)
        self.write(case, self.jsonl_path(case, session), session.data())

    def transcript_symlinks(self) -> None:
        case = self.case(
            "claude-code",
            "symlink-out",
            "a transcript that is a symlink to a file outside the transcript folder",
            "symlinks never lead out of a configured folder",
        )
        secret = _ClaudeCode(case, "/srv/other-project")
        secret.header()
        for n in (1, 2):
            marker = f"fm{case.code}n{n}"
            case.forbidden.append(marker)
            secret.add(secret.user(f"private notes of another project {marker}"))
        target = self.corpus.outside / "other-session.jsonl"
        target.write_bytes(secret.data())
        link = self.corpus.transcripts / "claude-code" / f"{_uid(case.code)}.jsonl"
        link.symlink_to(target)
        case.files.append(link)
        folder = self.corpus.outside / "sessions"
        folder.mkdir()
        (folder / "linked.jsonl").write_bytes(secret.data().replace(b"fm", b"fx"))
        case.forbidden += [f"fx{case.code}n1", f"fx{case.code}n2"]
        dir_link = self.corpus.transcripts / "openclaw" / "linked-folder"
        dir_link.parent.mkdir(parents=True, exist_ok=True)
        dir_link.symlink_to(folder, target_is_directory=True)
        case.files.append(dir_link)
        loop = self.corpus.transcripts / "codex" / "loop"
        loop.parent.mkdir(parents=True, exist_ok=True)
        loop.symlink_to(self.corpus.transcripts, target_is_directory=True)
        case.files.append(loop)

    # -- SpecStory --------------------------------------------------------------------------------------------------

    def specstory_text(self, case: Case, blocks: list[tuple[str, str]], header: str | None = None) -> str:
        """A SpecStory v2.1.0 export: `blocks` are (header label, text with {m} for the next marker)."""
        session = _uid(case.code, "session")
        lines = [
            "<!-- Generated by SpecStory, Markdown v2.1.0 -->",
            "",
            "# 2026-03-02 09:00:00Z",
            "",
            f"<!-- Claude Code Session {session} (2026-03-02 09:00:00Z) -->",
            "",
        ]
        for n, (label, text) in enumerate(blocks, start=1):
            marker = case.marker(n)
            if "{m}" in text:
                case.expected.append(marker)
            lines += [f"_**{label}**_", "", text.format(m=marker), "", "---", ""]
        return "\n".join(lines)

    def specstory_case(
        self, slug: str, title: str, blocks: list[tuple[str, str]] | None = None, rule: str = "", encoding: str = ""
    ) -> Case:
        case = self.case("specstory", slug, title, rule)
        blocks = blocks or _default_blocks()
        text = self.specstory_text(case, blocks)
        data = _encode(text, encoding)
        path = (
            self.corpus.workspace / ".specstory" / "history" / f"2026-03-02_09-00-{int(case.code[2:]):02d}Z-{slug}.md"
        )
        self.write(case, path, data)
        return case

    def write_specstory_cases(self) -> None:
        self.specstory_case("baseline", "a clean export (format baseline)")
        blocks = _default_blocks()
        blocks.insert(
            2,
            (
                "Agent - sidechain (claude-haiku-4-5 2026-03-02 09:00:30Z)",
                '<tool-use data-tool-type="read" data-tool-name="Read"><details>\n<summary>Tool use: '
                "**Read**</summary>\nRead file: `./src/export/query.py`\n</details></tool-use>\n\n"
                "Subagent report: the cursor column is read in query.py:41 and cached in state.json {m}",
            ),
        )
        case = self.specstory_case(
            "sidechain",
            "an `_**Agent - sidechain (…)**_` block (a subagent's turn)",
            blocks,
            "a sidechain block is a message of its own (a subagent message), never folded "
            "into the agent message before it",
        )
        case.separate.append((case.marker(2), case.marker(3)))
        self.specstory_case("crlf", "CRLF line endings", encoding="crlf")
        self.specstory_case("utf8-bom", "UTF-8 with a BOM", encoding="utf-8-sig")
        self.specstory_case(
            "utf16", "UTF-16 (little endian, with BOM)", rule="markdown with a BOM is decoded by it", encoding="utf-16"
        )
        blocks = _default_blocks()
        blocks[2] = (blocks[2][0], "Here is the log \x00\x00\x00 with NUL bytes in it; the fix is in place {m}")
        self.specstory_case("nul-bytes", "NUL bytes inside an agent block", blocks)
        case = self.specstory_case(
            "invalid-utf8", "a line of invalid UTF-8 (binary garbage) inside a block", _default_blocks(garbage="@G@")
        )
        self._splice(case, b"@G@", bytes(self.rng.randrange(128, 256) for _ in range(300)))
        case = self.specstory_case(
            "surrogate-bytes",
            "a UTF-8-encoded lone surrogate (bytes ED A0 80) in a block",
            _default_blocks(garbage="@G@"),
        )
        self._splice(case, b"@G@", b"deploy finished \xed\xa0\x80 and then")
        case = self.specstory_case("no-final-newline", "the last block's last line has no newline", rule=QUIET_RULE)
        self._end_without_newline(case)
        blocks = _default_blocks()
        blocks[2] = (blocks[2][0], "Deploy of {m} finished @X@ and the smoke tests are green")
        case = self.specstory_case("ff-nul-in-text", "0xFF and NUL bytes inside a user block", blocks, ODD_BYTES_RULE)
        self._splice(case, b"@X@", b"\xff\x00")
        case.replaced = 2
        blocks = _default_blocks()
        blocks[2] = ("User (9999-12-31 23:59:59Z)", blocks[2][1])
        self.specstory_case("ts-year-9999", "a block header dated 9999-12-31 23:59:59Z", blocks, TIMESTAMP_RULE)
        blocks = _default_blocks()
        blocks[2] = ("User (0001-01-01 00:00:00Z)", blocks[2][1])
        self.specstory_case("ts-year-0001", "a block header dated 0001-01-01 00:00:00Z", blocks, TIMESTAMP_RULE)
        for slug, title, data in (
            ("blank-file", "an empty file", b""),
            ("bom-only", "only a UTF-8 BOM", b"\xef\xbb\xbf"),
        ):
            case = self.case("specstory", slug, title)
            self.write(case, self.corpus.workspace / ".specstory" / "history" / f"2026-03-02_10-00-00Z-{slug}.md", data)

    def _end_without_newline(self, case: Case) -> None:
        """Drop the file's final newline (and a SpecStory block separator) and date it an hour back: quiet."""
        path = case.files[-1]
        path.write_bytes(re.sub(rb"(\s*---)?\s*$", b"", path.read_bytes()))
        past = time.time() - 3600
        self.after.append(lambda: os.utime(path, (past, past)))

    def _splice(self, case: Case, placeholder: bytes, replacement: bytes) -> None:
        path = case.files[-1]
        path.write_bytes(path.read_bytes().replace(placeholder, replacement))

    # -- memory notes -----------------------------------------------------------------------------------------------

    def note_text(self, case: Case, count: int = 3, middle: str = "") -> str:
        sections = []
        topics = ("Export pipeline", "Retry policy", "Connection pool", "Release checklist")
        for n in range(1, count + 1):
            marker = case.marker(n)
            case.expected.append(marker)
            body = _ASSISTANT_TEXTS[n % len(_ASSISTANT_TEXTS)].format(m=marker)
            sections.append(f"## {topics[n % len(topics)]}\n\n- {body}\n- Decided on 2026-03-0{n}; owner: platform.\n")
            if n == 1 and middle:
                sections.append(middle)
        return f"# Notes: {case.slug}\n\n" + "\n".join(sections)

    def note_case(self, slug: str, title: str, rule: str = "", encoding: str = "", middle: str = "") -> Case:
        case = self.case("memory", slug, title, rule)
        data = _encode(self.note_text(case, middle=middle), encoding)
        self.write(case, self.corpus.workspace / "memory" / f"{case.code}-{slug}.md", data)
        return case

    def write_memory_cases(self) -> None:
        case = self.case("memory", "baseline", "MEMORY.md, clean (format baseline)")
        self.write(case, self.corpus.workspace / "MEMORY.md", self.note_text(case).encode())
        self.note_case(
            "utf16", "a UTF-16 note (little endian, with BOM)", "a note with a BOM is decoded by it", encoding="utf-16"
        )
        self.note_case("utf16-be", "a UTF-16 note (big endian, with BOM)", "as utf16", encoding="utf-16-be-bom")
        self.note_case("utf8-bom", "a UTF-8 note with a BOM", encoding="utf-8-sig")
        self.note_case("crlf", "CRLF line endings", encoding="crlf")
        self.note_case("nul-bytes", "NUL bytes in the middle of a note", middle="binary paste: \x00\x00\x00\x00 end\n")
        case = self.note_case("invalid-utf8", "invalid UTF-8 bytes in the middle of a note", middle="@G@\n")
        self._splice(case, b"@G@", bytes(self.rng.randrange(128, 256) for _ in range(300)))
        case = self.note_case("surrogate-bytes", "a UTF-8-encoded lone surrogate (ED A0 80)", middle="@G@\n")
        self._splice(case, b"@G@", b"emoji cut here: \xed\xa0\x80 done")
        case = self.note_case(
            "huge-list",
            "a note of 10,000 nested list items (0.5 MB)",
            middle="".join("  " * min(i, 20) + f"- level {i}\n" for i in range(10_000)),
        )
        for slug, title, data in (
            ("blank-file", "an empty note", b""),
            ("bom-only", "only a UTF-8 BOM", b"\xef\xbb\xbf"),
        ):
            case = self.case("memory", slug, title)
            self.write(case, self.corpus.workspace / "memory" / f"{case.code}-{slug}.md", data)
        self.unreadable_cases()
        self.symlink_cases()

    def unreadable_cases(self) -> None:
        case = self.case(
            "memory",
            "unreadable-file",
            "a note with mode 000 (unreadable unless root)",
            "an unreadable file is skipped and reported; its neighbours are indexed",
        )
        locked = self.corpus.workspace / "memory" / f"{case.code}-locked.md"
        self.write(case, locked, f"# Locked\n\nsecret rotation schedule um{case.code}n1\n".encode())
        case.unreadable.append(f"um{case.code}n1")
        self.write(case, self.corpus.workspace / "memory" / f"{case.code}-beside.md", self.note_text(case, 1).encode())
        self.after.append(lambda: locked.chmod(0))

        case = self.case("memory", "unreadable-folder", "a memory folder with mode 000", "as unreadable-file")
        folder = self.corpus.workspace / "memory" / "private"
        self.write(case, folder / "note.md", f"# Private\n\nthe staging password rotates um{case.code}n1\n".encode())
        case.unreadable.append(f"um{case.code}n1")
        self.write(case, self.corpus.workspace / "memory" / f"{case.code}-beside.md", self.note_text(case, 1).encode())
        self.after.append(lambda: folder.chmod(0))

    def symlink_cases(self) -> None:
        memory = self.corpus.workspace / "memory"
        case = self.case(
            "memory",
            "symlink-out",
            "memory/*.md symlinks to a file outside the workspace",
            "symlinks never lead out of the workspace",
        )
        secret = self.corpus.outside / "secret.md"
        secret.write_text(f"# Outside\n\nroot:x:0:0:root:/root:/bin/bash fm{case.code}n1\n")
        case.forbidden.append(f"fm{case.code}n1")
        link = memory / f"{case.code}-leak.md"
        link.symlink_to(secret)
        case.files.append(link)
        self.write(case, memory / f"{case.code}-beside.md", self.note_text(case, 1).encode())

        case = self.case(
            "memory", "symlink-dir-out", "memory/<dir> symlinks to a folder outside the workspace", "as symlink-out"
        )
        shared = self.corpus.outside / "notes"
        shared.mkdir()
        (shared / "team.md").write_text(f"# Team\n\nthe other team's roadmap fm{case.code}n1\n")
        case.forbidden.append(f"fm{case.code}n1")
        dir_link = memory / "shared"
        dir_link.symlink_to(shared, target_is_directory=True)
        case.files.append(dir_link)

        case = self.case(
            "memory",
            "symlink-loop",
            "symlink loops: memory/loop -> memory, a.md <-> b.md",
            "a loop is skipped; the note beside it is indexed once",
        )
        (memory / "loop").symlink_to(memory, target_is_directory=True)
        (memory / f"{case.code}-a.md").symlink_to(memory / f"{case.code}-b.md")
        (memory / f"{case.code}-b.md").symlink_to(memory / f"{case.code}-a.md")
        case.files += [memory / "loop", memory / f"{case.code}-a.md", memory / f"{case.code}-b.md"]
        self.write(case, memory / f"{case.code}-beside.md", self.note_text(case, 1).encode())
        case.unique.append(case.marker(1))


# -- bad-line builders (module level: they only use the session) ----------------------------------------------------


def _bad_message(
    mutate: Callable[[_Session, dict[str, Any]], None], marker: bool = True, optional: bool = False
) -> Callable[[_Session, Case], None]:
    """A user message (marker n3) changed by `mutate`: expected when `marker`, optional when `optional`."""

    def bad(session: _Session, case: Case) -> None:
        if optional:
            name = f"om{case.code}n3"
            case.optional.append(name)
        elif marker:
            name = case.marker(3)
            case.expected.append(name)
        else:
            name = ""
        obj = session.user(_USER_TEXTS[3].format(m=name) if name else "placeholder")
        mutate(session, obj)
        session.add(obj)

    return bad


def _set_timestamp(value: Any) -> Callable[[_Session, dict[str, Any]], None]:
    return lambda session, obj: session.set_timestamp(obj, value)


def _bad_surrogate_text(session: _Session, case: Case) -> None:
    marker = case.marker(3)
    case.expected.append(marker)
    obj = session.user("x")
    text = surrogate_string(f"Deploy of {marker} finished @S@ and the smoke tests are green")
    if isinstance(session, _ClaudeCode):
        obj["message"]["content"] = text
    elif isinstance(session, _Codex):
        obj["payload"]["content"] = [{"type": "input_text", "text": text}]
    else:
        obj["message"]["content"] = [{"type": "text", "text": text}]
    session.add(obj)


def _bad_odd_bytes(session: _Session, case: Case) -> None:
    """A user message (marker n3) whose text holds `@X@`, replaced by raw bytes once the file is written."""
    marker = case.marker(3)
    case.expected.append(marker)
    session.add(session.user(f"Deploy of {marker} finished @X@ and the smoke tests are green"))


def _bad_surrogate_id(session: _Session, case: Case) -> None:
    marker = f"om{case.code}n3"
    case.optional.append(marker)
    obj = session.user(_USER_TEXTS[3].format(m=marker))
    session.set_id(obj, surrogate_string("7d48cbd2-6615-4dd8-87f6-@S@"))
    session.add(obj)


def _bad_nested_content(session: _Session, case: Case) -> None:
    marker = f"om{case.code}n3"
    case.optional.append(marker)
    obj = session.user("x")
    kind = "input_text" if isinstance(session, _Codex) else "text"
    session.set_content(obj, [[{"type": kind, "text": f"nested {marker}"}], [[]]])
    session.add(obj)


def _bad_message_list(session: _Session, case: Case) -> None:
    marker = f"om{case.code}n3"
    case.optional.append(marker)
    obj = session.user("x")
    session.set_message(obj, [{"role": "user", "content": f"in a list {marker}"}])
    session.add(obj)


def _bad_deep(session: _Session, case: Case) -> None:
    marker = f"om{case.code}n3"
    case.optional.append(marker)
    obj = session.assistant(f"Writing the fixture tree {marker}", ("Write", {"content": "x"}))
    if isinstance(session, _ClaudeCode):
        obj["message"]["content"][1]["input"] = {"tree": _deep(DEEP_LEVELS)}
    elif isinstance(session, _OpenClaw):
        obj["message"]["content"][1]["arguments"] = {"tree": _deep(DEEP_LEVELS)}
    else:
        obj = {
            "timestamp": session.tick(1),
            "type": "response_item",
            "payload": {
                "type": "custom_tool_call",
                "name": "apply_patch",
                "input": _deep(DEEP_LEVELS),
                "call_id": "call_deep",
            },
        }
    session.add(obj)
    case.bad_lines += 1


def _bad_truncated(session: _Session, case: Case) -> None:
    marker = f"om{case.code}n3"
    case.optional.append(marker)
    obj = session.user(_USER_TEXTS[2].format(m=marker) + " and also check the retention window of the bucket")
    line = _dumps(obj).encode()
    session.add_raw(line[: int(len(line) * 0.8)])
    case.bad_lines += 1


def _bad_huge(session: _Session, case: Case) -> None:
    chunk = "2026-03-02T09:00:01Z INFO export row written id=184467 table=orders\n"
    session.add(session.tool_result(chunk * (HUGE_LINE_BYTES // len(chunk))))


def _bad_dangling(session: _Session, case: Case) -> None:
    marker = case.marker(3)
    case.expected.append(marker)
    obj = session.user(_USER_TEXTS[3].format(m=marker))
    session.relink(obj, "0b84b221-0000-4000-8000-00000000dead" if isinstance(session, _ClaudeCode) else "0badf00d")
    session.add(obj)


def _default_blocks(garbage: str = "") -> list[tuple[str, str]]:
    middle = f"\n\n{garbage}\n\n" if garbage else " "
    return [
        ("User (2026-03-02 09:00:00Z)", _USER_TEXTS[0]),
        (
            "Agent (claude-opus-4-6 2026-03-02 09:00:05Z)",
            '<tool-use data-tool-type="shell" data-tool-name="Bash"><details>\n'
            "<summary>Tool use: **Bash**</summary>\n\n"
            "```bash\npytest -q tests/test_export.py\n```\n\n```text\n3 passed in 0.41s\n```\n</details></tool-use>\n\n"
            + _ASSISTANT_TEXTS[0],
        ),
        ("User (2026-03-02 09:01:00Z)", "Thanks." + middle + _USER_TEXTS[1]),
        ("Agent (claude-opus-4-6 2026-03-02 09:01:05Z)", _ASSISTANT_TEXTS[1]),
    ]


def _encode(text: str, encoding: str) -> bytes:
    if encoding == "crlf":
        return text.replace("\n", "\r\n").encode()
    if encoding == "utf-16":
        return text.encode("utf-16")  # native order with a BOM (little endian here)
    if encoding == "utf-16-be-bom":
        return b"\xfe\xff" + text.encode("utf-16-be")
    if encoding == "utf-8-sig":
        return text.encode("utf-8-sig")
    return text.encode("utf-8", errors="surrogatepass")


# -- entry points --------------------------------------------------------------------------------------------------


def write_corpus(root: Path) -> Corpus:
    """Write the whole corpus below `root` (created if missing) and return what it promises."""
    writer = _Writer(root)
    writer.write_jsonl_cases()
    writer.write_specstory_cases()
    writer.write_memory_cases()
    write_name_cases(writer)
    for step in writer.after:
        step()
    return writer.corpus


def bad_settings_cases() -> dict[str, str]:
    """`.memlens.json` contents that each change a whole run: name -> file text."""
    return {
        "batch-size-0-min-chars-900": json.dumps(
            {"embedding": {"batchSize": 0}, "chunking": {"markdownMinChars": 900}}
        ),
        "min-over-max": json.dumps({"chunking": {"markdownMinChars": 500, "markdownMaxChars": 200, "maxMessages": 0}}),
        "wrong-types": json.dumps(
            {
                "embedding": {"batchSize": "many", "threads": -3},
                "search": {"minScore": "high"},
                "chunking": [],
                "scope": 7,
            }
        ),
        "not-json": '{"embedding": {"batchSize": 16},',
        "not-an-object": "[1, 2, 3]",
    }


def iter_markers(corpus: Corpus) -> Iterator[tuple[str, str, Case]]:
    """(marker, kind, case) for every marker: kind is expected | optional | forbidden | unreadable."""
    for case in corpus.cases:
        for kind in ("expected", "optional", "forbidden", "unreadable"):
            for marker in getattr(case, kind):
                yield marker, kind, case


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("root", type=Path, help="folder to write the corpus into (created)")
    args = parser.parse_args(argv)
    corpus = write_corpus(args.root)
    for case in corpus.cases:
        print(f"{case.code}  {case.id:<34} {len(case.expected):>2} expected  {case.title}")
    total = sum(len(c.expected) for c in corpus.cases)
    print(f"{len(corpus.cases)} cases, {len(corpus.files())} files, {total} good messages expected")
    print(
        f"index it:  memlens index --workspace {corpus.workspace} --transcripts {corpus.transcripts} "
        f"--index-dir {corpus.root / 'index'} --no-embeddings   (with HOME={corpus.home})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
