"""The language server's creation, lifecycle handlers (initialize, configuration, folders, shutdown) and `run()`."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from memlens import __version__
from memlens.listen_address import listen_address
from memlens.log_lines import send_logs_to_stderr
from memlens.lsp.code_actions import KINDS, fix_actions
from memlens.lsp.commands import register_commands
from memlens.lsp.hover import HoverProvider
from memlens.lsp.masked_messages import MaskedMessagesProtocol
from memlens.lsp.pygls_logs import quiet_answered_request_errors
from memlens.lsp.state import ServerState
from memlens.lsp.transport import serve_stdio, serve_tcp
from memlens.settings import workspace_trusted
from memlens.stop_signal import by_sigterm

log = logging.getLogger(__name__)

SECTION = "memlens"


def _folder_path(uri: str | None) -> Path | None:
    if not uri or not uri.startswith("file:"):
        return None
    path = to_fs_path(uri)
    return Path(path).resolve() if path else None


def workspace_folders(params: types.InitializeParams) -> list[Path]:
    """Every file-system workspace folder (multi-root), else rootUri / rootPath, else the current directory."""
    folders = [p for f in params.workspace_folders or [] if (p := _folder_path(f.uri)) is not None]
    if not folders:
        root = _folder_path(params.root_uri) or (Path(params.root_path).resolve() if params.root_path else None)
        folders = [root] if root is not None else []
    return list(dict.fromkeys(folders)) or [Path.cwd().resolve()]


class MemlensServer(LanguageServer):
    """A pygls LanguageServer holding the memlens state."""

    def __init__(self, live_indexing: bool = True) -> None:
        super().__init__("memlens", __version__, protocol_cls=MaskedMessagesProtocol)
        self.state = ServerState(self, live_indexing=live_indexing)
        self.hover_provider = HoverProvider(self.state)
        self._settings_lock: asyncio.Lock | None = None

    async def apply_settings(self) -> None:
        """Apply settings changes one at a time (each may reopen the engine)."""
        if self._settings_lock is None:
            self._settings_lock = asyncio.Lock()
        async with self._settings_lock:
            await self.state.apply_settings()

    async def pull_configuration(self) -> Any:
        """`workspace/configuration` for the `memlens` section, when the client supports it."""
        workspace = self.client_capabilities.workspace
        if not (workspace and workspace.configuration):
            return None
        try:
            result = await asyncio.wait_for(
                self.workspace_configuration_async(
                    types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
                ),
                10.0,
            )
        except Exception as exc:
            log.warning("workspace/configuration failed: %s", exc)
            return None
        return result[0] if result else None


def create_server(live_indexing: bool = True) -> MemlensServer:
    """Build the server with every feature and command registered."""
    server = MemlensServer(live_indexing=live_indexing)
    state = server.state

    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        state.loop = asyncio.get_running_loop()
        state.workspaces = workspace_folders(params)
        state.init_options = params.initialization_options
        state.trusted = workspace_trusted(params.initialization_options)
        log.info("workspace folders: %s", ", ".join(map(str, state.workspaces)))
        if not state.trusted:
            log.info("the client says the workspace is not trusted: .memlens.json cannot choose locations")

    @server.feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
        state.initialized = True
        if state.init_options is None:
            state.client_settings = await server.pull_configuration()
        await server.apply_settings()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        settings = params.settings
        if settings is None or (isinstance(settings, dict) and not settings):
            settings = await server.pull_configuration()
        state.client_settings = settings
        await server.apply_settings()

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def did_change_folders(params: types.DidChangeWorkspaceFoldersParams) -> None:
        removed = {p for f in params.event.removed if (p := _folder_path(f.uri)) is not None}
        added = [p for f in params.event.added if (p := _folder_path(f.uri)) is not None]
        folders = [p for p in state.workspaces if p not in removed] + added
        state.workspaces = list(dict.fromkeys(folders)) or [Path.cwd().resolve()]
        await server.apply_settings()

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(params: types.HoverParams) -> types.Hover | None:
        return await server.hover_provider.hover(params)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=KINDS))
    def code_action(params: types.CodeActionParams) -> list[types.CodeAction]:
        return fix_actions(params)

    @server.feature(types.SHUTDOWN)
    def shutdown(params: Any = None) -> None:
        state.shutdown()

    @server.feature(types.EXIT)
    def exit_(params: Any = None) -> None:
        if state.indexer is not None:
            state.indexer.cancel()

    register_commands(server, state)
    return server


def run(tcp: str | None = None) -> int:
    """Serve LSP over stdio (default) or on `HOST:PORT`; logs go to stderr, never stdout."""
    send_logs_to_stderr(level=logging.WARNING)
    quiet_answered_request_errors()
    level = os.environ.get("MEMLENS_LOG_LEVEL")
    if level:
        logging.getLogger("memlens").setLevel(level.upper())
    # checked before anything starts: a refused start touches nothing
    address = listen_address(tcp, flag="--tcp", example_port=2087) if tcp else None
    server = create_server(live_indexing=os.environ.get("MEMLENS_LIVE_INDEXING", "1") != "0")
    if address is not None:
        asyncio.run(serve_tcp(server, *address))
        server.shutdown()  # type: ignore[no-untyped-call]  # pygls's own: its handler threads finish
    else:
        protocol_out = sys.stdout.buffer
        sys.stdout = sys.stderr  # a stray print() must never corrupt the JSON-RPC stream
        try:
            asyncio.run(serve_stdio(server, protocol_out))
        except BrokenPipeError:
            log.error("the connection to the client is lost; stopping the server")
        except (KeyboardInterrupt, SystemExit):  # a second signal; the client's `exit` (pygls raises SystemExit in its
            pass  # handler): as pygls's own start_io, the server then stops as below
        server.shutdown()  # type: ignore[no-untyped-call]  # pygls's own: its handler threads finish
    if not server.state.shut_down:  # stopped without the client's `shutdown`: Ctrl-C, SIGTERM, a client gone
        server.state.shutdown()  # the step under way ends and the index is closed: what was committed stays
        why = " by SIGTERM" if by_sigterm() else ""
        print(f"memlens: language server stopped{why}", file=sys.stderr, flush=True)
    return 0
