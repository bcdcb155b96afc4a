"""The `memlens` command line (the `memlens` script runs `memlens.cli:main`): commands.py runs them, arguments.py
parses them, output.py prints for people."""

from memlens.cli.commands import main

__all__ = ["main"]
