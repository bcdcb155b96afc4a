"""Work-done progress for the initial indexing and `memlens.reindex` (incremental and full), and indexStatus."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp.helpers import SERVER_COMMAND, Prebuilt, StatusLog, copy_index, execute, init_params, lsp_fixture, wait_until
from memlens.local_api.client import ask
from memlens.local_api.protocol import Request

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]  # real server processes


def openclaw_line(kind: str, entry_id: str, parent: str | None, when: str, **extra: object) -> str:
    return json.dumps({"type": kind, "id": entry_id, "parentId": parent, "timestamp": when, **extra}) + "\n"


def tiny_session(path: Path) -> None:
    """A three-message OpenClaw session about a made-up topic."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps({"type": "session", "version": 3, "id": "0d0e0f10-aaaa-4bbb-8ccc-111122223333", "cwd": "/w"}) + "\n",
        openclaw_line(
            "message",
            "m1",
            None,
            "2026-03-01T10:00:00Z",
            message={"role": "user", "content": [{"type": "text", "text": "Should the zeppelin hangar use copper?"}]},
        ),
        openclaw_line(
            "message",
            "m2",
            "m1",
            "2026-03-01T10:00:05Z",
            message={"role": "assistant", "content": [{"type": "text", "text": "Yes: copper zeppelin hangar roofs."}]},
        ),
    ]
    path.write_text("".join(lines), encoding="utf-8")


@lsp_fixture(scope="module", config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(
    lsp_client: LanguageClient, lsp_prebuilt: Prebuilt, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[None]:
    statuses = StatusLog()
    lsp_client.feature("memlens/indexStatus")(statuses)
    lsp_client.statuses = statuses  # type: ignore[attr-defined]
    extra = tmp_path_factory.mktemp("extra-transcripts")
    lsp_client.extra = extra  # type: ignore[attr-defined]
    transcripts = dict(lsp_prebuilt.options["transcripts"])
    transcripts["paths"] = [*transcripts["paths"], str(extra)]
    index_dir = copy_index(lsp_prebuilt, "indexing")
    lsp_client.index_dir = index_dir  # type: ignore[attr-defined]
    params = init_params(lsp_prebuilt, index_dir, transcripts=transcripts)
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


def _finished(reports: list[types.ProgressParams]) -> bool:
    return bool(reports) and isinstance(reports[-1], types.WorkDoneProgressEnd)


async def test_initial_indexing_progress(client: LanguageClient) -> None:
    await wait_until(lambda: any(_finished(r) for r in client.progress_reports.values()))
    reports = next(iter(client.progress_reports.values()))
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert reports[0].title == "memlens: indexing" and reports[0].cancellable
    assert any(isinstance(r, types.WorkDoneProgressReport) and r.percentage is not None for r in reports)
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)


async def test_index_status_after_initial_indexing(client: LanguageClient) -> None:
    statuses = client.statuses  # type: ignore[attr-defined]
    await wait_until(lambda: any(not s["indexing"] for s in statuses.items))
    final = [s for s in statuses.items if not s["indexing"]][-1]
    assert final["totalChunks"] > 0 and final["chunksNeedingEmbeddings"] == 0 and final["pendingMessages"] == 0
    assert final["provider"] and final["lastSync"]


async def test_index_status_counts_sessions_messages_and_notes_as_stats_does(client: LanguageClient) -> None:
    """The status line says what a user counts (sessions, messages, notes), the same numbers `memlens.stats` gives."""
    statuses = client.statuses  # type: ignore[attr-defined]
    await wait_until(lambda: any(not s["indexing"] for s in statuses.items))
    final = [s for s in statuses.items if not s["indexing"]][-1]
    stats = await execute(client, "memlens.stats")
    assert final["sessions"] == stats["sessions"] > 0
    assert final["messages"] == sum(stats["messages"].values()) > final["sessions"]
    assert final["notes"] == stats["files"]["markdown"] > 0


async def test_reindex_incremental_with_progress(client: LanguageClient) -> None:
    tiny_session(client.extra / "zeppelin.jsonl")  # type: ignore[attr-defined]
    before = set(client.progress_reports)
    report = await execute(client, "memlens.reindex", {})
    after = await execute(client, "memlens.stats")
    # the live watcher may have indexed the new file before the reindex or not: either way the reindex saw every
    # file the index holds after it, the new one among them
    assert report["filesSeen"] == sum(after["files"].values())
    found = await execute(client, "memlens.search", {"query": "zeppelin", "mode": "keyword", "minScore": 0})
    assert any(hit["path"].endswith("zeppelin.jsonl") for hit in found["results"])
    assert report["filesUnchanged"] > 5 and not report["cancelled"]
    new_tokens = [t for t in client.progress_reports if t not in before]
    assert new_tokens, "reindex must report work-done progress"
    reports = client.progress_reports[new_tokens[0]]
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and reports[0].title == "memlens: reindex"
    assert any(isinstance(r, types.WorkDoneProgressReport) for r in reports)
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    found = await execute(client, "memlens.search", {"query": "zeppelin hangar copper", "mode": "keyword"})
    assert found["results"] and found["results"][0]["relPath"].endswith("zeppelin.jsonl")


async def test_the_server_answers_the_cli_over_its_socket(client: LanguageClient) -> None:
    """`memlens serve` listens in its index folder (local_api): what `memlens search` beside the editor asks."""
    index_dir: Path = client.index_dir  # type: ignore[attr-defined]
    await wait_until(lambda: (index_dir / "search.sock").exists())
    request: Request = {"method": "search", "params": {"query": "zeppelin hangar copper", "mode": "keyword"}}
    answer = await asyncio.to_thread(ask, index_dir, request)
    assert answer is not None and answer["results"][0]["relPath"].endswith("zeppelin.jsonl")


async def test_reindex_full_with_progress(client: LanguageClient) -> None:
    before = set(client.progress_reports)
    report = await execute(client, "memlens.reindex", {"full": True})
    stats = await execute(client, "memlens.stats")
    assert report["filesParsed"] == report["filesSeen"] == sum(stats["files"].values())
    assert report["unitsEmbedded"] == 0  # cached vectors are reused
    assert report["messagesAdded"] == 0  # every message read again, none new
    (token,) = [t for t in client.progress_reports if t not in before]
    # pytest-lsp stores the structured WorkDoneProgress* values under a list[ProgressParams] annotation
    reports: list[object] = list(client.progress_reports[token])
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and reports[0].title == "memlens: full reindex"
    percentages = [r.percentage for r in reports if isinstance(r, types.WorkDoneProgressReport)]
    assert percentages and percentages[-1] == 100
    # each message states the count, and the rate once the job has run a second (engine/progress.py RateMeter)
    messages = [r.message or "" for r in reports if isinstance(r, types.WorkDoneProgressReport)]
    assert any(re.fullmatch(r"reading files ([\d,]+)/\1( · [\d.,]+/s)?", m) for m in messages), messages
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    statuses = client.statuses  # type: ignore[attr-defined]
    # the "reindex done" notification may arrive after the command's answer: wait for it, not for the last one seen
    await wait_until(lambda: any(s.get("message") == "reindex done" for s in statuses.items))
    done = [s for s in statuses.items if s.get("message") == "reindex done"]
    assert not done[-1]["indexing"]


def big_session(path: Path, messages: int) -> None:
    """An OpenClaw session of many messages that share a handful of texts: slow to re-parse and re-index, while
    its vectors come from the cache (a few distinct texts), so a full reindex takes seconds, not minutes."""
    lines = [json.dumps({"type": "session", "version": 3, "id": "0d0e0f10-bbbb-4bbb-8ccc-444455556666", "cwd": "/w"})]
    parent = None
    for n in range(messages):
        role = "user" if n % 2 == 0 else "assistant"
        text = f"ballast message about the {('quartz', 'slate', 'basalt', 'marble')[n % 4]} quarry"
        lines.append(
            openclaw_line(
                "message",
                f"b{n}",
                parent,
                f"2026-03-02T10:{(n // 60) % 60:02d}:{n % 60:02d}Z",
                message={"role": role, "content": [{"type": "text", "text": text}]},
            ).rstrip("\n")
        )
        parent = f"b{n}"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


async def test_requests_answered_during_reindex(client: LanguageClient) -> None:
    """Stats and search asked once a full reindex holds the writer are answered, and the reindex finishes. Whether
    they come back before it does depends on the machine's load; that reads never queue behind the writer is held
    in process, where the writer's job waits for the test (lsp/test_state.py)."""
    import asyncio

    extra = client.extra  # type: ignore[attr-defined]
    shutil.copyfile(extra / "zeppelin.jsonl", extra / "zeppelin-2.jsonl")
    big_session(extra / "ballast.jsonl", 30_000)
    await wait_until(lambda: not client.statuses.items[-1]["indexing"], timeout=120)  # type: ignore[attr-defined]
    before = set(client.progress_reports)
    reindex = asyncio.ensure_future(execute(client, "memlens.reindex", {"full": True}))

    def working() -> bool:  # the reindex reported progress: it holds the writer now
        new = [client.progress_reports[t] for t in client.progress_reports if t not in before]
        return any(isinstance(r, types.WorkDoneProgressReport) for reports in new for r in reports)

    await wait_until(working, timeout=60, step=0.02)
    stats = await execute(client, "memlens.stats")
    search = await execute(client, "memlens.search", {"query": "pgbouncer", "mode": "keyword"})
    # answered, from the last commit: while a full reindex swaps a file's units, a hit can be between two commits,
    # so the content of this answer is not what is tested here
    assert stats["totalChunks"] > 0 and isinstance(search["results"], list)
    report = await reindex
    assert report["filesParsed"] >= 2
