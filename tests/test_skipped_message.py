"""The id of a request over the bound on one message, found in what is kept of it (its start and its end), so the
client can be answered; an `"id"` that is not the outermost object's is never taken for it."""

from __future__ import annotations

import pytest

from memlens.skipped_message import GLIMPSE, Glimpse, request_id

MIDDLE = b"x" * (3 * GLIMPSE)  # more than both glimpses: the start and the end never meet


def _found(message: bytes) -> object:
    glimpse = Glimpse(limit=GLIMPSE)
    for start in range(0, len(message), 1000):
        glimpse.see(message[start : start + 1000])
    return glimpse.skipped().request_id


@pytest.mark.parametrize(
    ("message", "found"),
    [
        # the MCP Python SDK: the id before the params
        (b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"q":"' + MIDDLE + b'"}}', 7),
        # the TypeScript SDKs: after them, at the end
        (b'{"method":"tools/call","params":{"q":"' + MIDDLE + b'"},"jsonrpc":"2.0","id":"abc"}', "abc"),
        (b'{"method":"m","params":{"q":"' + MIDDLE + b'"}, "id" : -3 }\r', -3),
        # an id nested in the params is not the request's
        (b'{"method":"m","params":{"id":5,"q":"' + MIDDLE + b'","item":{"id":6}}}', None),
        # nor one written inside a string
        (b'{"method":"m","params":{"q":"\\"id\\":5 ' + MIDDLE + b' \\"id\\":6}"}}', None),
        (b'{"method":"m","params":{"q":"' + MIDDLE + b'\\",\\"id\\":9}"}}', None),
        # an id that is neither a whole number nor a string
        (b'{"id":1.5,"method":"m","params":{"q":"' + MIDDLE + b'"},"id":true}', None),
        (b"y" * len(MIDDLE), None),
    ],
)
def test_the_requests_own_id_is_found_at_either_end(message: bytes, found: object) -> None:
    assert _found(message) == found


def test_a_short_message_is_read_whole() -> None:
    assert request_id(b'{"params":{"id":1},"id":2}', b'{"params":{"id":1},"id":2}') == 2
