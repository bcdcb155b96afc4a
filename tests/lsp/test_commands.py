"""End-to-end tests of every `workspace/executeCommand` command over stdio, one server for the module."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp.helpers import SERVER_COMMAND, Prebuilt, StatusLog, copy_index, execute, init_params, lsp_fixture, wait_until

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]  # real server processes

OPENCLAW = "openclaw:9d3b6e21-47c8-4a0f-b2e5-6c1f8a9d0e74"


@lsp_fixture(scope="module", config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, lsp_prebuilt: Prebuilt) -> AsyncIterator[None]:
    statuses = StatusLog()
    lsp_client.feature("memlens/indexStatus")(statuses)
    lsp_client.statuses = statuses  # type: ignore[attr-defined]
    result = await lsp_client.initialize_session(init_params(lsp_prebuilt, copy_index(lsp_prebuilt, "commands")))
    lsp_client.init_result = result  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def test_commands_are_advertised(client: LanguageClient) -> None:
    commands = client.init_result.capabilities.execute_command_provider.commands  # type: ignore[attr-defined]
    for name in (
        "memlens.search",
        "memlens.history",
        "memlens.stats",
        "memlens.reindex",
        "memlens.summaries.grep",
        "memlens.summaries.describe",
        "memlens.summaries.expand",
        "memlens.context",
        "memlens.fixes",
        "memlens.sources",
        "memlens.removeSource",
    ):
        assert name in commands
    assert client.init_result.capabilities.hover_provider  # type: ignore[attr-defined]


async def test_search(client: LanguageClient) -> None:
    response = await execute(client, "memlens.search", {"query": "pgbouncer transaction pooling", "limit": 5})
    assert set(response) >= {"query", "mode", "results", "totalResults", "searchTimeMs", "indexing"}
    assert response["mode"] == "hybrid"
    assert 0 < response["totalResults"] <= 5
    top = response["results"][0]
    assert "pgbouncer" in top["excerpt"].lower()
    assert top["id"].startswith("chunk:")


async def test_search_names_both_days_of_a_numeric_date(client: LanguageClient) -> None:
    response = await execute(client, "memlens.search", {"query": "what did we do on 10/02/2026"})
    assert response["ambiguousDates"] == [{"text": "10/02/2026", "readings": ["2026-02-10", "2026-10-02"]}]
    assert "period" not in response and "unreadDates" not in response
    read = await execute(client, "memlens.search", {"query": "what did we do on 10.02.2026"})  # dots: day first
    assert "ambiguousDates" not in read and read["period"]["since"].startswith("2026-02-10")


async def test_search_says_a_date_window_holds_no_message(client: LanguageClient) -> None:
    """A since in the future is not a bare "0 results": the answer's note names it and the last message before it,
    and `emptyWindow` holds the same; a window that holds messages none of which match says nothing of the kind."""
    response = await execute(client, "memlens.search", {"query": "pgbouncer", "filters": {"since": "2099-01-01"}})
    assert response["results"] == [] and response["emptyWindow"]["sinceInFuture"] is True
    assert "nearestBefore" in response["emptyWindow"] and "nearestAfter" not in response["emptyWindow"]
    assert response["note"].startswith("since 2099-01-01 is after today; nothing was written since 2099-01-01 (")
    assert "the last message before it is from " in response["note"]
    held = await execute(client, "memlens.search", {"query": "zqxjkvw", "filters": {"since": "2000-01-01"}})
    assert held["results"] == [] and "emptyWindow" not in held and "nothing was written" not in held.get("note", "")


async def test_search_filters_and_explain(client: LanguageClient) -> None:
    response = await execute(
        client,
        "memlens.search",
        {"query": "offsite agenda", "mode": "keyword", "filters": {"kind": "memory"}, "explain": True},
    )
    assert response["mode"] == "keyword"
    assert response["results"] and all(r["kind"] == "memory" for r in response["results"])
    assert "explain" in response["results"][0]
    by_format = await execute(client, "memlens.search", {"query": "offsite", "filters": {"format": "openclaw"}})
    assert by_format["results"] and all(r["format"] == "openclaw" for r in by_format["results"])


async def test_history_tail_and_anchor(client: LanguageClient) -> None:
    tail = await execute(client, "memlens.history", {"sessionKey": OPENCLAW, "limit": 3})
    assert tail["sessionKey"] == OPENCLAW and len(tail["messages"]) == 3 and tail["hasMoreBefore"]
    anchored = await execute(client, "memlens.history", {"sessionKey": OPENCLAW, "messageId": "89b0dc23", "limit": 5})
    ids = [m["messageId"] for m in anchored["messages"]]
    assert anchored["anchor"] == "89b0dc23" and "89b0dc23" in ids and len(ids) == 5


async def test_history_bad_anchor_and_unknown_session(client: LanguageClient) -> None:
    with pytest.raises(JsonRpcInvalidParams, match="not in session"):
        await execute(client, "memlens.history", {"sessionKey": OPENCLAW, "messageId": "no-such-message"})
    other = "claude-code:c84f2a19-6d3e-4b7a-95f1-0e2b7d4c8a63"
    with pytest.raises(JsonRpcInvalidParams, match="belongs to"):
        await execute(client, "memlens.history", {"sessionKey": other, "messageId": "89b0dc23"})
    with pytest.raises(JsonRpcInvalidParams, match="unknown session"):
        await execute(client, "memlens.history", {"sessionKey": "claude-code:nope"})


async def test_stats(client: LanguageClient) -> None:
    stats = await execute(client, "memlens.stats")
    assert stats["totalChunks"] > 30 and stats["sessions"] >= 7
    assert stats["provider"] != "none" and not stats["readOnly"]
    assert set(stats["files"]) >= {"markdown", "claude-code", "codex", "openclaw", "specstory"}


async def test_transcripts_beside_the_example_are_indexed(client: LanguageClient, lsp_prebuilt: Prebuilt) -> None:
    """The transcripts copied in beside the example (real ones from ../shared, else synthetic) are searchable."""
    copied = len(list((lsp_prebuilt.workspace / "shared" / "openclaw").glob("*.jsonl")))
    example = len(list((lsp_prebuilt.workspace / "transcripts" / "openclaw").glob("*.jsonl")))
    response = await execute(client, "memlens.search", {"query": "session", "filters": {"format": "openclaw"}})
    keys = {r["sessionKey"] for r in response["results"]}
    stats = await execute(client, "memlens.stats")
    assert copied >= 1 and stats["files"]["openclaw"] == example + copied and keys


async def test_summaries_grep_describe_expand(client: LanguageClient) -> None:
    found = await execute(client, "memlens.summaries.grep", {"pattern": "Café Nordlys|pgbouncer"})
    assert found["totalMatches"] >= 2
    offsite = next(r for r in found["results"] if r["sessionKey"] == OPENCLAW)
    assert offsite["summaryId"].startswith("chunk:") and "Nordlys" in offsite["excerpt"]
    assert offsite["timestamp"].startswith("2026-02-19")

    described = await execute(client, "memlens.summaries.describe", {"summaryId": offsite["summaryId"]})
    assert described["sessionKey"] == OPENCLAW and "Agenda agreed" in described["text"]
    assert described["covers"]["messageCount"] > 3 and described["tokens"] > 50
    assert described["covers"]["from"] <= described["covers"]["to"] <= described["timestamp"]

    expand = {"summaryId": offsite["summaryId"], "tokenBudget": 150}
    expanded = await execute(client, "memlens.summaries.expand", expand)
    assert expanded["truncated"] and 0 < len(expanded["messages"]) < described["covers"]["messageCount"]
    assert expanded["tokens"] <= 150
    assert expanded["messages"][-1]["messageId"] == described["covers"]["lastMessageId"]  # newest kept first
    whole = await execute(client, "memlens.summaries.expand", {"summaryId": offsite["summaryId"]})
    assert not whole["truncated"] and len(whole["messages"]) == described["covers"]["messageCount"]


async def test_summaries_bad_ids(client: LanguageClient) -> None:
    for bad in ("chunk:999999", "../../etc/passwd", "chunk:1; DROP TABLE units", "file:///etc/passwd"):
        with pytest.raises(JsonRpcInvalidParams):
            await execute(client, "memlens.summaries.describe", {"summaryId": bad})
        with pytest.raises(JsonRpcInvalidParams):
            await execute(client, "memlens.summaries.expand", {"summaryId": bad})
    memory_hit = await execute(client, "memlens.search", {"query": "offsite", "filters": {"kind": "memory"}})
    with pytest.raises(JsonRpcInvalidParams, match="unknown summary"):  # a real chunk, but not a summary
        await execute(client, "memlens.summaries.describe", {"summaryId": memory_hit["results"][0]["id"]})


async def test_context_pack(client: LanguageClient) -> None:
    pack = await execute(client, "memlens.context", {"question": "what did we decide about the offsite agenda?"})
    assert pack["tokens"] <= pack["tokenBudget"] == 2000
    assert pack["items"] and pack["sources"] >= 1
    first_round = [item["source"] for item in pack["items"]][: pack["sources"]]
    assert len(set(first_round)) == len(first_round)  # round-robin: every source has a turn before a second
    assert pack["markdown"].startswith("## Context for: what did we decide about the offsite agenda?")
    for item in pack["items"]:
        assert item["citation"] in pack["markdown"]
        if item["kind"] == "memory":
            assert item["citation"].startswith(item["relPath"] + ":")
        else:
            assert item["sessionKey"] in item["citation"] and item["messageId"] in item["citation"]
            assert 1 <= len(item["messages"]) <= 2
    small = await execute(client, "memlens.context", {"question": "offsite agenda", "tokenBudget": 120, "limit": 2})
    assert small["tokens"] <= 120 and len(small["items"]) <= 2


async def test_fixes(client: LanguageClient) -> None:
    """A pasted error line that lives only in a tool's output: its occurrence and what was done next."""
    answer = await execute(
        client, "memlens.fixes", {"error": "UnroutableEvent: no route for detail-type 'order.refunded'"}
    )
    [first, *_] = answer["fixes"]
    assert first["sessionKey"] == "claude-code:5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9"
    assert first["text"].startswith("[") and "UnroutableEvent" in first["text"]
    assert 1 <= len(first["after"]) <= 3 and all(m["kind"] != "tool" for m in first["after"])
    one = await execute(client, "memlens.fixes", {"error": "UnroutableEvent order.refunded", "limit": 1, "follow": 1})
    assert len(one["fixes"]) == 1 and len(one["fixes"][0]["after"]) <= 1


@pytest.mark.parametrize(
    ("command", "argument", "message"),
    [
        ("memlens.search", {}, "query is required"),
        ("memlens.search", {"query": ""}, "query must not be empty"),
        ("memlens.search", {"query": 42}, "query must be a string"),
        ("memlens.search", {"query": "x", "mode": "psychic"}, "mode must be one of"),
        ("memlens.search", {"query": "x", "limit": "ten"}, "limit must be an integer"),
        ("memlens.search", {"query": "x", "limit": 0}, "limit must be 1..100, got 0"),
        ("memlens.search", {"query": "x", "limit": 10**12}, "limit must be 1..100, got 1000000000000"),
        ("memlens.search", {"query": "x", "limit": 2.5}, "limit must be a whole number 1..100, got 2.5"),
        ("memlens.search", {"query": "x", "minScore": 2}, "minScore must be 0..1, got 2"),
        ("memlens.search", {"query": "x", "minScore": 1e300}, "minScore must be 0..1"),
        ("memlens.search", {"query": "x" * 1_000_001}, "query must be at most 1,000,000 characters, got 1,000,001"),
        ("memlens.search", {"query": "x", "filters": {"kind": "diary"}}, "filters.kind must be one of"),
        ("memlens.search", {"query": "x", "filters": {"since": "next tuesday"}}, "since"),
        ("memlens.search", {"query": "x", "filters": {"since": "2026-03-01", "until": "2026-02-01"}}, "not be after"),
        ("memlens.search", {"query": "x", "filters": {"colour": "red"}}, "unknown field(s) in filters: 'colour'"),
        ("memlens.search", {"query": "x", "filters": "kind=memory"}, "filters must be an object"),
        ("memlens.search", {"qeury": "x"}, "unknown field"),
        ("memlens.history", {}, "sessionKey is required"),
        ("memlens.history", {"sessionKey": "../../etc/passwd"}, "unknown session"),
        ("memlens.history", {"sessionKey": "/etc/passwd"}, "unknown session"),
        ("memlens.history", {"sessionKey": OPENCLAW, "limit": -1}, "limit must be 1..500, got -1"),
        ("memlens.history", {"sessionKey": "k" * 2000}, "sessionKey must be at most 1,000 characters"),
        ("memlens.sessions", {"limit": 501}, "limit must be 1..500, got 501"),
        ("memlens.sessions", {"since": "2026-03-01", "until": "2026-02-01"}, "not be after"),
        ("memlens.summaries.grep", {"pattern": "x", "limit": 0}, "limit must be 1..200, got 0"),
        ("memlens.context", {"question": "x", "tokenBudget": 10**9}, "tokenBudget must be 50..200000"),
        ("memlens.reindex", {"full": "yes"}, "full must be true or false"),
        ("memlens.summaries.grep", {}, "pattern is required"),
        ("memlens.summaries.expand", {"summaryId": "chunk:1", "tokenBudget": 0}, "tokenBudget"),
        ("memlens.context", {"tokenBudget": 100}, "question is required"),
        ("memlens.fixes", {}, "error is required"),
        ("memlens.fixes", {"error": "x", "follow": 11}, "follow must be 1..10, got 11"),
    ],
)
async def test_bad_arguments(client: LanguageClient, command: str, argument: dict[str, Any], message: str) -> None:
    with pytest.raises(JsonRpcInvalidParams, match=re.escape(message)):
        await execute(client, command, argument)


async def test_bad_argument_shapes_and_unknown_command(client: LanguageClient) -> None:
    two = types.ExecuteCommandParams(command="memlens.search", arguments=[{"query": "a"}, {"query": "b"}])
    with pytest.raises(JsonRpcInvalidParams, match="one object argument"):
        await client.workspace_execute_command_async(two)
    positional = types.ExecuteCommandParams(command="memlens.search", arguments=["pgbouncer"])
    with pytest.raises(JsonRpcInvalidParams, match="must be an object"):
        await client.workspace_execute_command_async(positional)
    with pytest.raises(JsonRpcInvalidParams, match="not defined"):
        await execute(client, "memlens.nope", {})
    # the server is alive and well afterwards
    assert (await execute(client, "memlens.stats"))["totalChunks"] > 0


async def test_index_status_notifications(client: LanguageClient) -> None:
    statuses = client.statuses  # type: ignore[attr-defined]
    await wait_until(lambda: any(not s["indexing"] for s in statuses.items))
    last = statuses.items[-1]
    assert set(last) >= {"indexing", "totalChunks", "chunksNeedingEmbeddings", "pendingMessages", "provider"}
    assert "lastSync" in last and last["totalChunks"] > 0 and last["chunksNeedingEmbeddings"] == 0


async def test_project_filter(client: LanguageClient) -> None:
    """`project` names a working folder (any case): sessions and searches keep to its sessions."""
    listing = await execute(client, "memlens.sessions", {"project": "LEDGERLINE", "limit": 500})
    keys = {s["sessionKey"] for s in listing["sessions"]}
    assert keys and all(s["project"] == "ledgerline" for s in listing["sessions"])
    everywhere = await execute(client, "memlens.search", {"query": "session", "mode": "keyword", "limit": 50})
    assert {r.get("sessionKey") for r in everywhere["results"]} - keys  # other projects' hits exist without it
    found = await execute(
        client,
        "memlens.search",
        {"query": "session", "mode": "keyword", "limit": 50, "filters": {"project": "ledgerline"}},
    )
    assert found["results"] and all(r.get("sessionKey") in keys for r in found["results"])
    assert "note" not in listing
    none = await execute(client, "memlens.search", {"query": "pgbouncer", "filters": {"project": "no-such-project"}})
    said = "no session worked in a folder named or under 'no-such-project'"
    assert none["results"] == [] and said in none["note"]
    unlisted = await execute(client, "memlens.sessions", {"project": "no-such-project"})
    assert unlisted["sessions"] == [] and unlisted["note"] == said


async def test_search_session_filter_takes_an_id_or_prefix(client: LanguageClient) -> None:
    """`filters.session` takes a session key, a bare session id or a unique prefix, as history does."""
    session_id = OPENCLAW.split(":", 1)[1]
    by_key = await execute(client, "memlens.search", {"query": "offsite", "filters": {"session": OPENCLAW}})
    assert by_key["results"] and all(r["sessionKey"] == OPENCLAW for r in by_key["results"])
    for ref in (session_id, session_id[:6]):
        found = await execute(client, "memlens.search", {"query": "offsite", "filters": {"session": ref}})
        assert [r["id"] for r in found["results"]] == [r["id"] for r in by_key["results"]]
    with pytest.raises(JsonRpcInvalidParams, match="unknown session"):
        await execute(client, "memlens.search", {"query": "offsite", "filters": {"session": "zzzz-no-such"}})


async def test_a_query_of_stop_words_searches_nothing_and_says_why(client: LanguageClient) -> None:
    for query in ("the", "to be or not", "a", "?"):
        response = await execute(client, "memlens.search", {"query": query})
        assert response["results"] == [] and response["namesNoTopic"] is True, query
        assert "stop words" in response["note"] and "quote" in response["note"]
    found = await execute(client, "memlens.search", {"query": "pgbouncer transaction pooling", "limit": 10})
    assert "namesNoTopic" not in found
    top = next(r for r in found["results"] if r["kind"] != "memory")  # its reference, as a terminal prints it, opens it
    opened = await execute(client, "memlens.history", {"sessionKey": top["reference"], "limit": 3})
    assert (opened["sessionKey"], opened["anchor"]) == (top["sessionKey"], top["messageId"])


async def test_a_sessions_message_count_is_its_historys_messages_without_tool_outputs(client: LanguageClient) -> None:
    """The Sessions view's count (`messageCount`) is what the session's transcript counts as messages: tool outputs
    and summaries apart (engine/message_count.py), as the CLI's MSGS and MCP's `sessions` show it."""
    listing = await execute(client, "memlens.sessions", {"limit": 500})
    checked = 0
    for session in listing["sessions"]:
        history = await execute(client, "memlens.history", {"sessionKey": session["sessionKey"], "limit": 500})
        kinds = [m["kind"] for m in history["messages"]]
        assert session["messageCount"] == kinds.count("message"), session["sessionKey"]
        checked += "tool" in kinds
    assert checked  # sessions with tool outputs among them


async def test_the_session_list_titles_a_specstory_export_by_its_first_request(client: LanguageClient) -> None:
    """The Sessions view names a SpecStory export as it names every session: by its first request, not by its file
    name's cut-short, lower-cased slug ("lets do the blue green")."""
    listing = await execute(client, "memlens.sessions", {"limit": 500, "format": "specstory"})
    titles = {s["sessionKey"]: s["title"] for s in listing["sessions"]}
    assert titles["specstory:71f4c0e8-3a2d-4b96-8e5f-d20b9c7a1e36"].startswith(
        "let's do the blue-green deploy of ledgerline-api v1.8.0"
    )
