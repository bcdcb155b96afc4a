"""Entry point for `python -m memlens`."""

from memlens.script import main

raise SystemExit(main())
