"""The command line's grammar: every command, its flags and their help, and the settings the flags make.

A command that asks the engine something takes its flags from that request's schema (memlens.requests: the same
fields, bounds and defaults as the language server's and the MCP server's), so its values are checked there."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TypeVar

from memlens import __version__
from memlens.errors import SettingsError
from memlens.requests import (
    HistoryRequest,
    PublishRequest,
    ReindexRequest,
    SearchRequest,
    SessionsRequest,
    TeamFilterRequest,
    add_flags,
    from_flags,
)
from memlens.settings import Settings, load_workspace_file, merge

R = TypeVar("R")

POSITIONAL: dict[type, tuple[str, ...]] = {SearchRequest: ("query",), HistoryRequest: ("session_key",)}
"""The request fields a command takes as positional arguments (the others are flags)."""
SKIPPED: dict[type, tuple[str, ...]] = {SearchRequest: ("session_key",)}
"""Request fields the CLI has no flag for: `filters.sessionKey` is an alias of `--session` for JSON clients."""


def request_flags(parser: argparse.ArgumentParser, cls: type, **help_overrides: str) -> None:
    """The arguments of request `cls` on `parser`."""
    add_flags(parser, cls, positional=POSITIONAL.get(cls, ()), skip=SKIPPED.get(cls, ()), help_overrides=help_overrides)


def request_from(cls: type[R], args: argparse.Namespace) -> R:
    """The request of `cls` the parsed arguments describe, checked (InvalidRequest names the flag and the range)."""
    return from_flags(cls, args, positional=POSITIONAL.get(cls, ()), skip=SKIPPED.get(cls, ()))


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
    request_flags(reindex, ReindexRequest)
    _location_flags(reindex)

    search = sub.add_parser("search", help="search memory and transcripts")
    request_flags(search, SearchRequest)
    request_flags(search, TeamFilterRequest)
    search.add_argument("--json", action="store_true", help="machine-readable output")
    search.add_argument("--no-sync", action="store_true", help="search the index as it is")
    search.add_argument(
        "--no-server",
        action="store_true",
        help="open the index here even when a running `memlens serve` / `memlens mcp` could answer",
    )
    _location_flags(search)

    stats = sub.add_parser("stats", help="index figures")
    stats.add_argument("--json", action="store_true")
    _location_flags(stats)

    history = sub.add_parser("history", help="the messages around a message of a session")
    request_flags(history, HistoryRequest)
    history.add_argument("--json", action="store_true")
    _location_flags(history)

    sessions = sub.add_parser("sessions", help="list sessions: title, agent, times, resume command")
    request_flags(sessions, SessionsRequest, cursor="nextCursor of the previous page (--json shows it)")
    request_flags(
        sessions,
        TeamFilterRequest,
        team="list the sessions of the team index at this PostgreSQL URL instead",
    )
    sessions.add_argument("--json", action="store_true", help="the full page: files touched, tools, resume commands")
    sessions.add_argument("--no-sync", action="store_true", help="list what the index holds as it is")
    _location_flags(sessions)

    sources = sub.add_parser("sources", help="the folders the index was built from; `sources remove DIR` forgets one")
    sources.add_argument("action", nargs="?", choices=("list", "remove"), default="list")
    sources.add_argument("folder", nargs="?", type=Path, help="with remove: the folder to forget")
    sources.add_argument("--json", action="store_true")
    _location_flags(sources)

    publish = sub.add_parser("publish", help="push this index's search units, redacted, to a team index (PostgreSQL)")
    request_flags(publish, PublishRequest)
    publish.add_argument("--json", action="store_true", help="machine-readable output")
    publish.add_argument("--no-sync", action="store_true", help="publish the index as it is")
    _location_flags(publish)

    watch = sub.add_parser("watch", help="keep the index live: sync on every file change")
    watch.add_argument("--debounce-ms", type=int, default=50)
    _location_flags(watch)

    serve = sub.add_parser("serve", help="run the language server (stdio by default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")

    mcp = sub.add_parser("mcp", help="run the Model Context Protocol server for agents (stdio by default)")
    mcp.add_argument("--http", metavar="HOST:PORT", help="serve streamable HTTP at http://HOST:PORT/mcp instead")
    mcp.add_argument(
        "--token-file",
        type=Path,
        metavar="PATH",
        help="with --http: every request must send `Authorization: Bearer <the token in PATH>` (required off "
        "loopback; or set MEMLENS_MCP_TOKEN)",
    )
    mcp.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME:PORT",
        help="with --http: another Host header to accept (e.g. myhost.lan:8765, or myhost.lan:* for any port)",
    )
    mcp.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="with --http: another browser Origin to accept (e.g. https://tools.example.com)",
    )
    _location_flags(mcp)
    return parser


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
