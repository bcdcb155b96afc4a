"""A module imported at its first use: `np = lazy_module("numpy")` costs nothing until `np.something` is read.

Start-up of a command is mostly imports: numpy (≈ 75 ms of CPU here), ONNX Runtime and a vector library are paid
only by the commands that compute with vectors, never by `stats`, `history`, `sessions` or a keyword search.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class _LazyModule:
    __slots__ = ("_name", "_module")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attribute: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attribute)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}{' (loaded)' if self._module is not None else ''}>"


def lazy_module(name: str) -> Any:
    return _LazyModule(name)
