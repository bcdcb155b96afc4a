"""The one object argument of a `workspace/executeCommand` command; its fields are checked by the command's request
schema (memlens.requests)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams


def invalid(command: str, message: str) -> JsonRpcInvalidParams:
    """An InvalidParams error whose message names the command and the problem."""
    return JsonRpcInvalidParams(message=f"{command}: {message}")


class Args:
    """The single object argument of a command, unwrapped (its fields are its request's to check)."""

    def __init__(self, command: str, arguments: Sequence[Any]) -> None:
        self.command = command
        if len(arguments) == 0 or (len(arguments) == 1 and arguments[0] is None):
            data: Any = {}
        elif len(arguments) == 1:
            data = arguments[0]
        else:
            raise invalid(command, f"expects one object argument (arguments: [{{...}}]), got {len(arguments)}")
        if data == []:  # Lua clients encode an empty table as an array
            data = {}
        if not isinstance(data, dict):
            raise invalid(command, f"the argument must be an object, not {type(data).__name__}")
        self.data: dict[str, Any] = data
