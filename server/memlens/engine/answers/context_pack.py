"""Context packs: the turns most relevant to a question, round-robin across sources, cited, within a token budget."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol, cast

from memlens.engine.answers.summaries import estimate_tokens
from memlens.engine.catalog import Catalog
from memlens.errors import NotFound
from memlens.redaction import redact
from memlens.requests import DEFAULT_CONTEXT_BUDGET as DEFAULT_BUDGET
from memlens.settings import Settings
from memlens.wire import (
    ContextItem,
    ContextMessage,
    ContextPassage,
    ContextResponse,
    HistoryMessage,
    HistoryResponse,
    SearchMode,
    SearchResponse,
    SearchResult,
)

MAX_CANDIDATES = 50
MIN_TRIMMED_TOKENS = 40  # a trimmed item shorter than this is not worth its citation
MIN_SCORE = 0.15  # questions score lower than keywords; the relative cut below keeps the pack on topic
RELATIVE_CUT = 0.3  # drop hits scoring under this fraction of the best one
# While other sources wait for their first turn, an item takes at most the budget shared among the first few of them:
# one long passage (a compaction summary, an overview) would otherwise fill the pack alone
SHARED_SOURCES = 3
MIN_SHARE_TOKENS = 150


class PackSource(Protocol):
    """What a context pack reads: the engine's search and history (so the pack sees only what they may show)."""

    catalog: Catalog
    settings: Settings

    def search(
        self, query: str, *, limit: int | None = None, min_score: float | None = None, local_only: bool = False
    ) -> SearchResponse: ...

    def history(self, session_key: str, *, message_id: str | None = None, limit: int = 20) -> HistoryResponse: ...


def _memory_text(engine: PackSource, result: SearchResult) -> str:
    chunk_id = int(str(result["id"]).split(":", 1)[1])
    return "\n\n".join(engine.catalog.chunk_texts(chunk_id)) or result["excerpt"]


def _turns(engine: PackSource, session_key: str, message_id: str) -> list[HistoryMessage]:
    """The hit's best message plus one neighbour: the reply to a user message, else the message before it."""
    try:
        history = engine.history(session_key, message_id=message_id, limit=3)
    except NotFound:
        return []
    messages = history["messages"]
    index = next((i for i, m in enumerate(messages) if m["messageId"] == message_id), None)
    if index is None:
        return []
    anchor = messages[index]
    if anchor["kind"] == "summary":
        return [anchor]
    if anchor["role"] == "user" and index + 1 < len(messages):
        return [anchor, messages[index + 1]]
    return [messages[index - 1], anchor] if index > 0 else [anchor]


def _item(engine: PackSource, result: SearchResult) -> ContextPassage | None:
    if result["kind"] == "memory":
        start, end = result["lineStart"], result["lineEnd"]  # every memory hit has both keys (null: no line known)
        citation = f"{result['relPath']}:{start}-{end}" if start else result["relPath"]
        text = redact(_memory_text(engine, result))
        memory: ContextPassage = {
            "kind": result["kind"],
            "score": result["score"],
            "relPath": result["relPath"],
            "source": result["path"],
            "citation": citation,
            "lineStart": start,
            "lineEnd": end,
            "heading": result.get("heading"),
            "text": text,
        }
        return memory
    session_key, message_id = result["sessionKey"], result["messageId"]
    if session_key is None or message_id is None:
        return None  # a hit with no session or no message (NULL in the catalog) names no turn to quote
    turns = _turns(engine, session_key, message_id)
    if not turns:
        return None
    citation = f"{session_key} · message {message_id} · {result.get('timestamp') or 'no time'}"
    transcript: ContextPassage = {
        "kind": result["kind"],
        "score": result["score"],
        "relPath": result["relPath"],
        "source": session_key,
        "citation": citation,
        "sessionKey": session_key,
        "messageId": message_id,
        "timestamp": result.get("timestamp"),
        "format": result["format"],  # every transcript and summary hit has one
        "messages": [
            {
                "messageId": m["messageId"],
                "role": "summary" if m["kind"] == "summary" else m["role"],
                "timestamp": m["timestamp"],
                "text": redact(m["text"]),
            }
            for m in turns
        ],
    }
    return transcript


def _round_robin(items: list[ContextPassage]) -> Iterator[ContextPassage]:
    """Items in turns across sources (sessions or memory files), each source's best first."""
    queues: dict[str, list[ContextPassage]] = {}
    for item in items:
        queues.setdefault(item["source"], []).append(item)
    while queues:
        for source in list(queues):
            yield queues[source].pop(0)
            if not queues[source]:
                del queues[source]


def _render(item: ContextPassage, number: int) -> str:
    if item["kind"] == "memory":
        title = f"### {number}. {item['citation']}" + (f" — {item['heading']}" if item.get("heading") else "")
        return f"{title}\n\n{item['text'].strip()}\n"
    lines = [f"### {number}. {item['format'] or 'transcript'} session `{item['sessionKey']}`", ""]
    for message in item["messages"]:
        when = f" ({message['timestamp']})" if message["timestamp"] else ""
        body = message["text"].strip().replace("\n", "\n> ")
        lines.append(f"> **{message['role']}**{when}: {body}\n>")
    lines[-1] = lines[-1].removesuffix("\n>")
    lines.append(f"\nSource: {item['citation']}\n")
    return "\n".join(lines)


def _trim(item: ContextPassage, tokens: int) -> ContextPassage:
    """A copy of `item` whose text is cut to about `tokens` tokens."""
    chars = tokens * 4
    if item["kind"] == "memory":
        return {**item, "text": item["text"][:chars].rstrip() + "…", "truncated": True}
    messages: list[ContextMessage] = []
    left = chars
    for message in item["messages"]:
        if left <= 0:
            break
        text = message["text"] if len(message["text"]) <= left else message["text"][:left].rstrip() + "…"
        messages.append({**message, "text": text})
        left -= len(text)
    return {**item, "messages": messages, "truncated": True}


def _fit(item: ContextPassage, room: int, number: int) -> tuple[ContextPassage, int] | None:
    """`item` trimmed so that its rendering fits in `room` tokens, with its cost; None if too little would be left."""
    overhead = estimate_tokens(_render(_trim(item, 0), number)) + 1
    text_tokens = room - overhead
    while text_tokens >= MIN_TRIMMED_TOKENS:
        trimmed = _trim(item, text_tokens)
        cost = estimate_tokens(_render(trimmed, number)) + 1
        if cost <= room:
            return trimmed, cost
        text_tokens -= cost - room
    return None


def build_context_pack(
    engine: PackSource, question: str, *, token_budget: int = DEFAULT_BUDGET, limit: int | None = None
) -> ContextResponse:
    """Search for `question`, then fill `token_budget` round-robin across sources; returns items and markdown."""
    budget = max(50, int(token_budget))
    max_items = max(1, int(limit)) if limit else None
    candidates = min(MAX_CANDIDATES, max(20, (max_items or 10) * 3))
    min_score = min(engine.settings.search.min_score, MIN_SCORE)
    response = engine.search(question, limit=candidates, min_score=min_score, local_only=True)
    results = response["results"]
    floor = results[0]["score"] * RELATIVE_CUT if results else 0.0
    items = [item for result in results if result["score"] >= floor and (item := _item(engine, result)) is not None]
    header = f"## Context for: {question.strip()}\n"
    used = estimate_tokens(header) + 1
    first_round = min(SHARED_SOURCES, len({item["source"] for item in items}), max_items or SHARED_SOURCES)
    share = max(MIN_SHARE_TOKENS, (budget - used) // max(1, first_round))
    chosen: list[ContextItem] = []
    seen: set[tuple[str, str | None]] = set()
    skipped = 0
    for item in _round_robin(items):
        if max_items is not None and len(chosen) >= max_items:
            skipped += 1
            continue
        ids = [m["messageId"] for m in item.get("messages", [])] or [item["citation"]]
        if any((item["source"], i) in seen for i in ids):
            continue  # the same turn reached through a neighbouring hit
        cost = estimate_tokens(_render(item, len(chosen) + 1)) + 1
        room = budget - used if len(chosen) + 1 >= first_round else min(share, budget - used)
        if cost > room:
            fitted = _fit(item, room, len(chosen) + 1)
            if fitted is None:
                skipped += 1
                continue
            item, cost = fitted
        seen.update((item["source"], i) for i in ids)
        chosen.append({**item, "tokens": cost})
        used += cost
    markdown = header + "\n" + "\n".join(_render(item, n) for n, item in enumerate(chosen, 1))
    if not chosen and skipped:  # found, but too long for the room left: an agent must not read "nothing known"
        found = "1 passage matches" if skipped == 1 else f"{skipped} passages match"
        markdown = (
            header + f"\n{found} this question, but none fits in {budget} tokens: ask with a larger tokenBudget.\n"
        )
    elif not chosen and response.get("namesNoTopic"):  # "what about it": say why nothing was looked for
        markdown = header + f"\nNo passage: {response.get('note')}.\n"
    elif not chosen:
        markdown = header + "\nNo memory or transcript passage matched this question.\n"
    return {
        "question": question,
        "tokenBudget": budget,
        "tokens": estimate_tokens(markdown),
        "items": chosen,
        "sources": len({item["source"] for item in chosen}),
        "truncated": skipped > 0 or any(item.get("truncated") for item in chosen),
        "indexing": response["indexing"],
        "mode": cast(SearchMode, response["mode"]),  # the retriever checked it against search.MODES
        "markdown": markdown,
    }
