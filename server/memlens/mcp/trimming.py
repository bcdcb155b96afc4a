"""Answers trimmed for an agent's context: what repeats is said once, what is long is capped with a way to all of it.

Why it exists: an agent pays for every character it reads. A history window of six messages around a compaction
summary ran to 24,000 characters, most of it one message, and a search answer repeated its session's title and
resume command on every hit. Here a history window caps each message (a one-message window, which the cap's note
points to, shows a message whole), and a search answer names each session's title and resume command once
(`sessionTitles`), the hits keep their `sessionKey`; a context pack is built within the budget the answer can carry
(built past it and then cut to fit, it lost whole sources: a larger budget gave fewer). Both faces of an MCP answer
(text and structuredContent) are trimmed alike, since a client may hand either to the model. The CLI and the editor
get the engine's answers untrimmed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memlens.mcp.render import size
from memlens.requests import MIN_CONTEXT_BUDGET
from memlens.wire import ContextResponse, HistoryResponse, SearchResponse

MESSAGE_CHARS = 1500
"""A message's characters in a window of several: a question and its answer's substance fit; a pasted log does not."""


def cap_messages(history: HistoryResponse, *, max_chars: int = MESSAGE_CHARS) -> dict[str, Any]:
    """Each message of a window of several cut to `max_chars`, with how much more there is and the call that shows
    it whole (a window of one message is left whole)."""
    messages = history["messages"]
    if len(messages) <= 1:
        return dict(history)
    capped: list[dict[str, Any]] = []
    for message in messages:
        text = message.get("text") or ""
        if len(text) <= max_chars:
            capped.append(dict(message))
            continue
        cut = text[:max_chars].rstrip()
        more = len(text) - len(cut)
        call = f'history {{sessionKey, messageId: "{message.get("messageId")}", limit: 1}}'
        capped.append({**message, "text": f"{cut}\n… ({more:,} more characters; {call} shows all)"})
    return {**history, "messages": capped}


def titles_once(response: SearchResponse) -> dict[str, Any]:
    """A search answer whose hits name their session by key only; each session's title and resume command are
    listed once, in `sessionTitles`."""
    labels: dict[str, dict[str, Any]] = {}
    hits: list[dict[str, Any]] = []
    for result in response["results"]:
        hit: dict[str, Any] = dict(result)
        title, resume = hit.pop("title", None), hit.pop("resumeCommand", None)
        key = hit.get("sessionKey")
        if key and key not in labels and (title is not None or resume is not None):
            labels[key] = {"title": title, "resumeCommand": resume}
        hits.append(hit)
    return {**response, "results": hits, "sessionTitles": labels}


FIT_TRIES = 3
"""Rebuilds of a context pack at a smaller budget: the second nearly always fits; bound() cuts what still does not."""


def pack_that_fits(build: Callable[[int], ContextResponse], *, token_budget: int, max_chars: int) -> dict[str, Any]:
    """The context pack `build(budget)` makes, rebuilt at the tokens it used scaled down by how far its JSON overran
    `max_chars`, so that the round-robin over sources holds in what the agent receives; `tokenBudgetAsked` says the
    budget that was asked for when a smaller one was used."""
    budget = token_budget
    pack: dict[str, Any] = dict(build(budget))
    for _ in range(FIT_TRIES):
        chars = size(pack)
        if chars <= max_chars or budget <= MIN_CONTEXT_BUDGET:
            break
        used = min(budget, int(pack.get("tokens") or budget))  # a pack short of material used less
        budget = max(MIN_CONTEXT_BUDGET, int(used * max_chars / chars * 0.9))
        pack = dict(build(budget))
    if budget < token_budget:
        pack["tokenBudgetAsked"] = token_budget
    return pack
