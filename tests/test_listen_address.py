"""The one reading of a listening address, for `serve --tcp` and `mcp --http` alike: port 0 (a port the system
picks) is an address, the host defaults to localhost's, an IPv6 host comes in brackets, and anything else is one
InvalidRequest naming the flag, never an internal error (a 5,000-digit port, a digit that is not ASCII)."""

from __future__ import annotations

import pytest

from memlens.errors import InvalidRequest
from memlens.listen_address import listen_address


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
