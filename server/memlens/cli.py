"""The `memlens` command line: index, search, stats, history, watch, reindex and serve over one engine."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

from memlens import __version__
from memlens.engine import Engine
from memlens.engine.filters import FORMATS, KINDS, ROLES, filters_from_dict
from memlens.engine.indexer import SyncReport
from memlens.engine.search import FUSIONS, MODES
from memlens.errors import InvalidRequest, MemlensError, SettingsError
from memlens.settings import Settings, load_workspace_file, merge
from memlens.wire import HistoryResponse, SearchResponse, SearchResult, SessionsResponse

log = logging.getLogger("memlens")

# Exit statuses, as ripgrep's: a search that found something, one that found nothing, an error.
EXIT_FOUND = 0
EXIT_NOTHING = 1
EXIT_ERROR = 2


# -- arguments ------------------------------------------------------------------------------------------------


def _location_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("locations")
    group.add_argument("--workspace", action="append", type=Path, help="workspace folder (repeatable; default: .)")
    group.add_argument(
        "--transcripts",
        nargs="+",
        action="extend",
        type=Path,
        default=[],
        help="extra transcript folders (any format); without it the agents' default folders are used",
    )
    group.add_argument("--index-dir", type=Path, help="index folder (default: per workspace in the user cache dir)")
    group.add_argument("--scope", choices=("workspace", "all"), help="agent transcripts of this workspace or of all")
    group.add_argument("--no-embeddings", action="store_true", help="keyword search only; load no model")
    group.add_argument("--model", help="a fastembed model name (default: the bundled all-MiniLM-L6-v2 int8)")
    group.add_argument("--model-path", help="a local folder holding the model files")
    group.add_argument("--settings", type=Path, help="a JSON file of memlens settings (same keys as .memlens.json)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="memlens", description="Search AI agents' memory notes and transcripts.")
    parser.add_argument("--version", action="version", version=f"memlens {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log more (to stderr)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    index = sub.add_parser("index", help="sync the index with the files (incremental)")
    _location_flags(index)

    reindex = sub.add_parser("reindex", help="force a resync; --full re-parses every file")
    reindex.add_argument("--full", action="store_true")
    _location_flags(reindex)

    search = sub.add_parser("search", help="search memory and transcripts")
    search.add_argument("query")
    search.add_argument("--limit", type=int)
    search.add_argument("--mode", choices=MODES)
    search.add_argument("--fusion", choices=FUSIONS)
    search.add_argument("--min-score", type=float)
    search.add_argument("--json", action="store_true", help="machine-readable output")
    search.add_argument("--explain", action="store_true", help="show the component scores")
    search.add_argument("--no-sync", action="store_true", help="search the index as it is")
    search.add_argument("--kind", choices=KINDS)
    search.add_argument("--format", dest="agent_format", choices=FORMATS)
    search.add_argument("--session", help="a session key")
    search.add_argument("--role", choices=ROLES)
    search.add_argument("--since", help="ISO date or date-time")
    search.add_argument("--until", help="ISO date or date-time")
    _location_flags(search)

    stats = sub.add_parser("stats", help="index figures")
    stats.add_argument("--json", action="store_true")
    _location_flags(stats)

    history = sub.add_parser("history", help="the messages around a message of a session")
    history.add_argument("session_key", help="a session key, a bare session id, or a unique prefix of one")
    history.add_argument("--message")
    history.add_argument("--limit", type=int, default=20)
    history.add_argument("--json", action="store_true")
    _location_flags(history)

    sessions = sub.add_parser("sessions", help="list sessions: title, agent, times, resume command")
    sessions.add_argument("--query", help="words that must all appear in the title, folder or session key")
    sessions.add_argument("--format", dest="agent_format", choices=FORMATS)
    sessions.add_argument("--since", help="sessions active on or after this ISO date")
    sessions.add_argument("--until", help="sessions active on or before this ISO date")
    sessions.add_argument("--limit", type=int, default=50)
    sessions.add_argument("--cursor", help="nextCursor of the previous page (--json shows it)")
    sessions.add_argument("--json", action="store_true", help="the full page: files touched, tools, resume commands")
    sessions.add_argument("--no-sync", action="store_true", help="list what the index holds as it is")
    _location_flags(sessions)

    watch = sub.add_parser("watch", help="keep the index live: sync on every file change")
    watch.add_argument("--debounce-ms", type=int, default=50)
    _location_flags(watch)

    serve = sub.add_parser("serve", help="run the language server (stdio by default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")

    mcp = sub.add_parser("mcp", help="run the Model Context Protocol server for agents (stdio by default)")
    mcp.add_argument("--http", metavar="HOST:PORT", help="serve streamable HTTP at http://HOST:PORT/mcp instead")
    _location_flags(mcp)
    return parser


# -- engine -----------------------------------------------------------------------------------------------------


def settings_from_args(args: argparse.Namespace, workspaces: list[Path]) -> Settings:
    warnings: list[str] = []
    settings = Settings()
    for workspace in workspaces:
        settings = merge(settings, load_workspace_file(workspace, warnings), warnings)
    if args.settings:
        try:
            data = json.loads(args.settings.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SettingsError(f"cannot read settings file {args.settings}: {exc}") from exc
        settings = merge(settings, data, warnings)
    if args.scope:
        settings.scope = args.scope
    if args.model:
        settings.embedding.model = args.model
    if args.model_path:
        settings.embedding.model_path = args.model_path
    if args.no_embeddings:
        settings.embedding.enabled = False
    for warning in warnings:
        print(f"memlens: warning: {warning}", file=sys.stderr)
    return settings


def open_engine(args: argparse.Namespace, load_model: bool = True) -> Engine:
    workspaces = [w for w in (args.workspace or [Path.cwd()])]
    for workspace in workspaces:
        if not workspace.is_dir():
            raise InvalidRequest(f"workspace folder {workspace} does not exist")
    for folder in args.transcripts:
        if not folder.exists():
            raise InvalidRequest(f"transcript folder {folder} does not exist")
    settings = settings_from_args(args, workspaces)
    return Engine(workspaces, settings, args.transcripts, args.index_dir, embedder=load_model)  # a model that
    # cannot load is one warning line (logged by the embedder); searches then answer by keywords


class ProgressBar:
    """A one-line progress bar on a terminal's stderr; silent when stderr is not a terminal."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()

    def __call__(self, done: int, total: int, message: str) -> None:
        if not self.enabled or total <= 0:
            return
        width = 30
        filled = int(width * done / total)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {message[:60]:<60}")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * 100 + "\r")


def sync_engine(engine: Engine, full: bool = False, embed: bool = True) -> SyncReport:
    bar = ProgressBar()
    try:
        return engine.reindex(full=True, progress=bar) if full else engine.sync(progress=bar, embed=embed)
    finally:
        bar.close()


def describe_sync(report: SyncReport, compact: bool = False) -> str:
    """One line per sync; `compact` (the watcher's) names only what happened."""
    counts = [
        (report.files_seen, "files"),
        (report.files_parsed, "parsed"),
        (report.files_appended, "appended"),
        (report.files_unchanged, "unchanged"),
        (report.files_deleted, "removed"),
        (report.chunks_added, "chunks"),
        (report.units_embedded, "embedded"),
        (report.bad_lines, "bad lines skipped"),
        (report.files_failed, "files unreadable"),
    ]
    parts = [f"+{report.messages_added} messages"] + [
        f"{n} {label}"
        for n, label in counts
        if n or not (compact or label in ("bad lines skipped", "files unreadable"))
    ]
    if compact:
        parts = [p for p in parts if p != "+0 messages"] or ["nothing new"]
    return f"sync: {', '.join(parts)}, {report.seconds:.2f} s"


# -- output -----------------------------------------------------------------------------------------------------


def result_header(result: SearchResult) -> str:
    score = f"({round(result['score'] * 100)}%)"
    if result["kind"] == "memory":
        return f"{result['relPath']}:{result.get('lineStart') or 1} {score}"
    when = (result.get("timestamp") or "").replace("T", " ")[:16]
    session = result.get("sessionId") or result.get("sessionKey") or "?"
    kind = " · summary" if result["kind"] == "summary" else ""
    return f"{result.get('format')} · {session} · {when} · {result.get('role')}{kind} {score}"


def print_search(response: SearchResponse, explain: bool, *, warned: bool = False) -> None:
    """The human-readable results; `warned`: the reason for keyword-only search was already on stderr."""
    if response.get("note") and not warned:
        print(f"memlens: {response['note']}", file=sys.stderr)
    if not response["results"]:
        print(f"no results for {response['query']!r}")
        return
    for result in response["results"]:
        print(result_header(result))
        if result["kind"] != "memory":
            print(f"  session {result.get('sessionKey')} · message {result.get('messageId')} · {result['relPath']}")
        for line in result["excerpt"].splitlines() or [""]:
            print(f"  {line}")
        if explain and "explain" in result:
            print(f"  explain: {json.dumps(result['explain'])}")
        print()
    print(f"{response['totalResults']} results · {response['mode']} · {response['searchTimeMs']} ms")


def print_history(history: HistoryResponse) -> None:
    print(f"{history['format']} · {history['sessionKey']} · {history['path']}")
    if history.get("title"):
        print(f"  title: {history['title']}")
    if history.get("resumeCommand"):
        print(f"  resume: {history['resumeCommand']}")
    if history["hasMoreBefore"]:
        print("  …")
    for message in history["messages"]:
        marker = "▶ " if message["messageId"] == history["anchor"] else "  "
        when = (message["timestamp"] or "").replace("T", " ")[:19]
        label = "summary" if message["kind"] == "summary" else message["role"]
        print(f"{marker}[{message['messageId']}] {label} · {when}")
        for line in message["text"].splitlines():
            print(f"    {line}")
    if history["hasMoreAfter"]:
        print("  …")


def print_sessions(page: SessionsResponse) -> None:
    sessions = page["sessions"]
    if not sessions:
        print("no sessions")
        return
    print(f"{'LAST ACTIVE':<16}  {'AGENT':<11}  {'MSGS':>5}  {'SESSION':<8}  {'PROJECT':<16}  TITLE")
    for s in sessions:
        when = (s["lastTime"] or "").replace("T", " ")[:16]
        project = (s["project"] or "-")[:16]
        subagent = "↳ " if s["parentSessionKey"] else ""
        print(
            f"{when:<16}  {s['format']:<11}  {s['messageCount']:>5}  {s['sessionId'][:8]:<8}  {project:<16}  "
            f"{subagent}{s['title']}"
        )
    shown = f"{len(sessions)} of {page['totalSessions']} sessions"
    more = " (more: --json gives nextCursor for --cursor)" if page.get("nextCursor") else ""
    print(f"{shown}{more}; `memlens history SESSION` reads one, `--json` adds files, tools and resume commands")


# -- commands ---------------------------------------------------------------------------------------------------


def cmd_index(args: argparse.Namespace) -> int:
    with open_engine(args) as engine:
        report = sync_engine(engine, full=getattr(args, "full", False))
        print(describe_sync(report))
        for error in report.errors[:10]:
            print(f"  skipped: {error}", file=sys.stderr)
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    filters = filters_from_dict(
        {
            k: v
            for k, v in {
                "kind": args.kind,
                "format": args.agent_format,
                "session": args.session,
                "role": args.role,
                "since": args.since,
                "until": args.until,
            }.items()
            if v
        }
    )
    load_model = args.mode != "keyword"
    with open_engine(args, load_model=load_model) as engine:
        if not args.no_sync and engine.writable:
            report = sync_engine(engine)
            if report.files_parsed or report.files_deleted or report.files_appended:
                print(describe_sync(report), file=sys.stderr)
        response = engine.search(
            args.query,
            limit=args.limit,
            mode=args.mode,
            filters=filters,
            explain=args.explain,
            fusion=args.fusion,
            min_score=args.min_score,
        )
    if args.json:
        print(json.dumps(response, ensure_ascii=False))
    else:
        print_search(response, args.explain, warned=bool(engine.provider_note))
    return EXIT_FOUND if response["results"] else EXIT_NOTHING


def cmd_stats(args: argparse.Namespace) -> int:
    with open_engine(args) as engine:
        stats = engine.stats()
    if args.json:
        print(json.dumps(stats, ensure_ascii=False))
        return 0
    for key, value in stats.items():
        print(f"{key:>24}: {json.dumps(value) if isinstance(value, (dict, list)) else value}")
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    with open_engine(args, load_model=False) as engine:
        history = engine.history(args.session_key, message_id=args.message, limit=args.limit)
    if args.json:
        print(json.dumps(history, ensure_ascii=False))
    else:
        print_history(history)
    return 0


def cmd_sessions(args: argparse.Namespace) -> int:
    with open_engine(args, load_model=False) as engine:
        if not args.no_sync and engine.writable:
            sync_engine(engine, embed=False)
        page = engine.sessions(
            query=args.query,
            format=args.agent_format,
            since=args.since,
            until=args.until,
            limit=args.limit,
            cursor=args.cursor,
        )
    if args.json:
        print(json.dumps(page, ensure_ascii=False))
    else:
        print_sessions(page)
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from memlens.mcp.server import run

    with open_engine(args) as engine:
        return run(engine, args.http)


def cmd_watch(args: argparse.Namespace) -> int:
    from memlens.engine.watcher import run_foreground

    with open_engine(args) as engine:
        return run_foreground(engine, args.debounce_ms, lambda r: print(describe_sync(r, compact=True), flush=True))


def cmd_serve(args: argparse.Namespace) -> int:
    from memlens.lsp.server import run

    return run(args.tcp)


COMMANDS = {
    "index": cmd_index,
    "reindex": cmd_index,
    "search": cmd_search,
    "stats": cmd_stats,
    "history": cmd_history,
    "sessions": cmd_sessions,
    "mcp": cmd_mcp,
    "watch": cmd_watch,
    "serve": cmd_serve,
}


def main(argv: list[str] | None = None) -> int:
    """Run one command. Exit 0 = done (a search found something), 1 = a search found nothing, 2 = an error: one
    line on stderr, with the traceback only under -v. A closed pipe (`memlens search … | head`) ends quietly."""
    args = build_parser().parse_args(argv)
    level = logging.WARNING - 10 * min(args.verbose, 2)
    brief = "memlens: %(message)s"  # one plain line a user can read; -v names the level and module
    logging.basicConfig(
        level=level, stream=sys.stderr, format=brief if not args.verbose else "%(levelname)s %(name)s: %(message)s"
    )
    try:
        status = COMMANDS[args.command](args)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler, not at interpreter exit
        return status
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_FOUND
    except MemlensError as exc:
        _report(args, f"{exc}")
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("memlens: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: still one line, and the traceback with -v
        _report(args, f"internal error: {type(exc).__name__}: {exc} (run with -v for details)")
        return EXIT_ERROR


def _report(args: argparse.Namespace, message: str) -> None:
    if args.verbose:
        log.exception("memlens failed")
    print(f"memlens: error: {message}", file=sys.stderr)


def _silence_stdout() -> None:
    """After EPIPE, point stdout at /dev/null so the interpreter's final flush doesn't complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
