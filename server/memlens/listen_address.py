"""The address a server listens on, read once for both servers that take one (`memlens serve --tcp`, `memlens mcp
--http`): HOST:PORT, :PORT or PORT, an IPv6 host in brackets (`[::1]:8765`), the host localhost's 127.0.0.1 when
left out. Port 0 asks the system for a free port; the server then says the port it got on its "listening on" line,
so a user, a script or a test reads it there instead of guessing a free one and racing another process for it.
"""

from __future__ import annotations

from memlens.errors import InvalidRequest

DEFAULT_HOST = "127.0.0.1"
PORTS = range(0, 65536)  # 0: a port the system picks


def listen_address(value: str, *, flag: str, example_port: int) -> tuple[str, int]:
    """`value` of `flag` as (host, port); InvalidRequest naming the flag and an example when it is not an address (the
    CLI masks the value it quotes, as every error: a token pasted into the wrong flag)."""
    host, _, port = value.rpartition(":")
    if not (port.isascii() and port.isdigit() and len(port) <= len(str(PORTS[-1]))) or int(port) not in PORTS:
        raise InvalidRequest(
            f"{flag} expects HOST:PORT (e.g. {DEFAULT_HOST}:{example_port}, or port 0 for a free one), not {value!r}"
        )
    return host.strip("[]") or DEFAULT_HOST, int(port)
