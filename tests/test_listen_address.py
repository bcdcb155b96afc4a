"""The one reading of a listening address, for `serve --tcp` and `mcp --http` alike: port 0 (a port the system
picks) is an address, the host defaults to localhost's, an IPv6 host comes in brackets, and anything else is one
InvalidRequest naming the flag, never an internal error (a 5,000-digit port, a digit that is not ASCII)."""

from __future__ import annotations

import pytest

from memlens.errors import InvalidRequest, MemlensError
from memlens.listen_address import listen_address, listening_sockets, said_address


@pytest.mark.parametrize(
    ("value", "address"),
    [
        ("127.0.0.1:0", ("127.0.0.1", 0)),
        (":0", ("127.0.0.1", 0)),
        ("0", ("127.0.0.1", 0)),
        ("localhost:8765", ("localhost", 8765)),
        ("[::1]:0", ("::1", 0)),
        ("0.0.0.0:65535", ("0.0.0.0", 65535)),
    ],
)
@pytest.mark.parametrize("flag", ["--tcp", "--http"])
def test_an_address_and_port_zero_are_read_alike_for_both_servers(
    flag: str, value: str, address: tuple[str, int]
) -> None:
    assert listen_address(value, flag=flag, example_port=1) == address


@pytest.mark.parametrize("value", ["127.0.0.1:65536", "127.0.0.1:", "host:http", "127.0.0.1:-1", "9" * 5000, "h:٣"])
def test_what_is_no_address_is_one_error_naming_the_flag(value: str) -> None:
    with pytest.raises(InvalidRequest, match=r"^--http expects HOST:PORT \(e\.g\. 127\.0\.0\.1:8765"):
        listen_address(value, flag="--http", example_port=8765)


def _resolved_as(monkeypatch: pytest.MonkeyPatch, *hosts: str) -> None:
    """The resolver answering a name with these addresses: localhost as a dual-stack host's /etc/hosts has it."""
    import socket

    def getaddrinfo(host: str, port: int, *args: object, **kwargs: object) -> list[tuple[object, ...]]:
        return [
            (socket.AF_INET6 if ":" in address else socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))
            for address in hosts
        ]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def test_a_host_of_two_addresses_listens_on_one_port_on_both(monkeypatch: pytest.MonkeyPatch) -> None:
    """Port 0 on a name that resolves to 127.0.0.1 and ::1: the second address takes the port the first was given
    (binding each with port 0 would give each its own, and the port said would be the first's alone)."""
    import socket

    _resolved_as(monkeypatch, "127.0.0.1", "::1")
    sockets = listening_sockets("localhost", 0)
    try:
        ports = {sock.getsockname()[1] for sock in sockets}
        assert len(sockets) == 2 and len(ports) == 1
        assert [said_address(sock) for sock in sockets] == [f"127.0.0.1:{port}" for port in ports] + [
            f"[::1]:{port}" for port in ports
        ]
        for family, host in [(socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")]:
            with socket.socket(family) as client:
                client.connect((host, *ports))  # each address answers on the port said
    finally:
        for sock in sockets:
            sock.close()


def test_an_address_that_cannot_be_bound_is_one_error_naming_it() -> None:
    """An address in use, and a host that does not resolve: one MemlensError naming the address, nothing left bound."""
    taken = listening_sockets("127.0.0.1", 0)
    try:
        port = taken[0].getsockname()[1]
        with pytest.raises(MemlensError, match=rf"^cannot listen on 127\.0\.0\.1:{port}: address already in use$"):
            listening_sockets("127.0.0.1", port)
    finally:
        taken[0].close()
    with pytest.raises(MemlensError, match=r"^cannot listen on no-such-host\.invalid:0: "):
        listening_sockets("no-such-host.invalid", 0)
