"""What the command line prints for people (JSON is printed as the engine answers it): results, history, sessions,
index stats, sync reports and a progress bar on a terminal's stderr."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from datetime import tzinfo
from typing import TYPE_CHECKING

from memlens.cli.answer_notes import answer_notes
from memlens.cli.clock import local_time
from memlens.cli.hits import hit_lines, short_session_id, sureness
from memlens.cli.nothing_found import say_empty_index, say_nothing_found
from memlens.cli.terminal import Style, cells, clip, clip_styled, column, folded, width
from memlens.counted import counted
from memlens.engine.answers.speaker import speaker
from memlens.engine.sources.common import REPLACED_REASON
from memlens.wire import (
    HistoryResponse,
    SearchResponse,
    SearchResult,
    SessionsResponse,
    SourceFolder,
    SourcesResponse,
    StatsResponse,
)
from memlens.wire.team import PublishResponse, TeamSessionsResponse

if TYPE_CHECKING:
    from memlens.engine.indexing.indexer import SyncReport


def print_json(answer: object) -> None:
    """An answer as one line of JSON: characters as they are on a UTF-8 output, else escaped (`\\u00e9`), which a
    JSON reader turns back into the same text, where a Latin-1 or ASCII output would have replaced them by `?`."""
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    print(json.dumps(answer, ensure_ascii=encoding != "utf8"))


PROGRESS_COLUMNS = 79  # the whole line, bar and message: less than an 80-column terminal, which never wraps it
BAR_CELLS = 20


class ProgressBar:
    """A one-line progress bar on a terminal's stderr (the job's message beside it: counts, rate, time left);
    silent when stderr is not a terminal, or not `enabled` (`--quiet`)."""

    def __init__(self, *, enabled: bool = True) -> None:
        self.enabled = enabled and sys.stderr.isatty()

    def __call__(self, done: int, total: int, message: str) -> None:
        if not self.enabled or total <= 0:
            return
        sys.stderr.write("\r" + progress_line(done, total, message))
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * PROGRESS_COLUMNS + "\r")


def progress_line(done: int, total: int, message: str) -> str:
    """`[#####...............] message`, padded (to overwrite a longer line before it) to PROGRESS_COLUMNS."""
    filled = min(BAR_CELLS, int(BAR_CELLS * done / total)) if total > 0 else 0
    room = PROGRESS_COLUMNS - BAR_CELLS - 3
    return f"[{'#' * filled}{'.' * (BAR_CELLS - filled)}] {column(' '.join(message.split()), room)}"


def describe_sync(report: SyncReport, compact: bool = False) -> str:
    """One line per sync; `compact` (the watcher's) names only what happened."""
    counts = [
        (counted(report.files_seen, "file"), report.files_seen, False),
        (f"{report.files_parsed} parsed", report.files_parsed, False),
        (f"{report.files_appended} appended", report.files_appended, False),
        (f"{report.files_unchanged} unchanged", report.files_unchanged, False),
        (f"{report.files_deleted} removed", report.files_deleted, False),
        (counted(report.chunks_added, "chunk"), report.chunks_added, False),
        # in the chunks counted beside it and by `stats` (the texts embedded are the embedding's own count)
        (f"{counted(report.chunks_embedded, 'chunk')} embedded", report.chunks_embedded, False),
        # said only when there are any
        (f"{counted(report.bad_lines, 'bad line')} skipped", report.bad_lines, True),
        (f"{counted(report.files_failed, 'file')} unreadable", report.files_failed, True),
        (f"{counted(report.files_emptied, 'file')} emptied (messages removed)", report.files_emptied, True),
        (f"{counted(report.aliases, 'other name')} of a file (aliases, indexed once)", report.aliases, True),
    ]
    parts = [f"+{counted(report.messages_added, 'message')}"] + [
        part for part, n, when_any in counts if n or not (compact or when_any)
    ]
    if compact:
        parts = [p for p in parts if p != "+0 messages"] or ["nothing new"]
    return f"sync: {', '.join(parts)}, {report.seconds:.2f} s"


def result_header(result: SearchResult, zone: tzinfo | None = None) -> str:
    score = f"({sureness(result)})"
    if result["kind"] == "memory":
        return f"{result['relPath']}:{result.get('lineStart') or 1} {score}"
    when = local_time(result.get("timestamp"), zone)
    session = result.get("sessionId") or result.get("sessionKey") or "?"
    kind = " · summary" if result["kind"] == "summary" else ""
    return f"{result.get('format')} · {session} · {when} · {result.get('role') or 'message'}{kind} {score}"


def print_search(
    response: SearchResponse,
    explain: bool,
    *,
    warned: bool = False,
    long: bool = False,
    style: Style | None = None,
    columns: int | None = None,
    zone: tzinfo | None = None,
    fold: int = 0,
    narrowed: Sequence[str] = (),
    searched_in: str = "",
) -> None:
    """The human-readable results: each hit in at most three lines of the terminal's width (hits.py), or with
    `long` every detail (session key, message id, path, the whole excerpt), folded to `fold` cells (0: whole lines, as
    in a pipe). `warned`: the reason for keyword-only search was already on stderr. Times in `zone` (None: the
    machine's). No results: that and the answer's notes (`narrowed`: the filter flags to blame) on stderr.
    `searched_in`: the folders the command line named after the query, said in the summary line (or with "no
    results"), since a word read as a folder is a word the query no longer holds."""
    searched = f" in {searched_in}" if searched_in else ""
    team = response.get("team")
    said_of_period = "sessionsWritten" in response.get("period", {})  # said with the period, under the hits
    said_of_window = "emptyWindow" in response  # said under "no results", with the flags' names
    empty = "emptyIndex" in response  # an index that holds nothing: why it is keyword-only is beside the point
    if response.get("note") and not warned and not said_of_period and not said_of_window and not empty:
        print(f"memlens: {response['note']}", file=sys.stderr)
    elif team and not team["reachable"]:
        reason = team.get("reason", "")
        print(f"memlens: the team index was unreachable ({reason}); local results only", file=sys.stderr)
    room = columns or width()
    if not response["results"] and "emptyIndex" in response:  # no "no results for X": nothing was searched
        say_empty_index(response["emptyIndex"])
        return
    if not response["results"]:
        # a pasted traceback is many lines: said on one (the query read may be 4,000 characters)
        said = f"no results{searched} for {' '.join(response['query'].split())!r}"  # the folders first: never cut
        say_nothing_found(said, answer_notes(response, narrowed))
        return
    shown = style or Style(color=False)
    for result in response["results"]:
        if long:
            _print_long_hit(result, zone, fold)
        else:
            print("\n".join(hit_lines(result, response["query"], width=room, style=shown, zone=zone)))
        if explain and "explain" in result:
            print(f"  explain: {json.dumps(result['explain'])}")
    from_team = f" ({team['hits']} from the team index)" if team and team["reachable"] else ""
    count = response["totalResults"]
    head = f"{counted(count, 'result')}{searched}{from_team}"
    footer = f"{head} · {response['mode']} · {round(response['searchTimeMs'])} ms"
    # a note's reference is its path:line, for an editor; only a session's opens in history
    sessions_shown = any(result["kind"] != "memory" for result in response["results"])
    hint = " · memlens history REF" if sessions_shown and not long else ""
    if cells(footer + hint) <= room or cells(head) + 4 <= room:  # 4: room for " ·…" after what must stay whole
        print(shown.dim(clip(footer + hint, room)))
    else:  # the folders searched, whole: a path cut short would not say where
        print(shown.dim(folded(footer + hint, room)))


def _print_long_hit(result: SearchResult, zone: tzinfo | None, fold: int) -> None:
    print(folded(result_header(result, zone), fold))
    named = result.get("heading") if result["kind"] == "memory" else result.get("title")
    if named:  # the short form shows it, clipped: every detail includes it whole
        print(folded(f"  {'heading' if result['kind'] == 'memory' else 'title'}: {' '.join(named.split())}", fold))
    if result["kind"] != "memory":
        session, message = result.get("sessionKey") or "?", result.get("messageId") or "?"  # null: not known
        print(folded(f"  session {session} · message {message} · {result['relPath']}", fold, indent="    "))
    if "publisher" in result:
        print(folded(f"  team: {result['publisher']} · project {result.get('project', '?')}", fold, indent="    "))
    for line in result["excerpt"].splitlines() or [""]:
        print(folded(f"  {line}", fold, indent="  " + line[: len(line) - len(line.lstrip())]))
    print()


def print_history(
    history: HistoryResponse, zone: tzinfo | None = None, *, columns: int = 0, style: Style | None = None
) -> None:
    """The messages, each line folded at word boundaries to `columns` (0: whole lines, as in a pipe), a folded line's
    continuations under its own text (a code line's under its indentation); with a colouring `style` each message's
    header bold and the anchor's (the message a reference names) in the colour of a search hit's reference."""
    shown = style or Style(color=False)
    print(folded(f"{history['format']} · {history['sessionKey']} · {history['path']}", columns, indent="  "))
    if history.get("title"):
        print(folded(f"  title: {history['title']}", columns, indent="         "))
    if history.get("resumeCommand"):
        print(f"  resume: {history['resumeCommand']}")  # a command to copy: whole
    if history["hasMoreBefore"]:
        print("  …")
    for message in history["messages"]:
        marker = "▶ " if message["messageId"] == history["anchor"] else "  "
        when = local_time(message["timestamp"], zone, seconds=True)
        label = speaker(message["kind"], message["role"])
        header = f"{marker}[{message['messageId']}] {label} · {when}"
        anchored = message["messageId"] == history["anchor"]
        print(shown.reference(shown.title(header)) if anchored else shown.title(header))
        for line in message["text"].splitlines():
            under = "    " + line[: len(line) - len(line.lstrip())]
            print(folded(f"    {line}", columns, indent=under))
    if history["hasMoreAfter"]:
        print("  …")


def _one_line(text: str) -> str:
    """A table cell's text on one line (a tab or newline in a title or a folder's name would break the row)."""
    return " ".join(text.split())


# room for a session id's usual reference (8) and a subagent's or a copy's (`5b0e7d3c/a`, `258c7280/a8`, `e9fb405b~t`);
# a longer one shifts only its own row rather than widening every row
SESSION_COLUMN = 12


TITLE_ROOM = 16  # cells of a title worth keeping on a narrow terminal before a column beside it is dropped


def print_sessions(
    page: SessionsResponse,
    *,
    columns: int = 0,
    zone: tzinfo | None = None,
    nothing_notes: Sequence[str] = (),
    style: Style | None = None,
) -> None:
    """The sessions as a table, each row cut to `columns` cells (0: whole, as in a pipe), times in `zone`, in
    `style`'s colours as a search's hits (the reference to copy in a search's colour, the time dim). On a
    terminal too narrow for every column the message count, then the agent, then the project are left out, so
    that the session's reference (what `memlens history` opens) stays whole and some of its title shows. The page's
    note (a project no session worked in) goes to stderr, as a search's; so does an empty page's "no sessions", with
    `nothing_notes` under it (the flags that narrowed it)."""
    sessions = page["sessions"]
    if page.get("note"):
        print(f"memlens: {page['note']}", file=sys.stderr)
    if not sessions:
        say_nothing_found("no sessions", nothing_notes)
        return
    room = columns
    # each column as wide as what it holds on this page, in cells (the project at most 16): the title gets the rest
    projects = {s["sessionKey"]: _one_line(s["project"] or "-") for s in sessions}
    agent = max(len("AGENT"), *(cells(s["format"]) for s in sessions))
    count = max(len("MSGS"), *(len(str(s["messageCount"])) for s in sessions))
    project = min(16, max(len("PROJECT"), *(cells(shown) for shown in projects.values())))
    # the engine's reference, which opens the row's session alone (a subagent's: its id's prefix, then `/agent-…`)
    short = {s["sessionKey"]: s.get("reference") or short_session_id(s["sessionId"]) for s in sessions}
    ids = min(max(len("SESSION"), *(cells(shown) for shown in short.values())), SESSION_COLUMN)
    shown_columns = _sessions_columns(room, {"MSGS": count, "AGENT": agent, "PROJECT": project}, ids)
    header = "  ".join(
        [f"{'LAST ACTIVE':<16}"]
        + [f"{'AGENT':<{agent}}"] * ("AGENT" in shown_columns)
        + [f"{'MSGS':>{count}}"] * ("MSGS" in shown_columns)
        + [f"{'SESSION':<{ids}}"]
        + [f"{'PROJECT':<{project}}"] * ("PROJECT" in shown_columns)
        + ["TITLE"]
    )
    styled = style or Style(color=False)
    print(_table_line([(header, styled.title)], room))
    for s in sessions:
        when = local_time(s["lastTime"], zone)
        subagent = "↳ " if s["parentSessionKey"] else ""
        session = short[s["sessionKey"]]  # a longer one is never cut: it shifts only its own row
        middle = "  ".join(
            [column(s["format"], agent)] * ("AGENT" in shown_columns)
            + [f"{s['messageCount']:>{count}}"] * ("MSGS" in shown_columns)
        )
        after = "  ".join(
            [" " * (ids - cells(session))]
            + [column(projects[s["sessionKey"]], project)] * ("PROJECT" in shown_columns)
            + [f"{subagent}{_one_line(s['title'])}"]
        )
        pieces = [(f"{when:<16}", styled.dim), (f"  {middle}  " if middle else "  ", _plain)]
        pieces += [(session, styled.reference), (after, _plain)]
        print(_table_line(pieces, room))
    total = page["totalSessions"]
    shown = (
        f"{total:,} session{'s' * (total != 1)}"
        if len(sessions) == total
        else f"{len(sessions):,} of {total:,} sessions"
    )
    more = " (more: --json gives nextCursor for --cursor)" if page.get("nextCursor") else ""
    footer = f"{shown}{more}; `memlens history SESSION` reads one, `--json` adds files, tools and resume commands"
    print(folded(footer, room))  # room: a terminal's width, 0 in a pipe


def _plain(text: str) -> str:
    return text


def _table_line(pieces: Sequence[tuple[str, Callable[[str], str]]], room: int) -> str:
    """A table's row of styled pieces, cut to `room` cells (0: whole, as in a pipe)."""
    return clip_styled(pieces, room) if room else "".join(style(text) for text, style in pieces)


def _sessions_columns(room: int, optional: dict[str, int], ids: int) -> set[str]:
    """The optional columns (name: cells, least needed first) a sessions table of `room` cells has room for beside
    the time, the session's reference (`ids` cells, 0: none) and some of the title (0: every column, as in a
    pipe)."""
    kept = dict(optional)
    needed = 16 + 2 + (ids + 2 if ids else 0) + TITLE_ROOM
    while room and kept and needed + sum(width + 2 for width in kept.values()) > room:
        kept.pop(next(iter(kept)))
    return set(kept)


def print_stats(stats: StatsResponse, *, columns: int = 0) -> None:
    """The index's state as the editor's report words it (client/src/statsText.ts), as aligned text, each line folded
    to `columns` cells (0: whole, as in a pipe), a value's continuations under its column."""

    def say(line: str, indent: str = "    ") -> None:
        print(folded(line, columns, indent=indent))

    total = stats["totalChunks"]
    embedded = stats["chunksWithEmbeddings"]
    share = f" ({round(100 * embedded / total)}%)" if total else ""
    provider = stats["provider"] if stats["provider"] not in ("", "none") else "none (keyword search only)"
    last = (stats["lastSync"] or "never").replace("T", " ").replace("Z", " UTC")
    waiting = stats["filesNotIndexed"]
    rows = [
        ("chunks", f"{total:,}"),
        ("chunks with embeddings", f"{embedded:,}{share}"),
        ("chunks waiting for embeddings", f"{stats['chunksNeedingEmbeddings']:,}"),
        ("messages waiting to be indexed", f"{stats['pendingMessages']:,}"),
        ("sessions", f"{stats['sessions']:,}"),
        ("unreadable transcript lines", f"{stats['badLines']:,}"),
        ("invalid bytes read as U+FFFD", f"{stats['replaced']:,}"),
        ("orphaned messages", f"{stats['orphanedMessages']:,}"),
        ("files not indexed yet", f"{waiting:,}"),
        ("files with problems", f"{stats['filesWithErrors']:,}"),
        ("files in no format memlens reads", f"{stats['filesUnrecognised']:,}"),
        ("empty files (nothing to read yet)", f"{stats['filesEmpty']:,}"),
        ("other names of indexed files", f"{stats['aliases']:,}"),
        ("live indexing failures", f"{stats['watcherErrors']:,}"),
        ("embedding provider", provider),
        ("last sync", last),
        ("index folder", stats["indexDir"] + (f" (read-only: {stats['readOnlyReason']})" if stats["readOnly"] else "")),
    ]
    if waiting:
        files = counted(waiting, "file", grouped=True)
        say(f"memlens index: {files} not indexed: {stats['notIndexedReason']}", "  ")
    else:
        say("memlens index: " + _state(stats), "  ")
    width = max(cells(label) for label, _ in rows)
    for label, value in rows:
        say(f"  {column(label, width)}  {value}", " " * (width + 4))
    if stats.get("providerNote"):
        say(f"  ({stats['providerNote']})", "   ")
    for title, counts in (("files", _files_read_or_not(stats)), ("messages", stats["messages"])):
        named = sorted((name or "unrecognised", count) for name, count in counts.items())  # "": no parser read it
        listed = " · ".join(f"{name} {count:,}" for name, count in named) or "none"
        say(f"{title}: {listed}", "  ")
    if stats["fileErrors"]:
        print("files with problems:")
        for error in stats["fileErrors"]:
            skipped = error["badLines"]
            bad = f" · {counted(skipped, 'bad line', grouped=True)}" if skipped else ""
            bad += f" · {error['replaced']:,} invalid bytes replaced" if error["replaced"] else ""
            said = {f"{REPLACED_REASON} ({error['replaced']})"}  # the count just given, said again as a reason
            reasons = "; ".join(clip(" ".join(r.split()), 160) for r in error["reasons"] if r not in said)
            say(f"  {error['path']}{bad}{f' · {reasons}' if reasons else ''}")
    _list_files(
        "files in no format memlens reads (nothing of them is searchable):",
        stats["unrecognisedFiles"],
        stats["filesUnrecognised"],
        say=say,
    )
    _list_files(
        "empty files (nothing to read yet: no bytes, blank space or a first line begun):",
        stats["emptyFiles"],
        stats["filesEmpty"],
        say=say,
    )


def _list_files(heading: str, paths: list[str], total: int, *, say: Callable[[str], None]) -> None:
    """`heading` and the paths a stats answer lists under it (each through `say`, which folds it), then how many of
    `total` it left out; nothing when it lists none."""
    if not paths:
        return
    print(heading)
    for path in paths:
        say(f"  {path}")
    if total > len(paths):
        print(f"  … and {total - len(paths):,} more")


def _files_read_or_not(stats: StatsResponse) -> dict[str, int]:
    """The files by format, those of none parted into the ones no parser recognised, the empty ones and the ones
    that could not be read at all (a FIFO, a file without read permission): all are stored without a format."""
    counts = dict(stats["files"])
    blank = counts.pop("", 0)
    unrecognised = min(blank, int(stats["filesUnrecognised"]))
    empty = min(blank - unrecognised, int(stats["filesEmpty"]))
    if unrecognised:
        counts["unrecognised"] = unrecognised
    if empty:
        counts["empty"] = empty
    if blank > unrecognised + empty:
        counts["not read"] = blank - unrecognised - empty
    return counts


def _state(stats: StatsResponse) -> str:
    """The index's state in words that agree with the figures below them."""
    if stats["indexing"] and stats["readOnly"]:  # another process writes the index: it is at work on it
        return "indexing…"
    if stats["indexing"]:  # this process holds the writer and syncs nothing: stopped, or built without vectors
        return "not finished: what waits below is done by the next memlens index (or search)"
    if not stats["totalChunks"]:  # a sync that found nothing records no time, so "never" does not tell these apart
        return "empty: nothing indexed yet (memlens index reads the folders; memlens sources lists them)"
    if not stats["lastSync"]:
        return "never synced (memlens index builds it; a search syncs first)"
    return "up to date"


def also_holds_line(folders: Sequence[SourceFolder]) -> str:
    """The one line a command prints when the index holds folders it did not name (they are still searched)."""
    shown = ", ".join(folder["displayPath"] for folder in folders)
    return f"memlens: this index also holds {shown} (memlens sources lists them)"


def print_sources(response: SourcesResponse, *, columns: int = 0) -> None:
    """One line per folder: where it is, its kind, what the index holds of it and where it was added from; folded to
    `columns` cells (0: whole, as in a pipe)."""
    if not response["sources"]:
        say_nothing_found("the index holds no folders yet (memlens index adds them)")
        return
    for folder in response["sources"]:
        named = "" if folder["named"] else "  (remembered; not named by this command)"
        line = (
            f"{folder['displayPath']}  [{folder['kind']}]  {counted(folder['files'], 'file')}, "
            f"{counted(folder['units'], 'unit')}"
            f"  added from: {folder['addedFrom']}{named}"
        )
        print(folded(line, columns, indent="    "))


def print_publish(answer: PublishResponse) -> None:
    if answer.get("note"):
        print(f"memlens: {answer['note']}", file=sys.stderr)
    print(
        f"published {answer['units']} units as {answer['publisher']} (project {answer['project']}): "
        f"{answer['sent']} sent, {answer['deleted']} deleted, {answer['unchanged']} unchanged, "
        f"{answer['withVectors']} with vectors, {answer['seconds']} s"
    )


def print_team_sessions(
    page: TeamSessionsResponse, *, columns: int = 0, zone: tzinfo | None = None, style: Style | None = None
) -> None:
    """The team's sessions as a table like `print_sessions` (in its colours): columns as wide as what they hold (the
    publisher and the project at most 16 cells each), each row cut to `columns` cells (0: whole, as in a pipe),
    times in `zone`; on a narrow terminal the message count, then the project, then the publisher give way to the
    title."""
    styled = style or Style(color=False)
    sessions = page["sessions"]
    if page.get("note"):
        print(f"memlens: {page['note']}", file=sys.stderr)
    if not sessions:
        say_nothing_found("no sessions in the team index")
        return
    publisher = min(16, max(len("PUBLISHER"), *(cells(_one_line(s["publisher"])) for s in sessions)))
    project = min(16, max(len("PROJECT"), *(cells(_one_line(s["project"] or "-")) for s in sessions)))
    count = max(len("MSGS"), *(len(str(s["messageCount"])) for s in sessions))
    shown = _sessions_columns(columns, {"MSGS": count, "PROJECT": project, "PUBLISHER": publisher}, 0)
    header = "  ".join(
        [f"{'LAST ACTIVE':<16}"]
        + [f"{'PUBLISHER':<{publisher}}"] * ("PUBLISHER" in shown)
        + [f"{'PROJECT':<{project}}"] * ("PROJECT" in shown)
        + [f"{'MSGS':>{count}}"] * ("MSGS" in shown)
        + ["TITLE / SESSION"]
    )
    print(_table_line([(header, styled.title)], columns))
    for s in sessions:
        when = local_time(s["lastTimestamp"], zone)
        title = _one_line(s["title"] or "") or s["sessionKey"]
        rest = "  ".join(
            [""]
            + [column(_one_line(s["publisher"]), publisher)] * ("PUBLISHER" in shown)
            + [column(_one_line(s["project"] or "-"), project)] * ("PROJECT" in shown)
            + [f"{s['messageCount']:>{count}}"] * ("MSGS" in shown)
            + [title]
        )
        print(_table_line([(f"{when:<16}", styled.dim), (rest, _plain)], columns))
    footer = f"{len(sessions)} team sessions; `--json` adds each one's session key and first time"
    print(folded(footer, columns))
