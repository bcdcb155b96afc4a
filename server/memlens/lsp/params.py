"""Validation of `workspace/executeCommand` arguments: one JSON object, typed fields, clear error messages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams


def invalid(command: str, message: str) -> JsonRpcInvalidParams:
    """An InvalidParams error whose message names the command and the problem."""
    return JsonRpcInvalidParams(message=f"{command}: {message}")


class Args:
    """The single object argument of a command, read field by field."""

    def __init__(self, command: str, arguments: Sequence[Any], fields: Sequence[str]) -> None:
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
        unknown = sorted(set(data) - set(fields))
        if unknown:
            raise invalid(command, f"unknown field(s) {', '.join(unknown)}; expected {', '.join(fields) or 'none'}")
        self.data: dict[str, Any] = data

    def error(self, message: str) -> JsonRpcInvalidParams:
        return invalid(self.command, message)

    def text(self, name: str, required: bool = False, default: str | None = None) -> str | None:
        value = self.data.get(name)
        if value is None:
            if required:
                raise self.error(f"{name} is required (a non-empty string)")
            return default
        if not isinstance(value, str):
            raise self.error(f"{name} must be a string, not {type(value).__name__}")
        if required and not value.strip():
            raise self.error(f"{name} must not be empty")
        return value

    def required_text(self, name: str) -> str:
        value = self.text(name, required=True)
        assert value is not None
        return value

    def integer(self, name: str, default: int | None, low: int = 1, high: int = 1_000_000) -> int | None:
        value = self.data.get(name)
        if value is None:
            return default
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.error(f"{name} must be an integer, not {value!r}")
        if not low <= value <= high:
            raise self.error(f"{name} must be between {low} and {high}, not {value}")
        return value

    def number(self, name: str, low: float, high: float) -> float | None:
        value = self.data.get(name)
        if value is None:
            return None
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not low <= value <= high:
            raise self.error(f"{name} must be a number between {low} and {high}, not {value!r}")
        return float(value)

    def flag(self, name: str, default: bool = False) -> bool:
        value = self.data.get(name)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.error(f"{name} must be true or false, not {value!r}")
        return value

    def choice(self, name: str, allowed: Sequence[str]) -> str | None:
        value = self.data.get(name)
        if value is None:
            return None
        if value not in allowed:
            raise self.error(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
        return str(value)

    def mapping(self, name: str) -> dict[str, Any] | None:
        value = self.data.get(name)
        if value is None:
            return None
        if not isinstance(value, dict):
            raise self.error(f"{name} must be an object, not {type(value).__name__}")
        return value
