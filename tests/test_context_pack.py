"""Context packs on a small synthetic workspace (keyword-only engine): round-robin, citations, budget, exclusions."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from memlens.engine.answers.context_pack import build_context_pack
from memlens.engine.answers.summaries import estimate_tokens
from memlens.engine.engine import Engine
from memlens.settings import Settings, merge

MEMORY = """# Project memory

## Retry policy

Webhook retries use exponential backoff with five attempts, then the dead letter queue.

## Unrelated

The office plants are watered on Mondays.
"""


def _session(path: Path, session_id: str, topic: str, hour: int) -> None:
    def message(entry_id: str, parent: str | None, minute: int, role: str, text: str) -> dict[str, object]:
        return {
            "type": "message",
            "id": entry_id,
            "parentId": parent,
            "timestamp": f"2026-03-0{hour}T10:{minute:02d}:00Z",
            "message": {"role": role, "content": [{"type": "text", "text": text}]},
        }

    entries = [
        {"type": "session", "version": 3, "id": session_id, "cwd": "/w"},
        message(f"{session_id[:4]}-u1", None, 0, "user", f"What retry policy for {topic} webhooks?"),
        message(f"{session_id[:4]}-a1", f"{session_id[:4]}-u1", 1, "assistant", f"For {topic}: webhook retry backoff."),
        message(f"{session_id[:4]}-u2", f"{session_id[:4]}-a1", 2, "user", f"And the {topic} webhook retry timeout?"),
        message(f"{session_id[:4]}-a2", f"{session_id[:4]}-u2", 3, "assistant", "Thirty seconds per webhook retry."),
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")


@pytest.fixture()
def engine(tmp_path: Path) -> Iterator[Engine]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "MEMORY.md").write_text(MEMORY, encoding="utf-8")
    _session(workspace / "transcripts" / "a.jsonl", "aaaa0000-0000-4000-8000-000000000001", "billing", 1)
    _session(workspace / "transcripts" / "b.jsonl", "bbbb0000-0000-4000-8000-000000000002", "shipping", 2)
    settings = merge(
        Settings(),
        {"transcripts": {"paths": ["transcripts"], "agentDefaults": False}, "chunking": {"maxMessages": 1}},
    )
    with Engine([workspace], settings, index_dir=tmp_path / "index", embedder=False) as opened:
        opened.sync()
        yield opened


def test_round_robin_across_sources(engine: Engine) -> None:
    pack = build_context_pack(engine, "webhook retry policy", token_budget=4000)
    sources = [item["source"] for item in pack["items"]]
    assert pack["sources"] == len(set(sources)) >= 3
    first_round = sources[: pack["sources"]]
    assert len(set(first_round)) == len(first_round), "each source gets a turn before any gets a second"


def test_items_are_cited_and_rendered(engine: Engine) -> None:
    pack = build_context_pack(engine, "webhook retry policy", token_budget=4000)
    assert pack["markdown"].startswith("## Context for: webhook retry policy")
    memory = [i for i in pack["items"] if i["kind"] == "memory"]
    assert memory and memory[0]["citation"].startswith("MEMORY.md:")
    assert memory[0]["citation"] == f"MEMORY.md:{memory[0]['lineStart']}-{memory[0]['lineEnd']}"
    for item in pack["items"]:
        assert item["citation"] in pack["markdown"]
        if item["kind"] != "memory":
            assert item["sessionKey"] in item["citation"] and item["messageId"] in item["citation"]
            timestamp = item["timestamp"]
            assert timestamp is not None and timestamp in item["citation"]
            ids = [m["messageId"] for m in item["messages"]]
            assert item["messageId"] in ids and len(ids) == 2  # the best message and its neighbour


def test_user_hit_brings_the_reply(engine: Engine) -> None:
    pack = build_context_pack(engine, "billing webhooks retry policy", token_budget=4000)
    item = next(i for i in pack["items"] if i["kind"] != "memory" and i["messages"][0]["role"] == "user")
    assert item["messages"][1]["role"] == "assistant"


def test_budget_is_respected(engine: Engine) -> None:
    for budget in (60, 120, 300):
        pack = build_context_pack(engine, "webhook retry policy", token_budget=budget)
        assert pack["tokens"] <= budget
        assert pack["tokens"] == estimate_tokens(pack["markdown"])
    assert build_context_pack(engine, "webhook retry policy", token_budget=60)["truncated"]


def test_limit_caps_items(engine: Engine) -> None:
    pack = build_context_pack(engine, "webhook retry policy", token_budget=4000, limit=2)
    assert len(pack["items"]) == 2 and pack["truncated"]


def test_matches_too_long_for_the_budget_are_not_called_no_match(engine: Engine) -> None:
    pack = build_context_pack(engine, "webhook retry policy", token_budget=50)
    assert pack["items"] == [] and pack["truncated"] and pack["tokens"] <= 50
    assert "No memory or transcript passage" not in pack["markdown"]
    assert "none fits in 50 tokens: ask with a larger tokenBudget" in pack["markdown"]


def test_no_match(engine: Engine) -> None:
    pack = build_context_pack(engine, "zeppelin hangar", token_budget=500)
    assert pack["items"] == [] and "No memory or transcript passage" in pack["markdown"]


def test_excluded_sessions_never_appear(engine: Engine) -> None:
    engine.settings.exclude_sessions = ["aaaa0000-0000-4000-8000-000000000001"]
    pack = build_context_pack(engine, "webhook retry policy", token_budget=4000)
    assert pack["items"] and "aaaa0000" not in json.dumps(pack)
    assert "For billing" not in pack["markdown"]


def test_hidden_hits_neither_cut_the_tail_nor_take_places(engine: Engine) -> None:
    # the excluded billing session holds every strong hit; the shipping session's hits score under 60 % of them, so
    # a tail cut taken before the exclusion left nothing to show
    query = "billing webhooks retry policy"
    ranked = engine.rank(query, limit=10).hits
    rows = engine.catalog.result_rows([h.unit_id for h in ranked])
    best_hidden = max(h.score for h in ranked if rows[h.unit_id].session_id == "aaaa0000-0000-4000-8000-000000000001")
    best_other = max(h.score for h in ranked if rows[h.unit_id].session_id != "aaaa0000-0000-4000-8000-000000000001")
    assert best_other < 0.6 * best_hidden  # the situation this test is about
    engine.settings.exclude_sessions = ["aaaa0000-0000-4000-8000-000000000001"]
    results = engine.search(query, min_score=0.001)["results"]
    assert results and all(r.get("sessionId") != "aaaa0000-0000-4000-8000-000000000001" for r in results)
    assert any(r.get("sessionId") == "bbbb0000-0000-4000-8000-000000000002" for r in results)


def test_one_long_passage_leaves_room_for_other_sources(tmp_path: Path) -> None:
    """The best hit is a long overview (as a compaction summary is): it is cut to its share while other sources wait
    for their first turn, so the pack still quotes several, not that one passage alone."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "MEMORY.md").write_text(MEMORY, encoding="utf-8")
    _session(workspace / "transcripts" / "a.jsonl", "aaaa0000-0000-4000-8000-000000000001", "billing", 1)
    _session(workspace / "transcripts" / "b.jsonl", "bbbb0000-0000-4000-8000-000000000002", "shipping", 2)
    overview = " ".join(f"Step {n}: the webhook retry policy keeps its backoff for attempt {n}." for n in range(300))
    long_session = {
        "type": "message",
        "id": "cccc-a1",
        "parentId": None,
        "timestamp": "2026-03-03T10:00:00Z",
        "message": {"role": "assistant", "content": [{"type": "text", "text": overview}]},
    }
    head = {"type": "session", "version": 3, "id": "cccc0000-0000-4000-8000-000000000003", "cwd": "/w"}
    (workspace / "transcripts" / "c.jsonl").write_text(
        "".join(json.dumps(e) + "\n" for e in (head, long_session)), encoding="utf-8"
    )
    settings = merge(
        Settings(),
        {"transcripts": {"paths": ["transcripts"], "agentDefaults": False}, "chunking": {"maxMessages": 1}},
    )
    with Engine([workspace], settings, index_dir=tmp_path / "index", embedder=False) as engine:
        engine.sync()
        assert estimate_tokens(overview) > 2000  # alone, it would fill the whole budget
        pack = build_context_pack(engine, "webhook retry policy backoff", token_budget=2000)
    sources = [item["source"] for item in pack["items"]]
    assert "cccc0000-0000-4000-8000-000000000003" in " ".join(sources)
    assert pack["sources"] >= 3 and pack["tokens"] <= 2000, sources
    long_item = next(item for item in pack["items"] if "cccc0000" in item["source"])
    assert long_item.get("truncated") and long_item["tokens"] <= 2000 // 3 + 1
