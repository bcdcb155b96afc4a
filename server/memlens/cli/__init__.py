"""The `memlens` command line (the `memlens` script runs `memlens.cli:main`): commands.py runs them, arguments.py
parses them, output.py prints for people."""

import os

# Before numpy is first imported: OpenBLAS would start a thread per core, which costs about 0.1 s of CPU in every
# command that touches vectors (a hybrid search 0.57 → 0.46 s) and buys nothing, since each query's work runs on
# one thread anyway (vector_index.single_threaded_blas). Set it yourself to override.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from memlens.cli.commands import main  # noqa: E402  (after the environment is set)

__all__ = ["main"]
