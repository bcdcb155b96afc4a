"""The callback the index writer's long jobs report through (a sync, embedding, a rewrite of the keyword index),
declared once so the jobs and what shows them (the CLI's bar, the language server's work-done progress) agree."""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[int, int, str], None]  # (done, total, message)
