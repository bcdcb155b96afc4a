"""The MCP server on streamable HTTP (`memlens mcp --http`): uvicorn serving the SDK's app, stopped as every memlens
server is (stop_signal.py), not by uvicorn's own signal handling.

uvicorn took SIGTERM and Ctrl-C for its graceful stop and raised the signal again once stopped; a signal that came
before its handlers were in (the "listening" line was said before uvicorn started) or while it started interrupted
a task of the loop, and asyncio printed that task's traceback. A second SIGTERM while it waited for an open request
did nothing. Here the loop's handlers (`stopping_through_the_loop`) are in before the socket is bound and stay until
the server has stopped: the first signal stops it, a second quits at once. The sockets are bound before uvicorn
starts, so an address in use is one error line (uvicorn logged it, then exited 3) and "listening on" is said only
once it is true.
"""

from __future__ import annotations

import logging
import signal
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from mcp.server.lowlevel.server import Server

from memlens.counted import counted
from memlens.listen_address import listening_sockets
from memlens.mcp.http_security import HttpSecurity
from memlens.mcp.masked_errors import MaskedErrorBodies
from memlens.mcp.well_formed import WellFormedBodies
from memlens.stop_signal import by_sigterm, stopping_through_the_loop

log = logging.getLogger(__name__)


class _StoppedByMemlens(uvicorn.Server):
    """uvicorn's server without its signal handlers: `serve_http`'s stop calls its `handle_exit`."""

    @contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        open_requests = len(self.server_state.tasks)
        if open_requests:  # uvicorn waits for them: say so, and how not to wait
            again = "SIGTERM or Ctrl-C again quits now" if by_sigterm() else "Ctrl-C again quits now"
            ends = "ends" if open_requests == 1 else "end"
            print(
                f"memlens: stopping once {counted(open_requests, 'open request')} {ends} ({again})",
                file=sys.stderr,
                flush=True,
            )
        await super().shutdown(sockets)


async def serve_http(server: Server[Any], security: HttpSecurity) -> bool:
    """Serve until SIGTERM or Ctrl-C stops the server; returns True (it stops only so)."""
    served: _StoppedByMemlens | None = None
    stopped = False

    def stop() -> None:
        nonlocal stopped
        stopped = True
        if served is not None:
            # as uvicorn's own handler: sse_starlette wraps it to end the open event streams (a client's GET /mcp),
            # which uvicorn's graceful stop would otherwise wait for
            served.handle_exit(signal.SIGTERM, None)

    with stopping_through_the_loop(stop):
        sockets = listening_sockets(security.host, security.port)
        try:
            bound = security.on_port(sockets[0].getsockname()[1])  # port 0: the one the system picked
            read = WellFormedBodies(server.streamable_http_app(**bound.app_options()))  # read as stdio reads a line
            app = MaskedErrorBodies(read)  # a refusal quoting the body it refused masks what it quotes
            config = uvicorn.Config(app, host=bound.host, port=bound.port, log_level="warning", lifespan="on")
            served = _StoppedByMemlens(config)
            _say_listening(bound)
            await served.serve(sockets=sockets)
        finally:
            for sock in sockets:
                sock.close()
    return stopped


def _say_listening(security: HttpSecurity) -> None:
    if not security.loopback:
        log.warning(
            "memlens MCP server on %s:%d is reachable from the network: every request must carry the bearer token; "
            "allowed Host headers: %s",
            security.host,
            security.port,
            ", ".join(security.allowed_hosts),
        )
    auth = " (bearer token required)" if security.token is not None else ""
    log.warning("memlens MCP server listening on http://%s:%d/mcp%s", security.host, security.port, auth)
