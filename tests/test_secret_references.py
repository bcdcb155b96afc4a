"""No piece of a secret through a shortened name: a transcript whose session id is a token (in its file name, its
`sessionId`, a Codex rollout's or an OpenClaw header's `id`, a SpecStory export's session comment) is named by a
reference made from a hash of its key, which shows nothing of the token and still opens in `history` and as a
search's `session`; a session without a secret keeps the prefix of its id that users paste back. A message id that
is a token (a Claude Code line's `uuid`, an OpenClaw entry's `id`; Codex and SpecStory number their messages by
line) is shown as a hash of the id, in a reference's message part and as `messageId` or a history's `anchor`, and
that form opens the message; a clean message id keeps its reference.

The secrets are every planted kind the detectors know without a context (a token's own shape), and the ones in
SpecStory file names; each is also the folder name, the `cwd` and the git branch of its sessions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from lsp.helpers import lsp_fixture
from mcp_server.helpers import call, mcp_client, text_of, wait_until_indexed, wire
from memlens.engine.answers.masked_references import MASKED_PREFIX, masked_message_id, masked_reference
from memlens.engine.engine import Engine
from memlens.engine.filters import SearchFilters
from memlens.errors import MemlensError
from memlens.redaction import redact_title
from memlens.settings import Settings
from memlens.wire import SessionSummary
from planted_secrets import NAMED, PLANTED, Planted, leaked_fragments

CLEAN = "5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9"  # a session without a secret: its reference is its id's start
CLEAN_HOLDING = "c4a1e9f2-7b3d-4e6a-8f0c-2d9b5a7e1c30"  # a clean session whose messages' ids are tokens


def _name_safe(secret: str) -> bool:
    return not set(secret) & set("/\\\n ")


# the tokens a detector knows by their shape alone: the ones a file or a session id can be
TOKENS = [p for p in PLANTED if _name_safe(p.secret) and redact_title(p.secret) != p.secret]
TOKENS += [Planted(n.kind, n.secret, n.file_stem, "heading") for n in NAMED]


def _ts(n: int) -> str:
    return f"2026-03-01T10:{n // 60 % 60:02d}:{n % 60:02d}Z"


def _jsonl(path: Path, lines: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def _claude(folder: Path, n: int, session: str, other: str, text: str, *, message_id: str | None = None) -> None:
    """A Claude Code session and its subagent; the user's line and the subagent's have the id `message_id`."""
    base = {"sessionId": session, "cwd": f"/work/{other}", "gitBranch": f"fix/{other}", "version": "2.1.38"}
    user = {"role": "user", "content": text}
    answer = {"id": f"m{n}", "role": "assistant", "content": [{"type": "text", "text": "wombat noted"}]}
    project = folder / "claude-code" / f"-work-{other}"
    asked = message_id or f"u{n}"
    _jsonl(
        project / f"{session}.jsonl",
        [
            {**base, "type": "user", "uuid": asked, "parentUuid": None, "timestamp": _ts(2 * n), "message": user},
            {**base, "type": "assistant", "uuid": f"a{n}", "parentUuid": asked, "timestamp": _ts(2 * n + 1)}
            | {"message": answer},
        ],
    )
    task = {"role": "user", "content": f"wombat subtask {n}"}
    line: dict[str, Any] = {**base, "type": "user", "uuid": message_id or f"s{n}", "parentUuid": None}
    line |= {"isSidechain": True, "message": task}
    _jsonl(project / session / "subagents" / "agent-a1b2c3.jsonl", [line | {"timestamp": _ts(2 * n)}])


def _codex(folder: Path, n: int, session: str, other: str, text: str) -> None:
    meta = {"id": session, "cwd": f"/work/{other}", "git": {"branch": other}}
    message = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    _jsonl(
        folder / "codex" / "2026" / "03" / "01" / f"rollout-2026-03-01T10-00-00-{session}.jsonl",
        [
            {"timestamp": _ts(0), "type": "session_meta", "payload": meta},
            {"timestamp": _ts(1), "type": "response_item", "payload": message},
        ],
    )


def _openclaw(folder: Path, n: int, session: str, other: str, text: str, *, message_id: str) -> None:
    message = {"role": "user", "content": [{"type": "text", "text": text}]}
    _jsonl(
        folder / "openclaw" / f"agent-{other}" / f"{session}.jsonl",
        [
            {"type": "session", "version": 3, "id": session, "timestamp": _ts(0), "cwd": f"/work/{other}"},
            {"type": "message", "id": message_id, "parentId": None, "timestamp": _ts(1), "message": message},
        ],
    )


def _specstory(workspace: Path, n: int, session: str, text: str) -> None:
    path = workspace / ".specstory" / "history" / f"2026-03-01_10-{n:02d}-00Z-wombat-{session}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "<!-- Generated by SpecStory, Markdown v2.1.0 -->\n\n"
        f"<!-- Claude Code Session {session} (2026-03-01 10:00:00Z) -->\n\n"
        f"_**User (2026-03-01 10:{n % 60:02d}:00Z)**_\n\n{text}\n\n---\n\n"
        f"_**Agent (claude-opus-4-6 2026-03-01 10:{n % 60:02d}:30Z)**_\n\nwombat handled\n\n---\n",
        encoding="utf-8",
    )


def _plant(workspace: Path, transcripts: Path, tokens: list[Planted]) -> None:
    for n, token in enumerate(tokens):
        other = tokens[(n + 1) % len(tokens)].secret  # another kind names its folders, cwd and branch
        message_id = tokens[(n + 2) % len(tokens)].secret  # and a third the ids of messages
        text = f"wombat {n}: {PLANTED[n % len(PLANTED)].text}"
        _claude(transcripts, n, token.secret, other, text, message_id=message_id)
        _codex(transcripts, n, token.secret, other, text)
        _openclaw(transcripts, n, token.secret, other, text, message_id=message_id)
        _specstory(workspace, n, token.secret, text)
    _claude(transcripts, len(tokens), CLEAN, "kiln", "wombat kiln overshoot")
    _claude(transcripts, len(tokens) + 1, CLEAN_HOLDING, "kiln", "wombat kiln undershoot", message_id=tokens[0].secret)


def _leaks(answer: object) -> list[str]:
    return leaked_fragments(json.dumps(answer, ensure_ascii=False), length=6, planted=TOKENS)


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("secret-ids")
    workspace, transcripts = root / "project", root / "transcripts"
    workspace.mkdir()
    _plant(workspace, transcripts, TOKENS)
    for path in [*workspace.rglob("*.md"), *transcripts.rglob("*.jsonl")]:  # one mtime: read in name order, as
        os.utime(path, ns=(1_780_000_000_000_000_000,) * 2)  # the hits below (one a session, ties by id) expect
    return workspace, transcripts


@pytest.fixture(scope="module", params=["redacted-index", "unredacted-index"])
def engine(
    request: pytest.FixtureRequest, planted: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    workspace, transcripts = planted
    settings = Settings()
    settings.transcripts.agent_defaults = False
    settings.privacy.redact_index = request.param == "redacted-index"
    index = tmp_path_factory.mktemp(request.param)
    with Engine([workspace], settings, extra_transcripts=[transcripts], index_dir=index, embedder=False) as opened:
        opened.sync()
        yield opened


def test_a_planted_kind_of_every_shape_is_a_token_a_name_can_hold() -> None:
    assert len(TOKENS) >= 25 and {"github-pat-classic", "openai-key", "aws-access-key-id"} <= {t.kind for t in TOKENS}


def test_the_session_list_names_a_session_with_a_secret_id_by_a_hash(engine: Engine) -> None:
    sessions = engine.sessions(limit=500)["sessions"]
    assert len(sessions) == 5 * (len(TOKENS) + 2) - 6  # four formats and a subagent per token; the clean ones' two
    assert _leaks(sessions) == []
    masked = [s["reference"] for s in sessions if CLEAN not in s["sessionKey"] and CLEAN_HOLDING not in s["sessionKey"]]
    assert all(ref.startswith(MASKED_PREFIX) for ref in masked)
    assert len(set(masked)) == len(masked)  # a subagent's and its parent's differ
    clean = next(s for s in sessions if s["sessionKey"] == f"claude-code:{CLEAN}")
    assert clean["reference"] == CLEAN[:8]  # unchanged: users paste it back


def test_a_masked_reference_opens_its_session_in_history_and_as_a_search_filter(engine: Engine) -> None:
    found = engine.search("wombat", mode="keyword", min_score=0, limit=100)["results"]
    assert len(found) > 2 * len(TOKENS) and _leaks(found) == []
    keys = {key: ref for hit in found if (key := hit.get("sessionKey")) and (ref := hit.get("reference"))}
    for hit in found[:: max(1, len(found) // 12)]:
        ref = hit["reference"]
        clean = CLEAN in (hit["sessionKey"] or "") or CLEAN_HOLDING in (hit["sessionKey"] or "")
        assert ref.startswith(str(hit["sessionId"])[:8] if clean else MASKED_PREFIX) and ":" in ref, ref
        opened = engine.history(ref)
        assert (opened["sessionKey"], opened["anchor"]) == (hit["sessionKey"], hit["messageId"])
        assert _leaks(opened) == []
        session = ref.partition(":")[0]
        within = engine.search("wombat", mode="keyword", min_score=0, filters=SearchFilters(session=session))["results"]
        assert within and {h["sessionKey"] for h in within} == {hit["sessionKey"]}
    assert len(keys) > len(TOKENS)


def test_a_masked_reference_is_the_hash_of_the_whole_key_and_names_no_other_session(engine: Engine) -> None:
    token = next(t for t in TOKENS if t.kind == "github-pat-classic").secret
    key = f"claude-code:{token}"
    assert engine.history(masked_reference(key))["sessionKey"] == redact_title(key)  # masked as it leaves
    with pytest.raises(Exception, match="unknown session"):
        engine.history(masked_reference("claude-code:no-such-session"))


@pytest.mark.parametrize("source", ["claude-code", "openclaw"])  # the formats whose messages have ids of their own
def test_a_message_id_holding_a_secret_is_shown_by_a_hash_that_opens_the_message(engine: Engine, source: str) -> None:
    only = SearchFilters(format=source)
    found = engine.search("wombat", mode="keyword", min_score=0, limit=100, filters=only)["results"]
    assert _leaks(found) == []
    masked = [hit for hit in found if (hit.get("messageId") or "").startswith(MASKED_PREFIX)]
    assert len(masked) >= len(TOKENS)  # a Claude Code user line, an OpenClaw entry per token
    assert {hit["format"] for hit in masked} == {source}
    for hit in masked:
        ref, message = hit["reference"], hit["messageId"]
        assert ref.endswith(f":{message}"), ref
        for opened in (engine.history(ref), engine.history(ref.partition(":")[0], message_id=message)):
            assert (opened["sessionKey"], opened["anchor"]) == (hit["sessionKey"], message)
            assert message in [m["messageId"] for m in opened["messages"]] and _leaks(opened) == []
    if source == "openclaw":
        return
    holding = next(hit for hit in masked if hit["sessionId"] == CLEAN_HOLDING)
    assert holding["reference"] == f"{CLEAN_HOLDING[:8]}:{masked_message_id(TOKENS[0].secret)}"
    clean = [hit for hit in found if hit["sessionId"] == CLEAN]
    assert [(h["reference"], h["messageId"]) for h in clean if h["messageId"] == f"a{len(TOKENS)}"] == [
        (f"{CLEAN[:8]}:a{len(TOKENS)}", f"a{len(TOKENS)}")  # unchanged: users paste it back
    ]
    assert engine.history(f"{CLEAN[:8]}:a{len(TOKENS)}")["anchor"] == f"a{len(TOKENS)}"
    shown = [m["messageId"] for m in engine.history(holding["reference"])["messages"]]
    assert shown == [masked_message_id(TOKENS[0].secret), f"a{len(TOKENS) + 1}"]  # the clean id as written


def _cli(where: list[str], *args: str, columns: int) -> str:
    env = {**os.environ, "COLUMNS": str(columns)}
    done = subprocess.run(
        [sys.executable, "-m", "memlens", *args, *where], capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode in (0, 1), done.stderr
    return done.stdout + done.stderr


@pytest.mark.slow  # CLI processes
def test_the_cli_shows_no_piece_of_a_secret_id_at_any_width(planted: tuple[Path, Path], tmp_path: Path) -> None:
    workspace, transcripts = planted
    where = ["--workspace", str(workspace), "--transcripts", str(transcripts), "--index-dir", str(tmp_path / "i")]
    where += ["--no-embeddings"]
    shown = [_cli(where, "index", columns=80)]
    for columns in (40, 80, 200):
        shown.append(_cli(where, "sessions", "--limit", "500", "--no-sync", columns=columns))
        shown.append(_cli(where, "search", "wombat", "--no-sync", "--limit", "60", columns=columns))
    listed = json.loads(_cli(where, "sessions", "--limit", "500", "--no-sync", "--json", columns=80))["sessions"]
    hits = json.loads(_cli(where, "search", "wombat", "--no-sync", "--limit", "60", "--json", columns=80))["results"]
    shown += [json.dumps(listed), json.dumps(hits)]
    ref = next(h["reference"] for h in hits if h["reference"].startswith(MASKED_PREFIX))
    shown.append(_cli(where, "history", ref, "--no-sync", columns=80))
    assert leaked_fragments("\n".join(shown), length=6, planted=TOKENS) == []
    assert "wombat" in shown[-1]  # the masked reference opened


def _flags(planted: tuple[Path, Path], index: Path) -> list[str]:
    workspace, transcripts = planted
    return ["--workspace", str(workspace), "--transcripts", str(transcripts), "--index-dir", str(index)]


@pytest.mark.slow  # a real MCP server
async def test_the_mcp_tools_show_no_piece_of_a_secret_id(planted: tuple[Path, Path], tmp_path: Path) -> None:
    async with mcp_client([*_flags(planted, tmp_path / "i"), "--no-embeddings"]) as session:
        await wait_until_indexed(session)
        listed = await call(session, "sessions", {"limit": 500})
        found = await call(session, "search", {"query": "wombat", "limit": 60, "mode": "keyword"})
        hits = (found.structured_content or {})["results"]
        ref = next(h["reference"] for h in hits if h["reference"].startswith(MASKED_PREFIX))
        answers = [
            listed,
            found,
            await call(session, "history", {"sessionKey": ref}),
            await call(session, "search", {"query": "wombat", "sessionKey": ref.partition(":")[0]}),
            await call(session, "context", {"question": "wombat"}),
            await call(session, "stats"),
        ]
    assert not any(answer.is_error for answer in answers), [wire(a) for a in answers if a.is_error]
    assert "wombat" in text_of(answers[2])  # the masked reference opened
    assert leaked_fragments("\n".join(map(wire, answers)), length=6, planted=TOKENS) == []


@lsp_fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "memlens", "serve"]))
async def lsp_server(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    yield lsp_client


@pytest.mark.slow  # a real language server
async def test_the_language_server_shows_no_piece_of_a_secret_id(
    planted: tuple[Path, Path], tmp_path: Path, lsp_server: LanguageClient
) -> None:
    workspace, transcripts = planted
    _cli(_flags(planted, tmp_path / "i") + ["--no-embeddings"], "index", columns=80)
    options = {
        "indexDir": str(tmp_path / "i"),
        "transcripts": {"paths": [str(transcripts)], "agentDefaults": False},
        "embedding": {"enabled": False},
        "hover": {"minScore": 0.0},
    }
    await lsp_server.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="project")],
            initialization_options=options,
        )
    )

    async def run(command: str, argument: dict[str, Any]) -> Any:
        params = types.ExecuteCommandParams(command=command, arguments=[argument])
        return await lsp_server.workspace_execute_command_async(params)

    answers = [
        await run("memlens.sessions", {"limit": 500}),
        await run("memlens.search", {"query": "wombat", "mode": "keyword", "limit": 60}),
    ]
    ref = next(h["reference"] for h in answers[1]["results"] if h["reference"].startswith(MASKED_PREFIX))
    answers.append(await run("memlens.history", {"sessionKey": ref}))
    note = workspace / "wombat-notes.md"
    note.write_text("wombat wombat wombat\n", encoding="utf-8")
    item = types.TextDocumentItem(uri=note.as_uri(), language_id="markdown", version=1, text=note.read_text())
    lsp_server.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
    where = types.TextDocumentIdentifier(uri=note.as_uri())
    hover = await lsp_server.text_document_hover_async(
        types.HoverParams(text_document=where, position=types.Position(line=0, character=2))
    )
    shown = hover.contents.value if hover and isinstance(hover.contents, types.MarkupContent) else ""
    await lsp_server.shutdown_session()
    assert answers[2]["messages"] and "wombat" in shown  # the masked reference opened; the hover found the sessions
    assert leaked_fragments(json.dumps(answers) + shown, length=6, planted=TOKENS) == []


def test_a_session_key_shown_masked_opens_its_session_or_names_each_by_its_masked_reference(engine: Engine) -> None:
    """The editor and an agent open a session by the `sessionKey` an answer gave them, its secret masked: it opens
    the one session it can be, else the error names each candidate by the masked reference that opens it."""
    sessions = engine.sessions(limit=500)["sessions"]
    shown: dict[str, list[SessionSummary]] = {}
    for session in sessions:
        shown.setdefault(session["sessionKey"], []).append(session)
    alone = [group[0] for key, group in shown.items() if len(group) == 1 and "[REDACTED:" in key]
    shared = next(group for key, group in shown.items() if len(group) > 1 and "[REDACTED:" in key)
    assert len(alone) > 10
    for session in alone:
        opened = engine.history(session["sessionKey"])
        assert (opened["sessionKey"], opened["path"]) == (session["sessionKey"], session["path"])
    with pytest.raises(MemlensError, match="ambiguous") as raised:
        engine.history(shared[0]["sessionKey"])
    named = {s["reference"] for s in shared}
    assert named <= set(str(raised.value).replace(";", " ").split()) and _leaks(str(raised.value)) == []
