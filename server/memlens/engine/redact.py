"""The stable import path of redaction: ``from memlens.engine.redact import redact``.

The detectors live in ``memlens.engine.redaction``; this module only re-exports its public API.
"""

from __future__ import annotations

from memlens.engine.redaction import Span, find_secrets, marker, redact, redact_sequence, redact_title

__all__ = ["Span", "find_secrets", "marker", "redact", "redact_sequence", "redact_title"]
