"""What removed files' sessions held (messages and chunks) is remembered within their bounds (removed_sessions.py): for
REMEMBER_SECONDS after the removal, for at most MAX_SESSIONS sessions, oldest first out; a write claims it and takes
it only once it commits. Time is a clock given in."""

from __future__ import annotations

from collections.abc import Iterable

from memlens.engine.indexing.removed_sessions import MAX_SESSIONS, REMEMBER_SECONDS, Claims, RemovedSessions, Stored


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _take(removed: RemovedSessions, keys: Iterable[str | None]) -> Stored:
    """Claimed by one write that then commits."""
    claims: Claims = {}
    held = removed.claim(keys, claims)
    removed.settle(claims)
    return held


def test_a_session_is_taken_once_and_summed_when_removed_twice() -> None:
    removed = RemovedSessions(Clock())
    removed.remember({"a": Stored(3, 1), "b": Stored(1, 1)})
    removed.remember({"a": Stored(2, 2)})
    assert _take(removed, ["a", None, "c"]) == Stored(5, 3)
    assert _take(removed, ["a", "b"]) == Stored(1, 1)
    assert len(removed) == 0


def test_a_removal_is_forgotten_after_its_time() -> None:
    clock = Clock()
    removed = RemovedSessions(clock)
    removed.remember({"old": Stored(4, 2)})
    clock.now += REMEMBER_SECONDS / 2
    removed.remember({"newer": Stored(2, 1)})
    clock.now += REMEMBER_SECONDS / 2 + 1
    assert _take(removed, ["old", "newer"]) == Stored(2, 1)


def test_at_most_max_sessions_are_kept_the_oldest_forgotten_first() -> None:
    removed = RemovedSessions(Clock())
    removed.remember({f"s{n}": Stored(1, 1) for n in range(MAX_SESSIONS + 5)})
    assert len(removed) == MAX_SESSIONS
    assert _take(removed, [f"s{n}" for n in range(5)]) == Stored()
    assert _take(removed, ["s5", f"s{MAX_SESSIONS + 4}"]) == Stored(2, 2)


def test_forget_before_keeps_what_was_removed_since() -> None:
    clock = Clock()
    removed = RemovedSessions(clock)
    removed.remember({"before": Stored(1, 1)})
    began = clock.now = clock.now + 1
    removed.remember({"during": Stored(1, 1)})
    removed.forget_before(began)
    assert _take(removed, ["before", "during"]) == Stored(1, 1)


def test_a_claim_is_taken_only_once_its_write_commits_and_only_once_within_it() -> None:
    removed = RemovedSessions(Clock())
    removed.remember({"a": Stored(3, 1)})
    claims: Claims = {}
    assert removed.claim(["a"], claims) == Stored(3, 1)
    assert removed.claim(["a"], claims) == Stored()  # a second file of the same write: a copy, not the move
    assert removed.claim(["a"], {}) == Stored(3, 1)  # that write never committed: the next one finds it
    removed.settle(claims)
    assert removed.claim(["a"], {}) == Stored()


def test_a_notes_chunks_are_claimed_one_a_text() -> None:
    removed = RemovedSessions(Clock())
    removed.remember_note_chunks(["h1", "h2", "h2"])
    claims: Claims = {}
    assert removed.claim_note_chunks(["h1", "h2", "h3"], claims) == Stored(chunks=2)
    removed.settle(claims)
    assert removed.claim_note_chunks(["h1", "h2", "h2"], {}) == Stored(chunks=1)  # the second h2 is left
