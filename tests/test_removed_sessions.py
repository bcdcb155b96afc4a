"""What removed files' sessions held (messages and chunks) is remembered within their bounds (removed_sessions.py): for
REMEMBER_SECONDS after the removal, for at most MAX_SESSIONS sessions, oldest first out. Time is a clock given in."""

from __future__ import annotations

from memlens.engine.indexing.removed_sessions import MAX_SESSIONS, REMEMBER_SECONDS, RemovedSessions, Stored


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_session_is_taken_once_and_summed_when_removed_twice() -> None:
    removed = RemovedSessions(Clock())
    removed.remember({"a": Stored(3, 1), "b": Stored(1, 1)})
    removed.remember({"a": Stored(2, 2)})
    assert removed.take(["a", None, "c"]) == Stored(5, 3)
    assert removed.take(["a", "b"]) == Stored(1, 1)
    assert len(removed) == 0


def test_a_removal_is_forgotten_after_its_time() -> None:
    clock = Clock()
    removed = RemovedSessions(clock)
    removed.remember({"old": Stored(4, 2)})
    clock.now += REMEMBER_SECONDS / 2
    removed.remember({"newer": Stored(2, 1)})
    clock.now += REMEMBER_SECONDS / 2 + 1
    assert removed.take(["old", "newer"]) == Stored(2, 1)


def test_at_most_max_sessions_are_kept_the_oldest_forgotten_first() -> None:
    removed = RemovedSessions(Clock())
    removed.remember({f"s{n}": Stored(1, 1) for n in range(MAX_SESSIONS + 5)})
    assert len(removed) == MAX_SESSIONS
    assert removed.take([f"s{n}" for n in range(5)]) == Stored()
    assert removed.take(["s5", f"s{MAX_SESSIONS + 4}"]) == Stored(2, 2)


def test_forget_before_keeps_what_was_removed_since() -> None:
    clock = Clock()
    removed = RemovedSessions(clock)
    removed.remember({"before": Stored(1, 1)})
    began = clock.now = clock.now + 1
    removed.remember({"during": Stored(1, 1)})
    removed.forget_before(began)
    assert removed.take(["before", "during"]) == Stored(1, 1)
