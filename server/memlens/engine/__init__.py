"""The memlens engine: sources, catalog, indexes and search. Imports nothing from the LSP, CLI or MCP layers.

`memlens.engine.Engine` is the front door every face uses. It is resolved on first use, so importing a submodule
(`memlens.engine.catalog`, a parser) does not pay for the whole engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memlens.engine.engine import Engine

__all__ = ["Engine"]


def __getattr__(name: str) -> object:
    if name == "Engine":
        from memlens.engine.engine import Engine

        return Engine
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
