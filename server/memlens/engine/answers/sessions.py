"""Sessions as first-class things: pages of sessions (title, project, times, files touched, tools used, the command
that resumes each), and the resolution of a bare session id or a unique prefix to a session key.

Why it exists: an agent recalling its past thinks in sessions ("the one where we fixed the DLQ", "resume it"), not
in chunks. Titles are computed here at query time from what the catalog already holds (a Claude Code `summary`
line, else the first real request: session_titles, else the parser's title), so no parser has to change and an
existing index shows the same titles as a new one; the SQL stays in the catalog.
Visibility (scope, excludeSessions, exclude globs) is applied to every session before anything else looks at it, so
a hidden session is never listed, counted, resolved or named as a candidate.
"""

from __future__ import annotations

import base64
import binascii
import re
import shlex
import sqlite3
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, tzinfo
from typing import NotRequired, TypedDict

from memlens.engine.answers.masked_references import MARKER, MASKED_PREFIX, masked_or_none, shown_as
from memlens.engine.answers.projects import in_project, project_name, unknown_project_note
from memlens.engine.answers.references import chosen_session, session_reference, sessions_named_by_rest
from memlens.engine.answers.results import iso
from memlens.engine.answers.session_titles import one_line, request_title, task_title
from memlens.engine.answers.visibility import Visibility
from memlens.engine.catalog import Catalog
from memlens.engine.file_names import escape_name
from memlens.errors import InvalidRequest, NotFound
from memlens.redaction import redact
from memlens.requests import DEFAULT_SESSIONS as DEFAULT_LIMIT
from memlens.requests import SessionsRequest, checked, parse_time
from memlens.wire import FileTouched, HistoryResponse, SearchResult, SessionSummary, ToolUse

FIRST_LOOK = 2  # user messages read for a title first, and then for the sessions still without one
LATER_LOOK = 10
MAX_FILES = 25  # files listed per session (filesTouchedTotal counts them all)
MAX_TOOLS = 25
MIN_PREFIX = 4  # a shorter prefix would match half the index
CANDIDATES_SHOWN = 5

# `[Name] input` lines, as the parsers render tool calls (sources.common.render_tool_call).
_TOOL_LINE = re.compile(r"^\[([A-Za-z_][\w.:-]{0,63})\](?: (.*))?$", re.MULTILINE)
_FILE_ARG = re.compile(r"(?:^|\s)(?:file_path|notebook_path|filePath|target_file)=(\S+)")
_PATH_ARG = re.compile(r"(?:^|\s)path=(\S+)")
_PATCH_FILE = re.compile(r"\*\*\* (Update|Add|Delete) File: (\S+)")
_BACKTICK_PATH = re.compile(r"^`([^`\s]+)`")  # SpecStory: "[Read] `./src/x.py`"
_FILE_TOOLS = frozenset({"read", "write", "edit", "multiedit", "notebookedit", "view", "create", "read_file"})
_EDIT_TOOLS = frozenset(
    {"write", "edit", "multiedit", "notebookedit", "create", "apply_patch", "str_replace", "write_file", "edit_file"}
)


def resume_command(fmt: str, session_id: str | None, cwd: str | None) -> str | None:
    """The shell command that reopens a session in its agent, as the agents' CLIs spell it: Claude Code resumes
    only from the session's own folder (`cd <cwd> && claude --resume <id>`), Codex with `codex resume <id>`.
    OpenClaw and SpecStory document none. A subagent shares its parent's session id, so this resumes the parent."""
    if not session_id:
        return None
    if fmt == "claude-code":
        command = f"claude --resume {shlex.quote(session_id)}"
    elif fmt == "codex":
        command = f"codex resume {shlex.quote(session_id)}"
    else:
        return None
    return f"cd {shlex.quote(cwd)} && {command}" if cwd else command


def titles(catalog: Catalog, rows: Sequence[sqlite3.Row]) -> dict[str, str]:
    """A title for every session (session_titles): a Claude Code `summary` line when it is a real request, else the
    first real request among the first user messages, else the parser's title (a SpecStory file name's slug) when it
    reads as one; a subagent by its task (its own first request, else the Task call that spawned it), never by its
    parent's file-name title."""
    found: dict[str, str] = {}
    claude = [str(r["key"]) for r in rows if r["format"] == "claude-code" and str(r["key"]) not in found]
    for key, text in catalog.short_summaries(claude).items():
        if title := request_title(text):
            found[key] = title
    for per_session in FIRST_LOOK, LATER_LOOK:  # most sessions say what they want at once: a second look is rare
        rest = [str(r["key"]) for r in rows if str(r["key"]) not in found]
        for key, texts in catalog.early_user_texts(rest, per_session=per_session).items():
            if title := next((t for text in texts if (t := request_title(text))), None):
                found[key] = title
    # the slug is cut short, lower-cased and stripped of punctuation: the request it was made from says more
    for row in rows:
        key = str(row["key"])
        if key not in found and row["parent_key"] is None and (title := request_title(row["title"])):
            found[key] = title
    for row in rows:
        key = str(row["key"])
        if key not in found and row["parent_key"] is not None:
            spawning = catalog.spawning_call_text(key, str(row["parent_key"]))
            if spawning is not None and (title := task_title(spawning)):
                found[key] = title
    orphans = [r for r in rows if str(r["key"]) not in found and r["parent_key"] is not None]
    if orphans:  # a subagent that shows no task (a compaction's): named after what its parent was about
        parents = [p for p in catalog.sessions(sorted({str(r["parent_key"]) for r in orphans})).values()]
        named = titles(catalog, [p for p in parents if p["parent_key"] is None])
        for row in orphans:
            if parent := named.get(str(row["parent_key"])):
                found[str(row["key"])] = one_line(f"subagent of: {parent}") or parent
    for row in rows:
        key, session_id = str(row["key"]), str(row["session_id"])
        found.setdefault(key, f"{row['format']} session {masked_or_none(key, session_id) or session_id[:8]}")
    return found


def visible_titles(catalog: Catalog, visibility: Visibility) -> dict[str, str]:
    """The title of every visible session, as `titles` gives it (what a publish sends to a team index)."""
    return titles(catalog, _visible(catalog, visibility))


class SessionLabel(TypedDict):
    """What search hits and history answers carry about their session."""

    title: str
    resumeCommand: str | None


def session_labels(catalog: Catalog, keys: Iterable[str]) -> dict[str, SessionLabel]:
    """`title` and `resumeCommand` for each of these sessions (search results and history carry them)."""
    rows = list(catalog.sessions(sorted(set(keys))).values())
    named = titles(catalog, rows)
    return {
        str(r["key"]): {
            "title": named[str(r["key"])],
            "resumeCommand": resume_command(r["format"], r["session_id"], r["cwd"]),
        }
        for r in rows
    }


def label_results(catalog: Catalog, results: list[SearchResult]) -> None:
    """Give transcript and summary hits their session's title and resume command (a hit whose session key is absent,
    null or empty has no session to label)."""
    keys = {key for r in results if (key := r.get("sessionKey"))}
    labels = session_labels(catalog, keys) if keys else {}
    for result in results:
        key = result.get("sessionKey")
        label = labels.get(key) if key else None
        if label is not None:
            result["title"] = label["title"]
            result["resumeCommand"] = label["resumeCommand"]


def label_history(catalog: Catalog, key: str, history: HistoryResponse) -> None:
    """Give a session's history its title and resume command (a session the catalog no longer holds has none)."""
    label = session_labels(catalog, [key]).get(key)
    if label is not None:
        history["title"] = label["title"]
        history["resumeCommand"] = label["resumeCommand"]


def _visible(catalog: Catalog, visibility: Visibility) -> list[sqlite3.Row]:
    return [r for r in catalog.all_sessions() if not visibility.hides_row(r)]


# -- files touched and tools used ----------------------------------------------------------------------------


def _clean_path(raw: str) -> str:
    return raw.strip("`'\",;)")


def tool_usage(texts: Iterable[str]) -> tuple[Counter[str], dict[str, list[int]]]:
    """Tool names counted, and per file path [times touched, times edited], from `[Name] input` lines."""
    tools: Counter[str] = Counter()
    files: dict[str, list[int]] = {}

    def touch(path: str, edited: bool) -> None:
        path = _clean_path(path)
        if not path or path.startswith("[REDACTED") or len(path) > 500:
            return
        entry = files.setdefault(path, [0, 0])
        entry[0] += 1
        entry[1] += int(edited)

    for text in texts:
        for match in _TOOL_LINE.finditer(text):
            name, body = match.group(1), match.group(2) or ""
            if name.upper().startswith("REDACTED"):
                continue
            tools[name] += 1
            lower = name.lower()
            edited = lower in _EDIT_TOOLS
            for arg in _FILE_ARG.findall(body):
                touch(arg, edited)
            if lower in _FILE_TOOLS:
                for arg in _PATH_ARG.findall(body):
                    touch(arg, edited)
                quoted = _BACKTICK_PATH.match(body)
                if quoted:
                    touch(quoted.group(1), edited)
            for _op, path in _PATCH_FILE.findall(body):
                touch(path, True)
    return tools, files


def tool_call_lines(texts: Iterable[str]) -> str:
    """The `[Name] input` lines of these texts, one a line: the tools a session used, with the files they touched
    and the commands they ran, without the prose around them."""
    return "\n".join(match.group(0) for text in texts for match in _TOOL_LINE.finditer(text))


class _Usage(TypedDict):
    filesTouched: list[FileTouched]
    filesTouchedTotal: int
    toolsUsed: list[ToolUse]


class SessionsPage(TypedDict):
    """A page of sessions; `Engine.sessions` adds `indexing` to make it a `wire.SessionsResponse`."""

    sessions: list[SessionSummary]
    totalSessions: int
    nextCursor: str | None
    note: NotRequired[str]  # a project filter no visible session worked in (projects.unknown_project_note)


def _usage_fields(catalog: Catalog, key: str) -> _Usage:
    tools, files = tool_usage(catalog.tool_call_texts(key))
    ranked = sorted(files.items(), key=lambda item: (-item[1][1], -item[1][0], item[0]))
    return {
        "filesTouched": [{"path": p, "count": c[0], "edited": c[1] > 0} for p, c in ranked[:MAX_FILES]],
        "filesTouchedTotal": len(files),
        "toolsUsed": [{"name": n, "count": c} for n, c in tools.most_common(MAX_TOOLS)],
    }


# -- listing --------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Entry:
    row: sqlite3.Row
    messages: int
    first: float | None
    last: float | None

    @property
    def key(self) -> str:
        return str(self.row["key"])

    def order(self) -> tuple[float, str]:
        return (-(self.last if self.last is not None else float("-inf")), self.key)


def _encode_cursor(entry: _Entry) -> str:
    raw = f"{entry.last!r}|{entry.key}"
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[float, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        last, key = raw.split("|", 1)
        value = None if last == "None" else float(last)
    except (ValueError, UnicodeDecodeError, binascii.Error):
        raise InvalidRequest(
            f"cursor {cursor!r} is not one this server gave (use nextCursor from the last page)"
        ) from None
    return (-(value if value is not None else float("-inf")), key)


def list_sessions(
    catalog: Catalog,
    visibility: Visibility,
    *,
    query: str | None = None,
    format: str | None = None,
    project: str | None = None,
    since: str | None = None,
    until: str | None = None,
    limit: int = DEFAULT_LIMIT,
    cursor: str | None = None,
    zone: tzinfo = UTC,
) -> SessionsPage:
    """Sessions newest first (by their last message), filtered, one page at a time. `query`: words that must all
    appear in a session's title, folder or key, or in its tool calls (the files it touched, the tools it used, the
    commands it ran). `since`/`until`'s day words (`yesterday`) are days of `zone`."""
    checked(
        SessionsRequest,
        query=query,
        format=format,
        project=project,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    )
    since_ts = parse_time(since, "since", zone=zone) if since else None
    until_ts = parse_time(until, "until", end_of_day=True, zone=zone) if until else None
    after = _decode_cursor(cursor) if cursor else None
    activity = catalog.session_activity()
    copies = catalog.copied_sessions()  # a whole copy of a session another file keeps: listed there, once
    entries: list[_Entry] = []
    for row in _visible(catalog, visibility):
        if row["key"] in copies:
            continue
        if format and row["format"] != format:
            continue
        if project and not in_project(row["cwd"], project):
            continue
        messages, first, last = activity.get(str(row["key"]), (0, None, None))
        if since_ts is not None and (last is None or last < since_ts):
            continue
        if until_ts is not None and (first is None or first > until_ts):
            continue
        entries.append(_Entry(row, messages, first, last))
    named: dict[str, str] = {}
    terms = (query or "").casefold().split()
    if terms:
        named = titles(catalog, [e.row for e in entries])

        def matches(entry: _Entry) -> bool:
            # the folder as shown (masked): matched raw, a query could find a secret in it piece by piece
            hay = " ".join((named[entry.key], redact(entry.row["cwd"] or ""), entry.key)).casefold()
            missing = [term for term in terms if term not in hay]
            if not missing:
                return True
            calls = tool_call_lines(catalog.tool_call_texts(entry.key)).casefold()
            return all(term in calls for term in missing)

        entries = [e for e in entries if matches(e)]
    entries.sort(key=_Entry.order)
    total = len(entries)
    if after is not None:
        entries = [e for e in entries if e.order() > after]
    page, more = entries[:limit], len(entries) > limit
    if not terms:
        named = titles(catalog, [e.row for e in page])
    sessions: list[SessionSummary] = []
    for entry in page:
        row = entry.row
        cwd = row["cwd"]
        sessions.append(
            {
                "sessionKey": entry.key,
                "sessionId": row["session_id"],
                "reference": session_reference(
                    catalog, entry.key, str(row["session_id"]), visibility, whole_timestamp=False
                ),
                "format": row["format"],
                "title": named[entry.key],
                "cwd": cwd,
                "project": project_name(cwd),
                "path": row["path"],
                "firstTime": iso(entry.first),
                "lastTime": iso(entry.last),
                "messageCount": entry.messages,
                **_usage_fields(catalog, entry.key),
                "parentSessionKey": row["parent_key"],
                "resumeCommand": resume_command(row["format"], row["session_id"], cwd),
            }
        )
    answer: SessionsPage = {
        "sessions": sessions,
        "totalSessions": total,
        "nextCursor": _encode_cursor(page[-1]) if more and page else None,
    }
    if project and not total and (said := unknown_project_note(catalog, project, visibility)):
        answer["note"] = said
    return answer


# -- resolving a session reference ---------------------------------------------------------------------------


def resolve_session(catalog: Catalog, ref: str, visibility: Visibility, *, message: str | None = None) -> str:
    """The key of the one visible session `ref` names: a session key, a bare session id, or a unique prefix of
    either. `message` (a message id or its prefix, as a search hit's reference `SESSION:MESSAGE` gives both) picks
    the one candidate holding it; else a main session wins over its subagents (they share its id). Hidden sessions
    are never candidates."""
    if not isinstance(ref, str) or not ref.strip():
        raise InvalidRequest("a session is required (a session key, a session id, or a unique prefix of one)")
    ref = ref.strip()
    if not ref.isprintable():  # raw bytes of a file name (a shell passes them as typed): keys hold them escaped
        ref = escape_name(ref)
    exact = catalog.session(ref)
    if exact is not None and not visibility.hides_row(exact):
        return ref
    rows = _visible(catalog, visibility)
    candidates = [r for r in rows if r["session_id"] == ref] or sessions_named_by_rest(rows, ref)
    if not candidates and ref.startswith(MASKED_PREFIX):  # the reference of a session whose id holds a secret
        candidates = [r for r in rows if masked_or_none(str(r["key"]), str(r["session_id"])) == ref]
    if not candidates and MARKER.search(ref):  # a key as an answer showed it, its secret masked
        candidates = [r for r in rows if shown_as(str(r["key"]), ref)]
    if not candidates:
        if len(ref) < MIN_PREFIX:
            raise NotFound(f"unknown session '{ref}' (a prefix needs at least {MIN_PREFIX} characters)")
        candidates = [
            r
            for r in rows
            if str(r["session_id"]).startswith(ref)
            or str(r["key"]).startswith(ref)
            or str(r["key"]).split(":", 1)[-1].startswith(ref)
        ]
    if not candidates:
        raise NotFound(f"unknown session '{ref}'")
    chosen = chosen_session(catalog, candidates, message)
    if chosen is not None:
        return str(chosen["key"])
    shown_rows = candidates[:CANDIDATES_SHOWN]
    named = titles(catalog, shown_rows)
    # with the message, each candidate as the whole reference that opens it (its key is always accepted)
    suffix = f":{message}" if message else ""
    # a key holding a secret is shown masked, so such a session is named by its masked reference, which opens
    shown = "; ".join(
        f"{masked_or_none(str(r['key']), str(r['session_id'])) or r['key']}{suffix} ({named[str(r['key'])]})"
        for r in shown_rows
    )
    more = f" and {len(candidates) - CANDIDATES_SHOWN} more" if len(candidates) > CANDIDATES_SHOWN else ""
    raise InvalidRequest(
        f"session '{ref}' is ambiguous: it matches {len(candidates)} sessions: {shown}{more}; give more of the id"
        " or one of these keys"
    )
