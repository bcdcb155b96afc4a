"""The hover's markdown: per hit a score, a link that opens it labelled by the hit's own first words (the session's
title as the link's title), the date and where it is from."""

from __future__ import annotations

from memlens.lsp.hover import hover_zone, render
from memlens.wire import SearchResult
from planted_secrets import PLANTED


def test_render_uses_titles_dates_and_links() -> None:
    results: list[SearchResult] = [
        {
            "id": "unit:1",
            "kind": "transcript",
            "score": 0.873,
            "sessionKey": "claude-code:abc/x",
            "messageId": "m 1",
            "title": "pgbouncer [keeps] dropping",
            "timestamp": "2026-02-05T11:32:00Z",
            "format": "claude-code",
            "role": "user",
            "excerpt": "the *pool*\nis full",
            "path": "/t.jsonl",
            "relPath": "t.jsonl",
        },
        {
            "id": "unit:2",
            "kind": "memory",
            "score": 0.6,
            "path": "/ws/MEMORY.md",
            "relPath": "MEMORY.md",
            "lineStart": 12,
            "heading": "Deploys",
            "excerpt": "pool size",
        },
    ]
    text = render("use_pgbouncer", results)
    assert text.startswith("**memlens** · recall for `use_pgbouncer`")
    assert (
        "- **87%** [the \\*pool\\* is full](memlens-transcript:/claude-code%3Aabc%2Fx.md?message=m%201"
        ' "pgbouncer [keeps] dropping") · 2026-02-05 · claude-code · user  ' in text
    )
    assert "- **60%** [Deploys](file:///ws/MEMORY.md#L12) · MEMORY.md:12  " in text


def test_hits_of_one_session_read_apart_by_their_own_words() -> None:
    """Three hits of a session whose first prompt is long: each link reads the hit's words, the rest follows."""
    title = 'Work on bead spotter-dov. Run "bd show" first'
    excerpts = [
        "The spotter service drops frames when the queue is over forty thousand entries and nobody notices it",
        "Fixed it by bounding the queue",
        "Added a test that floods the queue",
    ]
    results: list[SearchResult] = [
        {
            "id": f"unit:{n}",
            "kind": "transcript",
            "score": 0.5,
            "sessionKey": "claude-code:abc",
            "messageId": f"m{n}",
            "title": title,
            "timestamp": None,
            "format": "claude-code",
            "role": "assistant",
            "excerpt": excerpt,
            "path": "/t.jsonl",
            "relPath": "t.jsonl",
        }
        for n, excerpt in enumerate(excerpts)
    ]
    text = render("spotterQueue", results)
    labels = [line.split("[", 1)[1].split("](", 1)[0] for line in text.splitlines() if line.startswith("- ")]
    assert labels == [
        "The spotter service drops frames when the queue is over…",
        "Fixed it by bounding the queue",
        "Added a test that floods the queue",
    ]
    assert text.count(' "Work on bead spotter-dov. Run \\"bd show\\" first")') == 3
    assert "  …forty thousand entries and nobody notices it" in text


def test_dates_are_days_in_the_display_time_zone() -> None:
    """`display.timeZone` decides the day a hit is shown on, as in the client; empty or unknown: the machine's."""
    late: SearchResult = {
        "id": "unit:3",
        "kind": "transcript",
        "score": 0.5,
        "sessionKey": "codex:late",
        "messageId": "m",
        "timestamp": "2026-02-05T23:30:00Z",
        "format": "codex",
        "role": "assistant",
        "excerpt": "late reply",
        "path": "/t.jsonl",
        "relPath": "t.jsonl",
    }
    assert " · 2026-02-06 · codex" in render("late", [late], zone=hover_zone("Asia/Tokyo"))
    assert " · 2026-02-05 · codex" in render("late", [late], zone=hover_zone("America/New_York"))
    assert " · 2026-02-05 · codex" in render("late", [{**late, "timestamp": "2026-02-05T23:30:00"}], zone=None)
    assert " · garbage-ti · codex" in render("late", [{**late, "timestamp": "garbage-time"}])
    assert hover_zone("") is None and hover_zone("Mars/Olympus") is None


def test_a_command_output_is_named_as_output_not_by_the_role_that_carried_it() -> None:
    output: SearchResult = {
        "id": "unit:9",
        "kind": "tool",
        "score": 0.7,
        "sessionKey": "claude-code:abc",
        "messageId": "r1",
        "timestamp": "2026-02-05T11:32:00Z",
        "format": "claude-code",
        "role": "user",  # Claude Code sends a tool's result in a message of the user's role
        "excerpt": "[Bash output] 10 passed in 0.58s",
        "path": "/t.jsonl",
        "relPath": "t.jsonl",
    }
    text = render("pytest", [output])
    assert "· 2026-02-05 · claude-code · tool output  " in text and "· user" not in text


def test_a_token_under_the_cursor_is_masked_in_the_hovers_heading() -> None:
    """The hovered word is the query, and a hover over a `.env` line's value searches for the token there: the
    heading that names what was recalled masks it, as every answer does."""
    token = next(p.secret for p in PLANTED if p.kind == "github-pat-classic")
    hit: SearchResult = {
        "id": "unit:1",
        "kind": "memory",
        "score": 0.6,
        "path": "/ws/MEMORY.md",
        "relPath": "MEMORY.md",
        "lineStart": 1,
        "excerpt": "deploy keys",
    }
    text = render(token, [hit])
    assert token not in text and text.startswith("**memlens** · recall for `[REDACTED:github-token]`")
