"""The `memlens` script's first code (and `python -m memlens`'s). The command line's modules and its parser take a
few tenths of a second to load, and a Ctrl-C then is outside every command's handling: Python would print a
traceback from wherever it landed (an import, a regular expression being compiled). Here it ends the command as one
at any later point does: one line, exit 130. Nothing is imported before the `try` (the interpreter's own start, a few
hundredths of a second, is Python's)."""

from __future__ import annotations

import sys  # (built in: loaded with the interpreter)

EXIT_CTRL_C = 130  # 128 + SIGINT, as a shell reports it (the `signal` module would be one more import to load first)


def main(argv: list[str] | None = None) -> int:
    """Run the command line (`memlens.cli.main`), a Ctrl-C while it loads said in one line."""
    try:
        from memlens.cli import main as command_line

        return command_line(argv)
    except KeyboardInterrupt:
        print("memlens: interrupted", file=sys.stderr)
        return EXIT_CTRL_C
