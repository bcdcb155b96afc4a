"""The callback the index writer's long jobs report through (a sync, embedding, a rewrite of the keyword index),
declared once so the jobs and what shows them (the CLI's bar, the language server's work-done progress) agree;
and the rate and time left a long job states in its message (`RateMeter`)."""

from __future__ import annotations

import time
from collections.abc import Callable

Progress = Callable[[int, int, str], None]  # (done, total, message)


def duration_left(seconds: float) -> str:
    """A short, rounded duration: `<1 min`, `12 min`, `3 h 05 min`."""
    minutes = round(seconds / 60)
    if minutes < 1:
        return "<1 min"
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


RATE_AFTER_SECONDS = 1.0
"""A rate is told once the job has run this long: one over a few milliseconds (a sync that found nothing to read
checks its files in a blink) said "503,098/s" and is gone before anyone reads it."""


class RateMeter:
    """Items per second of wall time since the job started, and the time its remaining items will take at that
    rate: what a person watching a long job (a cold index's embedding) wants to know besides the count."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, *, already: int = 0) -> None:
        self.clock = clock
        self.started = clock()
        self.already = already  # items done before it started (a sync's unchanged files): not in the rate

    def status(self, done: int, total: int) -> str:
        """`1,234/50,000 · 38/s · 21 min left` (the rate once there is one to tell; the time left until done)."""
        count = f"{done:,}/{max(total, done):,}"
        elapsed = self.clock() - self.started
        if done <= self.already or elapsed < RATE_AFTER_SECONDS:
            return count
        rate = (done - self.already) / elapsed
        shown = f"{rate:,.0f}" if rate >= 10 else f"{rate:.1f}"
        if done >= total:
            return f"{count} · {shown}/s"
        return f"{count} · {shown}/s · {duration_left((total - done) / rate)} left"
