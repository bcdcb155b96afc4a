"""The hover's markdown: per hit a score, the title as a link that opens it, the date and where it is from."""

from __future__ import annotations

from memlens.lsp.hover import render
from memlens.wire import SearchResult


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
        "- **87%** [pgbouncer \\[keeps\\] dropping](memlens-transcript:/claude-code%3Aabc%2Fx.md?message=m%201)"
        " · 2026-02-05 · claude-code · user  " in text
    )
    assert "  the \\*pool\\* is full" in text
    assert "- **60%** [Deploys](file:///ws/MEMORY.md#L12) · MEMORY.md:12  " in text
