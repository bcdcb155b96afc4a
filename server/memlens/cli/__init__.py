"""The `memlens` command line (the `memlens` script runs `memlens.cli:main` through `memlens.script`): commands.py
runs them, arguments.py parses them, output.py prints for people."""

import os

# Before numpy is first imported: OpenBLAS would start a thread per core, which costs about 0.1 s of CPU in every
# command that touches vectors (a hybrid search 0.57 → 0.46 s) and buys nothing, since each query's work runs on
# one thread anyway (vector_index.single_threaded_blas). Set it yourself to override.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from memlens.cli.standard_streams import reopen_closed_standard_streams  # noqa: E402

reopen_closed_standard_streams()  # before any import opens a file that could take a closed stream's descriptor

import contextlib  # noqa: E402
import logging  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402

from memlens.cli import commands  # noqa: E402  (after the environment is set)
from memlens.cli.arguments import build_parser  # noqa: E402
from memlens.stop_signal import treat_sigterm_as_ctrl_c  # noqa: E402

__all__ = ["main"]

# Commands that serve until they are stopped: their ending is not on the path anyone waits for, and the interpreter's
# own shutdown (joining threads, closing what is left) is theirs to have.
SERVING = frozenset({"serve", "watch", "mcp"})


def main(argv: list[str] | None = None) -> int:
    """The `memlens` script: one command (`commands.main`). A command that has finished its work then ends the
    process at once, as mypy does (its `--fast-exit`): the interpreter's teardown frees every object and module
    one by one (the index's state, the model, faiss, numpy), about 0.04 s of CPU after a search at a million
    messages, and nothing of it is needed once the output is flushed and the index closed (commands close it
    before they return). A server, or any thread still running, gets the ordinary exit."""
    treat_sigterm_as_ctrl_c()  # first: a SIGTERM at any later point stops the command as Ctrl-C would
    commands.show_what_the_output_can()
    args = build_parser().parse_args(argv)
    status = commands.run(args)
    if args.command not in SERVING and threading.active_count() == 1:
        logging.shutdown()  # what the ordinary exit would flush
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):  # a closed pipe: its output was cut off already
                stream.flush()
        os._exit(status)
    return status
