"""Entry point for `python -m memlens`."""

from memlens.cli import main

raise SystemExit(main())
