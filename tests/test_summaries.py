"""Compaction summaries (grep, describe, expand) on a small synthetic OpenClaw transcript, keyword-only engine."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from memlens.engine.answers.summaries import (
    SummaryError,
    describe_summary,
    estimate_tokens,
    expand_summary,
    grep_summaries,
)
from memlens.engine.engine import Engine
from memlens.errors import InvalidPattern
from memlens.requests import MAX_PATTERN_CHARS
from memlens.settings import Settings, merge
from planted_secrets import PLANTED, leaked, leaked_fragments

SESSION = "openclaw:5e551011-0000-4000-8000-000000000001"


def _entry(kind: str, entry_id: str, parent: str | None, minute: int, **extra: object) -> dict[str, object]:
    return {"type": kind, "id": entry_id, "parentId": parent, "timestamp": f"2026-03-02T10:{minute:02d}:00Z", **extra}


def _message(entry_id: str, parent: str | None, minute: int, role: str, text: str) -> dict[str, object]:
    content = [{"type": "text", "text": text}]
    return _entry("message", entry_id, parent, minute, message={"role": role, "content": content})


def write_transcript(
    path: Path, *, last_summary: str = "Decided: webhook retries with exponential backoff, then DLQ."
) -> None:
    """Four messages, a compaction summary, two more messages and a second summary (`last_summary`)."""
    entries = [
        {"type": "session", "version": 3, "id": SESSION.split(":", 1)[1], "cwd": "/w"},
        _message("u1", None, 0, "user", "Which database should the billing service use?"),
        _message("a1", "u1", 1, "assistant", "Postgres, with pgbouncer in transaction mode. " + "detail " * 40),
        _message("u2", "a1", 2, "user", "And the token is sk-ant-api03-" + "x" * 40 + " for the staging queue?"),
        _message("a2", "u2", 3, "assistant", "Use the staging queue billing-events-stg."),
        _entry("compaction", "s1", "a2", 4, summary="Decided: Postgres with pgbouncer (transaction pooling)."),
        _message("u3", "s1", 5, "user", "Now the retry policy for webhooks?"),
        _message("a3", "u3", 6, "assistant", "Exponential backoff, five attempts, then the dead letter queue."),
        _entry("compaction", "s2", "a3", 7, summary=last_summary),
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")


def open_engine(tmp_path: Path, **transcript: str) -> Engine:
    workspace = tmp_path / "ws"
    write_transcript(workspace / "transcripts" / "session.jsonl", **transcript)
    settings = merge(Settings(), {"transcripts": {"paths": ["transcripts"], "agentDefaults": False}})
    engine = Engine([workspace], settings, index_dir=tmp_path / "index", embedder=False)
    engine.sync()
    return engine


@pytest.fixture()
def engine(tmp_path: Path) -> Iterator[Engine]:
    with open_engine(tmp_path) as opened:
        yield opened


def test_grep_finds_summaries_newest_first(engine: Engine) -> None:
    found = grep_summaries(engine.catalog, "decided")
    assert found["totalMatches"] == 2 and not found["truncated"]
    first, second = found["results"]
    assert "webhook" in first["excerpt"] and "pgbouncer" in second["excerpt"]
    assert first["sessionKey"] == SESSION and first["summaryId"].startswith("chunk:")
    assert first["timestamp"] == "2026-03-02T10:07:00Z"
    assert grep_summaries(engine.catalog, "PGBOUNCER|nothing")["totalMatches"] == 1  # case-insensitive regex
    assert grep_summaries(engine.catalog, "decided", limit=1)["truncated"]


def test_grep_ignores_messages(engine: Engine) -> None:
    assert grep_summaries(engine.catalog, "staging queue")["totalMatches"] == 0


def test_describe_covers_messages_back_to_previous_summary(engine: Engine) -> None:
    first, second = (r["summaryId"] for r in reversed(grep_summaries(engine.catalog, "decided")["results"]))
    described = describe_summary(engine.catalog, first)
    assert described["covers"]["messageCount"] == 4
    assert (described["covers"]["firstMessageId"], described["covers"]["lastMessageId"]) == ("u1", "a2")
    assert described["covers"]["from"] == "2026-03-02T10:00:00Z" and described["covers"]["to"] == "2026-03-02T10:03:00Z"
    assert described["tokens"] == estimate_tokens(described["text"])
    later = describe_summary(engine.catalog, second)
    assert later["covers"]["messageCount"] == 2 and later["covers"]["firstMessageId"] == "u3"


def test_expand_whole_and_trimmed(engine: Engine) -> None:
    first = grep_summaries(engine.catalog, "pgbouncer")["results"][0]["summaryId"]
    whole = expand_summary(engine.catalog, first)
    assert [m["messageId"] for m in whole["messages"]] == ["u1", "a1", "u2", "a2"]
    assert not whole["truncated"] and whole["omittedMessages"] == 0
    assert "sk-ant-api03" not in json.dumps(whole)  # secrets are redacted
    small = expand_summary(engine.catalog, first, token_budget=30)
    assert small["truncated"] and small["tokens"] <= 30
    assert small["messages"][-1]["messageId"] == "a2"  # the newest messages are kept first
    tiny = expand_summary(engine.catalog, first, token_budget=3)
    assert len(tiny["messages"]) == 1 and tiny["messages"][0]["truncated"]


# beyond SQLite's integers (2^63 - 1) too: an id no summary can have, not an error of the server
TOO_BIG = ["chunk:9223372036854775808", "chunk:" + "9" * 400]


@pytest.mark.parametrize(
    "bad", ["", "chunk:", "chunk:99999", "../../etc/passwd", "chunk:1 OR 1=1", "summary:1", "chunk:٣", *TOO_BIG]
)
def test_bad_ids(engine: Engine, bad: str) -> None:
    with pytest.raises(SummaryError):
        describe_summary(engine.catalog, bad)
    with pytest.raises(SummaryError):
        expand_summary(engine.catalog, bad)


def test_message_chunk_is_not_a_summary(engine: Engine) -> None:
    chunk = engine.catalog.db.execute("SELECT chunk_id FROM units WHERE kind = 'transcript' LIMIT 1").fetchone()[0]
    with pytest.raises(SummaryError, match="unknown summary"):
        describe_summary(engine.catalog, f"chunk:{chunk}")


def test_hidden_sessions_are_invisible(engine: Engine) -> None:
    summary = grep_summaries(engine.catalog, "decided")["results"][0]["summaryId"]
    engine.settings.exclude_sessions = [SESSION]
    hidden = engine.visibility()
    assert grep_summaries(engine.catalog, "decided", visibility=hidden)["totalMatches"] == 0
    with pytest.raises(SummaryError):
        describe_summary(engine.catalog, summary, hidden)
    engine.settings.exclude_sessions = []
    engine.settings.transcripts.exclude = ["*/transcripts/*"]
    with pytest.raises(SummaryError):
        expand_summary(engine.catalog, summary, visibility=engine.visibility())


def test_pattern_required(engine: Engine) -> None:
    with pytest.raises(SummaryError, match="pattern"):
        grep_summaries(engine.catalog, "  ")


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("(unbalanced", "not a valid regular expression"),
        ("x" * (MAX_PATTERN_CHARS + 1), "too long"),
        ("decided(?=:)", "RE2 does not support"),
        (r"(de)cided \1", "RE2 does not support"),
        ("(?<=x)y", "RE2 does not support"),
    ],
    ids=["unbalanced", "too-long", "lookahead", "backreference", "lookbehind"],
)
def test_bad_pattern_is_an_invalid_pattern_error(engine: Engine, pattern: str, reason: str) -> None:
    with pytest.raises(InvalidPattern, match=reason):
        grep_summaries(engine.catalog, pattern)


def test_catastrophic_patterns_get_their_answer(tmp_path: Path) -> None:
    """Patterns on which a backtracking engine (Python's re) runs for ages where a run of a's is cut short: RE2
    answers them (a backtracking engine would hang here; backreferences and lookarounds, which need one, are
    refused: test_bad_pattern_is_an_invalid_pattern_error)."""
    with open_engine(tmp_path, last_summary="Decided: " + "a" * 50_000 + "!") as opened:

        def matches(pattern: str) -> int:
            return int(grep_summaries(opened.catalog, pattern)["totalMatches"])

        assert matches("(a+)+$") == matches("a$")  # the same language as a plain pattern: the same answer
        assert matches("(x+x+)+y") == matches("xx+y")
        assert matches("(a+)+!") == 1


def test_secret_straddling_the_window_edge_never_leaks(tmp_path: Path) -> None:
    secrets = "\n".join(p.text for p in PLANTED)
    with open_engine(tmp_path, last_summary=f"Decided: rotate these.\n{secrets}") as opened:
        excerpts = [
            grep_summaries(opened.catalog, "rotate these", excerpt_chars=chars)["results"][0]["excerpt"]
            for chars in range(12, 4000, 7)
        ]
    assert any("[REDACTED:" in excerpt[-40:] for excerpt in excerpts)  # some windows do end inside a marker
    for excerpt in excerpts:
        assert leaked_fragments(excerpt, length=6, planted=[p for p in PLANTED if len(p.secret) >= 12]) == []


def test_expand_cut_never_leaks_part_of_a_secret(tmp_path: Path) -> None:
    with open_engine(tmp_path) as opened:
        first = grep_summaries(opened.catalog, "pgbouncer")["results"][0]["summaryId"]
        for budget in range(1, 40):
            expanded = json.dumps(expand_summary(opened.catalog, first, token_budget=budget))
            assert "api03-xxxx" not in expanded and "xxxxxx" not in expanded


def test_grep_cannot_probe_for_secrets(engine: Engine) -> None:
    assert grep_summaries(engine.catalog, "sk-ant")["totalMatches"] == 0
    assert not leaked(json.dumps(grep_summaries(engine.catalog, "decided")))
