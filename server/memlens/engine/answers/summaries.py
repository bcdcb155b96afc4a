"""Compaction summaries: find them (grep), describe what they cover, and expand them back into the raw messages."""

from __future__ import annotations

import math
import re
import sqlite3
from collections.abc import Mapping
from typing import Any

import re2

from memlens.engine.answers.results import iso
from memlens.engine.answers.visibility import Visibility
from memlens.engine.catalog import Catalog
from memlens.errors import InvalidPattern, NotFound
from memlens.redaction import redact
from memlens.requests import DEFAULT_EXPAND_BUDGET, MAX_GREP, MAX_PATTERN_CHARS
from memlens.wire import (
    SummariesExpandResponse,
    SummariesGrepResponse,
    SummaryDescription,
    SummaryHeader,
    SummaryHit,
    SummaryMessage,
)

_ID = re.compile(r"chunk:(\d+)")
MAX_ROW_ID = 2**63 - 1  # SQLite's largest integer: a bigger number names no chunk (and SQLite cannot take it)
_WS = re.compile(r"\s+")


class SummaryError(NotFound):
    """An unknown or hidden summary id, or a missing pattern; the message says which."""


def estimate_tokens(text: str) -> int:
    """A rough token count: one token per four characters."""
    return math.ceil(len(text) / 4)


def summary_id(chunk_id: int) -> str:
    """The public id of a summary: its chunk id, as in search results (`chunk:<id>`)."""
    return f"chunk:{chunk_id}"


def _hidden(row: sqlite3.Row, visibility: Visibility | None) -> bool:
    return bool(visibility and visibility.hides_row(row, key=row["session_key"]))


def _compile(pattern: str) -> Any:
    """A case-insensitive RE2 regex: linear-time matching, so no pattern can hang the server."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise InvalidPattern(f"pattern is too long ({len(pattern)} characters; at most {MAX_PATTERN_CHARS})")
    options = re2.Options()
    options.case_sensitive = False
    options.log_errors = False
    try:
        return re2.compile(pattern, options)
    except re2.error:
        pass
    try:
        re.compile(pattern)
    except re.error as exc:
        raise InvalidPattern(f"pattern {pattern!r} is not a valid regular expression: {exc}") from None
    raise InvalidPattern(
        f"pattern {pattern!r} uses a feature RE2 does not support (lookahead/lookbehind, backreferences, possessive "
        "or atomic groups) or is too large; memlens runs patterns on RE2 so that none can hang it"
    )


def _window(text: str, start: int, end: int, chars: int) -> str:
    """About `chars` characters of `text` (already redacted) around [start, end), whitespace flattened."""
    lead = max(0, start - chars // 3)
    stop = min(len(text), max(end, lead + chars))
    snippet = _WS.sub(" ", text[lead:stop]).strip()
    return ("…" if lead > 0 else "") + snippet + ("…" if stop < len(text) else "")


def grep_summaries(
    catalog: Catalog,
    pattern: str,
    limit: int = 20,
    visibility: Visibility | None = None,
    excerpt_chars: int = 240,
) -> SummariesGrepResponse:
    """Summaries whose redacted text matches `pattern` (a case-insensitive RE2 regex), newest first.

    The pattern runs on the redacted text, so it can neither find nor probe a secret, and the excerpt is cut
    from the redacted text, so no part of a secret survives the cut.
    """
    if not isinstance(pattern, str) or not pattern.strip():
        raise SummaryError("pattern is required")
    regex = _compile(pattern)
    limit = max(1, min(int(limit), MAX_GREP))
    results: list[SummaryHit] = []
    total = 0
    for row in catalog.summary_units():
        if _hidden(row, visibility):
            continue
        text = redact(row["text"])
        match = regex.search(text)
        if match is None:
            continue
        total += 1
        if len(results) < limit:
            results.append(
                {
                    "summaryId": summary_id(row["chunk_id"]),
                    "sessionKey": row["session_key"],
                    "format": row["format"],
                    "messageId": row["message_id"],
                    "timestamp": iso(row["ts"]),
                    "excerpt": _window(text, match.start(), match.end(), excerpt_chars),
                }
            )
    return {"pattern": pattern, "results": results, "totalMatches": total, "truncated": total > len(results)}


def _summary_row(catalog: Catalog, summary_ref: str, visibility: Visibility | None) -> sqlite3.Row:
    if not isinstance(summary_ref, str) or not summary_ref:
        raise SummaryError("summaryId is required (e.g. 'chunk:42', from memlens.summaries.grep or a search hit)")
    match = _ID.fullmatch(summary_ref.strip())
    if match is None:
        raise SummaryError(f"summaryId {summary_ref!r} is not of the form 'chunk:<number>'")
    chunk_id = int(match.group(1))
    row = catalog.summary_unit(chunk_id) if chunk_id <= MAX_ROW_ID else None
    if row is None or _hidden(row, visibility):
        raise SummaryError(f"unknown summary {summary_ref!r}")
    return row


def _covered(catalog: Catalog, row: sqlite3.Row) -> list[dict[str, Any]]:
    """The session's messages between the previous summary (exclusive) and this one (exclusive), oldest first: a
    message stored in parts (each unit after its first, `part` > 0) is one, its texts joined as `memlens history`
    joins them, so `covers` counts it once, as `expand` lists it."""
    messages: list[dict[str, Any]] = []
    for unit in catalog.messages_before_summary(str(row["session_key"]), int(row["seq"])):
        if unit["part"] and messages and messages[-1]["message_id"] == unit["message_id"]:
            messages[-1]["text"] += "\n" + unit["text"]
        else:
            messages.append(dict(zip(unit.keys(), unit, strict=True)))
    return messages


def _message(unit: Mapping[str, Any], text: str | None = None) -> SummaryMessage:
    return {
        "messageId": unit["message_id"],
        "role": unit["role"],
        "timestamp": iso(unit["ts"]),
        "text": redact(unit["text"] if text is None else text),
        "position": unit["position"],
    }


def _header(row: sqlite3.Row) -> SummaryHeader:
    return {
        "summaryId": summary_id(row["chunk_id"]),
        "sessionKey": row["session_key"],
        "sessionId": row["session_id"],
        "format": row["format"],
        "messageId": row["message_id"],
        "timestamp": iso(row["ts"]),
    }


def describe_summary(catalog: Catalog, summary_ref: str, visibility: Visibility | None = None) -> SummaryDescription:
    """A summary's text, session and the span of messages it covers (back to the previous summary)."""
    row = _summary_row(catalog, summary_ref, visibility)
    covered = _covered(catalog, row)
    times = [u["ts"] for u in covered if u["ts"] is not None]
    text = redact(row["text"])
    return {
        **_header(row),
        "text": text,
        "tokens": estimate_tokens(text),
        "covers": {
            # what expand lists: the messages and the tool outputs between them, as the summary replaced them
            "messageCount": len(covered),
            "firstMessageId": covered[0]["message_id"] if covered else None,
            "lastMessageId": covered[-1]["message_id"] if covered else None,
            "from": iso(min(times)) if times else None,
            "to": iso(max(times)) if times else None,
            "tokens": sum(estimate_tokens(u["text"]) for u in covered),
        },
    }


def expand_summary(
    catalog: Catalog,
    summary_ref: str,
    token_budget: int = DEFAULT_EXPAND_BUDGET,
    visibility: Visibility | None = None,
) -> SummariesExpandResponse:
    """The raw messages a summary covers, chosen newest-first into `token_budget`, listed oldest first."""
    row = _summary_row(catalog, summary_ref, visibility)
    budget = max(1, int(token_budget))
    covered = _covered(catalog, row)
    chosen: list[SummaryMessage] = []
    used = 0
    for unit in reversed(covered):
        cost = estimate_tokens(unit["text"])
        if used + cost > budget:
            if not chosen:  # the newest message alone is too long: keep its start
                start = redact(unit["text"])[: budget * 4].rstrip() + "…"  # redact the whole text, then cut
                chosen.append({**_message(unit, start), "truncated": True})
                used = budget
            break
        chosen.append(_message(unit))
        used += cost
    chosen.reverse()
    return {
        **_header(row),
        "tokenBudget": budget,
        "tokens": used,
        "messages": chosen,
        "totalMessages": len(covered),
        "omittedMessages": len(covered) - len(chosen),
        "truncated": len(chosen) < len(covered) or any(m.get("truncated") for m in chosen),
    }
