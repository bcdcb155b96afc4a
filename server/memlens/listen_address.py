"""The address a server listens on, read once for both servers that take one (`memlens serve --tcp`, `memlens mcp
--http`): HOST:PORT, :PORT or PORT, an IPv6 host in brackets (`[::1]:8765`), the host localhost's 127.0.0.1 when
left out. Port 0 asks the system for a free port; the server then says the port it got on its "listening on" line,
so a user, a script or a test reads it there instead of guessing a free one and racing another process for it.

Both servers bind through `listening_sockets`: a host that names several addresses (localhost as 127.0.0.1 and ::1)
gets every one of them on the same port, so the port said is the port on each (binding each address with port 0
would give each its own).
"""

from __future__ import annotations

import socket

from memlens.errors import InvalidRequest, MemlensError

DEFAULT_HOST = "127.0.0.1"
PORTS = range(0, 65536)  # 0: a port the system picks
BACKLOG = 2048  # uvicorn's default, and above asyncio's 100


def listen_address(value: str, *, flag: str, example_port: int) -> tuple[str, int]:
    """`value` of `flag` as (host, port); InvalidRequest naming the flag and an example when it is not an address (the
    CLI masks the value it quotes, as every error: a token pasted into the wrong flag)."""
    host, _, port = value.rpartition(":")
    if not (port.isascii() and port.isdigit() and len(port) <= len(str(PORTS[-1]))) or int(port) not in PORTS:
        raise InvalidRequest(
            f"{flag} expects HOST:PORT (e.g. {DEFAULT_HOST}:{example_port}, or port 0 for a free one), not {value!r}"
        )
    return host.strip("[]") or DEFAULT_HOST, int(port)


def listening_sockets(host: str, port: int) -> list[socket.socket]:
    """Non-blocking sockets bound to every address of `host` (as asyncio's create_server binds them), all on one port
    (port 0: the one the system picks for the first), and listening; a MemlensError (one line) naming the address
    when one cannot be bound: an address in use, a host that does not resolve."""
    sockets: list[socket.socket] = []
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        for family, kind, proto, _, address in dict.fromkeys(found):
            if sockets:  # the port the first was given, so every address answers on the port said
                address = (address[0], sockets[0].getsockname()[1], *address[2:])
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen(BACKLOG)
            sock.setblocking(False)
    except OSError as exc:
        for sock in sockets:
            sock.close()
        reason = exc.strerror or str(exc)
        raise MemlensError(f"cannot listen on {host}:{port}: {reason[:1].lower()}{reason[1:]}") from None
    return sockets


def said_address(sock: socket.socket) -> str:
    """A bound socket's address as a client writes it: HOST:PORT, an IPv6 host in brackets."""
    host, port = sock.getsockname()[:2]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
