"""memlens: search AI coding agents' memory notes and transcripts, offline."""

__version__ = "0.2.0"
