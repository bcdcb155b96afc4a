"""Answers as an agent reads them: short text with the ids it needs for the next call, and a size bound.

Why it exists: MCP answers carry two faces, `content` (text the model reads) and `structuredContent` (JSON for
programs). JSON is a poor read for a model (keys repeat, ids drown the substance), so each tool gets a compact
text rendering here that keeps what the next call needs (sessionKey, messageId, summaryId, resumeCommand) and the
substance. Both faces are bounded by `search.maxResponseChars`, each alone: a client hands its model one face, not
both (docs/mcp.md), so a budget shared by the two would halve what a model reads. Lists are cut (each losing what
matters least first), then long texts are shortened, and the answer says so (`truncated: true`). Nothing here
redacts: the engine already has.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from memlens.counted import counted
from memlens.requests import ambiguous_date_note, event_day_note, left_out_note, unread_date_note

MIN_RESPONSE_CHARS = 1000  # an answer must at least fit its own error or a single hit
_LIST_KEYS = ("results", "messages", "sessions", "items", "fileErrors")
# never shortened: a client uses these verbatim in its next call
_EXACT_KEYS = frozenset(
    {
        "id",
        "sessionKey",
        "sessionId",
        "reference",
        "parentSessionKey",
        "messageId",
        "summaryId",
        "path",
        "relPath",
        "cwd",
        "resumeCommand",
        "nextCursor",
        "anchor",
        "timestamp",
        "format",
        "kind",
        "role",
    }
)
_CUT = "…"


def size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False))


def bound(data: dict[str, Any], max_chars: int) -> dict[str, Any]:
    """`data` cut to at most `max_chars` characters of JSON; `truncated: true` when anything was left out, and
    `cutToFit` says how many items of which list (each list loses first what matters least: `_least_needed`)."""
    max_chars = max(max_chars, MIN_RESPONSE_CHARS)
    if size(data) <= max_chars:
        return data
    data = copy.deepcopy(data)
    data["truncated"] = True
    cut: dict[str, int] = {}
    for key in _LIST_KEYS:
        items = data.get(key)
        if isinstance(items, list):
            while len(items) > 1 and size(data) > max_chars:
                index = _least_needed(data, key, items)
                items.pop(index)
                cut[key] = cut.get(key, 0) + 1
                _more_on_its_side(data, key, index)
            if key in cut:
                data["cutToFit"] = cut
    if size(data) <= max_chars:
        return data
    shortened = _longest_texts_that_fit(data, max_chars)
    if shortened is None:  # only exact fields are left, and too many of them
        return {"truncated": True, "note": f"the answer does not fit in maxResponseChars ({max_chars})"}
    return shortened


MIN_TEXT_CHARS = 20


def _longest_texts_that_fit(data: dict[str, Any], max_chars: int) -> dict[str, Any] | None:
    """`data` with every text longer than the largest cap that makes it fit cut to that cap (`textsCutTo` says it),
    or None when even MIN_TEXT_CHARS does not. The cap is searched for (a few dozen passes over an answer already
    cut to one item per list): a fixed cap cut the one long message `history {messageId, limit: 1}` promises whole
    to 4,000 characters of an allowed 64,000."""
    low, high, best = MIN_TEXT_CHARS, max_chars, None
    while low <= high:
        cap = (low + high) // 2
        trial = _shorten(data, cap, None)
        trial["textsCutTo"] = cap
        if size(trial) <= max_chars:
            best, low = trial, cap + 1
        else:
            high = cap - 1
    return best


def _least_needed(data: dict[str, Any], key: str, items: list[Any]) -> int:
    """The index of the item to leave out next. Ranked lists (hits, sessions, items) lose their last. Messages are in
    time order: a window around a message (`anchor`) loses the one farthest from it, the earlier on a tie (the asked
    message stays, and what followed it), and a window without one (a session's end, a summary's span kept newest
    first) loses its oldest."""
    if key != "messages":
        return len(items) - 1
    anchor = data.get("anchor")
    at = next((n for n, item in enumerate(items) if anchor and item.get("messageId") == anchor), None)
    if at is None:
        return 0
    return len(items) - 1 if len(items) - 1 - at > at else 0


def _more_on_its_side(data: dict[str, Any], key: str, index: int) -> None:
    """A history window that lost a message at one end says there is more on that side, so it can be paged to."""
    if key == "messages" and "hasMoreBefore" in data:
        data["hasMoreBefore" if index == 0 else "hasMoreAfter"] = True


def _shorten(value: Any, cap: int, key: str | None) -> Any:
    if isinstance(value, str):
        return value if key in _EXACT_KEYS or len(value) <= cap else value[:cap] + _CUT
    if isinstance(value, dict):
        return {k: _shorten(v, cap, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_shorten(v, cap, key) for v in value]
    return value


def clip(text: str, max_chars: int) -> str:
    max_chars = max(max_chars, MIN_RESPONSE_CHARS)
    if len(text) <= max_chars:
        return text
    note = "\n… (cut to fit maxResponseChars)"
    return text[: max_chars - len(note)] + note


# -- text renderings ---------------------------------------------------------------------------------------------


ECHO_CHARS = 160
"""Of a query, an error or a pattern said back in an answer's first line: the asker has it whole already, and a
pasted traceback said back whole pushed the hits below thousands of characters of its own text."""


def _echo(text: str | None) -> str:
    """`text` on one line, cut to ECHO_CHARS (the cut said by `…`)."""
    line = " ".join((text or "").split())
    return line if len(line) <= ECHO_CHARS else line[: ECHO_CHARS - 1].rstrip() + _CUT


def _when(value: str | None) -> str:
    return (value or "").replace("T", " ").replace("Z", "")[:16] or "?"


def _indent(text: str, prefix: str = "   ") -> str:
    return "\n".join(prefix + line for line in (text or "").splitlines() or [""])


FIRST_BUILD = (
    "the index is still being built for the first time: most past sessions are not searchable yet; ask again once "
    "`stats` says indexing false"
)


def _status(data: dict[str, Any]) -> list[str]:
    lines = []
    if data.get("firstIndexing"):
        lines.append(f"({FIRST_BUILD})")
    elif data.get("indexing"):
        lines.append("(indexing is still running: the newest text may be missing)")
    if data.get("cutToFit"):
        left = ", ".join(f"{count} {key}" for key, count in data["cutToFit"].items())
        lines.append(f"({left} left out to fit maxResponseChars)")
    if data.get("textsCutTo"):
        lines.append(f"(texts longer than {data['textsCutTo']:,} characters cut to fit maxResponseChars, ending in …)")
    return lines


def _left_out(data: dict[str, Any], what: str) -> list[str]:
    """The note that a long query's or error's start was not read, in parentheses as the other status lines."""
    left_out = data.get("leftOut")
    return [f"({left_out_note(left_out, what)})"] if left_out else []


def _session_line(hit: dict[str, Any], resume: str | None) -> str:
    parts = [f"sessionKey {hit['sessionKey']}" if hit.get("sessionKey") else "no session (read its file)"]
    if hit.get("messageId"):
        parts.append(f"messageId {hit['messageId']}")
    if resume:
        parts.append(f"resume: {resume}")
    return " · ".join(parts)


def render_search(data: dict[str, Any]) -> str:
    results = data.get("results", [])
    found = counted(len(results), "result")
    head = f'{found} for "{_echo(data.get("query"))}" ({data.get("mode")}, {data.get("searchTimeMs")} ms)'
    lines = [head, *_status(data), *_left_out(data, "query")]
    lines += [f"({line})" for line in data.get("emptyIndex", {}).get("lines", [])]  # nothing searched: why
    lines += [f"({unread_date_note(unread)})" for unread in data.get("unreadDates", [])]
    lines += [f"({ambiguous_date_note(ambiguous)})" for ambiguous in data.get("ambiguousDates", [])]
    if data.get("note"):
        lines.append(f"note: {data['note']}")
    labels = data.get("sessionTitles") or {}
    named: dict[str, int] = {}  # session key -> the hit that named it: its title and resume command are said once
    for n, hit in enumerate(results, 1):
        score = f"[{hit['confidence']}]" if hit.get("confidence") else f"[{hit.get('score', 0):.2f}]"
        if hit.get("kind") == "memory":
            where = f"{hit.get('relPath')}"
            if hit.get("lineStart") is not None and hit.get("lineEnd") is not None:  # null: no line numbers known
                where += f":{hit['lineStart']}-{hit['lineEnd']}"
            heading = f" — {hit['heading']}" if hit.get("heading") else ""
            lines.append(f"\n{n}. {score} memory {where}{heading}")
        else:
            kind = f" {hit['kind']}" if hit.get("kind") in ("summary", "tool") else ""
            key = hit.get("sessionKey")
            label = labels.get(key) or {"title": hit.get("title"), "resumeCommand": hit.get("resumeCommand")}
            first = key not in named
            if key and first:
                named[key] = n
            title = f' "{label["title"]}"' if first and label.get("title") else ""
            same = f" (session of hit {named[key]})" if key and not first else ""
            lines.append(
                f"\n{n}. {score} {hit.get('format')}{kind}{title}{same} · {_when(hit.get('timestamp'))} · "
                f"{hit.get('role') or 'message'}"
            )
            lines.append(f"   {_session_line(hit, label.get('resumeCommand') if first else None)}")
            if hit.get("kind") == "summary":
                lines.append(f"   summaryId {hit.get('id')}")
        if hit.get("publisher"):  # a team index's hit: history cannot read it from this machine's index
            lines.append(f"   team: {hit['publisher']} · project {hit.get('project')}")
        lines.append(_indent(hit.get("excerpt", "")))
    if data.get("period"):
        period = data["period"]
        parts = period.get("parts") or [period]
        days = " and ".join(f"from {part['since']} to {part['until']}" for part in parts)
        lines.insert(1, f"Sessions {days} ({period['timeZone']}).")
        events = [period[end] for end in ("event", "endEvent") if period.get(end)]  # counted from one, or between
        for at, event in enumerate(events, start=2):  # the day each was taken to be, and why
            said = event_day_note(event)
            lines.insert(at, f"{said[0].upper()}{said[1:]}.")
        if not results and "sessionsWritten" not in period:  # with it, the note says what the period held
            lines.insert(2, _nearest_sentence(period))
    if data.get("withheld"):
        lines.append(
            f"\n{data['withheld']} weaker matches withheld (too unsure to show); ask again with minScore 0 to see them."
        )
    if results:
        lines.append("\nRead around a hit: history {sessionKey, messageId}.")
    return "\n".join(lines)


def _nearest_sentence(period: dict[str, Any]) -> str:
    """What an agent can ask next about a period that held nothing: when the nearest messages were written."""
    sides = [
        f"the last before it is from {period['nearestBefore']}" if period.get("nearestBefore") else "",
        f"the first after it is from {period['nearestAfter']}" if period.get("nearestAfter") else "",
    ]
    found = " and ".join(side for side in sides if side)
    return (
        f"Nothing was written in that period; {found}." if found else "Nothing was written then, nor before or after."
    )


def _message_lines(messages: list[dict[str, Any]], anchor: str | None = None) -> list[str]:
    lines = []
    for message in messages:
        marker = "▶" if anchor and message.get("messageId") == anchor else "-"
        label = message.get("kind") if message.get("kind") in ("summary", "tool") else message.get("role")
        cut = " (truncated)" if message.get("truncated") else ""
        lines.append(f"{marker} [{message.get('messageId')}] {label} · {_when(message.get('timestamp'))}{cut}")
        lines.append(_indent(message.get("text", ""), "  "))
    return lines


def render_history(data: dict[str, Any]) -> str:
    lines = [f'{data.get("format")} session "{data.get("title")}"', f"sessionKey {data.get('sessionKey')}"]
    if data.get("resumeCommand"):
        lines.append(f"resume: {data['resumeCommand']}")
    if data.get("parentSessionKey"):
        lines.append(f"subagent of {data['parentSessionKey']}")
    lines += _status(data)
    if data.get("hasMoreBefore"):
        lines.append("… earlier messages exist")
    lines += _message_lines(data.get("messages", []), data.get("anchor"))
    if data.get("hasMoreAfter"):
        lines.append("… later messages exist")
    return "\n".join(lines)


def render_sessions(data: dict[str, Any]) -> str:
    sessions = data.get("sessions", [])
    total = data.get("totalSessions")
    lines = [f"{len(sessions)} of {counted(total, 'session')}, newest first", *_status(data)]
    if data.get("note"):
        lines.append(f"note: {data['note']}")
    for s in sessions:
        lines.append(
            f'\n- "{s.get("title")}" · {s.get("format")} · {_when(s.get("firstTime"))} → '
            f"{_when(s.get('lastTime'))} · {counted(s.get('messageCount'), 'message')}"
        )
        lines.append(f"  sessionKey {s.get('sessionKey')}" + (f" · in {s['cwd']}" if s.get("cwd") else ""))
        if s.get("parentSessionKey"):
            lines.append(f"  subagent of {s['parentSessionKey']}")
        files = s.get("filesTouched") or []
        if files:
            shown = ", ".join(f["path"] + ("*" if f.get("edited") else "") for f in files[:8])
            more = s.get("filesTouchedTotal", len(files)) - min(len(files), 8)
            lines.append(f"  files (* edited): {shown}" + (f" and {more} more" if more > 0 else ""))
        tools = s.get("toolsUsed") or []
        if tools:
            lines.append("  tools: " + ", ".join(f"{t['name']}×{t['count']}" for t in tools[:10]))
        if s.get("resumeCommand"):
            lines.append(f"  resume: {s['resumeCommand']}")
    if data.get("nextCursor"):
        lines.append(f'\nMore: sessions {{cursor: "{data["nextCursor"]}"}}')
    return "\n".join(lines)


def render_grep(data: dict[str, Any]) -> str:
    results = data.get("results", [])
    matched = counted(data.get("totalMatches"), "summary", "summaries")
    es = "es" if data.get("totalMatches") == 1 else ""
    lines = [f"{matched} match{es} /{_echo(data.get('pattern'))}/", *_status(data)]
    for hit in results:
        lines.append(f"\n- summaryId {hit.get('summaryId')} · {hit.get('format')} · {_when(hit.get('timestamp'))}")
        lines.append(f"  sessionKey {hit.get('sessionKey')}")
        lines.append(_indent(hit.get("excerpt", ""), "  "))
    if data.get("totalMatches", 0) > len(results):
        lines.append(f"\n({data['totalMatches'] - len(results)} more; raise limit)")
    return "\n".join(lines)


def render_describe(data: dict[str, Any]) -> str:
    covers = data.get("covers") or {}
    lines = [
        f"summary {data.get('summaryId')} · {data.get('format')} · {_when(data.get('timestamp'))} · "
        f"{counted(data.get('tokens'), 'token')}",
        f"sessionKey {data.get('sessionKey')} · messageId {data.get('messageId')}",
        f"covers {counted(covers.get('messageCount', 0), 'message')} "
        f"({counted(covers.get('tokens', 0), 'token')}) from "
        f"{_when(covers.get('from'))} to {_when(covers.get('to'))}: {covers.get('firstMessageId')} … "
        f"{covers.get('lastMessageId')}",
        *_status(data),
        "",
        data.get("text", ""),
    ]
    return "\n".join(lines)


def render_expand(data: dict[str, Any]) -> str:
    lines = [
        f"summary {data.get('summaryId')}: {len(data.get('messages', []))} of "
        f"{counted(data.get('totalMessages'), 'message')} "
        f"({data.get('tokens')} of {data.get('tokenBudget')} tokens; {data.get('omittedMessages')} older left out)",
        f"sessionKey {data.get('sessionKey')}",
        *_status(data),
        *_message_lines(data.get("messages", [])),
    ]
    return "\n".join(lines)


def render_context(data: dict[str, Any]) -> str:
    items = counted(len(data.get("items", [])), "item")
    head = f"{items}, {data.get('tokens')} of {counted(data.get('tokenBudget'), 'token')}"
    if data.get("tokenBudgetAsked"):
        head += f" (tokenBudget {data['tokenBudgetAsked']:,} is more than maxResponseChars holds)"
    return "\n".join([head, *_status(data), "", data.get("markdown", "")])


def _read_files(data: dict[str, Any]) -> dict[str, int]:
    """Files per format; those of no format (the catalog's "") are said on their own line (filesUnrecognised)."""
    return {name: count for name, count in (data.get("files") or {}).items() if name}


def _per_format(counts: dict[str, int]) -> str:
    """`claude-code 11, codex 3` as the CLI's stats say them (no JSON in a text an agent reads), `none` for none."""
    return ", ".join(f"{name} {count:,}" for name, count in sorted(counts.items())) or "none"


def render_stats(data: dict[str, Any]) -> str:
    lines = [
        f"{counted(data.get('sessions'), 'session')} · {counted(data.get('totalChunks'), 'chunk')} "
        f"({data.get('chunksWithEmbeddings')} with vectors) · provider {data.get('provider')}",
        f"files: {_per_format(_read_files(data))} · messages: {_per_format(data.get('messages') or {})}",
        f"last sync {data.get('lastSync')} · indexing {str(bool(data.get('indexing'))).lower()} · "
        f"read-only {str(bool(data.get('readOnly'))).lower()}"
        + (f" ({data['readOnlyReason']})" if data.get("readOnlyReason") else ""),
    ]
    if data.get("firstIndexing"):
        lines.append(FIRST_BUILD)
    if data.get("badLines") or data.get("filesWithErrors"):
        bad, failed = counted(data.get("badLines"), "bad line"), counted(data.get("filesWithErrors"), "file")
        lines.append(f"{bad} skipped, {failed} with problems")
    if data.get("replaced"):
        lines.append(f"{counted(data['replaced'], 'invalid byte')} read as U+FFFD (their messages are kept)")
    if data.get("filesUnrecognised"):
        lines.append(
            f"{counted(data['filesUnrecognised'], 'file')} in no transcript format memlens reads (not searchable)"
        )
    if data.get("filesEmpty"):
        lines.append(f"{counted(data['filesEmpty'], 'transcript')} empty (nothing to read yet)")
    if data.get("filesNotIndexed"):
        lines.append(f"{counted(data['filesNotIndexed'], 'file')} not indexed yet: {data.get('notIndexedReason')}")
    if data.get("aliases"):
        lines.append(
            f"{counted(data['aliases'], 'other name')} of indexed files (hard links, symlinks) not indexed again"
        )
    if data.get("watcherErrors"):
        lines.append(f"{counted(data['watcherErrors'], 'change')} live indexing failed on (see the server's log)")
    if data.get("providerNote"):
        lines.append(f"note: {data['providerNote']}")
    return "\n".join(lines)


NO_FIXES = (
    "\nNone in past tools' output (test runs, builds, shell commands), and no note or message that quotes it says "
    "how it was fixed. An error someone pasted into a message is found by `search`."
)


def render_fixes(data: dict[str, Any]) -> str:
    fixes = data.get("fixes", [])
    lines = [
        f'{counted(len(fixes), "past occurrence")} of "{_echo(data.get("error"))}" (one per session)',
        *_status(data),
    ]
    lines += _left_out(data, "error")
    for n, fix in enumerate(fixes, 1):
        score = f"[{fix.get('score', 0):.2f}]"
        if fix.get("source") == "note":  # a note that quotes the error and says how it was fixed: no session
            where = f"{fix.get('relPath') or fix.get('path')}:{fix.get('lineStart') or 1}"
            lines.append(f"\n{n}. {score} note {where} says how it was fixed")
            lines.append(_indent(fix.get("text", "")))
            continue
        failed = "failed" if fix.get("error") else "output"
        kind = "message that says how it was fixed" if fix.get("source") == "message" else failed
        lines.append(f"\n{n}. {score} {fix.get('format')} {kind} · {_when(fix.get('timestamp'))}")
        lines.append(f"   {_session_line(fix, None)}")
        lines.append(_indent(fix.get("text", "")))
        lines.append("   what followed:" if fix.get("after") else "   (nothing followed it in the session)")
        lines += ["   " + line for line in _message_lines(fix.get("after", []))]
    if fixes:
        lines.append("\nRead further: history {sessionKey, messageId}.")
    else:
        lines.append(NO_FIXES)
    return "\n".join(lines)


RENDERERS: dict[str, Callable[[dict[str, Any]], str]] = {
    "search": render_search,
    "history": render_history,
    "sessions": render_sessions,
    "summaries_grep": render_grep,
    "summaries_describe": render_describe,
    "summaries_expand": render_expand,
    "context": render_context,
    "find_fixes": render_fixes,
    "stats": render_stats,
}


def render(tool: str, data: dict[str, Any]) -> str:
    return RENDERERS[tool](data)
