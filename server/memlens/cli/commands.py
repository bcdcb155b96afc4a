"""The `memlens` command line: index, search, stats, history, sessions, watch, mcp and serve over one engine.

Each command opens the engine, asks it, and prints the answer (output.py) or its JSON; `main` turns every error a
user can cause into one line on stderr and an exit status like ripgrep's."""

from __future__ import annotations

import argparse
import dataclasses
import io
import logging
import os
import sys
import threading
from collections.abc import Sequence
from datetime import tzinfo
from pathlib import Path
from stat import S_ISREG
from typing import TYPE_CHECKING

from memlens.cli.answer_notes import given_flags, narrowed_note, narrowing_flags, print_answer_notes
from memlens.cli.arguments import build_parser, help_text, request_from, settings_from_args
from memlens.cli.clock import zone_named
from memlens.cli.fixes_output import print_fixes
from memlens.cli.nothing_found import say_empty_index
from memlens.cli.output import (
    ProgressBar,
    also_holds_line,
    describe_sync,
    print_history,
    print_json,
    print_publish,
    print_search,
    print_sessions,
    print_sources,
    print_stats,
    print_team_sessions,
)
from memlens.cli.project_root import find_root
from memlens.cli.server_answer import ask_server
from memlens.cli.terminal import Style, fitted, folded, for_terminal, paged, printable, wants_color, width
from memlens.cli.trailing_folders import named_folders
from memlens.cli.watch_tally import WatchTally
from memlens.counted import counted, megabytes
from memlens.errors import IndexWriteFailed, InvalidRequest, LockPathBroken, MemlensError
from memlens.log_lines import send_logs_to_stderr
from memlens.near_names import did_you_mean
from memlens.requests import (
    FixesRequest,
    HistoryRequest,
    PublishRequest,
    ReindexRequest,
    RemoveSourceRequest,
    SearchRequest,
    SessionsRequest,
    TeamFilterRequest,
    checked,
)
from memlens.stop_signal import EXIT_SIGTERM, by_sigterm, cancelled_by_a_stop, interrupted

if TYPE_CHECKING:
    from memlens.engine import Engine
    from memlens.engine.indexing.indexer import SyncReport
    from memlens.engine.team import TeamQuery
    from memlens.settings import Settings
    from memlens.wire import SearchResponse

log = logging.getLogger("memlens")

# Exit statuses, as ripgrep's: a search that found something, one that found nothing, an error.
EXIT_FOUND = 0
EXIT_NOTHING = 1
EXIT_ERROR = 2

# Commands run to write the index: each waits for a short-lived command that holds the writer lock (a `stats`, a
# `search` syncing first) to let go, where any other reads the index as it is (write_access.py).
WRITING_COMMANDS = frozenset({"index", "reindex", "watch"})
MCP_OPEN_WAIT_SECONDS = 60.0  # how long `memlens mcp` waits for another process to make the index it opens


def locate(args: argparse.Namespace) -> tuple[list[Path], Settings]:
    """The workspace folders (checked; without --workspace the project holding the current folder, project_root.py)
    and the settings the command runs with."""
    named = getattr(args, "folders_named", [])  # after the query's words (trailing_folders.py)
    if args.workspace or named:
        workspaces = list(dict.fromkeys([*(args.workspace or []), *named]))
        by = ["--workspace"] * bool(args.workspace) + ["the folders after the query"] * bool(named)
        args.root_reason = f"given by {' and '.join(by)}"
    else:
        root = find_root(Path.cwd())
        workspaces, args.root_reason = [root.path], root.reason
    for workspace in workspaces:
        _check_folder(workspace, "--workspace")
    for folder in args.transcripts:
        _check_folder(folder, "--transcripts")
    if args.index_dir is not None:
        _check_index_dir(args.index_dir)
    return workspaces, settings_from_args(args, workspaces)


def _check_folder(folder: Path, flag: str) -> None:
    if folder.is_file():
        raise InvalidRequest(f"{flag} {folder} is a file, not a folder")
    if not folder.is_dir():
        raise InvalidRequest(f"{flag} {folder}: no such folder")


def _check_index_dir(folder: Path) -> None:
    """The index folder exists or can be made (the real cause said: a read-only place, a file in the way)."""
    if folder.is_file():
        raise InvalidRequest(f"--index-dir {folder} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        there = next((p for p in folder.absolute().parents if p.is_dir()), None)  # where the making stopped
        place = f" in {there}" if there is not None else ""
        raise InvalidRequest(f"--index-dir {folder}: cannot create a folder{place} ({exc.strerror or exc})") from None


def open_engine(
    args: argparse.Namespace,
    load_model: bool = True,
    located: tuple[list[Path], Settings] | None = None,
    *,
    keyword_may_be_unready: bool = False,
) -> Engine:
    """The engine for `args`; `located` is what `locate(args)` gave, when the caller has it already. When the index
    holds folders this command does not name (they stay synced and searched), one line on stderr says which.
    `keyword_may_be_unready`: open while another process still makes the keyword index (Engine)."""
    from memlens.engine import Engine  # here, not at the top: a search a running server answers never needs it
    from memlens.engine.indexing.source_roots import RootOrigins

    workspaces, settings = located or locate(args)
    log.debug("opening the index")  # with -vv: the command has started its work (a SIGTERM from now stops it cleanly)
    origins = RootOrigins(
        flags=f"memlens {args.command} --transcripts",
        settings="memlens.transcripts.paths (.memlens.json or --settings)",
    )
    engine = Engine(
        workspaces,
        settings,
        args.transcripts,
        args.index_dir,
        embedder=load_model,
        origins=origins,
        command=args.command,
        wait_for_writer=args.command in WRITING_COMMANDS,
        keyword_may_be_unready=keyword_may_be_unready,
        workspace_reason=getattr(args, "root_reason", None),
    )
    # a model that cannot load is one warning line (logged by the embedder); searches then answer by keywords.
    # The folders line is a note, as a sync's line: `-q` leaves it out (`sources` lists them itself)
    if args.command != "sources" and not getattr(args, "quiet", False):
        also = engine.unnamed_source_folders()
        if also:
            print(also_holds_line(also), file=sys.stderr)
    return engine


class SyncInterrupted(KeyboardInterrupt):
    """A sync the first Ctrl-C or SIGTERM ended as the editor's cancel ends one (`cancelled_by_a_stop`): the files it
    read are committed, and `report` says how many, and about how many it left."""

    def __init__(self, report: SyncReport) -> None:
        super().__init__()
        self.report = report


def sync_engine(engine: Engine, full: bool = False, embed: bool = True, *, quiet: bool = False) -> SyncReport:
    """Sync (or with `full` reindex) the index, a progress bar on a terminal's stderr unless `quiet`. The first
    Ctrl-C or SIGTERM cancels it: the batch under way commits the files read so far, and SyncInterrupted says so;
    a second one quits at once."""
    bar = ProgressBar(enabled=not quiet)
    cancel = threading.Event()
    try:
        with cancelled_by_a_stop(cancel):
            if full:
                report = engine.reindex(full=True, progress=bar, cancel=cancel)
            else:
                report = engine.sync(progress=bar, cancel=cancel, embed=embed)
    finally:
        bar.close()
    if cancel.is_set() and interrupted():
        raise SyncInterrupted(report)
    return report


def sync_before_reading(engine: Engine, *, embed: bool = True, quiet: bool = False) -> SyncReport | None:
    """Bring the index up to date before a read, when this process may write it. When it cannot (a full or
    read-only disk, a broken writer lock), one warning line says why and the read answers from the last update."""
    if say_lock_problem(engine) or not engine.writable:
        note = engine.read_only_note() or engine.another_writer_note()
        if note is not None:
            print(f"memlens: {note}", file=sys.stderr)
        return None
    try:
        return sync_engine(engine, embed=embed, quiet=quiet)
    except IndexWriteFailed as exc:
        from memlens.redaction import redact

        cause = redact(exc.cause)
        print(f"memlens: could not update the index: {cause}; answering from the last update", file=sys.stderr)
        return None


def say_lock_problem(engine: Engine) -> bool:
    """A broken writer-lock path, said in one line by every command that still answers (read-only)."""
    if isinstance(engine.write_problem, LockPathBroken):
        print(f"memlens: {engine.write_problem}", file=sys.stderr)
        return True
    return False


def cmd_index(args: argparse.Namespace) -> int:
    full = request_from(ReindexRequest, args).full if args.command == "reindex" else False
    with open_engine(args) as engine:
        report = sync_engine(engine, full=full, quiet=args.quiet)
        if args.json and not args.quiet:
            print_json(report.to_wire())
        elif not args.quiet:
            print(fitted(describe_sync(report), sys.stdout))
            if report.empty is not None:
                say_empty_index(report.empty)
        # a file, or some of its lines or bytes: a file with replaced bytes is indexed, not skipped; the summary line
        # counts the files that could not be read at all. Each once: not those the log said as the sync met them
        for error in [error for error in report.errors if error not in report.said][:10]:
            print(fitted(f"  problem: {printable(error)}", sys.stderr), file=sys.stderr)
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    request = request_from(SearchRequest, args)  # a bad value is said here, before anything is opened
    located = locate(args)  # once: it reads the settings files and says their warnings
    if args.no_embeddings and request.mode is None:
        request = dataclasses.replace(request, mode="keyword")  # what the own engine would do; a server may answer
    team = team_query(args, located[1])
    answered = None if team is not None else ask_server(args, request, located)
    zone = zone_named(located[1].display.time_zone)
    narrowed = given_flags(request.filters)
    if answered is not None:
        return _print_search(args, answered, warned=False, zone=zone, narrowed=narrowed)
    load_model = request.mode != "keyword"
    with open_engine(args, load_model=load_model, located=located) as engine:
        report = None if args.no_sync else sync_before_reading(engine, quiet=args.quiet)
        changed = report is not None and (report.files_parsed or report.files_deleted or report.files_appended)
        if report is not None and changed and not args.quiet:  # the sync's line is a note, as its progress bar
            print(fitted(describe_sync(report), sys.stderr), file=sys.stderr)
        response = engine.search(
            request.query,
            limit=request.limit,
            mode=request.mode,
            filters=request.filters,
            explain=request.explain,
            fusion=request.fusion,
            min_score=request.min_score,
            team=team,
        )
        if not response["results"] and team is None:
            narrowed = narrowing_flags(request.filters, engine.time_span)
    return _print_search(args, response, warned=bool(engine.provider_note), zone=zone, narrowed=narrowed)


def team_query(args: argparse.Namespace, settings: Settings) -> TeamQuery | None:
    """The team index a command asks (`--team`, else the `team.url` setting), with its filters; None: none. The
    team's project is the command's own `--project`."""
    request = request_from(TeamFilterRequest, args)
    url = request.team or settings.team.url
    if not url:
        if request.publisher:
            raise InvalidRequest("--publisher filters the team index: give --team URL (or set team.url)")
        return None
    from memlens.engine.team import TeamQuery  # only a team search loads the team index's modules

    return TeamQuery(url, request.publisher).within(getattr(args, "project", None))


def cmd_publish(args: argparse.Namespace) -> int:
    request = request_from(PublishRequest, args)
    with open_engine(args) as engine:
        if not args.no_sync:
            sync_before_reading(engine, quiet=args.quiet)
        answer = engine.publish(request.team, publisher=request.as_name, project=request.project)
    if args.quiet:
        return 0
    if args.json:
        print_json(answer)
    else:
        print_publish(for_terminal(answer))
    return 0


def _print_search(
    args: argparse.Namespace,
    response: SearchResponse,
    *,
    warned: bool,
    zone: tzinfo | None,
    narrowed: Sequence[str] = (),
) -> int:
    found = EXIT_FOUND if response["results"] else EXIT_NOTHING
    if args.quiet:
        return found
    searched_in = _folders_named(args)
    if args.json:
        _say_folders_named(searched_in)
        print_json(response)
    else:
        style = Style(color=wants_color(args.color))  # before the pager takes stdout: it asks the real one
        fold = width() if sys.stdout.isatty() else 0
        with paged(not args.no_pager):
            shown = for_terminal(response)
            print_search(
                shown,
                args.explain,
                warned=warned,
                long=args.long,
                style=style,
                zone=zone,
                fold=fold,
                narrowed=narrowed,
                searched_in=searched_in,
            )
            if shown["results"]:  # else print_search said them with the nothing found, on stderr
                print_answer_notes(shown, style, narrowed)
    return found


def _folders_named(args: argparse.Namespace) -> str:
    """The folders the command line named after the query (trailing_folders.py), as an answer names them; "" when
    it named none."""
    folders = getattr(args, "folders_named", [])
    if not folders:
        return ""
    from memlens.redaction import redact  # a folder may be named after a key

    return printable(redact(named_folders(folders)))


def _say_folders_named(searched_in: str) -> None:
    """The folders named after the query, said on stderr where the answer has no summary line to say them in (a
    --json answer, fixes that found some): a word read as a folder is never read so silently."""
    if searched_in:
        print(f"memlens: searched {searched_in} (named on the command line, as --workspace)", file=sys.stderr)


def cmd_stats(args: argparse.Namespace) -> int:
    with open_engine(args, keyword_may_be_unready=True) as engine:  # the counts are the catalog's
        say_lock_problem(engine)
        note = engine.keyword_unready_note()
        if note is not None:
            print(f"memlens: {note}", file=sys.stderr)
        stats = engine.stats()
    if args.quiet:
        return 0
    if args.json:
        print_json(stats)
        return 0
    from memlens.redaction import redact  # a folder may be named after a key

    columns = width() if sys.stdout.isatty() else 0  # the terminal's, read before a pager takes the output
    workspaces = ", ".join(str(w) for w in engine.workspaces)
    with paged(not args.no_pager):
        print_stats(for_terminal(stats), columns=columns)
        print(folded(printable(redact(f"workspace: {workspaces} ({args.root_reason})")), columns, indent="  "))
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    request = request_from(HistoryRequest, args)
    with open_engine(args, load_model=False) as engine:
        if not args.no_sync:
            sync_before_reading(engine, embed=False, quiet=args.quiet)
        else:
            say_lock_problem(engine)
        history = engine.history(request.session_key, message_id=request.message_id, limit=request.limit)
    if args.quiet:
        return 0
    if args.json:
        print_json(history)
    else:
        columns = width() if sys.stdout.isatty() else 0  # the terminal's, read before a pager takes the output
        style = Style(color=wants_color(args.color))  # as the width: asked of the real stdout
        with paged(not args.no_pager):
            zone = zone_named(engine.settings.display.time_zone)
            print_history(for_terminal(history), zone, columns=columns, style=style)
    return 0


def cmd_fixes(args: argparse.Namespace) -> int:
    """`memlens fixes "ERROR TEXT"`: exit 1 when no past tool output matches, as a search that finds nothing."""
    request = request_from(FixesRequest, args)
    with open_engine(args) as engine:
        if not args.no_sync:
            sync_before_reading(engine, quiet=args.quiet)
        answer = engine.fixes(request.error, limit=request.limit, follow=request.follow)
    found = EXIT_FOUND if answer["fixes"] else EXIT_NOTHING
    if args.quiet:
        return found
    searched_in = _folders_named(args)
    if args.json or answer["fixes"]:  # else "no past tool output" names them
        _say_folders_named(searched_in)
    if args.json:
        print_json(answer)
    else:
        columns = width() if sys.stdout.isatty() else 0  # the terminal's, read before a pager takes the output
        style = Style(color=wants_color(args.color))  # as the width: asked of the real stdout
        with paged(not args.no_pager):
            zone = zone_named(engine.settings.display.time_zone)
            print_fixes(for_terminal(answer), zone, columns=columns, style=style, searched_in=searched_in)
    return found


def cmd_sessions(args: argparse.Namespace) -> int:
    """`memlens sessions`: exit 1 when no session is listed (none matches, or the page is empty), as a search that
    finds nothing."""
    request = request_from(SessionsRequest, args)
    team = team_query(args, locate(args)[1]) if args.team or args.publisher else None
    if team is not None:
        with open_engine(args, load_model=False) as engine:
            team_page = engine.team_sessions(team, query=request.query, limit=request.limit)
        if args.quiet:
            return EXIT_FOUND if team_page["sessions"] else EXIT_NOTHING
        if args.json:
            print_json(team_page)
        else:
            columns = width() if sys.stdout.isatty() else 0  # a table: cut to a terminal's width, whole in a pipe
            style = Style(color=wants_color(args.color))  # as the width: asked of the real stdout
            with paged(not args.no_pager):
                zone = zone_named(engine.settings.display.time_zone)
                print_team_sessions(for_terminal(team_page), columns=columns, zone=zone, style=style)
        return EXIT_FOUND if team_page["sessions"] else EXIT_NOTHING
    with open_engine(args, load_model=False) as engine:
        if not args.no_sync:
            sync_before_reading(engine, embed=False, quiet=args.quiet)
        page = engine.sessions(
            query=request.query,
            format=request.format,
            project=request.project,
            since=request.since,
            until=request.until,
            limit=request.limit,
            cursor=request.cursor,
        )
        fields = ("query", "format", "project", "since", "until")
        narrowed = narrowing_flags(request, engine.time_span, fields=fields) if not page["sessions"] else []
    if args.quiet:
        return EXIT_FOUND if page["sessions"] else EXIT_NOTHING
    if args.json:
        print_json(page)
    else:
        columns = width() if sys.stdout.isatty() else 0  # a table: cut to a terminal's width, whole in a pipe
        notes = [narrowed_note(narrowed, widest="list every session")] if narrowed and not request.cursor else []
        style = Style(color=wants_color(args.color))  # as the width: asked of the real stdout
        with paged(not args.no_pager):
            zone = zone_named(engine.settings.display.time_zone)
            print_sessions(for_terminal(page), columns=columns, zone=zone, nothing_notes=notes, style=style)
    return EXIT_FOUND if page["sessions"] else EXIT_NOTHING


SOURCES_ACTIONS = ("list", "remove")


def cmd_sources(args: argparse.Namespace) -> int:
    if args.action not in SOURCES_ACTIONS:
        raise InvalidRequest(_sources_action_unknown(args.action))
    if args.action == "list":
        if args.folder is not None:
            raise InvalidRequest("memlens sources lists the folders; to forget one: memlens sources remove DIR")
        with open_engine(args, load_model=False) as engine:
            answer = engine.source_folders()
        if args.quiet:
            return 0
        if args.json:
            print_json(answer)
        else:
            columns = width() if sys.stdout.isatty() else 0  # the terminal's, read before a pager takes the output
            with paged(not args.no_pager):
                print_sources(for_terminal(answer), columns=columns)
        return 0
    if args.folder is None:
        raise InvalidRequest("memlens sources remove needs the folder to forget (memlens sources lists them)")
    request = checked(RemoveSourceRequest, path=str(args.folder))
    with open_engine(args, load_model=False) as engine:
        removed = engine.remove_source_folder(request.path)
    if args.quiet:
        return 0
    if args.json:
        print_json(removed)
    else:
        print(f"removed {removed['displayPath']} from the index ({counted(removed['filesRemoved'], 'file')})")
    return 0


def _sources_action_unknown(word: str) -> str:
    """What `memlens sources WORD` is told when WORD is neither action: a folder (`memlens sources /tmp`) is no
    action, and the two ways to write the command are named."""
    takes = "memlens sources lists the folders; memlens sources remove DIR forgets one"
    if os.sep in word or word.startswith(("~", ".")) or Path(word).exists():
        return f"memlens sources: {word} is a folder, not an action: {takes}"
    return f"memlens sources takes list or remove, not {word!r}: {takes}" + did_you_mean(word, SOURCES_ACTIONS)


def cmd_mcp(args: argparse.Namespace) -> int:
    from memlens.listen_address import listen_address
    from memlens.mcp.http_security import http_security
    from memlens.mcp.server import run

    security = None
    if args.http:  # checked before the index is opened: a refused start touches nothing
        host, port = listen_address(args.http, flag="--http", example_port=8765)
        security = http_security(
            host, port, token_file=args.token_file, extra_hosts=args.allow_host, extra_origins=args.allow_origin
        )
    elif args.token_file or args.allow_host or args.allow_origin:
        raise InvalidRequest("--token-file, --allow-host and --allow-origin apply to --http only")
    from memlens.engine.opening import opened_when_ready

    # beside a first `memlens index` still making the index, wait for it rather than fail: that process makes each
    # part within moments of starting (a `serve` waits the same way, lsp/state.py)
    with opened_when_ready(lambda: open_engine(args), seconds=MCP_OPEN_WAIT_SECONDS) as engine:
        return run(engine, security)


def cmd_watch(args: argparse.Namespace) -> int:
    from memlens.engine.watcher import run_foreground, watch_roots

    tally = WatchTally()
    reader_gone = threading.Event()
    said_empty: list[str] = []  # the empty index's lines last said

    def report(sync: SyncReport) -> None:
        tally.add(sync)
        try:
            if args.json:  # JSON Lines, as rg --json: one object a sync, read as it comes
                print_json(sync.to_wire())
                sys.stdout.flush()
            else:
                print(fitted(describe_sync(sync, compact=True), sys.stdout), flush=True)
                if sync.empty is not None and sync.empty["lines"] != said_empty:  # once (a polling watch: 30 s)
                    said_empty[:] = sync.empty["lines"]
                    say_empty_index(sync.empty)
        except BrokenPipeError:  # `memlens watch | head -1`: as any writer to a closed pipe, the watch ends
            _silence_stdout()
            reader_gone.set()

    with open_engine(args) as engine:
        if engine.read_only_cause() is not None and engine.write_problem is not None:
            raise engine.write_problem  # a folder that cannot be written: a watch would never index a change
        folders = [str(folder) for folder in watch_roots(engine)]
        named = ", ".join(folders[:3]) + (f" and {len(folders) - 3} more" if len(folders) > 3 else "")
        line = f"memlens: watching {named or 'no folder that exists yet'} (index at {engine.index_dir}); Ctrl-C stops"
        from memlens.redaction import redact  # a folder may be named after a key

        print(fitted(printable(redact(line)), sys.stderr), file=sys.stderr, flush=True)

        def stopping() -> None:
            # the step under way (an embedding batch) ends first, which can take seconds: say so, and how not to wait
            again = "SIGTERM or Ctrl-C again quits now" if by_sigterm() else "Ctrl-C again quits now"
            print(f"memlens: stopping after the current step ({again})", file=sys.stderr, flush=True)

        try:
            own = _output_files()
            status = run_foreground(
                engine, args.debounce_ms, report, stopping=stopping, stop=reader_gone, own_output=own
            )
        except KeyboardInterrupt:  # the second Ctrl-C (or SIGTERM): the index keeps what was committed
            status = 0
        print(f"memlens: stopped watching; {tally.summary()}", file=sys.stderr, flush=True)
    return status


def _output_files() -> list[tuple[int, int]]:
    """(device, inode) of the regular files standard output and error are redirected to (`> log.jsonl`)."""
    found = []
    for stream in (sys.stdout, sys.stderr):
        try:
            stat = os.fstat(stream.fileno())
        except (OSError, ValueError):  # closed, or not a real file (a test's capture)
            continue
        if S_ISREG(stat.st_mode):
            found.append((stat.st_dev, stat.st_ino))
    return found


def cmd_completion(args: argparse.Namespace) -> int:
    from memlens.cli.completion import completion_script

    print(completion_script(build_parser(), args.shell), end="")
    return 0


def cmd_man(args: argparse.Namespace) -> int:
    from memlens.cli.manual import manual_page

    print(manual_page(build_parser()), end="")
    return 0


def cmd_help(args: argparse.Namespace) -> int:
    print(help_text(args.topic), end="")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from memlens.lsp.server import run

    return run(args.tcp)


COMMANDS = {
    "index": cmd_index,
    "reindex": cmd_index,
    "search": cmd_search,
    "stats": cmd_stats,
    "history": cmd_history,
    "fixes": cmd_fixes,
    "sessions": cmd_sessions,
    "sources": cmd_sources,
    "publish": cmd_publish,
    "mcp": cmd_mcp,
    "watch": cmd_watch,
    "serve": cmd_serve,
    "completion": cmd_completion,
    "man": cmd_man,
    "help": cmd_help,
}


def main(argv: list[str] | None = None) -> int:
    """Run one command. Exit 0 = done (a search, fixes or sessions found something), 1 = a search, fixes or sessions
    found nothing, 2 = an error: one line on stderr, with the traceback only under -v. A closed pipe (`memlens
    search … | head`) ends quietly."""
    show_what_the_output_can()
    return run(build_parser().parse_args(argv))


def _what_an_interruption_keeps(command: str, report: SyncReport | None, *, head: str) -> str:
    """What a user is told of an interrupted `memlens index` (or of a command whose sync was interrupted): each batch
    of files is committed as it is read (an interrupted one with the files read so far) and each batch of vectors as
    it is made, so a run again reads only the files not yet read and embeds only what is left. With the sync's
    `report`: how many files (and messages) this run kept, the file it stopped part-way (a huge transcript, kept as
    far as it was read) and about how many it left, in as long a line as keeps `head` and it within
    INTERRUPTED_LINE_COLUMNS."""
    if report is None:
        if command != "index":
            return ""
        return "; what was indexed is kept, and the next memlens index continues from there"
    whole = report.files_parsed + report.files_appended - report.files_partly
    kept = counted(whole, "file", grouped=True)
    messages = f" ({counted(report.messages_added, 'message', grouped=True)})" if report.messages_added else ""
    partly, shorter, briefly = "", "", ""
    if report.files_partly:
        share = f"({megabytes(report.partly_read_bytes)} of {megabytes(report.partly_size_bytes)})"
        partly = f", {counted(report.files_partly, 'file', grouped=True)} partly {share}"
        shorter = f", {report.files_partly:,} partly {share}"
        briefly = f", {report.files_partly:,} partly"
        if not whole:  # only part of the one file it was reading: that alone (`kept 1 file partly (…)`)
            kept, messages = partly.removeprefix(", "), ""
            partly = shorter = briefly = ""
    if report.files_left <= 0:  # (stopped while it embedded, or before it looked at the files)
        endings = [
            f"; kept {kept}{messages}{partly}; memlens index finishes the rest",
            f"; kept {kept}{partly}",
            f"; kept {kept}{shorter}",
            f"; kept {kept}{briefly}",
        ]
    else:
        left = f"{report.files_left:,} left"
        endings = [
            f"; kept {kept}{messages}{partly}, {left} for memlens index",
            f"; kept {kept}{partly}, {left} for memlens index",
            f"; kept {kept}{partly}, {left}",
            f"; kept {kept}{shorter}, {left}",
            f"; kept {kept}{briefly}, {left}",
        ]
    return next((ending for ending in endings if len(head + ending) <= INTERRUPTED_LINE_COLUMNS), endings[-1])


INTERRUPTED_LINE_COLUMNS = 80


def run(args: argparse.Namespace) -> int:
    """Run the command `args` name (parsed by `arguments.build_parser`), as `main` says."""
    level = logging.WARNING - 10 * min(args.verbose, 2)
    brief = "memlens: %(message)s"  # one plain line a user can read; -v names the level and module
    send_logs_to_stderr(level=level, line_format=brief if not args.verbose else "%(levelname)s %(name)s: %(message)s")
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
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (stop_signal.py): what was committed stays
        return _stopped(args, exc.report if isinstance(exc, SyncInterrupted) else None)
    except OSError as exc:  # the system refused something (a folder, a disk): its own words and the path
        where = f": {exc.filename}" if exc.filename else ""
        _report(args, f"{exc.strerror or type(exc).__name__}{where}")
        return EXIT_ERROR
    except Exception as exc:  # a bug: still one line, and the traceback with -v
        if interrupted():  # the interrupt, turned into another error where it landed (inside an SQL function)
            return _stopped(args, None)
        _report(args, f"internal error: {type(exc).__name__}: {exc} (run with -v for details)")
        return EXIT_ERROR


def _stopped(args: argparse.Namespace, report: SyncReport | None) -> int:
    """The line and status of a command stopped by Ctrl-C or SIGTERM (`report`: of the sync it ended)."""
    head = "memlens: stopped by SIGTERM" if by_sigterm() else "memlens: interrupted"
    print(head + _what_an_interruption_keeps(args.command, report, head=head), file=sys.stderr)
    return EXIT_SIGTERM if by_sigterm() else 130


def show_what_the_output_can() -> None:
    """Before anything is printed (argparse's errors too): an output whose encoding is not UTF-8 (a Latin-1 locale,
    PYTHONIOENCODING=ascii) gets `?` for a character it cannot show (`…`, `·`, a name's accents), not an encoding
    error in place of the answer."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            stream.reconfigure(errors="replace")


def _report(args: argparse.Namespace, message: str) -> None:
    if args.verbose:
        log.exception("memlens failed")
    from memlens.redaction import redact  # an OS error's path or a bug's text may quote a secret too

    print(f"memlens: error: {printable(redact(message))}", file=sys.stderr)


def _silence_stdout() -> None:
    """After EPIPE, point stdout at /dev/null so the interpreter's final flush doesn't complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
