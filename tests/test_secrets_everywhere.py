"""Zero leaks: every planted kind of secret, in every source (user text, assistant text, tool-call inputs,
compaction summaries, SpecStory exports, memory notes and their headings), through every surface (CLI search
human and JSON, CLI history, summaries, context packs, stats, LSP commands and hover).

Run twice: with redaction at index time (the default: the index holds no secret at all) and with it turned off,
so the redaction pass at the engine's door must catch everything alone."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from lsp.helpers import lsp_fixture
from memlens.engine.engine import Engine
from memlens.settings import Settings, merge
from planted_secrets import EVERY_SECRET, NAMED, PLANTED, SPLIT, Planted, leaked, leaked_fragments

CLAUDE_SESSION = "7e1d2c3b-4a5f-4e6d-8c7b-9a0b1c2d3e4f"
CODEX_SESSION = "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001"
OPENCLAW_SESSION = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"
WORDS = re.compile(r"[A-Za-z]{4,}")
NAMED_PROMPT = "rotate the vendor credentials pasted below"
SPLIT_QUERY = "paste long parts rest"


def context_words(planted: Planted) -> str:
    """A keyword query that finds the planted sentence without containing its secret."""
    words = [w for w in WORDS.findall(planted.text.replace(planted.secret, " ")) if w.lower() not in {"with", "that"}]
    return " ".join(words[:4]) or planted.kind


def _ts(n: int) -> str:
    return f"2026-03-01T10:{n // 60:02d}:{n % 60:02d}Z"


def write_claude(folder: Path, items: list[Planted]) -> None:
    lines: list[dict[str, Any]] = []
    parent: str | None = None
    for n, item in enumerate(items):
        user, assistant = f"u{n:04d}-0000-4000-8000-000000000000", f"a{n:04d}-0000-4000-8000-000000000000"
        base = {"sessionId": CLAUDE_SESSION, "cwd": "/work/project", "version": "2.1.38"}
        lines.append(
            {
                **base,
                "type": "user",
                "uuid": user,
                "parentUuid": parent,
                "timestamp": _ts(2 * n),
                "message": {"role": "user", "content": item.text},
            }
        )
        blocks: list[dict[str, Any]] = [{"type": "text", "text": f"Looking at it: {item.text}"}]
        blocks.append(
            {"type": "tool_use", "id": f"toolu_{n}", "name": "Bash", "input": {"command": f"echo '{item.text}'"}}
        )
        lines.append(
            {
                **base,
                "type": "assistant",
                "uuid": assistant,
                "parentUuid": user,
                "timestamp": _ts(2 * n + 1),
                "message": {"id": f"msg_{n}", "role": "assistant", "content": blocks},
            }
        )
        parent = assistant
    for n, pair in enumerate(SPLIT):  # a token cut between a user message and the assistant's answer
        base = {"sessionId": CLAUDE_SESSION, "cwd": "/work/project", "version": "2.1.38"}
        user, assistant = f"v{n:04d}-0000-4000-8000-000000000000", f"b{n:04d}-0000-4000-8000-000000000000"
        lines.append(
            {
                **base,
                "type": "user",
                "uuid": user,
                "parentUuid": parent,
                "timestamp": _ts(900 + 2 * n),
                "message": {"role": "user", "content": pair.first},
            }
        )
        lines.append(
            {
                **base,
                "type": "assistant",
                "uuid": assistant,
                "parentUuid": user,
                "timestamp": _ts(901 + 2 * n),
                "message": {
                    "id": f"msg_split_{n}",
                    "role": "assistant",
                    "content": [{"type": "text", "text": pair.second}],
                },
            }
        )
        parent = assistant
    summary_uuid = "s0000000-0000-4000-8000-000000000000"
    lines.append(
        {
            "sessionId": CLAUDE_SESSION,
            "type": "user",
            "uuid": summary_uuid,
            "parentUuid": parent,
            "isCompactSummary": True,
            "timestamp": _ts(999),
            "message": {"role": "user", "content": "Summary: " + " ".join(p.text for p in items)},
        }
    )
    lines.append({"type": "summary", "summary": "Session about " + items[0].text, "leafUuid": summary_uuid})
    path = folder / "claude-code" / f"{CLAUDE_SESSION}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def write_codex(folder: Path, items: list[Planted]) -> None:
    lines: list[dict[str, Any]] = [
        {"timestamp": _ts(0), "type": "session_meta", "payload": {"id": CODEX_SESSION, "cwd": "/work/project"}}
    ]
    for n, item in enumerate(items):
        lines.append(
            {
                "timestamp": _ts(3 * n),
                "type": "response_item",
                "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": item.text}]},
            }
        )
        lines.append(
            {
                "timestamp": _ts(3 * n + 1),
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": f"Noted. {item.text}"}],
                },
            }
        )
        arguments = json.dumps({"command": ["bash", "-lc", f"printf '%s' '{item.text}'"]})
        lines.append(
            {
                "timestamp": _ts(3 * n + 2),
                "type": "response_item",
                "payload": {"type": "function_call", "name": "shell", "arguments": arguments, "call_id": f"c{n}"},
            }
        )
    for pair in SPLIT:
        for role, text, kind in (("user", pair.first, "input_text"), ("assistant", pair.second, "output_text")):
            lines.append(
                {
                    "timestamp": _ts(900),
                    "type": "response_item",
                    "payload": {"type": "message", "role": role, "content": [{"type": kind, "text": text}]},
                }
            )
    lines.append(
        {
            "timestamp": _ts(999),
            "type": "compacted",
            "payload": {"message": "Earlier: " + " ".join(p.text for p in items)},
        }
    )
    path = folder / "codex" / "2026" / "03" / "01" / f"rollout-2026-03-01T10-00-00-{CODEX_SESSION}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def write_openclaw(folder: Path, items: list[Planted]) -> None:
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": OPENCLAW_SESSION, "timestamp": _ts(0), "cwd": "/work/project"}
    ]
    parent: str | None = None
    for n, item in enumerate(items):
        user, assistant = f"{n:04d}u000", f"{n:04d}a000"
        lines.append(
            {
                "type": "message",
                "id": user,
                "parentId": parent,
                "timestamp": _ts(2 * n),
                "message": {"role": "user", "content": [{"type": "text", "text": item.text}]},
            }
        )
        content = [
            {"type": "text", "text": f"On it. {item.text}"},
            {"type": "toolCall", "id": f"t{n}", "name": "exec", "arguments": {"command": f"echo '{item.text}'"}},
        ]
        lines.append(
            {
                "type": "message",
                "id": assistant,
                "parentId": user,
                "timestamp": _ts(2 * n + 1),
                "message": {"role": "assistant", "content": content},
            }
        )
        parent = assistant
    for n, pair in enumerate(SPLIT):
        for m, (role, text) in enumerate((("user", pair.first), ("assistant", pair.second))):
            lines.append(
                {
                    "type": "message",
                    "id": f"{n:04d}s{m:03d}",
                    "parentId": parent,
                    "timestamp": _ts(900 + 2 * n + m),
                    "message": {"role": role, "content": [{"type": "text", "text": text}]},
                }
            )
            parent = f"{n:04d}s{m:03d}"
    lines.append(
        {
            "type": "compaction",
            "id": "c0000000",
            "parentId": parent,
            "timestamp": _ts(999),
            "summary": "Compacted: " + " ".join(p.text for p in items),
        }
    )
    path = folder / "openclaw" / f"{OPENCLAW_SESSION}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def write_specstory(workspace: Path, items: list[Planted]) -> None:
    parts = [
        "<!-- Generated by SpecStory, Markdown v2.1.0 -->\n\n# 2026-03-01 10:00:00Z\n\n"
        "<!-- Claude Code Session 5a5a5a5a-1b1b-4c2c-8d3d-4e4e4e4e4e4e (2026-03-01 10:00:00Z) -->\n"
    ]
    for n, item in enumerate(items):
        parts.append(f"\n_**User (2026-03-01 10:{n:02d}:00Z)**_\n\n{item.text}\n\n---\n")
        parts.append(
            f"\n_**Agent (claude-opus-4-6 2026-03-01 10:{n:02d}:30Z)**_\n\nHandled: {item.text}\n\n"
            '<tool-use data-tool-type="shell" data-tool-name="Bash"><details>\n<summary>Tool use: **Bash**</summary>\n'
            f"Run it\n\n`echo '{item.text}'`\n</details></tool-use>\n\n---\n"
        )
    for n, pair in enumerate(SPLIT):
        parts.append(f"\n_**User (2026-03-01 11:{n:02d}:00Z)**_\n\n{pair.first}\n\n---\n")
        parts.append(f"\n_**Agent (claude-opus-4-6 2026-03-01 11:{n:02d}:30Z)**_\n\n{pair.second}\n\n---\n")
    path = workspace / ".specstory" / "history" / "2026-03-01_10-00-00Z-secrets.md"
    path.parent.mkdir(parents=True)
    path.write_text("".join(parts))
    for n, named in enumerate(NAMED):  # SpecStory names an export after its first prompt: the key is in the name
        (path.parent / f"{named.file_stem}.md").write_text(
            f"<!-- Generated by SpecStory, Markdown v2.1.0 -->\n\n_**User (2026-03-02 09:{n:02d}:00Z)**_\n\n"
            f"{NAMED_PROMPT} number {n}\n\n---\n\n_**Agent (claude-opus-4-6 2026-03-02 09:{n:02d}:30Z)**_\n\n"
            "I will not keep that key anywhere.\n\n---\n"
        )


def write_memory(workspace: Path, items: list[Planted]) -> None:
    sections = []
    for item in items:
        heading = item.text.splitlines()[0] if item.context == "heading" else f"Note on {item.kind}"
        sections.append(f"## {heading}\n\nRecorded for later: {item.text}\n")
    (workspace / "MEMORY.md").write_text("# Credentials we handled\n\n" + "\n".join(sections))


@pytest.fixture(scope="module")
def planted_workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("planted")
    workspace, transcripts = root / "project", root / "transcripts"
    workspace.mkdir()
    write_memory(workspace, PLANTED)
    write_specstory(workspace, PLANTED)
    write_claude(transcripts, PLANTED)
    write_codex(transcripts, PLANTED)
    write_openclaw(transcripts, PLANTED)
    return workspace, transcripts


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memlens", *args], capture_output=True, text=True, timeout=600)


def assert_clean(output: str, where: str) -> None:
    assert leaked(output, EVERY_SECRET) == [], f"{where} shows whole secrets"
    assert leaked_fragments(output, length=8, planted=EVERY_SECRET) == [], f"{where} shows pieces of secrets"


@pytest.fixture(scope="module", params=["redacted-index", "unredacted-index"])
def indexed(
    request: pytest.FixtureRequest, planted_workspace: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[list[str], Settings]:
    workspace, transcripts = planted_workspace
    root = tmp_path_factory.mktemp(request.param)
    data = {"privacy": {"redactIndex": request.param == "redacted-index"}}
    settings_file = root / "settings.json"
    settings_file.write_text(json.dumps(data))
    where = [
        "--workspace",
        str(workspace),
        "--transcripts",
        str(transcripts),
        "--index-dir",
        str(root / "index"),
        "--no-embeddings",
        "--settings",
        str(settings_file),
    ]
    done = cli("index", *where)
    assert done.returncode == 0, done.stderr
    return where, merge(Settings(), data)


@pytest.mark.slow  # a CLI process per secret kind
def test_cli_search_shows_no_secret(indexed: tuple[list[str], Settings]) -> None:
    where, _ = indexed
    for n, item in enumerate(PLANTED):
        query = context_words(item)
        output = ("--json", "--explain")[n % 2]  # the JSON and the human output, each for half of the kinds
        found = cli("search", query, "--no-sync", "--limit", "20", output, *where)
        assert found.returncode in (0, 1), found.stderr
        assert_clean(found.stdout + found.stderr, f"search {query!r} {output} ({item.kind})")


@pytest.mark.slow  # every CLI face of two indexes
def test_file_names_titles_and_split_tokens_show_no_secret(indexed: tuple[list[str], Settings]) -> None:
    """Keys in SpecStory file names (path, relPath, title) and tokens cut between two messages, on every CLI face."""
    where, _ = indexed
    shown = 0
    for query in (NAMED_PROMPT, SPLIT_QUERY):
        for output in ("--json", "--explain"):
            found = cli("search", query, "--no-sync", "--limit", "30", "--mode", "keyword", output, *where)
            assert found.returncode == 0, found.stderr
            shown += found.stdout.count("REDACTED")
            assert_clean(found.stdout + found.stderr, f"search {query!r} {output}")
    listing = cli("sessions", "--json", "--no-sync", *where)
    assert listing.returncode == 0, listing.stderr
    assert_clean(listing.stdout, "sessions")
    named = [s for s in json.loads(listing.stdout)["sessions"] if NAMED_PROMPT in (s.get("title") or "")]
    assert len(named) == len(NAMED), named  # the named sessions were listed (titled by their first prompt) ...
    assert all("[REDACTED:" in s["sessionKey"] for s in named), named  # ... their keys, made of the name, masked
    assert shown >= len(NAMED) + len(SPLIT)
    for session in json.loads(listing.stdout)["sessions"]:
        if "REDACTED" in session["sessionKey"]:
            continue  # a key made of a secret file name is shown masked, and cannot be asked for
        history = cli("history", session["sessionKey"], "--limit", "500", "--json", *where)
        assert history.returncode == 0, history.stderr
        assert_clean(history.stdout, f"history {session['sessionKey']}")
    stats = cli("stats", "--json", *where)
    assert_clean(stats.stdout + stats.stderr, "stats")


@pytest.mark.slow  # every surface of two indexes
def test_history_summaries_context_and_stats_show_no_secret(
    indexed: tuple[list[str], Settings], planted_workspace: tuple[Path, Path]
) -> None:
    where, settings = indexed
    workspace, transcripts = planted_workspace
    index_dir = Path(where[where.index("--index-dir") + 1])
    settings.transcripts.agent_defaults = False
    with Engine([workspace], settings, [transcripts], index_dir, embedder=False) as engine:
        chunk_ids = [int(row[0]) for row in engine.catalog.db.execute("SELECT id FROM chunks")]
        stored = "\n".join(text for chunk_id in chunk_ids for text in engine.catalog.chunk_texts(chunk_id))
        titles = "\n".join(title or "" for (title,) in engine.catalog.db.execute("SELECT title FROM sessions"))
        if settings.privacy.redact_index:
            assert leaked(stored, EVERY_SECRET) == [], "the index must not be a second copy of the secrets"
            assert "REDACTED" in titles  # the titles made of the secret file names are stored, masked
            assert leaked_fragments(titles, length=8, planted=EVERY_SECRET) == [], "stored titles keep secrets"
        else:
            assert len(leaked(stored)) == len(PLANTED), "with redactIndex off the index keeps them: the door must mask"
        stats = engine.stats()
        assert_clean(json.dumps(stats), "stats")
        assert stats["sessions"] >= 4
        keys = engine.catalog.db.execute("SELECT key FROM sessions").fetchall()
        for (key,) in keys:
            history = engine.history(key, limit=500)
            assert history["messages"], key
            assert_clean(json.dumps(history), f"history {key}")
            human = (
                cli("history", key, "--limit", "500", "--no-sync", *where)
                if False
                else cli("history", key, "--limit", "500", *where)
            )
            assert human.returncode == 0, human.stderr
            assert_clean(human.stdout, f"CLI history {key}")
        grep = engine.summaries_grep("Summary|Earlier|Compacted|Session about", limit=50)
        assert grep["results"]
        assert_clean(json.dumps(grep), "summaries_grep")
        for match in grep["results"]:
            assert_clean(json.dumps(engine.summaries_describe(match["summaryId"])), "summaries_describe")
            assert_clean(json.dumps(engine.summaries_expand(match["summaryId"], token_budget=50_000)), "expand")
        for item in PLANTED:
            pack = engine.context(context_words(item), token_budget=4000)
            assert_clean(json.dumps(pack), f"context pack ({item.kind})")


@lsp_fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "memlens", "serve"]))
async def lsp_server(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    yield lsp_client


@pytest.mark.slow  # a real server
async def test_language_server_commands_and_hover_show_no_secret(
    indexed: tuple[list[str], Settings], planted_workspace: tuple[Path, Path], lsp_server: LanguageClient
) -> None:
    where, settings = indexed
    workspace, transcripts = planted_workspace
    index_dir = where[where.index("--index-dir") + 1]
    client = lsp_server
    options = {
        "indexDir": index_dir,
        "transcripts": {"paths": [str(transcripts)], "agentDefaults": False},
        "embedding": {"enabled": False},
        "privacy": {"redactIndex": settings.privacy.redact_index},
        "hover": {"minScore": 0.0},
    }
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="project")],
            initialization_options=options,
        )
    )
    outputs: list[str] = []

    async def run(command: str, argument: dict[str, Any]) -> Any:
        params = types.ExecuteCommandParams(command=command, arguments=[argument])
        result = await client.workspace_execute_command_async(params)
        outputs.append(json.dumps(result))
        return result

    for key in (f"claude-code:{CLAUDE_SESSION}", f"codex:{CODEX_SESSION}", f"openclaw:{OPENCLAW_SESSION}"):
        await run("memlens.history", {"sessionKey": key, "limit": 500})
    for item in PLANTED:
        await run("memlens.search", {"query": context_words(item), "mode": "keyword", "limit": 20})
    for query in (NAMED_PROMPT, SPLIT_QUERY):
        await run("memlens.search", {"query": query, "mode": "keyword", "limit": 30})
    await run("memlens.context", {"question": "credentials tokens keys", "tokenBudget": 8000})
    grep = await run("memlens.summaries.grep", {"pattern": "Summary|Earlier|Compacted"})
    for match in grep["results"]:
        await run("memlens.summaries.expand", {"summaryId": match["summaryId"], "tokenBudget": 50_000})
    note = workspace / "notes.md"
    note.write_text(f"credentials token key password\n{NAMED_PROMPT}\n")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=note.as_uri(), language_id="markdown", version=1, text=note.read_text()
            )
        )
    )
    for character in (1, 14, 20, 25):
        hover = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=note.as_uri()),
                position=types.Position(line=0, character=character),
            )
        )
        outputs.append(
            json.dumps(hover.contents.value if hover and isinstance(hover.contents, types.MarkupContent) else "")
        )
    await client.shutdown_session()
    assert any(output != '""' for output in outputs[-4:]), "hover found nothing: the hover surface went untested"
    assert sum(1 for output in outputs if "REDACTED" in output) > 5  # the planted secrets were reached, and masked
    for output in outputs:
        assert_clean(output, "language server")


def test_stats_masks_a_secret_quoted_by_a_file_failure(tmp_path: Path) -> None:
    """A file's failure reason is free text (an error message may quote what it failed on): stats passes the door's
    redaction like every other answer."""
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "note.md").write_text("# Note\n\nnothing secret\n")
    settings = Settings()
    settings.transcripts.agent_defaults = False
    index_dir = tmp_path / "index"
    with Engine([workspace], settings, index_dir=index_dir, embedder=False) as engine:
        engine.sync()
        with engine.catalog.transaction() as db:
            reason = f"line 2: invalid JSON near {PLANTED[0].text!r}"
            engine.catalog.record_file_failure(
                db, str(workspace / "bad.jsonl"), "transcript", size=1, identity={"mtime_ns": 1}, reason=reason
            )
        stats = engine.stats()
        assert stats["filesWithErrors"] == 1
        assert leaked(json.dumps(stats)) == [] and "[REDACTED" in json.dumps(stats["fileErrors"])
        assert stats["fileErrors"][0]["path"] == str(workspace / "bad.jsonl")  # names stay exact


@pytest.mark.parametrize("redact_index", [True, False], ids=["redacted-index", "unredacted-index"])
def test_a_secret_in_a_first_prompt_is_masked_in_the_session_title(tmp_path: Path, redact_index: bool) -> None:
    """SpecStory names an export after its first prompt, and the session's stored title is made of that name: with
    redactIndex the catalog keeps the title masked (the index is no second copy of a secret), and every answer
    masks it either way. (The file's path, which must stay exact to be opened, still names it.)"""
    titled = next(p for p in PLANTED if p.kind == "github-pat-classic")  # one a file name can hold whole
    workspace = tmp_path / "project"
    history = workspace / ".specstory" / "history"
    history.mkdir(parents=True)
    (history / f"2026-03-01_10-00-00Z-rotate-the-token-{titled.secret}.md").write_text(
        "<!-- Generated by SpecStory, Markdown v2.1.0 -->\n\n# 2026-03-01 10:00:00Z\n\n"
        "<!-- Claude Code Session 6b6b6b6b-1b1b-4c2c-8d3d-4e4e4e4e4e4e (2026-03-01 10:00:00Z) -->\n"
        f"\n_**User (2026-03-01 10:00:00Z)**_\n\nrotate the token {titled.secret}\n\n---\n"
        "\n_**Agent (claude-opus-4-6 2026-03-01 10:00:30Z)**_\n\nRotated.\n\n---\n"
    )
    settings = Settings()
    settings.transcripts.agent_defaults = False
    settings.privacy.redact_index = redact_index
    with Engine([workspace], settings, [history], tmp_path / "index", embedder=False) as engine:
        engine.sync()
        stored = [str(t) for (t,) in engine.catalog.db.execute("SELECT title FROM sessions") if t]
        assert stored and all("rotate the token" in t for t in stored)
        assert (titled.secret in " ".join(stored)) is not redact_index
        listed = [str(s.get("title")) for s in engine.sessions(limit=10)["sessions"]]
        assert listed and not any(titled.secret in t for t in listed) and all("[REDACTED:" in t for t in listed)
